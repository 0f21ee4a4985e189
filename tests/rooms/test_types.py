"""The room types of decisions.md's table: rules and settlement, with concrete numbers."""

import itertools

import pytest

from game.records import WinRecord
from game.settlement import SETTLEMENTS, settle
from rooms.types import DAZHONG, GUOBIAO, ROOM_TYPES, WUFAN, rules_for


def win(winner, payer, total, robbed=False):
    # Only winner, payer and total take part in a settlement.
    return WinRecord(winner, payer, 0, None, None, (), total, robbed)


def pay(room, w):
    return settle(w, rules_for(room))


def test_types_registered():
    assert set(ROOM_TYPES) == {WUFAN, GUOBIAO, DAZHONG}
    for name in ROOM_TYPES:
        assert name in SETTLEMENTS
        assert rules_for(name).settlement == name


def test_wufan_self_draw_10_from_each():
    assert pay(WUFAN, win(2, None, 0)) == (-10, -10, 30, -10)


def test_wufan_discard_10_from_the_discarder_only():
    assert pay(WUFAN, win(2, 0, 0)) == (-10, 0, 10, 0)


def test_wufan_ignores_fans():
    assert pay(WUFAN, win(1, None, 40)) == (-10, 30, -10, -10)


def test_guobiao_self_draw_8_plus_fans_from_each():
    assert pay(GUOBIAO, win(0, None, 12)) == (60, -20, -20, -20)


def test_guobiao_discard_8_plus_fans_from_the_discarder_8_from_the_others():
    assert pay(GUOBIAO, win(3, 1, 12)) == (-8, -20, -8, 36)


def test_dazhong_self_draw_fans_from_each():
    assert pay(DAZHONG, win(1, None, 5)) == (-5, 15, -5, -5)


def test_dazhong_discard_fans_from_the_discarder_only():
    assert pay(DAZHONG, win(1, 3, 5)) == (0, 5, 0, -5)


@pytest.mark.parametrize("room", [WUFAN, GUOBIAO, DAZHONG])
def test_robbing_the_kong_is_paid_by_the_robbed_player_as_discarder(room):
    robbed = pay(room, win(0, 2, 9, robbed=True))
    assert robbed == pay(room, win(0, 2, 9))
    assert robbed[2] < 0 and robbed[2] == min(robbed)


@pytest.mark.parametrize("room", [WUFAN, GUOBIAO, DAZHONG])
def test_exhaustive_draw_pays_nothing(room):
    assert pay(room, None) == (0, 0, 0, 0)


@pytest.mark.parametrize("room", [WUFAN, GUOBIAO, DAZHONG])
def test_every_settlement_is_zero_sum(room):
    for winner, payer, total in itertools.product(range(4), [None, 0, 1, 2, 3], [0, 1, 8, 13, 88, 300]):
        if payer == winner:
            continue
        p = SETTLEMENTS[room](win(winner, payer, total), rules_for(room))
        assert sum(p) == 0
        assert p[winner] >= 0


def test_rules_per_type():
    wufan, guobiao, dazhong = rules_for(WUFAN), rules_for(GUOBIAO), rules_for(DAZHONG)
    assert (wufan.min_fan, wufan.count_fans, wufan.declare_ready) == (0, False, False)
    assert (guobiao.min_fan, guobiao.count_fans, guobiao.pair_258_points, guobiao.declared_ready_points) == (8, True, 0, 0)
    assert (dazhong.min_fan, dazhong.count_fans, dazhong.declare_ready) == (0, True, True)
    assert (dazhong.pair_258_points, dazhong.declared_ready_points) == (1, 1)
    assert rules_for(DAZHONG, pair_258_points=2, declared_ready_points=3).pair_258_points == 2
    assert rules_for(GUOBIAO, hands=4, false_win_penalty=True).hands == 4
    with pytest.raises(ValueError):
        rules_for("mahjong")
