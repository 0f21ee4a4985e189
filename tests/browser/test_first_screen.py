"""The first screen: no amber "Connecting…" while the page waits for a name; an invite link says which
room it joins; a quick match shows how long it has waited and when bots fill the table."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.helpers import TIMEOUT, assert_inside_viewport, create_room, shot, sign_in


def test_first_screen_is_calm_invites_say_so_and_quick_match_counts_down(browser, server, artifacts):
    ctx = browser.new_context(viewport={"width": 360, "height": 640}, locale="en-US")
    page = ctx.new_page()
    page.goto(server.url)
    page.fill("input[name=name]", "Quinn")
    expect(page.locator("form.name-form button[type=submit]")).to_be_enabled(timeout=TIMEOUT)
    # Connected, nobody signed in yet: a calm state, not "Connecting…".
    expect(page.locator("[data-testid=conn]")).to_have_attribute("data-state", "ready")
    assert "Connecting" not in page.locator("body").inner_text()
    shot(page, artifacts, "first-screen-ready")
    page.click("form.name-form button[type=submit]")
    expect(page.locator("[data-testid=conn]")).to_have_attribute("data-state", "online", timeout=TIMEOUT)

    # Quick match: a count of the seconds waited and of those left before bots fill the table.
    page.click("[data-quick=guobiao]")
    wait = page.locator("[data-testid=quick-wait]")
    expect(wait).to_be_visible(timeout=TIMEOUT)
    first = int(wait.get_attribute("data-left"))
    assert 15 <= first <= 20, first  # the server's default wait is 20 s
    expect(wait).to_contain_text("bots fill the empty seats in")
    page.wait_for_timeout(2100)
    later = int(wait.get_attribute("data-left"))
    assert later <= first - 1, (first, later)
    assert re.search(r"Waiting [1-9]\d* s", wait.inner_text()), wait.inner_text()
    assert_inside_viewport(page, "[data-testid=quick-wait]")
    shot(page, artifacts, "first-screen-quick-wait")
    page.locator(".queued button").click()
    expect(wait).to_have_count(0, timeout=TIMEOUT)

    # An invite link: the name prompt says it joins a room, with its code.
    create_room(page, "guobiao", hands=4)
    code = page.locator("[data-testid=invite-code]").inner_text()
    link = page.locator("[data-testid=invite-link]").input_value()
    guest_ctx = browser.new_context(viewport={"width": 360, "height": 640}, locale="en-US")
    guest = guest_ctx.new_page()
    guest.goto(link)
    note = guest.locator("[data-testid=invite-note]")
    expect(note).to_be_visible(timeout=TIMEOUT)
    expect(note).to_contain_text("invited to a room")
    assert code.replace("-", "") in note.inner_text().replace("-", "")
    shot(guest, artifacts, "first-screen-invite")
    guest_ctx.close()
    ctx.close()
