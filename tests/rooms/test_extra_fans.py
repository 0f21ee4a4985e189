"""大众馆's extra fans, 258将 and 听 (decisions.md "The two extra fans"), and their path into a win."""

import pytest

from game.actions import Discard
from game.extra_fans import extra_fans, pair_of
from game.fans.context import WinContext
from game.hand import parse_hand
from game.rules import Rules
from game.scoring import FanScore, score
from rooms.types import DAZHONG, GUOBIAO, rules_for

from tests.game.scenario import T, Table

DAZHONG_RULES = rules_for(DAZHONG)
PAIR = FanScore(None, "258将", "Pair of 2, 5 or 8", 1, 1, ())
TING = FanScore(None, "听", "Declared Ready", 1, 1, ())


def scored(text, **ctx):
    hand, win = parse_hand(text)
    return score(hand, WinContext(win, **ctx))


@pytest.mark.parametrize("text", [
    "123m 456m 789p 345s 5s +5s",  # 55s
    "[234m] [555p] 345s 678s 8m +8m",  # 88m with melds
    "123m 456m 789p 345s 2p +2p",  # 22p
    "147m 258p 369s 123s 5m +5m",  # the 组合龙 form counts as regular
])
def test_pair_of_2_5_or_8_scores(text):
    assert extra_fans(scored(text), DAZHONG_RULES, False) == [PAIR]


@pytest.mark.parametrize("text", [
    "123m 456m 789p 456s 3s +3s",  # 33s
    "123m 456m 789p 456s E +E",  # an honor pair
    "123m 456m 789p 345s 9s +9s",  # 99s
    "22m 55m 88m 33s 44s 66p 7p +7p",  # 七对 has no pair to speak of (not the regular form)
])
def test_other_pairs_and_forms_do_not(text):
    assert extra_fans(scored(text), DAZHONG_RULES, False) == []


@pytest.mark.parametrize("text, fan", [
    ("123m 123m 789m 789m 5m +5m", "一色双龙会"),  # 13
    ("123m 789m 123s 789s 5p +5p", "三色双龙会"),  # 29
    ("345m 456s 555p 567m 5s +5s", "全带五"),  # 31
])
def test_not_with_the_fans_that_imply_it(text, fan):
    sc = scored(text)
    assert fan in [f.name for f in sc.fans] and pair_of(sc) is not None
    assert extra_fans(sc, DAZHONG_RULES, False) == []


def test_declared_ready_scores_ting():
    sc = scored("123m 456m 789p 456s 3s +3s")
    assert extra_fans(sc, DAZHONG_RULES, True) == [TING]
    assert extra_fans(scored("123m 456m 789p 345s 5s +5s"), DAZHONG_RULES, True) == [PAIR, TING]
    assert extra_fans(None, DAZHONG_RULES, True) == [TING]  # a room counting no fans still knows 听


def test_points_come_from_the_rules_and_zero_turns_them_off():
    sc = scored("123m 456m 789p 345s 5s +5s")
    assert extra_fans(sc, rules_for(GUOBIAO), True) == []
    assert extra_fans(sc, Rules(), True) == []
    custom = rules_for(DAZHONG, pair_258_points=2, declared_ready_points=3)
    assert extra_fans(sc, custom, True) == [
        FanScore(None, "258将", "Pair of 2, 5 or 8", 2, 1, ()), FanScore(None, "听", "Declared Ready", 3, 1, ())]


def test_a_dazhong_win_counts_both_in_its_total():
    rules = rules_for(DAZHONG, flowers=False)
    t = Table(["123m 456m 789m 55s SS N", "", "", ""], draws="F F C S", rules=rules)
    t.act(0, Discard(T("N"), ready=True))  # 报听, waiting on 5s or S
    t.pass_all()
    for seat in (1, 2, 3):
        t.drop_drawn(seat)
    assert t.state.drawn == T("S")
    t.win(0)
    win = t.result.win
    extras = [f for f in win.fans if f.id is None]
    assert extras == [PAIR, TING]
    assert win.total == sum(f.points * f.count for f in win.fans)
    assert t.result.payments == (3 * win.total, -win.total, -win.total, -win.total)


def test_a_guobiao_win_has_no_extra_fans():
    t = Table(["123m 456m 789m 55s SS N", "", "", ""], draws="F F C S", rules=Rules(flowers=False, min_fan=0))
    t.discard(0, "N")
    t.pass_all()
    for seat in (1, 2, 3):
        t.drop_drawn(seat)
    t.win(0)
    assert all(f.id is not None for f in t.result.win.fans)


@pytest.mark.parametrize("self_drawn, total", [(True, 10), (False, 8)])
def test_the_worked_example_of_docs_rules_md(self_drawn, total):
    sc = scored("123m 456m 789p 345s 5s +5s", self_drawn=self_drawn, flowers=1)
    assert sc.total + sum(f.points for f in extra_fans(sc, DAZHONG_RULES, True)) == total
