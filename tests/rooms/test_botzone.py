"""External bots, the pure part: Botzone requests from our events, answers to our actions, and a room
whose seat an external bot plays (answers handed in with ``Room.bot_answer``)."""

from __future__ import annotations

from game import match as gm
from game.actions import PASS, PUNG, WIN, Chow, Discard, from_dict
from game.rules import Rules
from rooms.botzone import END, BotzoneSeat, MatchFeed, botzone_answer, code_tile, history_input, parse_answer, tile_code
from rooms.botzone_seats import ExternalBot
from rooms.config import RoomConfig
from tests.rooms.support import POLICIES, bots_room, play_human, tidy
from tests.support.botzone_greedy import Greedy

EXT = {**POLICIES, "greedy": ExternalBot("greedy", 5.0)}


def test_tile_codes_round_trip():
    assert [tile_code(t) for t in (0, 8, 9, 18, 27, 30, 31, 33, 34, 41)] == [
        "W1", "W9", "T1", "B1", "F1", "F4", "J1", "J3", "H1", "H8"]
    assert all(code_tile(tile_code(t)) == t for t in range(34))
    assert code_tile("H1") is None and code_tile("X9") is None and code_tile("") is None


def _requests(rules: Rules, seed: int, player: int, steps: int = 0):
    """The requests of ``player`` over the start of a match and ``steps`` tidy moves."""
    feed = MatchFeed([player])
    m, events = gm.start_match(rules, seed=seed)
    actions = []
    out = feed.sync(1, m, actions)
    for _ in range(steps):
        p = gm.pending(m)[0]
        a = from_dict(tidy(gm.view(m, p)))
        m, _ = gm.step(m, p, a)
        actions.append((p, a))
    return m, feed, out + feed.sync(1, m, actions)


def test_deal_request_gives_own_13_tiles_every_flower_and_the_dealers_draw():
    rules = Rules(flowers=True, hands=4)
    for seed in range(20):
        m, feed, out = _requests(rules, seed, 0)
        h = m.hand
        lines = [r.line for _, r in out]
        assert lines[0] == "0 0 0"  # player 0 is East in the first hand
        deal = lines[1].split()
        assert deal[0] == "1" and [int(x) for x in deal[1:5]] == [len(f) for f in h.flowers]
        own = sorted(code_tile(t) for t in deal[5:18])
        dealt = sorted(list(h.concealed[0]))
        dealt.remove(h.drawn)
        assert own == dealt  # 13 tiles: the 14th is the first draw
        assert deal[18:] == [tile_code(f) for s in range(4) for f in h.flowers[s]]
        assert lines[2] == f"2 {tile_code(h.drawn)}" and out[2][1].seq == m.seq  # a decision
        if any(h.flowers):
            return
    raise AssertionError("no seed dealt a flower")


def test_a_bot_is_told_only_its_own_tiles():
    """Over whole matches, the tiles a bot's requests name besides discards, melds and flowers (its
    deal and its ``2`` draws) are exactly the tiles its seat was dealt and drew; others' draws are bare."""
    for flowers in (False, True):
        rules = Rules(flowers=flowers, hands=4)
        m, events = gm.start_match(rules, seed=11)
        feed = MatchFeed([2])
        told, own = [], []
        actions = []
        out = feed.sync(1, m, actions)
        while True:
            for e in events:
                if e["t"] == "hand_start":
                    seat = gm.seat_in(2, e["hand"])
                elif e["t"] == "deal" and e["seat"] == seat:
                    own += [t for t in e["tiles"] if t < 34]
                elif e["t"] == "draw" and e["seat"] == seat and e["tile"] < 34:  # a deal's replacement may be a flower again
                    own.append(e["tile"])
            for _, r in out:
                w = r.line.split()
                if w and w[0] == "1":
                    told += [code_tile(c) for c in w[5:18]]
                elif w and w[0] == "2":
                    told.append(code_tile(w[1]))
                elif w and w[0] == "3" and w[2] == "DRAW":
                    assert len(w) == 3
            if m.phase == gm.FINISHED:
                break
            p = gm.pending(m)[0]
            a = from_dict(tidy(gm.view(m, p)))
            m, events = gm.step(m, p, a)
            actions.append((p, a))
            out = feed.sync(1, m, actions)
        # with flowers, the deal's 13 are the hand after 补花: its replacements are among the own draws
        assert sorted(told) == sorted(own)
        assert len(told) > 40


def test_pung_and_its_discard_are_one_request():
    seat = BotzoneSeat(2)
    m, _ = gm.start_match(Rules(flowers=False, hands=4), seed=1)
    seat.feed(m, [{"t": "hand_start", "hand": 0}, {"t": "start", "dealer": 0, "prevalent": 0, "hand": 0},
                  {"t": "turn", "seat": 0, "hand": 0}])
    out = seat.feed(m, [{"t": "claim", "seat": 1, "kind": "pung", "tile": 5, "from": 0,
                         "meld": {"kind": "pung", "tile": 5}, "hand": 0}])
    assert out == []
    out = seat.feed(m, [{"t": "discard", "seat": 1, "tile": 27, "ready": False, "hand": 0}])
    assert [r.line for r in out] == ["3 1 PENG F1"]
    seat.feed(m, [{"t": "claim", "seat": 3, "kind": "chow", "tile": 12, "from": 2,
                   "meld": {"kind": "chow", "tile": 11}, "hand": 0}])
    out = seat.feed(m, [{"t": "discard", "seat": 3, "tile": 33, "ready": False, "hand": 0}])
    assert [r.line for r in out] == ["3 3 CHI T4 J3"]
    assert seat.feed(m, [{"t": "hand_end", "hand": 0}]) == [END]


def test_answers_become_actions_checked_against_legal():
    legal = (PASS, WIN, PUNG, Chow(3))
    assert parse_answer("PASS", legal, False).action == PASS
    a = parse_answer("PENG J1", legal, False)
    assert a.action == PUNG and a.then == 31
    a = parse_answer("CHI W5 B2", legal, False)
    assert a.action == Chow(3) and a.then == 19
    assert parse_answer("GANG", legal, False).fault == "illegal"
    for bad in ("", "PENG", "CHI W1 W2", "CHI F2 W1", "PLAY", "HU W1", "x" * 100, None, "PENG H1", "PASS PASS"):
        assert parse_answer(bad, legal, False).fault == "malformed", bad
    turn = (Discard(4), WIN)
    assert parse_answer("PLAY W5", turn, True).action == Discard(4)
    assert parse_answer("PLAY W6", turn, True).fault == "illegal"
    assert parse_answer("PASS", turn, True).fault == "malformed"  # not an answer after one's own draw


def test_history_input_and_responses():
    assert history_input(["0 1 0", "1 0 0 0 0 W1", "3 0 DRAW"], ["PASS", "PASS"]) == \
        "3\n0 1 0\nPASS\n1 0 0 0 0 W1\nPASS\n3 0 DRAW\n"
    assert botzone_answer(PUNG, 27) == "PENG F1" and botzone_answer(Chow(0), 33) == "CHI W2 J3"
    assert botzone_answer(Discard(9)) == "PLAY T1"


def _drive(room, feed, bots, now, answer=None):
    """Hand every new decision request to its in-process bot and its answer to the room; whether the
    room was called."""
    called = False
    for p, r in feed.sync(room.match_no, room.match, room.actions):
        if r is END:
            bots[p] = Greedy()
            continue
        text = bots[p].answer(r.line)
        if r.seq is not None and r.seq == feed.m.seq:
            if answer is not None:
                text = answer(p, r, text)
            if text is None:
                continue  # the bot stays silent
            got = parse_answer(text, feed.legal(p), feed.turn(p))
            room.bot_answer(p, r.seq, got.action, now)
            called = True
            if got.then is not None:
                bots[p].then = got.then
    return called


def _play(room, feed, bots, answer=None, limit=200_000):
    """Play the host's seat with tidy, the external bot's through its answers, until the match ends."""
    now = 1.0
    for p in feed.seats:
        bots[p] = Greedy()
        bots[p].then = None
    for _ in range(limit):
        if room.phase != "playing":
            return
        if _drive(room, feed, bots, now, answer):
            continue  # the room moved: new requests first (the server syncs after every commit)
        for p in feed.seats:  # the discard after a granted pung or chow
            m = room.match
            if (m.phase == gm.PLAYING and m.hand.phase == "turn" and m.hand.drawn is None
                    and p in gm.pending(m) and bots[p].then is not None):
                room.bot_answer(p, m.seq, Discard(bots[p].then), now)
                bots[p].then = None
        view = room.snapshot("alice")["game"]
        if view is None:
            return
        if view["to_act"]:
            from tests.rooms.support import act
            act(room, "alice", tidy(view), now)
        else:
            now = max(now, room.next_deadline())
            room.tick(now)
    raise AssertionError("the match did not end")


def test_external_bot_plays_a_whole_match_answers_taken_as_given():
    room = bots_room(policies=EXT, seats=(2, 3), type="wufan", flowers=False, bot_delay=0.0, claim_min=0.0)
    room.handle("alice", {"t": "add_bot", "seat": 1, "level": "greedy"}, 0.0)
    room.handle("alice", {"t": "ready", "ready": True}, 0.0)
    assert room.match.hand.wall.__len__() == 136
    feed = MatchFeed(room.external_players())
    assert list(feed.seats) == [1]
    _play(room, feed, {})
    rec = room.finished[-1]
    assert len(rec["hands"]) == 4
    assert room.bot_faults.get(room.seats[1].id, {}) == {}
    info = room.info()["seats"][1]
    assert info["bot"] == "greedy" and info["faults"] == {}
    assert "faults" not in room.info()["seats"][2]


def test_silent_or_illegal_bot_is_replaced_and_counted():
    room = bots_room(policies=EXT, seats=(2, 3), type="wufan", bot_delay=0.0, claim_min=0.0)
    room.handle("alice", {"t": "add_bot", "seat": 1, "level": "greedy"}, 0.0)
    room.handle("alice", {"t": "ready", "ready": True}, 0.0)
    feed = MatchFeed([1])
    n = {"turns": 0}

    def answer(p, r, text):
        if r.line.startswith("2 "):
            n["turns"] += 1
            return None if n["turns"] % 2 else "PLAY H1"  # silent, then a flower (not a playable tile)
        return text

    _play(room, feed, {}, answer)
    faults = room.bot_faults.get(room.seats[1].id, {})
    assert faults["late"] >= 1 and faults["bad"] >= 1
    assert faults["late"] + faults["bad"] >= n["turns"] - 1
    assert room.info()["seats"][1]["faults"] == faults
    room.handle("alice", {"t": "remove_bot", "seat": 1}, 1e6)
    room.handle("alice", {"t": "add_bot", "seat": 1, "level": "greedy"}, 1e6)
    assert room.info()["seats"][1]["faults"] == {}  # another bot: its own count


def test_external_bot_name_validated_and_unknown_after_restart_is_safe():
    room = bots_room(policies=EXT, seats=(2, 3))
    from rooms.errors import RoomError
    try:
        room.handle("alice", {"t": "add_bot", "seat": 1, "level": "/bin/sh"}, 0.0)
        raise AssertionError("accepted")
    except RoomError as e:
        assert e.code == "room/bad_command"
    room.handle("alice", {"t": "add_bot", "seat": 1, "level": "greedy"}, 0.0)
    room.handle("alice", {"t": "ready", "ready": True}, 0.0)
    log = room.take_log()
    from rooms.room import Room
    again = Room.restore(log, 1.0, POLICIES)  # the bot is no longer registered: safe actions, no crash
    play_human(again, "alice", 1.0)
    assert again.finished


def test_rooms_offer_136_tiles():
    assert RoomConfig(flowers=False).rules().flowers is False
    assert RoomConfig().rules().flowers is True


def test_an_answer_is_taken_no_sooner_than_a_builtin_bots_and_a_stale_one_is_dropped():
    room = bots_room(policies=EXT, seats=(2, 3), type="wufan", bot_delay=1.0, claim_min=1.0)
    room.handle("alice", {"t": "add_bot", "seat": 1, "level": "greedy"}, 0.0)
    room.handle("alice", {"t": "ready", "ready": True}, 0.0)
    now = 0.0
    while 1 not in gm.pending(room.match) or room.match.hand.phase != "turn":  # up to the bot's own turn
        view = room.snapshot("alice")["game"]
        if view["to_act"]:
            from tests.rooms.support import act
            act(room, "alice", tidy(view), now)
        else:
            now = room.next_deadline()
            if 1 in gm.pending(room.match):
                break
            room.tick(now)
    m = room.match
    started = room.turn_started
    legal = room._legal(1)
    n = len(room.actions)
    room.bot_answer(1, m.seq - 1, legal[0], started)  # an old seq: dropped
    room.bot_answer(1, m.seq, legal[0], started)
    assert len(room.actions) == n and room.next_deadline() == started + 1.0  # held until bot_delay
    room.tick(started + 1.0)
    assert room.actions[n] == (1, legal[0]) and room.bot_faults.get(room.seats[1].id, {}) == {}
