"""Reconnects with the token: mid-turn, mid-claim-window; a stale socket replaced; stale answers."""

import asyncio
import sqlite3

from server import accounts
from tests.server.client import Client, prompt
from tests.server.test_play import table


def has_prompt(m):
    return prompt(m) is not None


async def resume(server, old: Client, encoding="msgpack") -> tuple[Client, dict]:
    c = await server.client(encoding)
    r = await c.request({"t": "resume", "token": old.token})
    assert r["t"] == "welcome" and r["player"] == old.player and r["room"] is not None, r
    snap = await c.wait_for(lambda m: m.get("t") == "snapshot")
    c.player, c.token = old.player, old.token
    return c, snap


async def test_reconnect_mid_turn(server):
    cs, room = await table(server)
    p = await cs[0].wait_for(has_prompt)  # the dealer's first discard
    legal, seq = prompt(p)
    assert any(a["a"] == "discard" for a in legal)
    await cs[0].close()
    c, snap = await resume(server, cs[0], "json")
    assert snap["room"] == room and snap["you"]["seat"] == 0
    assert prompt(snap) == (legal, seq)  # the same decision, with the seq to echo
    assert len(snap["game"]["hand"]) == 14
    discard = next(a for a in legal if a["a"] == "discard")
    r = await c.request({"t": "act", "action": {**discard, "seq": seq}})
    assert r["t"] == "ok", r


async def test_reconnect_mid_claim_window(server):
    cs, room = await table(server)
    legal, seq = prompt(await cs[0].wait_for(has_prompt))
    discard = next(a for a in legal if a["a"] == "discard")
    r = await cs[0].request({"t": "act", "action": {**discard, "seq": seq}})
    assert r["t"] == "ok"
    # Every other seat is asked about the discard (the uniform claim window).
    w = await cs[2].wait_for(has_prompt)
    wlegal, wseq = prompt(w)
    assert {"a": "pass"} in wlegal
    await cs[2].close()
    c, snap = await resume(server, cs[2])
    assert snap["game"]["phase"] == "claim"
    assert prompt(snap) == (wlegal, wseq)
    r = await c.request({"t": "act", "action": {"a": "pass", "seq": wseq}})
    assert r["t"] == "ok", r
    # Answering again (or after the window closed) is harmless.
    r = await c.request({"t": "act", "action": {"a": "pass", "seq": wseq}})
    assert r["t"] == "error" and r["code"] in ("action/not_your_turn", "action/stale"), r


async def test_stale_socket_is_replaced(server):
    a = await server.client(name="Ann")
    b = await server.client("json")
    r = await b.request({"t": "resume", "token": a.token})
    assert r["t"] == "welcome" and r["player"] == a.player and r["name"] == "Ann"
    gone = await a.wait_for(lambda m: m.get("t") == "replaced")
    assert gone["t"] == "replaced"
    await a.ws.wait_closed()
    assert a.ws.close_code == 4001
    assert (await b.request({"t": "ping"}))["t"] == "pong"
    # The new connection is the player's: a room made now is theirs.
    snap = await b.request({"t": "create", "config": {"hands": 4}})
    assert snap["you"]["id"] == a.player


async def test_bad_tokens(server):
    c = await server.client()
    r = await c.request({"t": "resume", "token": "0" * 32})
    assert r["code"] == "auth/bad_token"
    r = await c.request({"t": "resume", "token": "not a token"})
    assert r["code"] == "auth/bad_token"
    r = await c.request({"t": "guest", "name": " spaced"})
    assert r["code"] == "auth/bad_name"
    r = await c.request({"t": "guest", "name": "x" * 21})
    assert r["code"] == "auth/bad_name"
    r = await c.request({"t": "guest", "name": "a\u202eb"})  # a direction override
    assert r["code"] == "auth/bad_name"
    r = await c.request({"t": "rooms"})
    assert r["code"] == "protocol/not_signed_in"
    r = await c.request({"t": "guest", "name": "张三"})
    assert r["t"] == "welcome" and r["name"] == "张三" and len(r["token"]) == 32
    r = await c.request({"t": "guest", "name": "Again"})
    assert r["code"] == "protocol/already_signed_in"


async def test_stale_prompt_answer_is_rejected(server):
    cs, room = await table(server)
    legal, seq = prompt(await cs[0].wait_for(has_prompt))
    discard = next(a for a in legal if a["a"] == "discard")
    assert (await cs[0].request({"t": "act", "action": {**discard, "seq": seq}}))["t"] == "ok"
    before = await cs[1].request({"t": "snapshot"})
    # An answer to the prompt the table has moved past, and a guess at a future one.
    for bad in (seq, seq + 7):
        r = await cs[0].request({"t": "act", "action": {**discard, "seq": bad}})
        assert r["t"] == "error" and r["code"] in ("action/stale", "action/not_your_turn"), r
    r = await cs[0].request({"t": "act", "action": discard})  # no seq at all
    assert r["code"] == "action/malformed"
    after = await cs[1].request({"t": "snapshot"})
    assert after["rseq"] == before["rseq"] and after["game"] == before["game"]


async def test_spectator_sees_the_table(server):
    cs, room = await table(server)
    code = (await cs[0].request({"t": "snapshot"}))["info"]["invite"]
    s = await server.client("json", name="Watcher")
    r = await s.request({"t": "watch", "code": code})
    assert r["t"] == "ok", r
    snap = next(m for m in s.frames if m.get("t") == "snapshot")
    assert snap["you"]["seat"] is None and "hand" not in snap["game"]
    r = await s.request({"t": "act", "action": {"a": "pass", "seq": 0}})
    assert r["code"] == "room/not_seated"
    r = await s.request({"t": "chat", "text": "好牌!"})
    assert r["t"] == "ok"
    chat = await cs[3].wait_for(lambda m: m.get("t") == "chat")
    assert chat["text"] == "好牌!" and chat["name"] == "Watcher"


async def test_resume_sends_the_snapshot_first(server):
    """After `welcome`, the room's snapshot comes before any other message about the room (the seat's
    return from 托管 and the seats' `connected` included: the snapshot already shows them)."""
    cs, room = await table(server)
    await cs[0].wait_for(has_prompt)
    await cs[1].close()
    c = await server.client("json")
    r = await c.request({"t": "resume", "token": cs[1].token})
    assert r["t"] == "welcome" and r["room"] == room
    await c.wait_for(lambda m: m.get("t") == "snapshot")
    about_room = [m for m in c.frames if m.get("room") == room and "rseq" in m]
    assert about_room[0]["t"] == "snapshot", [m["t"] for m in about_room]
    assert about_room[0]["n"] == 1
    # The player is back: the snapshot says so, and numbering goes on without a gap.
    snap = about_room[0]
    assert snap["info"]["seats"][1]["connected"] is True
    await c.drain(0.2)
    ns = [m["n"] for m in c.frames if "n" in m]
    assert ns == list(range(1, len(ns) + 1))


async def test_snapshot_has_seq_while_a_match_is_on(server):
    """Every snapshot of a room in play carries the top-level `seq`, for seats without a prompt and
    spectators too."""
    cs, room = await table(server)
    legal, seq = prompt(await cs[0].wait_for(has_prompt))
    for c in cs[1:]:
        snap = await c.request({"t": "snapshot"})
        assert not snap["game"]["legal"]
        assert snap["seq"] == snap["game"]["match"]["seq"] == seq
    code = (await cs[0].request({"t": "snapshot"}))["info"]["invite"]
    s = await server.client(name="Watcher")
    assert (await s.request({"t": "watch", "code": code}))["t"] == "ok"
    snap = next(m for m in s.frames if m.get("t") == "snapshot")
    assert snap["seq"] == seq
    # In the lobby there is no match and no seq.
    lobby = await (await server.client(name="Lone")).request({"t": "create", "config": {"hands": 4}})
    assert "seq" not in lobby


async def test_a_guest_whose_new_id_is_taken_gets_another(server, monkeypatch):
    """A new player id (48 random bits) that is already in use is a constraint error of the database
    (sqlite3.IntegrityError): sign-in draws another id instead of failing."""
    a = await server.client(name="First")
    ids = iter([a.player, "p" + "0" * 12])
    monkeypatch.setattr(accounts, "new_player_id", lambda: next(ids))
    b = await server.client(name="Second")
    assert b.player == "p" + "0" * 12


async def test_a_sign_in_whose_write_fails_otherwise_is_not_retried(server, monkeypatch, caplog):
    """Only a taken id is drawn again: another failure of the write is reported, not looped on."""
    async def broken(*args):
        await asyncio.sleep(0.01)  # a retry loop would go on meanwhile, not block the test's loop
        raise sqlite3.DatabaseError("UNIQUE in a message does not make it a collision")
    monkeypatch.setattr(server.app.store, "add_player", broken)
    c = await server.client()
    r = await c.request({"t": "guest", "name": "Third"})
    assert (r["t"], r["code"]) == ("error", "protocol/internal")
    assert any("UNIQUE in a message" in repr(r.exc_info) for r in caplog.records)  # logged as a bug
    caplog.clear()
