"""System actions, applied for a referee or a tournament (never a player's): 停和 (R98 第十三条3,
tournament.md 1.4), a can't-win substitute (tournament.md 2.4), time up (R98 第六条四, tournament.md 2.6)."""

import random

import pytest

from game import match as M
from game.actions import (
    CONTINUE,
    PASS,
    PUNG,
    WIN,
    ActionError,
    NoWin,
    StopWin,
    TimeUp,
    Win,
    from_dict,
    to_dict,
    with_seq,
)
from game.codec import canonical
from game.rules import Rules
from game.simulate import tidy_policy
from game.state import CLAIM, OVER, TURN, auto_action, block_win, step

from tests.game.scenario import Table

ANY = Rules(flowers=False, min_fan=0)  # any complete hand wins: these test 停和, not fans

E_DEALER = "147m 258p 369s SSWN E"  # deals, then discards E
WAITS_ON_E = "123m 456m 789m 123s E"
ALSO_WAITS_ON_E = "123p 456p 789p 456s E"
HOLDS_EE = "EE 19p 19s 19m NN CFP"
WINS_AT_ONCE = "123m 456m 789m 123s EE"  # a dealer whose 14 tiles are complete


def blocked(t: Table, seat: int) -> list[dict]:
    before = canonical(t.state)
    t.state, events = block_win(t.state, seat)
    assert canonical(t.state) != before and t.state.blocked[seat]
    return events


# -- 停和 in a hand -------------------------------------------------------------------------------


def test_stop_win_on_the_turn_removes_win_and_托管_does_not_win():
    t = Table([WINS_AT_ONCE, "", "", ""], rules=ANY)
    assert WIN in t.legal(0) and auto_action(t.state, 0) == WIN
    seq = t.state.seq
    assert blocked(t, 0) == [] and t.state.seq == seq  # nothing else moves: answers stay current
    assert WIN not in t.legal(0) and t.state.phase == TURN
    assert type(auto_action(t.state, 0)).__name__ == "Discard"
    with pytest.raises(ActionError) as e:
        step(t.state, 0, with_seq(WIN, seq))
    assert e.value.code == "action/illegal"


def test_stop_win_in_a_claim_window_removes_win_and_keeps_the_others_claims():
    t = Table([E_DEALER, WAITS_ON_E, HOLDS_EE, ""], rules=ANY)
    t.discard(0, "E")
    assert t.legal(1) == (WIN, PASS) and t.legal(2) == (PUNG, PASS)
    seq = t.state.seq
    blocked(t, 1)
    assert t.legal(1) == (PASS,) and t.legal(2) == (PUNG, PASS)  # seat 1 may only pass now
    assert t.state.phase == CLAIM and t.state.seq == seq
    t.act(2, PUNG)
    t.pass_all()
    assert t.state.phase == TURN and t.state.turn == 2 and t.state.result is None


def test_a_blocked_seat_may_still_pung():
    t = Table([E_DEALER, "", HOLDS_EE, ""], rules=ANY)
    blocked(t, 2)
    t.discard(0, "E")
    assert t.legal(2) == (PUNG, PASS)  # rules.blocked_may_claim: the 1998 text forbids only 和
    t.act(2, PUNG)
    t.pass_all()
    assert t.state.melds[2][0].kind == "pung" and t.state.blocked[2]


def test_blocked_may_claim_off_removes_every_claim():
    rules = Rules(flowers=False, min_fan=0, blocked_may_claim=False)
    t = Table([E_DEALER, WAITS_ON_E, HOLDS_EE, ""], rules=rules)
    t.discard(0, "E")
    blocked(t, 2)
    assert t.legal(2) == (PASS,) and t.legal(1) == (WIN, PASS)


def test_a_blocked_discarder_still_pays():
    t = Table([E_DEALER, WAITS_ON_E, "", ""], rules=ANY)
    blocked(t, 0)
    t.discard(0, "E")
    t.win(1)
    t.pass_all()
    win = t.result.win
    assert (win.winner, win.payer) == (1, 0)
    # R98 第十条 (default settlement): the discarder pays 8 + fans, the others 8 each
    assert t.result.payments == (-(8 + win.total), 24 + win.total, -8, -8)


def test_an_answer_already_given_as_win_becomes_a_pass():
    t = Table([E_DEALER, WAITS_ON_E, ALSO_WAITS_ON_E, ""], rules=ANY)
    t.discard(0, "E")
    t.act(2, WIN)  # seat 1 comes first (截和) and has not answered: the window stays open
    assert t.state.phase == CLAIM and type(t.state.claim.responses[2]) is Win
    blocked(t, 2)
    assert t.state.claim.responses[2] == PASS and t.state.claim.options[2] == ()
    t.act(1, PASS)
    t.act(3, PASS)
    # nobody wins: the discarder's next seat draws
    assert t.state.phase == TURN and t.state.turn == 1 and t.state.result is None
    assert not any(e["t"] == "foul" for e in t.events)


def test_a_window_that_lost_its_only_claim_still_waits_for_every_answer():
    # Closing it at once would tell the table that seat 1 had been able to win.
    t = Table([E_DEALER, WAITS_ON_E, "", ""], rules=ANY)
    t.discard(0, "E")
    seq = t.state.seq
    events = blocked(t, 1)
    assert events == [] and t.state.phase == CLAIM and t.state.seq == seq
    assert [t.legal(s) for s in (1, 2, 3)] == [(PASS,)] * 3
    t.pass_all()
    assert t.state.phase == TURN and t.state.turn == 1 and t.state.seq == seq + 1


def test_block_win_errors():
    t = Table([WINS_AT_ONCE, "", "", ""], rules=ANY)
    with pytest.raises(ActionError) as e:
        block_win(t.state, 4)
    assert e.value.code == "action/malformed"
    t.win(0)
    with pytest.raises(ActionError) as e:
        block_win(t.state, 1)
    assert e.value.code == "action/hand_over"


# -- in a match ---------------------------------------------------------------------------------


def two_hand_match(first: Table):
    rules = Rules(flowers=False, min_fan=0, hands=2)
    return M.start_match(rules, walls=[first.wall, first.wall])


def finish_hand(m):
    """Everybody plays 托管 to the end of the hand (no wins)."""
    while m.phase == M.PLAYING:
        p = M.pending(m)[0]
        a = auto_action(m.hand, m.seat_of(p))
        if a == WIN:
            a = PASS if m.hand.phase == CLAIM else [x for x in M.legal_actions(m, p) if x != WIN][0]
        m, _ = M.step(m, p, a)
    return m


def test_stop_win_lasts_for_the_hand_only():
    m, _ = two_hand_match(Table([WINS_AT_ONCE, "", "", ""], rules=ANY))
    m, events = M.step(m, 0, StopWin(seq=m.seq))
    assert events == [] and m.hand.blocked == (True, False, False, False)
    assert WIN not in M.legal_actions(m, 0)
    m = finish_hand(m)
    assert m.phase == M.BETWEEN
    for p in range(4):
        m, _ = M.step(m, p, CONTINUE)
    assert m.number == 1 and m.hand.blocked == (False,) * 4  # cleared by the next deal


def test_no_win_blocks_the_hand_in_play_and_every_later_deal():
    m, _ = two_hand_match(Table([WINS_AT_ONCE, "", "", ""], rules=ANY))
    m, _ = M.step(m, 0, NoWin())
    assert m.no_win == (True, False, False, False) and WIN not in M.legal_actions(m, 0)
    m = finish_hand(m)
    for p in range(4):
        m, _ = M.step(m, p, CONTINUE)
    assert m.number == 1 and m.hand.blocked[m.seat_of(0)] and sum(m.hand.blocked) == 1
    assert M.view(m, 1)["match"]["no_win"] == [True, False, False, False]


def random_match(seed: int, no_win=(), hands=16, time_up_at=None, finish_hand=False):
    """A seeded match of ``tidy_policy`` players (they win whenever 和 is legal); ``no_win`` players get
    NoWin first; TimeUp after ``time_up_at`` actions. Returns (match, log)."""
    rng = random.Random(seed)
    policy = tidy_policy(rng)
    rules = Rules(min_fan=0, hands=hands)
    m, _ = M.start_match(rules, seed=seed)
    log = [(p, NoWin(seq=m.seq)) for p in no_win]
    for p, a in log:
        m, _ = M.step(m, p, a)
    while m.phase != M.FINISHED:
        if time_up_at is not None and len(log) == time_up_at:
            a = TimeUp(finish_hand, seq=m.seq)
            m, _ = M.step(m, None, a)
            log.append((None, a))
            continue
        p = M.pending(m)[0]
        a = with_seq(policy(m, p, M.legal_actions(m, p)), m.seq)
        m, _ = M.step(m, p, a)
        log.append((p, a))
    return m, log


def test_a_no_win_player_never_wins_a_whole_match():
    m, log = random_match(6, no_win=(2,))
    assert m.phase == M.FINISHED and len(m.history) == 16 and not m.void
    winners = [M.player_in(r.win.winner, i) for i, r in enumerate(m.history) if r.win is not None]
    assert winners and 2 not in winners
    # without NoWin the same seeded players do let player 2 win
    free, _ = random_match(6)
    assert 2 in [M.player_in(r.win.winner, i) for i, r in enumerate(free.history) if r.win is not None]
    # replay from the log (system actions included) is the same match
    assert canonical(M.replay(m.rules, log, seed=6)) == canonical(m)
    hands = M.replay_hands(m.rules, log, seed=6)
    assert len(hands) == 16 and all(h[-1]["t"] in ("scores", "match_end") for h in hands)


def test_time_up_voids_the_hand_in_progress():
    m, log = random_match(7, hands=8, time_up_at=300)
    assert m.phase == M.FINISHED and m.void and m.hand.phase != OVER
    # R98 第六条四: the hand in progress counts for nothing; results are the points scored before it
    assert len(m.history) == m.number and sum(m.scores) == 0
    before = M.replay(m.rules, log[:-1], seed=7)
    assert m.scores == before.scores and m.history == before.history
    v = M.view(m, 0)
    assert v["legal"] == [] and not v["to_act"] and v["match"]["void"]
    assert M.pending(m) == () and M.legal_actions(m, 0) == ()
    with pytest.raises(ActionError) as e:
        M.step(m, 0, CONTINUE)
    assert e.value.code == "action/match_over"
    assert canonical(M.replay(m.rules, log, seed=7)) == canonical(m)
    hands = M.replay_hands(m.rules, log, seed=7)
    assert len(hands) == m.number + 1 and hands[-1][-1]["t"] == "match_end"


def test_time_up_with_finish_hand_ends_after_the_hand_in_progress():
    m, log = random_match(7, hands=8, time_up_at=300, finish_hand=True)
    stopped = M.replay(m.rules, log[:300], seed=7).number
    assert m.phase == M.FINISHED and not m.void
    assert m.number == stopped and len(m.history) == stopped + 1 and m.last == stopped


def test_time_up_between_hands_ends_at_once():
    m, _ = two_hand_match(Table([WINS_AT_ONCE, "", "", ""], rules=ANY))
    m = finish_hand(m)
    m, events = M.step(m, None, TimeUp(finish_hand=True))
    assert m.phase == M.FINISHED and not m.void and len(m.history) == 1
    assert [e["t"] for e in events] == ["match_end"]


def test_system_action_errors():
    m, _ = two_hand_match(Table([WINS_AT_ONCE, "", "", ""], rules=ANY))
    cases = [
        (0, TimeUp(), "action/malformed"),  # time up concerns the table: player None
        (None, StopWin(), "action/malformed"),
        (5, NoWin(), "action/malformed"),
        (0, StopWin(seq=m.seq + 1), "action/stale"),
    ]
    for player, action, code in cases:
        with pytest.raises(ActionError) as e:
            M.step(m, player, action)
        assert e.value.code == code
    # a player never has them among the legal actions: sent as a hand action, they are refused
    for a in (StopWin(), NoWin(), TimeUp()):
        with pytest.raises(ActionError) as e:
            step(m.hand, 0, a)
        assert e.value.code == "action/illegal"
    between = finish_hand(m)
    with pytest.raises(ActionError) as e:
        M.step(between, 0, StopWin())
    assert e.value.code == "action/hand_over"  # 停和 needs a hand in play
    over, _ = M.step(between, None, TimeUp())
    for player, action in ((0, StopWin()), (0, NoWin()), (None, TimeUp())):
        with pytest.raises(ActionError) as e:
            M.step(over, player, action)
        assert e.value.code == "action/match_over"


def test_system_actions_wire_form():
    for a in (StopWin(seq=3), NoWin(seq=4), TimeUp(seq=5), TimeUp(True, seq=6)):
        assert from_dict(to_dict(a)) == a and from_dict(to_dict(a)).seq == a.seq
    assert to_dict(TimeUp(True)) == {"a": "time_up", "finish_hand": True}
    assert to_dict(TimeUp()) == {"a": "time_up"}
    assert with_seq(TimeUp(True), 9) == TimeUp(True) and with_seq(TimeUp(True), 9).finish_hand
    for bad in ({"a": "time_up", "finish_hand": 1}, {"a": "stop_win", "player": 1}):
        with pytest.raises(ActionError) as e:
            from_dict(bad)
        assert e.value.code == "action/malformed"


@pytest.mark.parametrize("seed", range(6))
def test_random_stop_wins_never_let_a_blocked_seat_win_and_replay(seed):
    """Seeded matches (training mode on odd seeds: 和 offered everywhere) with 停和 thrown in at random
    moments, claim windows included: the blocked seat never wins that hand, and the log replays."""
    rng = random.Random(seed)
    policy = tidy_policy(rng)
    rules = Rules(min_fan=0, hands=4, false_win_penalty=seed % 2 == 1)
    m, _ = M.start_match(rules, seed=seed)
    log: list = []
    stopped: set = set()  # (hand, player)
    windows = 0
    while m.phase != M.FINISHED:
        in_window = m.phase == M.PLAYING and m.hand.phase == CLAIM
        if m.phase == M.PLAYING and rng.random() < (0.2 if in_window else 0.02):
            # in a window, mostly a seat still asked (its options, its answer)
            p = M.pending(m)[0] if in_window and rng.random() < 0.8 else rng.randrange(4)
            windows += in_window and m.hand.claim.options[m.seat_of(p)] != ()
            a = StopWin(seq=m.seq)
            m, _ = M.step(m, p, a)
            log.append((p, a))
            stopped.add((m.number, p))
            assert WIN not in M.legal_actions(m, p)
            continue
        p = M.pending(m)[0]
        a = with_seq(policy(m, p, M.legal_actions(m, p)), m.seq)
        m, _ = M.step(m, p, a)
        log.append((p, a))
    for number, r in enumerate(m.history):
        if r.win is not None:
            assert (number, M.player_in(r.win.winner, number)) not in stopped
    assert stopped and canonical(M.replay(rules, log, seed=seed)) == canonical(m)
    assert windows > 0
    assert len(M.replay_hands(rules, log, seed=seed)) == 4


def test_a_tournaments_托管_never_wins():
    # auto_action(win=False): the substitute for an absent player at a tournament table (tournament.md §4.3)
    t = Table([WINS_AT_ONCE, "", "", ""], rules=ANY)
    assert WIN in t.legal(0) and auto_action(t.state, 0) == WIN
    assert type(auto_action(t.state, 0, win=False)).__name__ == "Discard"
