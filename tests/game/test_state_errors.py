"""Rejected actions: stable codes, and the state is left exactly as it was."""

import pytest

from game import actions as A
from game.actions import PASS, PUNG, WIN, ActionError, Chow, Discard, Pung, from_dict, to_dict, with_seq
from game.codec import canonical
from game.rules import Rules
from game.state import legal_actions, start_hand, step

from tests.game.scenario import T, Table

ANY = Rules(flowers=False, min_fan=0)


def rejected(state, seat, action, code):
    before = canonical(state)
    with pytest.raises(ActionError) as e:
        step(state, seat, action)
    assert e.value.code == code, e.value.message
    assert canonical(state) == before


def test_not_your_turn():
    s, _ = start_hand(Rules(), seed=1)
    rejected(s, 1, Discard(s.concealed[1][0]), A.NOT_YOUR_TURN)


def test_illegal_discard_of_a_tile_not_held():
    s, _ = start_hand(Rules(), seed=1)
    missing = next(t for t in range(34) if t not in s.concealed[0])
    rejected(s, 0, Discard(missing), A.ILLEGAL)
    rejected(s, 0, PUNG, A.ILLEGAL)
    rejected(s, 0, A.Continue(), A.ILLEGAL)


def test_stale_action_answers_an_older_seq():
    s, _ = start_hand(Rules(), seed=1)
    t = s.concealed[0][0]
    rejected(s, 0, Discard(t, seq=s.seq + 1), A.STALE)
    s2, _ = step(s, 0, Discard(t, seq=s.seq))
    assert s2.seq == s.seq + 1
    # A client that still sees the old state discards again: stale, not a second discard.
    seat = s2.turn if s2.phase == "turn" else s2.claim.waiting[0]
    rejected(s2, seat, Discard(t, seq=s.seq), A.STALE)


@pytest.mark.parametrize("bad", [
    object(), None, "discard", Discard("5m"), Discard(34), Discard(-1), Discard(True), Discard(3, ready=1),
    Chow(40), Pung(seq="3"),
])
def test_malformed(bad):
    s, _ = start_hand(Rules(), seed=1)
    rejected(s, 0, bad, A.MALFORMED)


@pytest.mark.parametrize("seat", [4, -1, "0", None, 1.0, True])
def test_malformed_seat(seat):
    s, _ = start_hand(Rules(), seed=1)
    rejected(s, seat, Discard(s.concealed[0][0]), A.MALFORMED)


def test_claim_window_answered_once_then_not_your_turn():
    t = Table(["147m 258p 369s SSWN E", "EE 19p 19s 19m NN CFP", "123m 456m 789m 123s E", ""], rules=ANY)
    t.discard(0, "E")
    seq = t.state.seq
    t.act(1, PUNG)
    rejected(t.state, 1, with_seq(PASS, seq), A.NOT_YOUR_TURN)
    rejected(t.state, 2, with_seq(PUNG, seq), A.ILLEGAL)  # seat 2 may win or pass, not pung
    rejected(t.state, 0, with_seq(PASS, seq), A.NOT_YOUR_TURN)  # the discarder is not asked
    rejected(t.state, 3, with_seq(PUNG, seq), A.ILLEGAL)  # asked, but may only pass


def test_actions_after_the_hand_are_rejected():
    t = Table(["147m 258p 369s SSWN E", "", "123m 456m 789m 123s E", ""], rules=ANY)
    t.discard(0, "E")
    t.win(2)
    t.pass_all()
    assert t.state.phase == "over" and t.result.win.winner == 2
    rejected(t.state, 0, WIN, A.HAND_OVER)


def test_wire_form_round_trips_and_rejects_junk():
    for a in (Discard(T("5m")), Discard(3, ready=True, seq=4), WIN, PASS, Chow(2, seq=0), A.ConcealedKong(9),
              A.AddedKong(33), A.Kong(), A.Continue(seq=12)):
        assert from_dict(to_dict(a)) == a and from_dict(to_dict(a)).seq == a.seq
    for junk in ({}, {"a": "fly"}, {"a": "discard"}, {"a": "discard", "tile": "5m"}, {"a": "pass", "x": 1},
                 {"a": "chow", "low": 99}, [], {"a": "discard", "tile": 3, "ready": "yes"}):
        with pytest.raises(ActionError) as e:
            from_dict(junk)
        assert e.value.code == A.MALFORMED


def test_legal_actions_are_exactly_what_step_accepts():
    s, _ = start_hand(Rules(), seed=3)
    legal = set(legal_actions(s, 0))
    for t in range(34):
        for a in (Discard(t), A.ConcealedKong(t), A.AddedKong(t)):
            if a in legal:
                step(s, 0, a)
            else:
                rejected(s, 0, a, A.ILLEGAL)


def test_fuzz_accepted_exactly_when_legal_and_rejections_change_nothing():
    import random

    from game.state import OVER, pending

    rng = random.Random(12)
    pool = [A.WIN, A.PASS, A.PUNG, A.KONG, A.CONTINUE] + [
        cls(t) for cls in (Discard, Chow, A.ConcealedKong, A.AddedKong) for t in range(34)]
    for seed in range(12):
        s, _ = start_hand(Rules(min_fan=seed % 2 * 8, false_win_penalty=seed % 3 == 0), seed=seed)
        while s.phase != OVER:
            for _ in range(6):
                seat = rng.randrange(4)
                action = with_seq(rng.choice(pool), s.seq + rng.choice((0, 0, 0, -1, 1)))
                legal = legal_actions(s, seat)
                if action.seq == s.seq and action in legal:
                    continue  # accepted; exercised below
                code = A.STALE if action.seq != s.seq else A.NOT_YOUR_TURN if not legal else A.ILLEGAL
                rejected(s, seat, action, code)
            seat = rng.choice(pending(s))
            s, _ = step(s, seat, with_seq(rng.choice(legal_actions(s, seat)), s.seq))
