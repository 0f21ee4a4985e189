"""Claim cases (decisions.md item 9, procedure.md §4.5): priority, chow from the left, 截和."""

from game.actions import KONG, PASS, PUNG, WIN, Chow, ConcealedKong, Discard
from game.rules import Rules
from game.state import CLAIM, OVER, TURN

from tests.game.scenario import T, Table

ANY = Rules(flowers=False, min_fan=0)  # any complete hand wins: the scenarios test claims, not fans

# Seat 0 deals and discards E; one seat waits on E, another holds EE.
E_DEALER = "147m 258p 369s SSWN E"
WAITS_ON_E = "123m 456m 789m 123s E"
HOLDS_EE = "EE 19p 19s 19m NN CFP"


def test_item9_win_beats_pung_whatever_the_answer_order():
    t = Table([E_DEALER, WAITS_ON_E, HOLDS_EE, ""], rules=ANY)
    t.discard(0, "E")
    assert t.state.phase == CLAIM
    assert t.legal(1) == (WIN, PASS) and t.legal(2) == (PUNG, PASS)
    seq = t.state.seq
    t.act(2, PUNG)  # answered first, but 和 > 碰
    assert t.state.phase == CLAIM and t.state.seq == seq  # still open, same seq for the others
    t.win(1)
    t.pass_all()
    assert t.state.phase == OVER
    win = t.result.win
    assert (win.winner, win.payer, win.tile) == (1, 0, T("E"))


def test_item9_win_beats_pung_from_an_earlier_seat():
    # The pung seat comes first counterclockwise; the win still takes the tile.
    t = Table([E_DEALER, HOLDS_EE, WAITS_ON_E, ""], rules=ANY)
    t.discard(0, "E")
    t.act(1, PUNG)
    assert t.state.phase == CLAIM  # seat 2 may still win
    t.win(2)
    t.pass_all()
    assert t.result.win.winner == 2


def test_item9_first_priority_win_still_waits_for_every_answer():
    # Seat 2's pung cannot matter any more, but closing now would tell that seats 2 and 3 had
    # something to answer for (or not): the window waits for both, and the 和 stands.
    t = Table([E_DEALER, WAITS_ON_E, HOLDS_EE, ""], rules=ANY)
    t.discard(0, "E")
    seq = t.state.seq
    t.win(1)
    assert t.state.phase == CLAIM and t.state.seq == seq and t.legal(3) == (PASS,)
    t.act(2, PUNG)
    t.act(3, PASS)
    assert t.state.phase == OVER and t.result.win.winner == 1 and t.state.seq == seq + 1


# Seat 0 discards 3m: seat 1 (its 下家, for whom seat 0 is on the left) can chow, seat 2 can pung.
CHOW_DEALER = "3m 159p 159s EESSWWN"
CAN_CHOW = "1245m 678p 789s NN C"
CAN_PUNG = "33m 45m 234p 567s CCF"


def test_item9_pung_beats_chow():
    t = Table([CHOW_DEALER, CAN_CHOW, CAN_PUNG, ""], rules=ANY)
    t.discard(0, "3m")
    assert t.legal(1) == (Chow(T("1m")), Chow(T("2m")), Chow(T("3m")), PASS)
    t.chow(1, "1m")
    assert t.state.phase == CLAIM  # seat 2 may still pung
    t.act(2, PUNG)
    t.pass_all()
    s = t.state
    assert s.phase == TURN and s.turn == 2 and s.drawn is None
    assert [(m.kind, m.tile, m.source) for m in s.melds[2]] == [("pung", T("3m"), 0)]
    assert s.ponds[0][-1] == (T("3m"), True)  # the claimed discard stays in the pond, marked
    assert s.melds[1] == ()


def test_item9_chow_only_from_the_left():
    t = Table([CHOW_DEALER, CAN_CHOW, CAN_PUNG, ""], rules=ANY)
    t.discard(0, "3m")
    # Seat 2 holds 45m too but seat 0 is not on its left: pung only.
    assert t.legal(2) == (PUNG, PASS)


def test_item9_chow_when_nobody_pungs_then_play_continues_from_the_claimer():
    t = Table([CHOW_DEALER, CAN_CHOW, CAN_PUNG, ""], rules=ANY)
    t.discard(0, "3m")
    t.act(2, PASS)
    t.chow(1, "2m")
    t.pass_all()
    s = t.state
    assert s.turn == 1 and [(m.kind, m.tile, m.claimed) for m in s.melds[1]] == [("chow", T("2m"), T("3m"))]
    t.discard(1, "N")
    t.pass_all()
    assert t.state.turn == 2  # the next seat after the claimer draws


def test_item9_kong_beats_chow_and_draws_from_the_tail():
    t = Table([CHOW_DEALER, CAN_CHOW, "333m 4m 234p 567s CCF", ""], replacements="W", rules=ANY)
    t.discard(0, "3m")
    assert t.legal(2) == (PUNG, KONG, PASS)
    t.chow(1, "1m")
    t.act(2, KONG)
    t.pass_all()
    s = t.state
    assert s.turn == 2 and s.drawn == T("W") and s.kong_draw
    assert s.tail == len(t.wall) - 1  # the replacement came from the tail
    assert [(m.kind, m.concealed) for m in s.melds[2]] == [("kong", False)]


def test_item9_claimer_must_discard_no_kong_no_win_in_that_turn():
    t = Table(["7p 258m 258s 369s EESS", "77p 1111m 456m 789m S", "", ""], draws="FF C 7p", rules=ANY)
    t.discard(0, "7p")
    t.act(1, PUNG)
    t.pass_all()
    assert all(type(a) is Discard for a in t.legal(1))  # 1111m is held, yet no kong now
    t.discard(1, "S")
    t.pass_all()
    for seat in (2, 3, 0):
        t.drop_drawn(seat)
    # After a draw (the 4th 7p) both kongs are offered.
    assert {ConcealedKong(T("1m")), WIN} - set(t.legal(1)) == {WIN}
    assert any(a.name == "added_kong" and a.tile == T("7p") for a in t.legal(1))


def test_item9_swap_call_is_allowed():
    # Chow 123m with the discarded 3m and discard another 3m at once (R98 does not forbid it).
    t = Table([CHOW_DEALER, "1233m 678p 789s NN C", "45m 234p 567s CCF 19p", ""], rules=ANY)
    t.discard(0, "3m")
    t.chow(1, "1m")
    t.pass_all()
    assert Discard(T("3m")) in t.legal(1)
    t.discard(1, "3m")


# Two seats wait on 5p when seat 0 discards it.
FIVE_DEALER = "5p 147m 258s 369s EESS"
WAIT_A = "123m 456m 789m 111s 5p"
WAIT_B = "234s 567s 789p WWW 5p"
NO_WIN = "19m 19s 19p NN CCFF P"


def test_item9_simultaneous_wins_first_counterclockwise_from_the_discarder_wins():
    t = Table([FIVE_DEALER, WAIT_A, NO_WIN, WAIT_B], rules=ANY)
    t.discard(0, "5p")
    t.win(3)  # 上家 of the discarder declares first
    assert t.state.phase == CLAIM  # seat 1 comes first from the discarder and may still win
    t.win(1)
    t.pass_all()
    assert t.result.win.winner == 1  # 截和: one winner only, no 一炮多响
    assert t.result.payments[3] == -8


def test_item9_simultaneous_wins_counted_from_the_discarder_not_seat_0():
    # Seat 2 deals and discards: seat 3 comes before seat 0.
    t = Table([WAIT_A, NO_WIN, FIVE_DEALER, WAIT_B], rules=ANY, dealer=2)
    t.discard(2, "5p")
    t.win(0)
    assert t.state.phase == CLAIM
    t.win(3)
    t.pass_all()
    assert t.result.win.winner == 3 and t.result.win.payer == 2


# Robbing: seat 1 pungs 7p, later adds the drawn 4th 7p; seat 2 waits on 4p/7p.
ROB_DEALER = "7p 147m 258s 369s EESS"
PUNGS_7P = "77p 123m 456m 789m 11s"
WAITS_7P = "123p 456s 789s CC 56p"


def _rob_table() -> Table:
    t = Table([ROB_DEALER, PUNGS_7P, WAITS_7P, ""], draws="NN F 7p", rules=ANY)
    t.discard(0, "7p")
    assert t.legal(2) == (WIN, PASS)  # seat 2 could take the first 7p; it lets it go
    t.act(2, PASS)
    t.act(1, PUNG)
    t.pass_all()
    t.discard(1, "1s")
    t.pass_all()
    for seat in (2, 3, 0):
        t.drop_drawn(seat)
    assert t.state.turn == 1 and t.state.drawn == T("7p")
    return t


def test_robbing_an_added_kong():
    t = _rob_table()
    t.act(1, next(a for a in t.legal(1) if a.name == "added_kong"))
    s = t.state
    assert s.phase == CLAIM and s.claim.kind == "rob" and s.claim.tile == T("7p")
    # Every other seat is asked, a seat that cannot rob only to pass.
    assert t.legal(2) == (WIN, PASS) and t.legal(3) == (PASS,) and t.legal(0) == (PASS,) and t.legal(1) == ()
    t.win(2)
    t.pass_all()
    win = t.result.win
    assert win.robbed and win.payer == 1 and not win.self_drawn
    assert win.ctx.kong and not win.ctx.self_drawn and not win.ctx.fourth_tile  # 抢杠和, never 和绝张
    assert any(f.id == 47 for f in win.fans)  # 抢杠和
    assert [m.kind for m in t.state.melds[1]] == ["pung"]  # the kong never happened
    # The robbed seat pays as the discarder (decisions.md, Rooms).
    assert t.result.payments == (-8, -(8 + win.total), 16 + 8 + win.total, -8)


def test_added_kong_not_robbed_completes_with_a_replacement():
    t = _rob_table()
    t.act(1, next(a for a in t.legal(1) if a.name == "added_kong"))
    t.pass_all()
    s = t.state
    assert s.phase == TURN and s.turn == 1 and s.kong_draw
    (meld,) = [m for m in s.melds[1]]
    assert meld.kind == "kong" and meld.added and not meld.concealed


def test_item10_only_an_added_kong_can_be_robbed():
    # Seat 1 draws the 4th 7p to its concealed 777p: a concealed kong, no robbing window even
    # though seat 2 waits on 7p.
    t = Table(["147m 258s 369s EESS N", "777p 123m 456m 789m S", WAITS_7P, ""], draws="7p", rules=ANY)
    t.discard(0, "N")
    t.pass_all()
    assert ConcealedKong(T("7p")) in t.legal(1)
    events = t.act(1, ConcealedKong(T("7p")))
    assert not [e for e in events if e["t"] == "claim_window"]
    assert t.state.phase == TURN and t.state.turn == 1 and t.state.kong_draw
