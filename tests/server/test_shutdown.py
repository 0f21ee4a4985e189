"""``App.stop`` always ends (server.shutdown): a task that does not end on cancel or STOP is logged with
where it waits and left behind, instead of keeping the process (and whoever waits for it) forever."""

import asyncio
import logging

from server.store import open_store
from tests.server.conftest import FAST, start


async def stubborn_forever(released: asyncio.Event) -> None:
    while not released.is_set():
        try:
            await released.wait()
        except asyncio.CancelledError:
            continue  # a bug: a task that swallows its cancel (until the test lets it go)


async def test_a_task_that_ignores_its_cancel_cannot_keep_the_server_from_stopping(tmp_path, caplog):
    running = await start(str(tmp_path / "g.db"), stop_timeout=0.5)
    app = running.app
    released = asyncio.Event()
    stuck = asyncio.get_running_loop().create_task(stubborn_forever(released), name="stubborn")
    app.tasks.append(stuck)
    caplog.set_level(logging.ERROR, "guobiao.server")
    stopping = asyncio.ensure_future(app.stop())
    try:
        done, _ = await asyncio.wait({stopping}, timeout=10)
        assert done, "the stop waits for a task that ignores its cancel"  # (the old one, forever)
        assert "the server's own tasks did not end in time" in caplog.text
        assert "stubborn: stubborn_forever (test_shutdown.py:" in caplog.text  # where it waits is told
    finally:
        released.set()
        await stuck
        await stopping
    caplog.clear()  # the ERROR above was the point of the test


async def test_a_stop_with_a_room_playing_is_quiet_and_keeps_what_was_played(tmp_path, caplog):
    running = await start(str(tmp_path / "g.db"), stop_timeout=5.0)
    host = await running.client(name="Host")
    snap = await host.request({"t": "create", "config": FAST})
    for _ in range(3):
        assert (await host.request({"t": "add_bot"}))["t"] == "ok"
    assert (await host.request({"t": "ready"}))["t"] == "ok"
    await host.wait_for(lambda m: m.get("t") == "game")
    task = running.app.rooms[snap["room"]]
    caplog.set_level(logging.ERROR, "guobiao.server")
    await host.ws.close()
    await running.app.stop()
    assert "did not end in time" not in caplog.text
    store = await open_store(running.db)
    try:
        assert await store.log_length(task.db_id) == task.room.rows  # everything played was kept
    finally:
        await store.close()
