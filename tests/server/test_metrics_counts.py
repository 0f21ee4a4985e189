"""What /metrics and /api/health count: the moves the server makes for seats (bots, 托管, timeouts)
with the players' actions, and only the tournaments not yet over."""

import asyncio
import json
import random
import sqlite3

from tests.server.test_metrics import act_times, health, scrape, solo_table


def stored_auto_moves(db: str, room_db_id: int) -> int:
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT entry FROM actions WHERE room_id = ?", (room_db_id,)).fetchall()
    finally:
        con.close()
    entries = [json.loads(e) for (e,) in rows]
    return sum(1 for e in entries if e.get("k") == "act" and e.get("by") != "player")


async def test_bot_timer_moves_are_counted_in_actions_total(server):
    c, task = await solo_table(server, "Botcount")
    ok, _, _ = await act_times(c, random.Random(9), 8)
    metrics = server.app.metrics
    for _ in range(250):  # the bots answer until it is the player's turn again; counted once durable
        n = stored_auto_moves(server.db, task.db_id)
        if n and metrics.auto == n:
            break
        await asyncio.sleep(0.02)
    assert n > 0 and metrics.auto == n
    m = await scrape(server)
    assert n <= m["guobiao_actions_total{result=auto}"] <= stored_auto_moves(server.db, task.db_id)  # play goes on
    assert m["guobiao_actions_total{result=ok}"] == ok  # the player's own, as before


async def test_health_does_not_count_finished_tournaments_still_listed(server):
    org = await server.client(name="Counter")
    r = await org.request({"t": "tournament_create", "config": {"name": "Short Cup",
                                                                "starts": [int(server.app.now()) + 600]}})
    tid = r["tournament"]["id"]
    status, h = await health(server)
    assert h["tournaments"] == 1
    r = await org.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "cancel"}})
    assert r["t"] == "ok", r
    assert tid in server.app.tournaments  # still listed a while (its ranking viewable)
    status, h = await health(server)
    assert status == 200 and h["tournaments"] == 0
    assert (await scrape(server))["guobiao_tournaments"] == 0
