"""A tournament change is sent as a small delta to the followers who are online, and whole views are built
only when asked for: a change used to build a view for every participant and follower, online or not."""

import asyncio

from rooms.tournament.tournament import Tournament


async def test_a_change_builds_no_views_and_skips_offline_followers(server, monkeypatch):
    org = await server.client(name="Org")
    r = await org.request({"t": "tournament_create", "config": {"name": "Delta Cup"}})
    tid = r["tournament"]["id"]
    ps = [await server.client(name=f"P{i}") for i in range(5)]
    for c in ps:
        assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}}))["t"] == "ok"
    away = ps[0].player
    await ps[0].close()  # a follower and a participant, now offline
    for _ in range(1000):
        if away not in server.app.conns:
            break
        await asyncio.sleep(0.01)

    built = []
    real_view = Tournament.view
    monkeypatch.setattr(Tournament, "view", lambda self, pid: built.append(pid) or real_view(self, pid))

    late = await server.client(name="Late")
    r = await late.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}})
    assert r["t"] == "ok", r
    assert built == [late.player]  # the newcomer's own first view, nobody else's
    # The online followers got a delta that brings their view to what a fresh one shows.
    for c in [org, *ps[1:]]:
        d = await c.wait_for(lambda m: m.get("t") == "tournament_delta" and late.player in str(m.get("players")))
        assert [p["id"] for p in d["players"]] == [late.player] and d["names"] == {late.player: "Late"}
        kept = c.tviews[tid]  # the first view, with every delta since applied (tests/server/client.py)
        fresh = (await c.request({"t": "tournament", "tournament": tid}))["tournament"]
        assert kept == fresh and kept["tseq"] == d["tseq"]
    # Whole views and deltas are server/wire.py's messages, exactly.
    from server import wire
    from tests.server.wirecheck import problems

    frames = [f for c in (org, *ps[1:], late) for f in c.frames if f["t"] in ("tournament", "tournament_delta")]
    assert {"tournament", "tournament_delta"} == {f["t"] for f in frames}
    bad = [(f["t"], p) for f in frames for p in problems(f, wire.ServerMessage)]
    assert not bad, bad[:5]


async def test_a_command_follows_through_the_app_so_the_previous_tournament_stops_sending(server):
    """A command to a tournament subscribes the player to its deltas, as ``tournament`` does: opening
    another tournament afterwards must end the first one's deltas (one followed at a time), and
    a command to another tournament ends those of the one followed before."""
    org = await server.client(name="Org")
    a = (await org.request({"t": "tournament_create", "config": {"name": "Cup A"}}))["tournament"]["id"]
    b = (await org.request({"t": "tournament_create", "config": {"name": "Cup B"}}))["tournament"]["id"]
    c = (await org.request({"t": "tournament_create", "config": {"name": "Cup C"}}))["tournament"]["id"]
    p, q = await server.client(name="P"), await server.client(name="Q")

    async def register(c, tid):
        assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}}))["t"] == "ok"

    async def deltas_to_p(tid) -> list:
        await p.request({"t": "ping"})  # after anything pushed to P before it
        return [f for f in p.frames if f["t"] == "tournament_delta" and f["tournament"] == tid]

    await register(p, a)  # P now gets A's deltas
    assert (await p.request({"t": "tournament", "tournament": b}))["t"] == "tournament"  # P looks at B now
    seen = len(await deltas_to_p(a))
    await register(q, a)  # replied to after A's delta went out
    assert len(await deltas_to_p(a)) == seen  # P follows B, not A
    assert server.app.following[p.player] is server.app.tournaments[b]

    await register(p, c)  # a command to C: P follows C now
    assert server.app.following[p.player] is server.app.tournaments[c]
    seen = len(await deltas_to_p(b))
    await register(q, b)
    assert len(await deltas_to_p(b)) == seen  # P follows C, not B
    await register(q, c)
    assert (await p.wait_for(lambda m: m.get("t") == "tournament_delta" and m["tournament"] == c))["names"] == {
        q.player: "Q"}  # and C's deltas reach P
