"""RoomTask._send: what a call's messages become on their way to the members (no sockets)."""

from server import codec
from server.roomtask import RoomTask


class App:
    def __init__(self):
        self.sent = []

    def deliver(self, pid, msg, shared=None):
        self.sent.append((pid, msg, shared))


def task():
    t = RoomTask.__new__(RoomTask)
    t.app, t.names, t.room = App(), {"a": "Ann", "b": "Bob"}, None
    t.id = "r1"
    return t


INFO = {"seats": [{"id": "a"}, {"id": "b"}, None, None]}


def test_one_message_goes_as_it_is_and_a_room_message_alone_is_still_named():
    t = task()
    game = {"t": "game", "events": [], "legal": [], "seq": 3}
    t._send([("a", game)], [])
    assert t.app.sent == [("a", game, None)]  # a claim answer's: the very dict, no shared encoding
    t.app.sent.clear()
    t._send([("b", {"t": "room", "info": INFO})], [])
    ((pid, msg, shared),) = t.app.sent
    assert pid == "b" and shared is None and msg["info"]["names"] == {"a": "Ann", "b": "Bob"}


def test_several_messages_share_one_encoding_and_notices_go_around_them():
    t = task()
    told = []
    t._broadcast = told.append
    same = {"t": "game", "events": [{"t": "draw"}], "legal": [], "seq": 4}
    own = {"t": "game", "events": [{"t": "draw", "tile": 5}], "legal": [], "seq": 4}
    notices = [{"t": "commitment", "match": 1}, {"t": "reveal", "match": 0}]
    t._send([("a", own), ("b", same), ("c", same)], notices)
    assert [n["t"] for n in told] == ["commitment", "reveal"]
    (a, b, c) = t.app.sent
    assert a == ("a", own, None)
    assert b[1] is same and c[1] is same and isinstance(b[2], codec.Shared) and b[2] is c[2]
