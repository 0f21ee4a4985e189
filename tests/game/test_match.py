"""Matches (decisions.md item 8): dealers, winds, seat changes, running scores, settlement, replay."""

import json
import random
from collections import Counter

import pytest

from game import match as M
from game import settlement
from game.actions import CONTINUE, NOT_YOUR_TURN, STALE, ActionError, Continue, with_seq
from game.codec import canonical
from game.records import WinRecord
from game.rules import Rules
from game.simulate import play_match, random_policy, tidy_policy
from server.cli import main as cli

EAST, SOUTH, WEST, NORTH = range(4)


def played(rules=Rules(min_fan=0), seed=1):
    rng = random.Random(seed)
    log: list = []
    hands: list = []

    def on_step(before, player, action, after, events):
        for e in events:
            if e["t"] == "hand_start":
                hands.append((e["hand"], e["round"], list(e["seats"]), after.hand.dealer, after.hand.prevalent))

    m = play_match(rules, seed, tidy_policy(rng), rng, log, on_step)
    return m, log, hands


def test_item8_seat_scheme_is_the_competition_one():
    # initial seat -> seat in rounds 1-4: E: E,S,N,W · S: S,E,W,N · W: W,N,E,S · N: N,W,S,E
    assert M.SEAT_SCHEME == (
        (EAST, SOUTH, NORTH, WEST), (SOUTH, EAST, WEST, NORTH), (WEST, NORTH, EAST, SOUTH), (NORTH, WEST, SOUTH, EAST))
    for r in range(4):
        assert sorted(M.SEAT_SCHEME[p][r] for p in range(4)) == [0, 1, 2, 3]


def test_item8_dealer_never_repeats_and_every_player_deals_four_times():
    m, _, hands = played()
    assert len(hands) == 16 and len(m.history) == 16
    dealers = Counter()
    for number, rnd, seats, dealer, prevalent in hands:
        assert dealer == number % 4  # the deal passes on after every hand, win or draw
        assert prevalent == rnd == number // 4  # 东 南 西 北 rounds
        dealers[seats[dealer]] += 1
    assert dealers == {0: 4, 1: 4, 2: 4, 3: 4}
    # Every player sits in every seat once.
    for p in range(4):
        assert sorted(hands[4 * r][2].index(p) for r in range(4)) == [0, 1, 2, 3]


def test_item8_each_round_starts_with_the_dealer_in_the_east_seat():
    _, _, hands = played()
    for number, rnd, seats, dealer, _ in hands:
        if number % 4 == 0:
            assert dealer == EAST and seats[EAST] == [p for p in range(4) if M.SEAT_SCHEME[p][rnd] == EAST][0]


def test_item8_short_match_of_one_round():
    m, _, hands = played(Rules(hands=4, min_fan=0))
    assert m.phase == M.FINISHED and len(m.history) == 4 and len(hands) == 4
    with pytest.raises(ActionError) as e:
        M.step(m, 0, CONTINUE)
    assert e.value.code == "action/match_over"


def test_running_scores_are_the_sum_of_zero_sum_hands():
    m, _, _ = played(Rules(min_fan=0))
    assert sum(m.scores) == 0
    total = [0, 0, 0, 0]
    for number, r in enumerate(m.history):
        assert sum(r.payments) == 0 and sum(r.penalties) == 0
        for seat, d in enumerate(r.deltas):
            total[[p for p in range(4) if M.seat_in(p, number) == seat][0]] += d
    assert tuple(total) == m.scores


def test_between_hands_every_player_continues():
    rng = random.Random(0)
    m, _ = M.start_match(Rules(hands=2, min_fan=0), seed=5)
    policy = random_policy(rng)
    while m.phase == M.PLAYING:
        p = M.pending(m)[0]
        m, _ = M.step(m, p, with_seq(policy(m, p, M.legal_actions(m, p)), m.seq))
    assert m.phase == M.BETWEEN and M.pending(m) == (0, 1, 2, 3)
    seq = m.seq
    for p in (2, 0, 3):
        m, _ = M.step(m, p, Continue(seq=seq))
        assert m.phase == M.BETWEEN and m.seq == seq
    with pytest.raises(ActionError) as e:
        M.step(m, 2, Continue(seq=seq))
    assert e.value.code == NOT_YOUR_TURN
    m, events = M.step(m, 1, Continue(seq=seq))
    assert m.phase == M.PLAYING and m.number == 1 and m.hand.dealer == 1 and m.seq == seq + 1
    assert events[1]["t"] == "hand_start"
    with pytest.raises(ActionError) as e:
        M.step(m, 1, Continue(seq=seq))
    assert e.value.code == STALE


def _win(winner, payer, total):
    return WinRecord(winner, payer, 0, None, None, (), total)


def test_settlement_1998_default():
    rules = Rules()
    # Self-draw: each other pays 8 + fans.
    assert settlement.guobiao(_win(2, None, 10), rules) == (-18, -18, 54, -18)
    # Discard: the discarder pays 8 + fans, the two others 8.
    assert settlement.guobiao(_win(2, 0, 10), rules) == (-18, -8, 34, -8)
    # Exhaustive draw: nothing.
    assert settlement.guobiao(None, rules) == (0, 0, 0, 0)


def test_settlement_is_pluggable_by_name():
    def flat(win, rules):
        if win is None:
            return (0, 0, 0, 0)
        pay = [0, 0, 0, 0]
        payer = win.payer if win.payer is not None else (win.winner + 1) % 4
        pay[payer], pay[win.winner] = -1, 1
        return tuple(pay)

    settlement.register("flat_test", flat)
    try:
        m, _, _ = played(Rules(hands=4, min_fan=0, settlement="flat_test"))
        for r in m.history:
            assert sorted(r.payments) == ([-1, 0, 0, 1] if r.win else [0, 0, 0, 0])
    finally:
        del settlement.SETTLEMENTS["flat_test"]


def test_replay_reproduces_the_match_byte_for_byte():
    m, log, _ = played(Rules(min_fan=0), seed=8)
    assert canonical(M.replay(Rules(min_fan=0), log, seed=8)) == canonical(m)


def test_match_from_given_walls_deals_those_walls():
    m1, _ = M.start_match(Rules(hands=2), seed=3)
    walls = [m1.hand.wall, tuple(reversed(m1.hand.wall))]
    m2, _ = M.start_match(Rules(hands=2), walls=walls)
    assert m2.hand.wall == walls[0] and canonical(m2.hand) == canonical(m1.hand)


def test_cli_simulate_and_replay(tmp_path, capsys):
    dump = tmp_path / "log.jsonl"
    assert cli(["simulate", "--hands", "20", "--seed", "4", "--min-fan", "0", "--dump", str(dump)]) == 0
    out = capsys.readouterr().out
    assert "hands: 20" in out
    assert "wins by fan:\n  花牌\t4\n" in out and "\n  幺九刻\t1\n" in out  # each win's fans by name
    lines = [json.loads(x) for x in dump.read_text().splitlines()]
    assert [x["type"] for x in lines].count("match") == 2  # 16 + 4 hands
    assert cli(["replay", str(dump)]) == 0
    assert "identical: 2" in capsys.readouterr().out
    # A tampered log no longer reaches the same state.
    lines[-1]["digest"] = "0" * 64
    dump.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert cli(["replay", str(dump)]) == 1
    dump.write_text('{"type": "action", "player": 0, "action": {"a": "pass"}}\n')
    assert cli(["replay", str(dump)]) == 2


def test_a_match_step_checks_the_action_once(monkeypatch):
    """game.match.step checks an action (its form, and that it answers the match's seq, which is the
    hand's) before stepping the hand, which then does not check it again; a stale one is still refused."""
    from game import state as hand_state
    from game.actions import from_dict, to_dict

    calls = []
    check = hand_state.check
    monkeypatch.setattr(hand_state, "check", lambda a: calls.append(a) or check(a))
    m, _ = M.start_match(Rules(min_fan=0), seed=3)
    p = M.pending(m)[0]
    action = from_dict({**to_dict(M.legal_actions(m, p)[0]), "seq": m.seq})  # a client's: not a shared instance
    with pytest.raises(ActionError) as e:
        M.step(m, p, with_seq(action, m.seq - 1))
    assert e.value.code == STALE
    n, _ = M.step(m, p, action)
    assert n.seq == m.seq + 1 and calls == []
    # Stepped on its own, the hand checks what it is given.
    hand_state.step(m.hand, m.seat_of(p), action)
    assert calls == [action]


def test_legal_actions_fill_the_hands_public_cache_with_what_compute_legal_finds():
    """game.match reads the hand's legal-action cache through game.state's public names."""
    from game import state as S

    m, _ = M.start_match(Rules(), seed=7)
    dealer = M.player_in(m.hand.dealer, m.number)
    assert m.hand.legal_cache == [None] * 4
    legal = M.legal_actions(m, dealer)
    assert legal and legal == S.compute_legal(m.hand, m.hand.dealer)
    assert m.hand.legal_cache[m.hand.dealer] is legal
    assert S.legal_actions(m.hand, m.hand.dealer) is legal  # the same cache, not computed again
