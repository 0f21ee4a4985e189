"""One scenario per procedure rule of decisions.md items 7-14 (and 报听), from scripted walls."""

import pytest

from game.actions import PASS, PUNG, READY_DISCARDS, WIN, ConcealedKong, Discard
from game.fans.table import FULLY_CONCEALED_HAND, LAST_TILE_CLAIM, LAST_TILE_DRAW, OUT_WITH_REPLACEMENT_TILE, SELF_DRAWN
from game.rules import Rules
from game.state import CLAIM, OVER, TURN, auto_action, legal_actions, pending, start_hand, step
from game.tiles import is_flower

from tests.game.scenario import NO_FLOWERS, T, Table, check_sizes, full_census, tile_census

ANY = Rules(flowers=False, min_fan=0)
FLOWERS_ANY = Rules(min_fan=0)
JUNK = "19m 19s 19p NN CCFF P"  # a hand that claims nothing in these scenarios
JUNK_NO_9S = "19m 18s 19p NN CCFF P"


def fan_ids(win) -> set:
    return {f.id for f in win.fans}


# ---- item 7: 144 tiles, deal 13/13/13/14, initial 补花 in seat order from the tail --------------


def test_item7_144_tiles_deal_13_13_13_14():
    s, events = start_hand(Rules(), seed=11, dealer=1)
    assert len(s.wall) == 144 and tile_census(s) == full_census(Rules())
    check_sizes(s)
    assert s.phase == TURN and s.turn == 1 and s.drawn in s.concealed[1]
    deals = [e for e in events if e["t"] == "deal"]
    assert [e["seat"] for e in deals] == [1, 2, 3, 0] and [e["count"] for e in deals] == [14, 13, 13, 13]
    assert not any(is_flower(t) for c in s.concealed for t in c)
    assert s.tail == 144 - sum(len(f) for f in s.flowers)  # every replacement came from the tail


def test_item7_136_tiles_without_flowers():
    s, _ = start_hand(NO_FLOWERS, seed=11)
    assert len(s.wall) == 136 and s.remaining == 136 - 53 and s.flowers == ((), (), (), ())


def test_item7_initial_flower_replacement_dealer_south_west_north_repeated():
    # Dealer holds 1h and its replacement is 2h (another flower); west holds 3h.
    t = Table(["1h 123m 456m 789m 11s E", "", "3h 123p 456p 789p 22s", ""], replacements="2h 5s 6s",
              rules=FLOWERS_ANY)
    got = [(e["t"], e["seat"], e["tile"]) for e in t.events if e["t"] in ("flower", "draw")]
    assert got == [
        ("flower", 0, T("1h")), ("draw", 0, T("2h")),  # round 1: dealer, then west
        ("flower", 2, T("3h")), ("draw", 2, T("5s")),
        ("flower", 0, T("2h")), ("draw", 0, T("6s")),  # round 2: the replacement was a flower
    ]
    s = t.state
    assert s.flowers[0] == (T("1h"), T("2h")) and s.flowers[2] == (T("3h"),)
    assert T("6s") in s.concealed[0] and T("5s") in s.concealed[2]
    check_sizes(s)


def test_flower_chain_during_play():
    t = Table(["123m 456m 789m 11s EE N", "", "", ""], draws="1h", replacements="2h 5m", rules=FLOWERS_ANY)
    t.discard(0, "N")
    t.pass_all()
    s = t.state
    assert s.turn == 1 and s.drawn == T("5m") and s.flowers[1] == (T("1h"), T("2h"))
    assert not s.kong_draw
    flowers = [(e["tile"], e["source"]) for e in t.events if e["t"] == "flower"]
    assert flowers == [(T("1h"), "wall"), (T("2h"), "tail")]


def test_flower_on_a_kong_replacement_win_is_only_self_drawn():
    # R98 #46 "不包括补花": the kong's replacement is a flower, the win comes on its replacement.
    t = Table(["9999s 123m 456m 789m W", JUNK_NO_9S, "", ""], replacements="1h W", rules=FLOWERS_ANY)
    t.act(0, ConcealedKong(T("9s")))
    assert t.state.drawn == T("W") and not t.state.kong_draw
    t.win(0)
    win = t.result.win
    assert win.self_drawn and not win.ctx.kong
    assert OUT_WITH_REPLACEMENT_TILE not in fan_ids(win)
    assert fan_ids(win) & {SELF_DRAWN, FULLY_CONCEALED_HAND}


# ---- item 10: kongs ---------------------------------------------------------------------------


def test_item10_kong_replacement_from_the_tail_and_out_with_replacement_tile():
    t = Table(["9999s 123m 456m 789m W", JUNK_NO_9S, "", ""], replacements="W", rules=ANY)
    assert ConcealedKong(T("9s")) in t.legal(0)  # the dealer's 14th tile counts as a draw
    events = t.act(0, ConcealedKong(T("9s")))
    assert [e["source"] for e in events if e["t"] == "draw"] == ["tail"]
    t.win(0)
    win = t.result.win
    assert win.ctx.kong and OUT_WITH_REPLACEMENT_TILE in fan_ids(win)


def test_item10_kong_on_the_last_tile():
    # Seat 2 makes the 82nd draw, leaving one tile; its kong takes that tile: 杠上开花 + 妙手回春.
    t = Table(["", "", "9999s 123m 456m 789m", JUNK_NO_9S], replacements="W W", rules=NO_FLOWERS)
    t.cycle_until(1)
    s = t.state
    assert s.turn == 2 and s.remaining == 1 and s.drawn == T("W")
    assert ConcealedKong(T("9s")) in t.legal(2)
    t.act(2, ConcealedKong(T("9s")))
    assert t.state.remaining == 0 and t.state.kong_draw
    t.win(2)
    win = t.result.win
    assert win.ctx.kong and win.ctx.last_tile
    assert {OUT_WITH_REPLACEMENT_TILE, LAST_TILE_DRAW} <= fan_ids(win)


# ---- item 11: the last tile ---------------------------------------------------------------------


def _last_tile_table() -> Table:
    # Seat 3 makes the 83rd (last) draw: 5s, kept for the end; seat 3 holds 1111p; seat 0 holds 55s;
    # seat 1 waits on 5s.
    t = Table(["55s 24p 68p 9p EEE S W C F", "123m 456m 789m 46s NN", "19m 19s 28p NN CCFF P", "1111p 234s 789s W CF"],
              replacements="5s", rules=ANY)
    t.cycle_until(0)
    return t


def test_item11_no_kong_after_the_last_draw():
    t = _last_tile_table()
    s = t.state
    assert s.turn == 3 and s.remaining == 0 and s.drawn == T("5s")
    assert all(type(a) is Discard or a == WIN for a in t.legal(3))  # 1111p held, no kong now


def test_item11_final_discard_only_for_a_win_last_tile_claim():
    t = _last_tile_table()
    t.discard(3, "5s")
    s = t.state
    assert s.phase == CLAIM and t.legal(0) == (PASS,)  # 55s held, but no pung on the final discard
    assert t.legal(1) == (WIN, PASS)
    t.win(1)
    t.pass_all()
    win = t.result.win
    assert win.ctx.last_tile and LAST_TILE_CLAIM in fan_ids(win)


def test_item11_final_discard_unclaimed_is_an_exhaustive_draw_paying_nothing():
    t = _last_tile_table()
    t.discard(3, "5s")
    t.pass_all()
    assert t.state.phase == OVER and t.result.win is None
    assert t.result.payments == (0, 0, 0, 0) and t.result.penalties == (0, 0, 0, 0)


def test_item11_flower_as_the_last_wall_tile_ends_in_a_draw():
    # Seat 1 holds seven flowers, replaced from the scripted tail; the eighth is the last live tile.
    t = Table(["", "1h2h3h4h5h6h7h 123m 456m", "", ""], replacements="1234567p", rules=FLOWERS_ANY)
    assert len(t.state.flowers[1]) == 7
    t.cycle_until(1)
    seat = t.state.turn
    t.drop_drawn(seat)
    s = t.state
    assert s.phase == OVER and s.result.win is None and s.remaining == 0
    last = [e for e in t.events if e["t"] == "flower"][-1]
    assert last["tile"] == T("8h") and last["seat"] == (seat + 1) % 4 and last["source"] == "wall"
    assert T("8h") in s.flowers[(seat + 1) % 4]


def test_item11_self_draw_on_the_last_tile():
    t = Table(["", "", "", "123m 456m 789m 123s E"], replacements="E", rules=ANY)
    t.cycle_until(0)
    assert t.state.turn == 3 and t.state.drawn == T("E")
    t.win(3)
    assert t.result.win.ctx.last_tile and LAST_TILE_DRAW in fan_ids(t.result.win)


# ---- item 12: wins the server cannot validate don't exist; training mode -------------------------

LOW_HAND = "234m 345p 567s 678s 9m"  # on 9m: 门前清 平和 单钓将, 5 fans
FIFTEEN_DEALER = "9m 147p 258s 369s EESS"


def test_item12_win_offered_only_when_complete_and_meeting_the_minimum():
    t = Table([FIFTEEN_DEALER, LOW_HAND, JUNK, ""], rules=Rules(flowers=False))
    t.discard(0, "9m")
    assert WIN not in t.legal(1)
    t = Table([FIFTEEN_DEALER, LOW_HAND, JUNK, ""], rules=ANY)
    t.discard(0, "9m")
    assert WIN in t.legal(1)
    t = Table([FIFTEEN_DEALER, "123m 456m 789m 123s 9m", JUNK, ""], rules=Rules(flowers=False))
    t.discard(0, "9m")
    assert WIN in t.legal(1)  # 清龙


def test_item12_self_draw_under_the_minimum_is_not_offered():
    t = Table([FIFTEEN_DEALER, LOW_HAND, JUNK, ""], draws="9m", rules=Rules(flowers=False))
    t.discard(0, "E")
    t.pass_all()
    assert t.state.drawn == T("9m") and WIN not in t.legal(1)


TRAINING = Rules(flowers=False, false_win_penalty=True)


def test_item12_training_false_win_not_ready_pays_20_to_each():
    t = Table([JUNK + " 5p", LOW_HAND, "", ""], rules=TRAINING)
    assert WIN in t.legal(0)  # declared freely in training mode
    t.win(0)
    s = t.state
    assert s.phase == TURN and s.turn == 0 and s.blocked[0] and WIN not in t.legal(0)
    assert s.fouls == ((0, "false_win", 20),)
    t.discard(0, "5p")
    t.pass_all()
    t.cycle_until(0)
    t.drop_drawn(t.state.turn)
    assert t.result.penalties == (-60, 20, 20, 20) and t.result.payments == (0, 0, 0, 0)


def test_item12_training_wrong_win_under_the_minimum_pays_10_to_each():
    t = Table([FIFTEEN_DEALER, LOW_HAND, JUNK, ""], rules=TRAINING)
    t.discard(0, "9m")
    t.win(1)
    t.pass_all()
    s = t.state
    assert s.phase == TURN and s.turn == 1 and s.blocked[1]  # play goes on; seat 1 draws next
    assert s.fouls == ((1, "wrong_win", 10),)


def test_item12_training_ready_but_wrong_tile_is_a_wrong_win():
    t = Table(["5p 147m 258s 369s EESS", LOW_HAND, JUNK, ""], rules=TRAINING)
    t.discard(0, "5p")
    t.win(1)
    t.pass_all()
    assert t.state.fouls == ((1, "wrong_win", 10),)


def test_item12_training_a_real_win_is_scored_normally():
    t = Table([FIFTEEN_DEALER, "123m 456m 789m 123s 9m", JUNK, ""], rules=TRAINING)
    t.discard(0, "9m")
    t.win(1)
    t.pass_all()
    assert t.result.win.winner == 1 and t.result.penalties == (0, 0, 0, 0)


# ---- item 13: 停和 ------------------------------------------------------------------------------


def _blocked_dealer(rules: Rules) -> Table:
    """Seat 0 declares a false win first thing, discards, then seat 1 draws and discards N."""
    t = Table(["NN 19m 19s 19p CCFF P 5p", "", "", ""], draws="N", rules=rules)
    t.win(0)
    t.discard(0, "5p")
    t.pass_all()
    t.discard(1, "N")
    return t


def test_item13_blocked_player_may_still_claim_by_default():
    t = _blocked_dealer(TRAINING)
    assert t.legal(0) == (PUNG, PASS)  # no 和 for a 停和 seat, but a pung


def test_item13_blocked_player_may_not_claim_when_the_room_says_so():
    t = _blocked_dealer(Rules(flowers=False, false_win_penalty=True, blocked_may_claim=False))
    assert t.legal(0) == (PASS,)


def test_item13_blocked_player_pays_normally():
    t = Table([FIFTEEN_DEALER, "123m 456m 789m 123s 9m", JUNK, ""], rules=TRAINING)
    t.win(0)  # dealer: 诈和
    t.discard(0, "9m")
    t.win(1)
    t.pass_all()
    r = t.result
    assert r.win.winner == 1 and r.payments[0] == -(8 + r.win.total)
    assert r.penalties == (-60, 20, 20, 20)
    assert sum(r.deltas) == 0


# ---- item 14: time is the room's; automatic play is an ordinary action ---------------------------


@pytest.mark.parametrize("rules", [Rules(), TRAINING, Rules(min_fan=0, declare_ready=True)])
def test_item14_automatic_play_is_an_ordinary_legal_action(rules):
    s, _ = start_hand(rules, seed=5)
    while s.phase != OVER:
        seat = pending(s)[0]
        action = auto_action(s, seat)
        assert action in legal_actions(s, seat)
        s, _ = step(s, seat, action)
    assert not s.fouls  # it never declares a false win


# ---- 报听 (大众馆) ------------------------------------------------------------------------------

READY_RULES = Rules(flowers=False, min_fan=0, declare_ready=True, declared_ready_points=1)


def test_declared_ready_locks_the_hand_and_scores():
    t = Table(["123m 456m 789m 11s SS N", "", "", ""], draws="S FF C PPP 1s", rules=READY_RULES)
    legal = t.legal(0)
    assert READY_DISCARDS[T("N")] in legal and READY_DISCARDS[T("1m")] not in legal
    t.act(0, Discard(T("N"), ready=True))
    assert t.state.declared[0]
    t.pass_all()
    t.discard(1, "S")
    assert t.legal(0) == (WIN, PASS)  # SS held, but a locked hand does not pung
    t.act(0, PASS)
    t.pass_all()
    t.drop_drawn(2)
    t.drop_drawn(3)
    assert t.legal(0) == (Discard(T("C")),)  # the drawn tile goes, unless it wins
    t.drop_drawn(0)
    for seat in (1, 2, 3):
        t.drop_drawn(seat)
    assert t.state.drawn == T("1s")
    t.win(0)
    assert any(f.name == "听" and f.points == 1 for f in t.result.win.fans)


def test_declared_ready_concealed_kong_only_if_the_waits_stay():
    t = Table(["123m 456m 789m 111s 5p N", "", "", ""], draws="FFF 1s", rules=READY_RULES)
    t.act(0, Discard(T("N"), ready=True))
    t.pass_all()
    for seat in (1, 2, 3):
        t.drop_drawn(seat)
    assert ConcealedKong(T("1s")) in t.legal(0)  # waits on 5p before and after
    t = Table(["123m 456m 789m 1112s N", "", "", ""], draws="FFF 1s", rules=READY_RULES)
    t.act(0, Discard(T("N"), ready=True))
    t.pass_all()
    for seat in (1, 2, 3):
        t.drop_drawn(seat)
    assert ConcealedKong(T("1s")) not in t.legal(0)  # 2s/3s would become 2s only


def test_tiles_conserved_and_hand_sizes_legal_in_every_scenario_step():
    t = Table(["7p 147m 258s 369s EESS", "77p 123m 456m 789m 11s", "123p 456s 789s CC 56p", ""],
              draws="NN F 7p", rules=ANY)
    census = full_census(ANY)
    t.discard(0, "7p")
    for _ in range(60):
        s = t.state
        assert tile_census(s) == census
        check_sizes(s)
        if s.phase == OVER:
            break
        seat = pending(s)[0]
        t.act(seat, auto_action(s, seat))
    assert tile_census(t.state) == census


def test_scripted_hands_replay_byte_for_byte():
    from game.codec import canonical

    t = _last_tile_table()
    t.discard(3, "5s")
    t.win(1)
    assert canonical(t.replayed()) == canonical(t.state)
