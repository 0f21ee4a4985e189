"""Tournaments over the wire: eight players, two sessions, a late arrival and a referee's penalty,
played through the websocket API with random legal play; the final standings are recomputed here from
the match records the players received and checked against the server's."""

from __future__ import annotations

import asyncio
import json
import random

from tests.server.client import play
from tests.server.conftest import start, stop

LATE = 330  # seconds after the start: R98 第十三条(二)1, up to 10 minutes late: -10 and a warning


def standard12(scores: list[int]) -> list[int]:
    """标准分 ×12 of one table: places 4/2/1/0, tied places sharing the values they span."""
    values = [48, 24, 12, 0]
    out = [0] * 4
    order = sorted(range(4), key=lambda i: -scores[i])
    i = 0
    while i < 4:
        j = i
        while j + 1 < 4 and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        share = sum(values[i:j + 1]) // (j - i + 1)
        for k in range(i, j + 1):
            out[order[k]] = share
        i = j + 1
    return out


def tournament_of(m: dict) -> str | None:
    """The tournament a whole view or a delta is about (None for other messages)."""
    if m.get("t") == "tournament" and isinstance(m.get("tournament"), dict):
        return m["tournament"]["id"]
    return m["tournament"] if m.get("t") == "tournament_delta" else None


async def wait_view(c, pred, timeout: float = 30.0) -> dict:
    """The view (kept up to date from deltas by the client) once a view or delta makes ``pred`` true."""
    m = await c.wait_for(lambda m: (tid := tournament_of(m)) is not None and pred(c.tviews[tid]), timeout)
    return c.tviews[tournament_of(m)]


async def play_table(c, rng, results: dict) -> None:
    """Play the table the player is seated at until its match ends; keep the match record."""
    m = await play(c, rng, lambda m: m.get("t") == "match_result", timeout=120)
    results.setdefault(m["room"], m["record"])


async def test_two_sessions_eight_players_with_lateness_and_a_penalty(tmp_path):
    server = await start(str(tmp_path / "t.db"))
    try:
        rng = random.Random(11)
        ref = await server.client(name="Referee")
        ps = [await server.client(name=f"P{i}") for i in range(8)]
        begin = int(server.app.now()) + 3
        r = await ref.request({"t": "tournament_create", "config": {
            "name": "Test Cup", "sessions": 2, "hands": 1, "seating": "swiss", "starts": [begin, None]}})
        assert r["t"] == "tournament", r
        tid = r["tournament"]["id"]
        assert r["tournament"]["referee"] == ref.player and r["tournament"]["organiser"] == ref.player
        assert r["tournament"]["names"] == {ref.player: "Referee"}

        for c in ps:
            assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}}))["t"] == "ok"
        # Permissions: a player cannot sanction anyone, and unknown tournaments are refused.
        r = await ps[0].request({"t": "tournament_cmd", "tournament": tid, "cmd": {
            "t": "sanction", "player": ps[1].player, "kind": "warning", "reason": "no"}})
        assert r["code"] == "tournament/not_referee", r
        r = await ps[0].request({"t": "tournament_cmd", "tournament": "tffffffff", "cmd": {"t": "register"}})
        assert r["code"] == "lobby/no_tournament", r
        for c in ps[:7]:  # P7 will be late
            assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "checkin"}}))["t"] == "ok"

        # The session starts at its time: every player is told their table and gets its snapshot.
        tables = {}
        for c in ps:
            m = await c.wait_for(lambda m: m.get("t") == "table", timeout=15)
            tables[c.player] = (m["table"], m["room"])
            await c.wait_for(lambda m: m.get("t") == "snapshot" and m["room"] == tables[c.player][1])
        late_table = tables[ps[7].player][0]

        results: dict[str, dict] = {}
        on_time = [asyncio.create_task(play_table(c, rng, results)) for c in ps
                   if tables[c.player][0] != late_table]
        # P7 arrives 5.5 minutes after the start (the tournament's clock only: the tables play on).
        from server.roomitems import TICK

        ttask = server.app.tournaments[tid]
        real = server.app.now
        ttask.clock = lambda: real() + LATE
        assert (await ps[7].request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "checkin"}}))["t"] == "ok"
        late_players = [c for c in ps if tables[c.player][0] == late_table]
        waiting = [asyncio.create_task(play_table(c, rng, results)) for c in late_players]

        # The referee: 10 points off P0's first hand.
        victim = ps[0].player
        r = await ref.request({"t": "tournament_cmd", "tournament": tid, "cmd": {
            "t": "sanction", "player": victim, "kind": "points", "points": 10, "reason": "slow play",
            "table": tables[victim][0], "hand": 1}})
        assert r["t"] == "ok", r
        await asyncio.gather(*on_time, *waiting)
        assert len(results) == 2

        # P0 sees the penalty; it is not public, so another player does not.
        v0 = await wait_view(ps[0], lambda v: any(s["kind"] == "points" for s in v["sanctions"]))
        mine = [s for s in v0["sanctions"] if s["kind"] in ("points", "late")]
        assert [(s["kind"], s["points"], s["player"]) for s in mine] == [("points", 10, victim)]
        v = await wait_view(ref, lambda v: v["sessions"][0]["state"] == "finished")
        assert v["names"] == {ref.player: "Referee", **{c.player: f"P{i}" for i, c in enumerate(ps)}}
        late = [s for s in v["sanctions"] if s["kind"] == "late"]
        assert [(s["player"], s["points"]) for s in late] == [(ps[7].player, 10)]
        r = await ps[3].request({"t": "tournament", "tournament": tid})
        assert all(s["player"] == ps[3].player or s["public"] for s in r["tournament"]["sanctions"])

        # Session 2: everybody checks in, the organiser starts it, they play it.
        ttask.clock = real
        for c in ps:
            assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "checkin"}}))["t"] == "ok"
        assert (await ref.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "start"}}))["t"] == "ok"
        tables2 = {}
        for c in ps:
            m = await c.wait_for(lambda m: m.get("t") == "table" and m["table"].startswith("2-"), timeout=15)
            tables2[c.player] = (m["table"], m["room"])
        await asyncio.gather(*(play_table(c, rng, results) for c in ps))
        assert len(results) == 4
        final = await wait_view(ref, lambda v: v["state"] == "finished")

        # Recompute: 局分 = 500 + Σ 盘分 − penalties − lateness per session; 标准分 per table; totals;
        # ranking by 标准分, 局分, then the per-session 标准分 from the best down, then registration.
        std = {c.player: [] for c in ps}
        score = {c.player: 0 for c in ps}
        for seating in (tables, tables2):
            by_room: dict[str, list[str]] = {}
            for pid, (_, room) in seating.items():
                by_room.setdefault(room, []).append(pid)
            for room, pids in by_room.items():
                rec = results[room]
                ids = rec["ids"]
                assert sorted(ids) == sorted(pids)
                totals = []
                for seat, pid in enumerate(ids):
                    s = 500 + sum(h["deltas"][seat] for h in rec["hands"])
                    if seating is tables and pid in (victim, ps[7].player):
                        s -= 10  # the referee's penalty; P7's lateness
                    totals.append(s)
                for pid, s, st in zip(ids, totals, standard12(totals)):
                    score[pid] += s
                    std[pid].append(st)
        order = [c.player for c in ps]
        expected = sorted(order, key=lambda p: (-sum(std[p]), -score[p], sorted((-x for x in std[p])), order.index(p)))
        got = final["standings"]
        assert [(x["player"], x["std12"], x["score"]) for x in got] == [(p, sum(std[p]), score[p]) for p in expected]
        rank = [(sum(std[p]), score[p], sorted(std[p], reverse=True)) for p in expected]
        assert [x["place"] for x in got] == [rank.index(r) + 1 for r in rank]  # full ties share a place
        assert sum(x["std12"] for x in got) == 4 * 84  # 7 × 12 per table, four tables
    finally:
        await stop(server)


async def test_a_restart_mid_session_loses_nothing(db_url):
    """A clean restart in the middle of a table's match: the tournament is rebuilt from its log, its
    table's room from its own, the players resume with their tokens, and the session finishes (on
    either backend)."""
    db = db_url
    server = await start(db)
    rng = random.Random(5)
    ps = [await server.client(name=f"R{i}") for i in range(4)]
    tokens = [c.token for c in ps]
    r = await ps[0].request({"t": "tournament_create", "config": {  # time to register on a loaded machine
        "name": "Restart Cup", "hands": 2, "starts": [int(server.app.now()) + 3]}})
    tid = r["tournament"]["id"]
    for c in ps:
        assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}}))["t"] == "ok"
        assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "checkin"}}))["t"] == "ok"
    room = (await ps[0].wait_for(lambda m: m.get("t") == "table", timeout=15))["room"]
    # Play the first hand; stop the server as soon as its result is out.
    first = await asyncio.gather(*(play(c, rng, lambda m: m.get("t") == "hand_result", timeout=60) for c in ps))
    await stop(server)

    server = await start(db)
    try:
        ttask = server.app.tournaments[tid]
        assert ttask.tables == {"1-1": room} and server.app.rooms[room].tournament[0] is ttask
        ps = [await server.client() for _ in range(4)]
        for c, token in zip(ps, tokens):
            r = await c.request({"t": "resume", "token": token})
            assert r["t"] == "welcome" and r["room"] == room, r
        done = await asyncio.gather(*(play(c, rng, lambda m: m.get("t") == "match_result", timeout=90) for c in ps))
        rec = done[0]["record"]
        assert rec["hands"][0] == first[0]["record"] and len(rec["hands"]) == 2
        v = (await ps[0].request({"t": "tournament", "tournament": tid}))["tournament"]
        for _ in range(50):
            if v["state"] == "finished":
                break
            v = await wait_view(ps[0], lambda v: True)
        assert v["state"] == "finished"
        seats = v["sessions"][0]["tables"][0]["seats"]
        assert [s["score"] for s in seats] == [500 + sum(h["deltas"][i] for h in rec["hands"]) for i in range(4)]
        assert sorted(s["std12"] for s in seats) == sorted(standard12([s["score"] for s in seats]))
    finally:
        await stop(server)


async def test_a_scheduled_event_fills_with_bots_and_publishes_its_ranking(tmp_path):
    """The seed's 每十分钟一场: the server opens each instance for sign-up by itself; at its start the
    signed-up players (no check-in) are seated, bots fill the table, and the ranking goes out."""
    from server.app import App
    from server.store import Store
    from tests.server.conftest import Running, fast_settings

    settings = fast_settings()
    first = int(__import__("time").time()) + 4  # at least 3 s away: the server starts and two players register first
    settings.series = [{"name": "Quick Event", "every": 60, "first_at": first, "hands": 1, "min_players": 2}]
    settings.linger = 1.0
    store = await Store.open(str(tmp_path / "e.db"))
    app = App(store, settings)
    server = Running(app, await app.start("127.0.0.1", 0), str(tmp_path / "e.db"))
    try:
        a, b = await server.client(name="Ann"), await server.client(name="Bo")
        for _ in range(100):
            listed = (await a.request({"t": "tournaments"}))["tournaments"]
            if listed:
                break
            await asyncio.sleep(0.05)
        (event,) = listed
        assert event["name"] == "Quick Event" and event["next_start"] == first and event["state"] == "registering"
        for c in (a, b):
            r = await c.request({"t": "tournament_cmd", "tournament": event["id"], "cmd": {"t": "register"}})
            assert r["t"] == "ok", r
        rng = random.Random(3)
        tables = [await c.wait_for(lambda m: m.get("t") == "table", timeout=15) for c in (a, b)]
        assert tables[0]["room"] == tables[1]["room"]
        await asyncio.gather(*(play(c, rng, lambda m: m.get("t") == "match_result", timeout=60) for c in (a, b)))
        done = await a.wait_for(lambda m: m.get("t") == "tournament_event" and m["event"] == "finished", timeout=15)
        assert sorted(x["player"] for x in done["standings"]) == sorted([a.player, b.player])
        v = (await a.request({"t": "tournament", "tournament": event["id"]}))["tournament"]
        seats = v["sessions"][0]["tables"][0]["seats"]
        assert sum(1 for s in seats if s["player"] is None) == 2  # two unranked bots filled the table
        # A finished event stays listed for ``linger`` seconds; the next instance is open meanwhile.
        listed = {x["id"]: x for x in (await a.request({"t": "tournaments"}))["tournaments"]}
        assert listed[event["id"]]["state"] == "finished"
        assert any(x["state"] == "registering" and x["next_start"] == first + 60 for x in listed.values())
        for _ in range(300):  # out of the list once ``linger`` has passed
            listed = {x["id"] for x in (await a.request({"t": "tournaments"}))["tournaments"]}
            if event["id"] not in listed:
                break
            await asyncio.sleep(0.05)
        assert event["id"] not in listed
        # Out of the list, not lost: its final view is read back from the database, by anybody.
        assert event["id"] not in server.app.tournaments
        late = await server.client(name="Late")
        gone = (await late.request({"t": "tournament", "tournament": event["id"]}))["tournament"]
        assert gone["sessions"] == v["sessions"] and gone["names"][a.player] == "Ann"
        status, body = await server.app.api(f"/api/tournaments/{event['id']}")
        assert status == 200 and body["sessions"] == v["sessions"]
        r = await late.request({"t": "tournament", "tournament": "t00000000"})
        assert r["t"] == "error" and r["code"] == "lobby/no_tournament"
        assert (await server.app.api("/api/tournaments/t00000000"))[0] == 404
    finally:
        await stop(server)


async def test_stop_win_and_suspension_reach_the_table(tmp_path):
    """The referee's 停和 blocks the seat at its table at once; 停赛 hands the seat to a bot that cannot
    win, tells the player, and drops them from the standings."""
    server = await start(str(tmp_path / "t.db"))
    try:
        rng = random.Random(8)
        ref = await server.client(name="Referee")
        ps = [await server.client(name=f"S{i}") for i in range(4)]
        r = await ref.request({"t": "tournament_create", "config": {
            "name": "Strict Cup", "hands": 2, "starts": [int(server.app.now()) + 3]}})
        tid = r["tournament"]["id"]
        for c in ps:
            assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}}))["t"] == "ok"
            assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "checkin"}}))["t"] == "ok"
        table = [await c.wait_for(lambda m: m.get("t") == "table", timeout=15) for c in ps][0]
        room = server.app.rooms[table["room"]].room
        await ref.wait_for(lambda m: m.get("t") == "tournament_event" and m["event"] == "table_started", timeout=15)
        blocked, gone = ps[1].player, ps[2].player
        seat_of = {s.id: i for i, s in enumerate(room.seats)}

        async def sanction(**cmd):
            r = await ref.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "sanction", **cmd}})
            assert r["t"] == "ok", r

        await sanction(player=blocked, kind="stop_win", reason="wrong pung")
        for _ in range(500):  # the room gets the tournament's command through its queue
            if room.info()["seats"][seat_of[blocked]]["blocked"]:
                break
            await asyncio.sleep(0.02)
        assert room.info()["seats"][seat_of[blocked]]["blocked"]
        await sanction(player=gone, kind="suspend", reason="collusion", public=True)
        notice = await ps[0].wait_for(lambda m: m.get("t") == "tournament_event" and m["event"] == "sanction")
        assert notice["sanction"]["kind"] == "suspend" and notice["sanction"]["player"] == gone
        await ps[2].wait_for(lambda m: m.get("t") == "substituted", timeout=15)
        seat = room.info()["seats"][seat_of[gone]]
        assert seat["substitute"] and seat["no_win"] and seat["replaces"] == gone

        # The suspended player only watches now (a prompt it answered late would be refused).
        results = await asyncio.gather(*(play(c, rng, lambda m: m.get("t") == "match_result", timeout=90)
                                         for c in ps if c is not ps[2]),
                                       ps[2].wait_for(lambda m: m.get("t") == "match_result", timeout=90))
        rec = results[0]["record"]
        assert all(h["winner"] != seat_of[gone] for h in rec["hands"])  # the stand-in never wins
        v = await wait_view(ref, lambda v: v["state"] == "finished")
        # suspended mid-table: no result from that table, marked in the standings
        assert [(x["sessions"], x["suspended"]) for x in v["standings"] if x["player"] == gone] == [(0, True)]
        assert v["suspended"] == [gone]
        # Anybody may read the standings over HTTP: the public 停赛 is there, the private 停和 is not.
        from tests.server.test_quick import fetch

        status, kind, body = await asyncio.to_thread(fetch, f"http://127.0.0.1:{server.port}/api/tournaments/{tid}")
        public = json.loads(body)
        assert status == 200 and kind.startswith("application/json")
        assert public["standings"] == v["standings"] and public["names"][blocked] == "S1"
        assert [x["kind"] for x in public["sanctions"]] == ["suspend"]
        status, _, body = await asyncio.to_thread(fetch, f"http://127.0.0.1:{server.port}/api/tournaments")
        assert status == 200 and tid in [x["id"] for x in json.loads(body)["tournaments"]]
    finally:
        await stop(server)


async def test_an_organiser_runs_at_most_five_tournaments_at_once(tmp_path):
    server = await start(str(tmp_path / "t.db"))
    try:
        c = await server.client(name="Busy")
        for i in range(5):
            r = await c.request({"t": "tournament_create", "config": {"name": f"Cup {i}"}})
            assert r["t"] == "tournament", r
        r = await c.request({"t": "tournament_create", "config": {"name": "Cup 6"}})
        assert r["code"] == "lobby/too_many_tournaments", r
        first = next(iter(server.app.tournaments))
        assert (await c.request({"t": "tournament_cmd", "tournament": first, "cmd": {"t": "cancel"}}))["t"] == "ok"
        r = await c.request({"t": "tournament_create", "config": {"name": "Cup 6"}})
        assert r["t"] == "tournament", r
    finally:
        await stop(server)


async def test_time_up_voids_the_hand_in_play(tmp_path):
    """R98 第六条四: when the session's time runs out the hand in play is void and the table's match
    ends; the session's scores stand on the hands finished before."""
    server = await start(str(tmp_path / "t.db"))
    try:
        ps = [await server.client(name=f"V{i}") for i in range(4)]
        r = await ps[0].request({"t": "tournament_create", "config": {
            "name": "Timed Cup", "hands": 4, "time_limit": 1, "starts": [int(server.app.now()) + 3]}})
        tid = r["tournament"]["id"]
        for c in ps:
            assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}}))["t"] == "ok"
            assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "checkin"}}))["t"] == "ok"
        await ps[0].wait_for(lambda m: m.get("t") == "tournament_event" and m["event"] == "table_started", timeout=15)
        # Nobody has played a tile when the minute runs out (on the tournament's clock).
        from server.roomitems import TICK

        ttask = server.app.tournaments[tid]
        real = server.app.now
        ttask.clock = lambda: real() + 61
        ttask.put(TICK)
        ends = [await c.wait_for(lambda m: m.get("t") == "match_result", timeout=15) for c in ps]
        rec = ends[0]["record"]
        assert [h["void"] for h in rec["hands"]] == [True] and rec["scores"] == [0, 0, 0, 0]
        v = await wait_view(ps[0], lambda v: v["state"] == "finished")
        table = v["sessions"][0]["tables"][0]
        assert table["time_up"] and [s["score"] for s in table["seats"]] == [500] * 4
        assert sorted(s["std12"] for s in table["seats"]) == [21] * 4  # all tied: 1.75 each
    finally:
        await stop(server)


async def test_a_named_referee_accepts_over_the_wire_and_a_referee_never_plays(tmp_path):
    server = await start(str(tmp_path / "t.db"))
    try:
        org = await server.client(name="Org")
        judge = await server.client(name="Judge")
        r = await org.request({"t": "tournament_create", "config": {"name": "Cup", "referee": judge.player}})
        tid = r["tournament"]["id"]
        assert (r["tournament"]["referee"], r["tournament"]["referee_offer"]) == (org.player, judge.player)
        r = await judge.request({"t": "tournament", "tournament": tid})
        assert r["tournament"]["referee_offer"] == judge.player  # what the named account sees
        r = await judge.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "accept_referee"}})
        assert r["t"] == "ok", r
        v = await wait_view(org, lambda v: v["referee"] == judge.player)
        assert v["referee_offer"] is None
        # the referee cannot register: registering gives the role up, and then they are a player
        r = await judge.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}})
        assert r["t"] == "ok", r
        v = await wait_view(org, lambda v: v["referee"] is None)
        r = await org.request({"t": "tournament_cmd", "tournament": tid,
                               "cmd": {"t": "referee", "player": judge.player}})
        assert r["code"] == "tournament/referee_plays", r
    finally:
        await stop(server)


async def test_a_player_who_checks_in_and_sits_down_late_is_late_until_then(tmp_path):
    # 宣布比赛后迟到: P3 checks in on time but is offline when the table opens; 托管 (which never wins
    # at a table) plays the seat, and P3 is late until they take it.
    server = await start(str(tmp_path / "t.db"))
    try:
        ref = await server.client(name="Referee")
        ps = [await server.client(name=f"P{i}") for i in range(4)]
        begin = int(server.app.now()) + 3
        r = await ref.request({"t": "tournament_create", "config": {"name": "Cup", "hands": 1, "starts": [begin]}})
        tid = r["tournament"]["id"]
        for c in ps:
            for cmd in ("register", "checkin"):
                assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": cmd}}))["t"] == "ok"
        await ps[3].close()
        for c in ps[:3]:
            await c.wait_for(lambda m: m.get("t") == "table", timeout=15)
        v = await wait_view(ref, lambda v: v["sessions"][0]["tables"] and v["sessions"][0]["tables"][0]["state"] == "playing")
        assert v["sanctions"] == []
        from server.roomitems import TICK

        ttask = server.app.tournaments[tid]
        real = server.app.now
        ttask.clock = lambda: real() + LATE  # 5.5 minutes after the start, on the tournament's clock
        back = await server.client()
        r = await back.request({"t": "resume", "token": ps[3].token})
        assert r["t"] == "welcome", r
        v = await wait_view(ref, lambda v: any(s["kind"] == "late" for s in v["sanctions"]))
        assert [(s["kind"], s["points"], s["player"]) for s in v["sanctions"]] == [
            ("warning", 0, ps[3].player), ("late", 10, ps[3].player)]
    finally:
        await stop(server)
