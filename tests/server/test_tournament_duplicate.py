"""A duplicate (复式) tournament over the wire: eight players at two tables, played by the test's random
bots. Both tables deal the same tiles to the same seats in every hand; the walls' commitment, published
before the first tile, checks against the seed and salt revealed after; each table's own reveal has that
seed; and the duplicate scores are recomputed here from the hand results the tables recorded."""

from __future__ import annotations

import asyncio
import hashlib
import random
from fractions import Fraction

from tests.server.client import play
from tests.server.conftest import start, stop
from tests.server.test_tournament import wait_view

HANDS = 4  # one round: the player who sat down at room seat r holds wind seat r in every hand


def deals_seen(c, room: str) -> list[list]:
    """The tiles dealt to this player in each hand at ``room``, from the game messages it received."""
    out = []
    for m in c.frames:
        if m.get("t") == "game" and m.get("room", room) == room:
            out += [ev["tiles"] for ev in m["events"] if ev.get("t") == "deal" and ev.get("tiles")]
    return out


async def test_a_duplicate_event_of_eight_players_deals_the_same_walls_and_scores_by_the_same_tiles(tmp_path):
    server = await start(str(tmp_path / "d.db"))
    try:
        rng = random.Random(20)
        ref = await server.client(name="Referee")
        ps = [await server.client(name=f"D{i}") for i in range(8)]
        r = await ref.request({"t": "tournament_create", "config": {
            "name": "Duplicate Cup", "type": "dazhong", "hands": HANDS, "duplicate": True,
            "checkin_required": False, "seating": "random"}})
        tid = r["tournament"]["id"]
        for c in ps:
            assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}}))["t"] == "ok"
        assert (await ref.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "start"}}))["t"] == "ok"
        v = await wait_view(ref, lambda v: v["sessions"][0]["state"] == "running")
        committed = v["sessions"][0]["commitment"]
        assert len(committed) == 64 and v["duplicate"]["sessions"][0]["seed"] is None

        tables = {}
        for c in ps:
            m = await c.wait_for(lambda m: m.get("t") == "table", timeout=15)
            tables[c.player] = (m["table"], m["room"])
        records: dict[str, dict] = {}

        async def play_table(c):
            m = await play(c, rng, lambda m: m.get("t") == "match_result", timeout=180)
            records.setdefault(m["room"], m["record"])

        await asyncio.gather(*(play_table(c) for c in ps))
        rooms = {k: room for k, room in tables.values()}
        assert len(records) == 2
        # The tables do not reveal their seed themselves: the tournament does, once the session is over.
        assert not [m for c in ps for m in c.frames if m.get("t") == "reveal"]
        east1 = records[rooms["1-1"]]["ids"][0]
        r = await ref.request({"t": "tournament_cmd", "tournament": tid, "cmd": {
            "t": "sanction", "player": east1, "kind": "points", "points": 10, "reason": "slow play",
            "table": "1-1", "hand": 1}})
        assert r["t"] == "ok", r
        v = await wait_view(ref, lambda v: v["state"] == "finished" and any(
            s["kind"] == "points" for s in v["sanctions"]))

        # The walls: committed before play, the same seed at both tables, and the same tiles to the same seat.
        dup = v["duplicate"]["sessions"][0]
        assert dup["commitment"] == committed
        assert hashlib.sha256(f"{dup['seed']}:{dup['salt']}".encode()).hexdigest() == committed
        served = {}  # each table's match as GET /api/matches/<id> serves it now: its own seed and commitment
        for k, room in rooms.items():
            status, served[k] = await server.app.api(f"/api/matches/{server.app.rooms[room].matches[1]['id']}", "10.0.0.2")
            assert status == 200 and str(served[k]["seed"]) == dup["seed"]
            assert hashlib.sha256(f"{served[k]['seed']}:{served[k]['salt']}".encode()).hexdigest() == served[k]["commitment"]
        by_seat = {k: records[room]["ids"] for k, room in rooms.items()}
        clients = {c.player: c for c in ps}
        for seat in range(4):
            a = deals_seen(clients[by_seat["1-1"][seat]], rooms["1-1"])
            b = deals_seen(clients[by_seat["1-2"][seat]], rooms["1-2"])
            assert len(a) == len(b) == HANDS and a == b, seat

        # The duplicate scores, from the recorded hands: 盘分 (with the penalty) minus the mean of both holders.
        points = {}
        for k, room in rooms.items():
            for h in records[room]["hands"]:
                for seat, pid in enumerate(records[room]["ids"]):
                    points[(k, h["hand"], seat)] = h["deltas"][seat] - (10 if (pid, h["hand"]) == (east1, 0) else 0)
        totals: dict[str, Fraction] = {}
        for h in range(HANDS):
            for seat in range(4):
                mean = Fraction(points[("1-1", h, seat)] + points[("1-2", h, seat)], 2)
                for k in rooms:
                    pid = by_seat[k][seat]
                    totals[pid] = totals.get(pid, Fraction(0)) + points[(k, h, seat)] - mean
        assert {r["player"]: r["score"] for r in v["duplicate"]["standings"]} == {
            p: round(float(x), 2) for p, x in totals.items()}
        assert any(x != 0 for x in totals.values())  # the penalty alone moves East's pair by ±5
        holders = [x for d in dup["deals"] for s in d["seats"] for x in s["holders"]]
        assert {x["table"]: x["replay"] for x in holders} == {k: served[k]["id"] for k in rooms}
    finally:
        await stop(server)


async def test_a_finished_duplicate_table_keeps_its_replay_secret_until_the_session_ends(tmp_path):
    # Its walls are the walls the other table is still playing: GET /api/matches/<id> must not show them.
    server = await start(str(tmp_path / "e.db"))
    try:
        rng = random.Random(21)
        ps = [await server.client(name=f"E{i}") for i in range(8)]
        r = await ps[0].request({"t": "tournament_create", "config": {
            "name": "Embargo Cup", "hands": 1, "duplicate": True, "checkin_required": False, "seating": "random"}})
        tid = r["tournament"]["id"]
        for c in ps:
            assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}}))["t"] == "ok"
        assert (await ps[0].request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "start"}}))["t"] == "ok"
        tables = {}
        for c in ps:
            m = await c.wait_for(lambda m: m.get("t") == "table", timeout=15)
            tables[c.player] = (m["table"], m["room"])
        fast = [c for c in ps if tables[c.player][0] == "1-1"]
        slow = [c for c in ps if tables[c.player][0] == "1-2"]
        await asyncio.gather(*(play(c, rng, lambda m: m.get("t") == "match_result", timeout=120) for c in fast))
        mid = server.app.rooms[tables[fast[0].player][1]].matches[1]["id"]
        assert await server.app.api(f"/api/matches/{mid}", "10.0.0.1") == (404, {"error": "not_found"})
        await asyncio.gather(*(play(c, rng, lambda m: m.get("t") == "match_result", timeout=120) for c in slow))
        v = await wait_view(ps[0], lambda v: v["state"] == "finished")
        status, body = await server.app.api(f"/api/matches/{mid}", "10.0.0.1")
        assert status == 200 and str(body["seed"]) == v["duplicate"]["sessions"][0]["seed"], (status, body)
    finally:
        await stop(server)


# Session 2 seated by standings (高高碰): table i gets places 4(i-1)+1..4i, its slots 0-3 best first,
# and turns them by i-1 seats: the place (0-based) sitting at each room seat, written out by hand.
TURNED = [[0, 1, 2, 3], [5, 6, 7, 4], [10, 11, 8, 9], [15, 12, 13, 14]]
SCHEME = {0: "ESNW", 1: "SEWN", 2: "WNES", 3: "NWSE"}  # decisions.md item 8: room seat -> wind, by round


def split_penalty(total: int) -> list[int]:
    """``total`` (a multiple of 5) as the penalties a referee may give (5, 10, 20, …, 60 points)."""
    out = []
    for v in (60, 50, 40, 30, 20, 10, 5):
        while total >= v:
            out.append(v)
            total -= v
    assert total == 0
    return out


async def duplicate_event(server, n: int, seed: int):
    """``n`` players (random bots) play two duplicate sessions of HANDS hands, the second seated by
    standings; after session 1 the referee takes 5(n - j) points off player j's first hand, so the
    standings are spread out, and against the registration order (all hands drawn still gives an order
    that differs from it). Returns the clients, the final view, each session's {table: (room, seats)},
    the standings that seated session 2, the match records by room and the penalties."""
    rng = random.Random(seed)
    ref = await server.client(name="Referee")
    ps = [await server.client(name=f"R{i}") for i in range(n)]
    r = await ref.request({"t": "tournament_create", "config": {
        "name": "Turn Cup", "hands": HANDS, "sessions": 2, "duplicate": True, "checkin_required": False,
        "seating": "standing"}})
    tid = r["tournament"]["id"]
    for c in ps:
        assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}}))["t"] == "ok"
    records: dict[str, dict] = {}
    penalties = {c.player: 5 * (n - j) for j, c in enumerate(ps)}

    async def play_table(c):
        m = await play(c, rng, lambda m: m.get("t") == "match_result", timeout=180)
        records.setdefault(m["room"], m["record"])

    sessions, order = [], []
    for s in (1, 2):
        assert (await ref.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "start"}}))["t"] == "ok"
        v = await wait_view(ref, lambda v: v["sessions"][s - 1]["state"] == "running")
        rooms = {}
        for c in ps:
            m = await c.wait_for(lambda m: m.get("t") == "table" and m["table"].startswith(f"{s}-"), timeout=15)
            rooms[m["table"]] = m["room"]
        seats = {t["table"]: [x["player"] for x in t["seats"]] for t in v["sessions"][s - 1]["tables"]}
        sessions.append({k: (rooms[k], seats[k]) for k in seats})
        await asyncio.gather(*(play_table(c) for c in ps))
        if s == 1:
            count = 0
            for p, total in penalties.items():
                table = next(k for k, (_, seated) in sessions[0].items() if p in seated)
                for pts in split_penalty(total):
                    r = await ref.request({"t": "tournament_cmd", "tournament": tid, "cmd": {
                        "t": "sanction", "player": p, "kind": "points", "points": pts, "reason": "slow play",
                        "table": table, "hand": 1}})
                    assert r["t"] == "ok", r
                    count += 1
            v = await wait_view(ref, lambda v: v["sessions"][0]["state"] == "finished" and sum(
                x["kind"] == "points" for x in v["sanctions"]) == count)
            order = [row["player"] for row in v["standings"]]
    final = await wait_view(ref, lambda v: v["state"] == "finished" and v["duplicate"]["standings"])
    return ps, final, sessions, order, records, penalties


def check_turned_walls(ps, sessions, order, records, tables: int):
    """Session 2: table i seats the standings turned by i-1, and in every hand each wind seat's tiles
    (the dealt concealed hand each player received) reach the intended slot at every table."""
    s2 = sessions[1]
    keys = [f"2-{i}" for i in range(1, tables + 1)]
    assert [s2[k][1] for k in keys] == [[order[x] for x in TURNED[i]] for i in range(tables)]
    clients = {c.player: c for c in ps}
    for h in range(HANDS):
        for wind in range(4):
            seat = next(p for p in range(4) if SCHEME[p][h // 4] == "ESWN"[wind])
            # The i-th table (0-based here) gives this seat's tiles to slot seat + i: place 4i + that slot.
            holders = [order[4 * i + (seat + i) % 4] for i in range(tables)]
            assert holders == [s2[k][1][seat] for k in keys]
            dealt = [deals_seen(clients[p], s2[k][0])[h] for p, k in zip(holders, keys)]
            assert all(d == dealt[0] for d in dealt), (h, wind)
            # The dealer (seat h mod 4, game.match) gets 14 tiles: the same seat, so the same holder, everywhere.
            assert len(dealt[0]) == (14 if wind == h % 4 else 13), (h, wind, dealt[0])
            assert all(records[s2[k][0]]["ids"][seat] == p for p, k in zip(holders, keys))


def duplicate_totals(sessions, records, penalties) -> dict:
    """The duplicate scores by hand: per session, hand and room seat, 盘分 (less session 1's penalties,
    all on hand 1) minus the mean over the tables."""
    totals: dict[str, Fraction] = {}
    for i, s in enumerate(sessions):
        rooms = [room for room, _ in s.values()]
        for h in range(HANDS):
            for seat in range(4):
                ids = [records[room]["ids"][seat] for room in rooms]
                pts = [records[room]["hands"][h]["deltas"][seat] - (penalties[pid] if (i, h) == (0, 0) else 0)
                       for room, pid in zip(rooms, ids)]
                for pid, p in zip(ids, pts):
                    totals[pid] = totals.get(pid, Fraction(0)) + p - Fraction(sum(pts), len(pts))
    return totals


async def stop_all(server) -> None:
    # Clients that stopped reading can take the close timeout each: close them together.
    await asyncio.gather(*(c.ws.close() for c in server.clients))
    await stop(server)


async def test_sixteen_players_at_four_tables_hold_each_hands_tiles_once_per_slot(tmp_path):
    server = await start(str(tmp_path / "s.db"))
    try:
        ps, v, sessions, order, records, penalties = await duplicate_event(server, 16, 30)
        check_turned_walls(ps, sessions, order, records, 4)
        # Penalties 80..5 in registration order: session 1's places differ from the registration order.
        assert order != [c.player for c in ps]
        totals = duplicate_totals(sessions, records, penalties)
        assert {r["player"]: r["score"] for r in v["duplicate"]["standings"]} == {
            p: round(float(x), 2) for p, x in totals.items()}
        assert len(totals) == 16 and any(x != 0 for x in totals.values())
        for d in v["duplicate"]["sessions"][1]["deals"]:
            for s in d["seats"]:
                assert sorted(x["slot"] for x in s["holders"]) == [0, 1, 2, 3]
    finally:
        await stop_all(server)


async def test_eight_players_at_two_tables_hold_each_hands_tiles_in_neighbouring_slots(tmp_path):
    server = await start(str(tmp_path / "e.db"))
    try:
        ps, v, sessions, order, records, penalties = await duplicate_event(server, 8, 31)
        check_turned_walls(ps, sessions, order, records, 2)
        totals = duplicate_totals(sessions, records, penalties)
        assert {r["player"]: r["score"] for r in v["duplicate"]["standings"]} == {
            p: round(float(x), 2) for p, x in totals.items()}
        assert len(totals) == 8 and any(x != 0 for x in totals.values())
        for d in v["duplicate"]["sessions"][1]["deals"]:
            for s in d["seats"]:
                a, b = (x["slot"] for x in s["holders"])
                assert b == (a + 1) % 4
    finally:
        await stop_all(server)
