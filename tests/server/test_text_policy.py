"""The one text policy (rooms/text.py) at every entry point of user-supplied text: player names, chat,
tournament and team names, sanction and cancellation reasons; duplicate names numbered on screen."""

from rooms.text import look

ZALGO = "a" + "\u0301" * 19


async def test_player_names_follow_the_text_policy(server):
    c = await server.client()
    for bad in ("\u3164", "\u3164\u3164", "Ann\u3164", "\u200bAnn", "Ann\u202e", "Ann\x1b", ZALGO, "\u2800"):
        r = await c.request({"t": "guest", "name": bad})
        assert r.get("code") == "auth/bad_name", (bad, r)
    assert (await c.request({"t": "guest", "name": "Tiếng Việt"}))["t"] == "welcome"


async def test_chat_follows_the_text_policy(server):
    c = await server.client(name="Talker")
    await c.request({"t": "create", "config": {"hands": 4, "private": True}})
    for bad in ("\u202eabc", "abc\u2066x", "\x00", "\x1b[31mred", "\u3164", " \u200b ", ZALGO, "a\u2028b"):
        r = await c.request({"t": "chat", "text": bad})
        assert r.get("code") == "chat/bad_text", (bad, r)
    assert (await c.request({"t": "chat", "text": "好牌 👩\u200d💻"}))["t"] == "ok"
    # A lone surrogate (JSON's \ud800) could not be sent on to anybody: refused as it is decoded.
    c.strict = False
    await c.send_raw('{"t": "chat", "text": "\\ud800", "id": 99}')
    r = await c.wait_for(lambda m: m.get("re") == 99)
    assert r["code"] == "protocol/bad_message"


async def test_tournament_texts_follow_the_text_policy(server):
    org = await server.client(name="Organiser")
    p = await server.client(name="Player")
    for bad in ("Cup\u202e", "\u3164", "Cup\x00", ZALGO + "Cup"):
        r = await org.request({"t": "tournament_create", "config": {"name": bad, "hands": 1}})
        assert r.get("code") == "tournament/bad_config", (bad, r)
    r = await org.request({"t": "tournament_create", "config": {"name": "Spring Cup", "hands": 1}})
    tid = r["tournament"]["id"]

    def cmd(c, **kw):
        return c.request({"t": "tournament_cmd", "tournament": tid, "cmd": kw})

    for bad in ("Team\x1b", "\u3164", "Team\u3164", "\u202eTeam", ZALGO):
        r = await cmd(p, t="register", team=bad)
        assert r.get("code") == "tournament/bad_command", (bad, r)
    assert (await cmd(p, t="register", team="东风队"))["t"] == "ok"
    for bad in ("slow\u202eplay", "\x00", " ", ZALGO):
        r = await cmd(org, t="sanction", kind="notice", reason=bad)
        assert r.get("code") == "tournament/bad_command", (bad, r)
        r = await cmd(org, t="cancel", reason=bad)
        assert r.get("code") == "tournament/bad_command", (bad, r)


async def test_duplicate_display_names_are_disambiguated_on_screen(server):
    a1 = await server.client(name="Ann")
    a2 = await server.client(name="Ann")
    a3 = await server.client(name="ＡＮＮ")
    snap = await a1.request({"t": "create", "config": {"hands": 4, "private": True}})
    code = snap["info"]["invite"]
    for c in (a2, a3):
        assert (await c.request({"t": "join", "code": code}))["t"] == "ok"
    room = await a1.wait_for(lambda m: m.get("t") == "room" and len(m["info"]["names"]) == 3)
    assert room["info"]["names"] == {a1.player: "Ann", a2.player: "Ann #2", a3.player: "ＡＮＮ #3"}
    assert (await a2.request({"t": "chat", "text": "hi"}))["t"] == "ok"
    line = await a1.wait_for(lambda m: m.get("t") == "chat")
    assert (line["from"], line["name"]) == (a2.player, "Ann #2")

    # Tournament views number them as well.
    r = await a1.request({"t": "tournament_create", "config": {"name": "Twins Cup", "hands": 1}})
    tid = r["tournament"]["id"]
    for c in (a2, a3):
        assert (await c.request({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}}))["t"] == "ok"
    v = (await a1.request({"t": "tournament", "tournament": tid}))["tournament"]
    shown = v["names"]
    assert {look(x) for x in shown.values()} == {"ann", "ann #2", "ann #3"}  # one plain, the others numbered
    assert shown[a3.player].startswith("ＡＮＮ") and shown[a2.player].startswith("Ann")


async def test_login_names_follow_the_text_policy(server):
    c = await server.client(name="Claimer")
    for bad in ("\u3164\u3164\u3164", "ann\u3164", "a\u3164b"):
        r = await c.request({"t": "claim", "login": bad, "password": "correct horse battery"})
        assert r.get("code") == "auth/bad_login", (bad, r)
