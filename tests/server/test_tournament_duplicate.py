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
