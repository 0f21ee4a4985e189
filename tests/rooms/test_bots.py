"""The bots: legal actions only, nothing read beyond the seat's view, wins declared, and the fan bot
far ahead of the random one."""

import inspect
import random

import pytest

from game import match as M
from game.actions import PASS, WIN, Chow, Discard, Pung, Win, from_dict
from game.hand import Hand, Meld
from game.rules import Rules
from game.state import OVER, legal_actions, pending, start_hand, step
from game.tiles import parse_tiles
from game.views import view
from game.waits import waits
from rooms import bot as bot_module
from rooms import bot_plans
from rooms import bot_random as random_module
from rooms.bot import FanBot, _wait_fans
from rooms.bot_plans import Live, pack, plans_for, prepared_plans, shanten_of
from rooms.bot_random import RandomBot

from tests.game.scenario import Table, scrambled


def play(bots, seed: int, number: int, rules: Rules = Rules(), check=None):
    """One hand; ``check(state, seat, view, action)`` sees every decision. Returns the final state."""
    s, _ = start_hand(rules, seed=seed, dealer=number % 4, prevalent_wind=number // 4 % 4)
    while s.phase != OVER:
        seat = pending(s)[0]
        v = view(s, seat)
        action = bots[seat].choose(v)
        if check is not None:
            check(s, seat, v, action)
        s, _ = step(s, seat, action)  # an illegal or stale action raises ActionError
    return s


@pytest.mark.parametrize("rules", [Rules(), Rules(flowers=False), Rules(min_fan=0, count_fans=False),
                                   Rules(min_fan=0, declare_ready=True, declared_ready_points=1)],
                         ids=["guobiao", "no-flowers", "wufan", "dazhong"])
def test_bots_choose_only_legal_actions(rules):
    # Mixed tables, so that the fan bots meet odd discards and the random bots' claims.
    for i in range(30):
        rng = random.Random(i)
        bots = [FanBot(random.Random(rng.random()), min_fan=rules.min_fan) if (seat + i) % 2 else
                RandomBot(random.Random(rng.random())) for seat in range(4)]

        def check(s, seat, v, action):
            legal = legal_actions(s, seat)
            assert action in legal and action.seq == s.seq
            if isinstance(bots[seat], FanBot) and WIN in legal:
                assert type(action) is Win

        play(bots, 5000 + i, i, rules, check)


def test_bots_play_a_match_from_match_views():
    rules = Rules(hands=4)
    m, _ = M.start_match(rules, seed=3)
    bots = [FanBot(random.Random(p)) for p in range(4)]
    while m.phase != M.FINISHED:
        player = M.pending(m)[0]
        action = bots[player].choose(M.view(m, player))
        assert action in M.legal_actions(m, player) and action.seq == m.seq
        m, _ = M.step(m, player, action)
    assert sum(r.win is not None for r in m.history) >= 2


def test_fan_bot_declares_every_legal_win():
    wins = 0
    for i in range(12):
        bots = [FanBot(random.Random(i * 4 + seat)) for seat in range(4)]

        def check(s, seat, v, action):
            if any(a["a"] == "win" for a in v["legal"]):
                assert type(action) is Win

        s = play(bots, 7000 + i, i, check=check)
        wins += s.result.win is not None
    assert wins >= 6


def test_fan_bot_wins_on_a_dealt_complete_hand_and_on_a_discard():
    # The dealer is dealt 九莲宝灯 complete; then seat 1 waits on any 饼 for 九莲宝灯 too.
    t = Table(["11123455678999m", "1112345678999p", "", ""], rules=Rules(flowers=False))
    bot = FanBot(random.Random(0))
    assert WIN in t.legal(0)
    assert type(bot.choose(view(t.state, 0))) is Win
    t = Table(["1112345678999m5p", "1112345678999p", "", ""], rules=Rules(flowers=False))
    t.act(0, Discard(parse_tiles("5p")[0]))
    assert WIN in t.legal(1)
    assert type(bot.choose(view(t.state, 1))) is Win


def test_fan_bot_declares_ready_where_the_room_counts_it():
    # The dealer holds 123m 456m 789m 234p 5p + W: discarding W leaves a ready hand (5p single wait).
    dazhong = Rules(flowers=False, min_fan=0, declare_ready=True, declared_ready_points=1)
    for rules, declared in ((dazhong, True), (Rules(flowers=False), False)):
        t = Table(["123456789m2345pW", "", "", ""], rules=rules)
        action = FanBot(random.Random(0), min_fan=rules.min_fan).choose(view(t.state, 0))
        assert action == Discard(parse_tiles("W")[0], ready=declared)


def test_fan_bot_claims_when_it_helps_and_passes_otherwise():
    rules = Rules(flowers=False)
    # Seat 1 holds 12m 456m 789m: the chow of the dealer's 3m completes 清龙's three chows.
    t = Table(["3mSSSWWWNNNCCCF", "12456789m55sEWN", "", ""], rules=rules)
    t.discard(0, "3m")
    assert Chow(0) in t.legal(1)
    assert FanBot(random.Random(0)).choose(view(t.state, 1)) == Chow(0)
    # Seat 2 is ready for 七对 on W: a pung of the dealer's E would only break it.
    t = Table(["ESSSNNNCCCFFFP", "", "1133m5577s99pEEW", ""], rules=rules)
    t.discard(0, "E")
    assert Pung() in t.legal(2)
    assert FanBot(random.Random(0)).choose(view(t.state, 2)) == PASS


def test_fan_bot_in_training_rooms_declares_only_real_wins():
    # Training mode offers 和 on every draw. The bot never declares without a winning shape (诈和);
    # told it is in a training room, it also counts the fans (no 错和 either).
    rules = Rules(false_win_penalty=True)
    for check_wins, allowed in ((False, {"wrong_win"}), (True, set())):
        wins = 0
        for i in range(5):
            bots = [FanBot(random.Random(i * 4 + seat), check_wins=check_wins) for seat in range(4)]
            s = play(bots, 9000 + i, i, rules)
            assert {kind for _, kind, _ in s.fouls} <= allowed
            wins += s.result.win is not None
        assert wins >= 3


def test_module_level_choose_depends_on_the_view_only():
    # The rooms call ``choose(view)``: the same view gets the same (legal) action.
    for i in range(3):
        s, _ = start_hand(Rules(), seed=300 + i, dealer=i)
        while s.phase != OVER:
            seat = pending(s)[0]
            v = view(s, seat)
            a = bot_module.choose(v)
            assert a == bot_module.choose(view(s, seat)) and a in legal_actions(s, seat) and a.seq == s.seq
            r = random_module.choose(v)
            assert r == random_module.choose(v) and r in legal_actions(s, seat)
            s, _ = step(s, seat, a)
    assert bot_module.choose({**v, "legal": []}) is None


def test_decisions_do_not_depend_on_hidden_state():
    """The same view gives the same decision when everything hidden from the seat differs."""
    checked = 0
    for i in range(4):
        bots = [FanBot(random.Random(seat)) for seat in range(4)]

        def check(s, seat, v, action):
            nonlocal checked
            if len(v["legal"]) < 2:
                return
            other = scrambled(s, seat)
            w = view(other, seat)
            assert w == v
            # A bot with the same random state, given the view of the scrambled table.
            twin = FanBot(random.Random(0))
            first = FanBot(random.Random(0)).choose(v)
            assert twin.choose(w) == first and first.seq == action.seq
            checked += 1

        play(bots, 11000 + i, i, check=check)
    assert checked > 100


def test_bots_receive_only_the_view():
    # Structural: the only input of a decision is the view dict (plus the bot's own rng).
    for cls in (FanBot, RandomBot):
        assert list(inspect.signature(cls.choose).parameters) == ["self", "view"]
    for module in (bot_module, bot_plans):
        source = inspect.getsource(module)
        for hidden in ("concealed[", ".wall", "HandState", "legal_actions", "game.state"):
            assert hidden not in source


def test_fast_waits_agree_with_game_waits():
    rng = random.Random(3)
    checked = 0
    for _ in range(400):
        tiles = sorted(rng.sample([t for t in range(34) for _ in range(4)], 13))
        hand = Hand((), tuple(tiles))
        expected = waits(hand)
        got = tuple(w for w, _, _ in _wait_fans((), tuple(tiles), 0, 0, 8))
        if expected:
            checked += 1
        assert got == expected or not expected and got == ()
    hand = Hand((Meld("pung", parse_tiles("C")[0]),), tuple(parse_tiles("12345678m99s")))
    assert tuple(w for w, _, _ in _wait_fans((("pung", 31, False),), hand.tiles, 0, 0, 8)) == waits(hand)


def test_plan_shanten_examples():
    live = Live([4] * 34)

    def best(text, name):
        key = pack(parse_tiles(text))
        return min(shanten_of(p, key, live) for p in prepared_plans((), 0, 0, 8) if p.plan.name.startswith(name))

    assert best("123m456s789p11m23p", "花龙") == 0
    assert best("123m456s789p11mEWN", "花龙") == 1
    assert best("123m456m789m1s2sEW", "清龙") == 1
    assert best("11223344556677m", "七对") == -1
    assert best("147m258s369pESWCF", "全不靠") == -1
    assert best("11m22s33pEESSWWC", "七对") == 0
    # Every plan offered for an 8-fan room guarantees 8 fans.
    assert all(p.value >= 8 for p in plans_for(0, 1, 8))


def test_random_bot_is_uniform_and_seeded():
    s, _ = start_hand(Rules(), seed=1)
    v = view(s, s.turn)
    picks = [RandomBot(random.Random(k)).choose(v) for k in range(200)]
    assert len(set(picks)) > 5
    assert [RandomBot(random.Random(5)).choose(v) for _ in range(3)] == [picks[5]] * 3
    assert all(a in legal_actions(s, s.turn) and a.seq == s.seq for a in picks)


def test_smoke_fan_bots_win_far_more_than_random_bots():
    n = 60
    fan_wins = random_wins = 0
    for i in range(n):
        fan = [FanBot(random.Random(i * 4 + seat)) for seat in range(4)]
        fan_wins += play(fan, 20000 + i, i).result.win is not None
        rnd = [RandomBot(random.Random(i * 4 + seat)) for seat in range(4)]
        random_wins += play(rnd, 20000 + i, i).result.win is not None
    assert fan_wins >= 0.4 * n
    assert random_wins <= 0.1 * n


def test_actions_round_trip_the_wire_form():
    s, _ = start_hand(Rules(), seed=2)
    a = FanBot(random.Random(0)).choose(view(s, s.turn))
    assert from_dict({"a": a.name, "tile": a.tile, "seq": a.seq}) == a
    assert PASS == from_dict({"a": "pass"}) and Pung() == from_dict({"a": "pung"})
    assert Chow(3) == from_dict({"a": "chow", "low": 3})
