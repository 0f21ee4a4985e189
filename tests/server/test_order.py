"""A connection's frames take effect in the order sent, whatever queue they go to (the lobby, a room's,
a tournament's or the quick-match queue)."""

import msgpack


def send_together(c, *msgs) -> None:
    """Several frames in one write: the server reads them in one go, nothing waits in between."""
    for m in msgs:
        c.ws.protocol.send_binary(msgpack.packb(m))
    c.ws.send_data()


async def answers(c, n: int) -> list[tuple]:
    got = [await c.wait_for(lambda m: "re" in m) for _ in range(n)]
    return [(m["re"], m["t"], m.get("code")) for m in got]


async def test_join_then_ready_back_to_back_take_effect_in_order(server):
    """``join`` goes to the room's queue; ``ready`` right behind it must wait until the join took effect
    (it used to be refused lobby/not_in_room before the join's ok)."""
    host = await server.client(name="Host")
    guests = [await server.client(name=f"Guest{i}") for i in range(3)]
    for _ in range(10):
        snap = await host.request({"t": "create", "config": {"hands": 4, "private": True}})
        code = snap["info"]["invite"]
        for i, g in enumerate(guests):
            send_together(g, {"t": "join", "code": code, "id": 100 + i}, {"t": "ready", "id": 200 + i})
        for i, g in enumerate(guests):
            assert await answers(g, 2) == [(100 + i, "ok", None), (200 + i, "ok", None)]
        for c in guests + [host]:
            assert (await c.request({"t": "leave"}))["t"] == "ok"
        for c in guests + [host]:
            await c.drain(0.01)
            c.inbox.clear()


async def test_frames_to_different_queues_back_to_back_take_effect_in_order(server):
    """quick (the quick-match queue), quick_cancel, then create (the lobby), join-then-chat and
    watch-then-snapshot: each answered in the order sent, each seeing the one before it done."""
    host = await server.client(name="Owner")
    c = await server.client(name="Mover")
    snap = await host.request({"t": "create", "config": {"hands": 4, "private": True}})
    code = snap["info"]["invite"]
    for _ in range(5):
        send_together(c, {"t": "quick", "bots": False, "id": 1}, {"t": "quick_cancel", "id": 2},
                      {"t": "join", "code": code, "id": 3}, {"t": "chat", "text": "hi", "id": 4},
                      {"t": "leave", "id": 5}, {"t": "watch", "code": code, "id": 6}, {"t": "snapshot", "id": 7},
                      {"t": "leave", "id": 8}, {"t": "ping", "id": 9})
        got = await answers(c, 9)
        assert got == [(1, "queued", None), (2, "ok", None), (3, "ok", None), (4, "ok", None), (5, "ok", None),
                       (6, "ok", None), (7, "snapshot", None), (8, "ok", None), (9, "pong", None)], got
        for x in (c, host):  # a client that leaves its messages unread stops reading its socket
            await x.drain(0.01)
            x.inbox.clear()


async def stall_room(server, c) -> object:
    """``c`` in a room whose task has stopped without closing the room: its frames get no answer there."""
    snap = await c.request({"t": "create", "config": {"hands": 4, "private": True}})
    task = server.app.rooms[snap["room"]]
    task.task.cancel()
    try:
        await task.task
    except BaseException:
        pass
    return task


async def test_frames_left_in_a_closed_rooms_queue_are_answered_and_the_next_go_on(server):
    c = await server.client(name="Stuck")
    task = await stall_room(server, c)
    send_together(c, {"t": "ready", "id": 1}, {"t": "ping", "id": 2})
    assert await c.drain(0.1) == []  # the ping waits behind the ready
    server.app.room_gone(task)
    assert await answers(c, 2) == [(1, "error", "lobby/no_room"), (2, "pong", None)]


async def test_a_frame_never_answered_stops_holding_the_next_ones_back(server):
    server.app.limits.answer_wait = 0.2
    c = await server.client(name="Lost")
    await stall_room(server, c)
    send_together(c, {"t": "ready", "id": 1}, {"t": "ping", "id": 2})
    assert await c.drain(0.3) == []
    send_together(c, {"t": "ping", "id": 3})
    assert await answers(c, 2) == [(2, "pong", None), (3, "pong", None)]
