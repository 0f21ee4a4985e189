"""An invite link tells who opens it which room it joins before they choose a name: the room's type,
length and host, from GET /api/invite/<code>, in English and in Chinese, on a phone; a closed room's link
says it is no longer valid."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.helpers import TIMEOUT, assert_inside_viewport, box, create_room, shot, sign_in


def test_invite_link_shows_the_rooms_type_and_host_before_the_name_prompt(browser, server, artifacts):
    host_ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    host = host_ctx.new_page()
    sign_in(host, server.url, "Hostess")
    create_room(host, "wufan", hands=8)
    link = host.locator("[data-testid=invite-link]").input_value()
    code = link.rsplit("#join=", 1)[1]

    for locale, words in (("en-US", ("No-fan room", "8 hands", "host Hostess", "1/4 seats taken")),
                          ("zh-CN", ("无番馆", "房主 Hostess", "已坐 1/4"))):
        ctx = browser.new_context(viewport={"width": 360, "height": 640}, locale=locale)
        guest = ctx.new_page()
        with guest.expect_response(lambda r: "/api/invite/" in r.url) as answer:
            guest.goto(link)
        assert answer.value.status == 200 and answer.value.json()["type"] == "wufan"
        room = guest.locator("[data-testid=invite-room]")
        expect(room).to_have_attribute("data-found", "true", timeout=TIMEOUT)
        expect(room).to_have_attribute("data-type", "wufan")
        for w in words:
            expect(room).to_contain_text(w)
        # Shown with the name prompt, above it, both on the phone's first screen.
        name = guest.locator("input[name=name]")
        expect(name).to_be_visible()
        assert_inside_viewport(guest, "[data-testid=invite-room]")
        assert_inside_viewport(guest, "input[name=name]")
        assert box(guest, "[data-testid=invite-room]")["y"] < box(guest, "input[name=name]")["y"]
        shot(guest, artifacts, f"invite-preview-{locale}")
        ctx.close()

    # The room closes (its host leaves): the link says so instead of a room.
    host.click("[data-action=leave]")
    guest_ctx = browser.new_context(viewport={"width": 360, "height": 640}, locale="en-US")
    guest = guest_ctx.new_page()
    guest.goto(f"{server.url}/#join={code}")
    gone = guest.locator("[data-testid=invite-room]")
    expect(gone).to_have_attribute("data-found", "false", timeout=TIMEOUT)
    expect(gone).to_contain_text("no longer valid")
    shot(guest, artifacts, "invite-preview-gone")
    guest_ctx.close()
    host_ctx.close()
