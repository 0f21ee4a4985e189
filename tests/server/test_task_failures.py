"""A bug met while a room's or a tournament's task handles an item: the sender is answered
server/internal, the other members are told, and the task goes on answering later commands."""

import logging

from tests.server.conftest import FAST


def _bug_logged(caplog, what: str) -> None:
    errors = [r.getMessage() for r in caplog.get_records("call") if r.levelno >= logging.ERROR]
    assert errors and all(what in e for e in errors), errors
    caplog.clear()  # expected here (tests/server/conftest.py fails a test that logs an ERROR)


async def test_a_bug_in_a_tournament_task_is_reported_and_the_task_goes_on(server, caplog):
    org, ann, bob = [await server.client(name=n) for n in ("Org", "Ann", "Bob")]
    r = await org.request({"t": "tournament_create", "config": {"name": "Bug Cup"}})
    tid = r["tournament"]["id"]
    task = server.app.tournaments[tid]
    real = task.t.handle
    calls = []

    def failing_once(pid, cmd, now):  # an unexpected exception, as a bug in the tournament's code would raise
        calls.append(cmd["t"])
        if len(calls) == 1:
            raise KeyError("bug")
        return real(pid, cmd, now)

    task.t.handle = failing_once
    r = await ann.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}}, timeout=5)
    assert r["t"] == "error" and r["code"] == "server/internal", r
    pushed = await org.wait_for(lambda m: m.get("t") == "error", timeout=5)  # the organiser follows it
    assert pushed["code"] == "server/internal" and pushed["tournament"] == tid and "re" not in pushed
    _bug_logged(caplog, tid)
    # Later commands are still answered, the failed one's sender's included.
    for c in (ann, bob):
        r = await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}}, timeout=5)
        assert r["t"] == "ok", r
    r = await org.request({"t": "tournament", "tournament": tid}, timeout=5)
    assert sorted(r["tournament"]["names"].values()) == ["Ann", "Bob", "Org"]
    assert tid in server.app.tournaments and not task.task.done()


async def test_a_bug_in_a_room_task_is_reported_and_the_room_goes_on(server, caplog):
    a, b = await server.client(name="Ann"), await server.client(name="Bob")
    snap = await a.request({"t": "create", "config": FAST})
    room = snap["room"]
    assert (await b.request({"t": "join", "code": snap["info"]["invite"]}))["t"] == "ok"
    task = server.app.rooms[room]
    real = task.send_snapshot
    calls = []

    def failing_once(pid, conn, req):
        calls.append(pid)
        if len(calls) == 1:
            raise ValueError("bug")
        return real(pid, conn, req)

    task.send_snapshot = failing_once
    r = await a.request({"t": "snapshot"}, timeout=5)
    assert r["t"] == "error" and r["code"] == "server/internal", r
    pushed = await b.wait_for(lambda m: m.get("t") == "error", timeout=5)
    assert pushed["code"] == "server/internal" and pushed["room"] == room
    _bug_logged(caplog, room)
    r = await a.request({"t": "snapshot"}, timeout=5)
    assert r["t"] == "snapshot" and r["room"] == room, r
    r = await b.request({"t": "chat", "text": "still here"}, timeout=5)
    assert r["t"] == "ok", r
    assert room in server.app.rooms and not task.task.done()


async def test_a_tick_that_fails_is_not_retried_at_once(server, caplog):
    """A deadline whose handling raises is tried again after RETRY, not in a busy loop."""
    from server.taskfail import RETRY

    a = await server.client(name="Ann")
    snap = await a.request({"t": "create", "config": FAST})
    task = server.app.rooms[snap["room"]]
    now = server.app.now
    ticks = []

    def failing_tick(t):
        ticks.append(t)
        raise RuntimeError("bug")

    task.room.tick = failing_tick
    task.room.next_deadline = lambda: now() - 1  # always due
    task.put(("wake",))
    import asyncio

    await asyncio.sleep(RETRY * 1.5)
    assert 1 <= len(ticks) <= 3, len(ticks)
    _bug_logged(caplog, snap["room"])
    task.room.next_deadline = lambda: None
    r = await a.request({"t": "snapshot"}, timeout=5)
    assert r["t"] == "snapshot", r
