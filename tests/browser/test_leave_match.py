"""A seated player leaves a match in play: a Leave button at the table (and the logo) asks first; on
yes the player is back in the lobby and the match goes on with the seat played for them."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import TIMEOUT, add_bots, assert_inside_viewport, create_room, shot, sign_in


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_seated_player_leaves_mid_match_after_a_confirmation(browser, server, fast, artifacts, width, height):
    host_ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    host, page = host_ctx.new_page(), ctx.new_page()
    sign_in(host, server.url, "Stayer")
    create_room(host, "guobiao", hands=4)
    link = host.locator("[data-testid=invite-link]").input_value()
    page.goto(link)
    page.fill("input[name=name]", "Leaver")
    page.click("form.name-form button[type=submit]")
    expect(host.locator(".seats li.seat[data-seat='1'] .name")).to_have_text("Leaver", timeout=TIMEOUT)
    add_bots(host, 2)
    host.click("[data-action=ready]")
    page.click("[data-action=ready]")
    table = page.locator("[data-testid=table]")
    expect(table).to_be_visible(timeout=TIMEOUT)
    room_id = page.evaluate("() => window.guobiao.state.room.id")
    leaver_panel = host.locator(".seat-panel[data-seat='1'] .pname")
    expect(leaver_panel).to_have_text("Leaver", timeout=TIMEOUT)  # the first hand: table seat = room seat
    leave = page.locator("[data-action=leave-table]")
    assert_inside_viewport(page, "[data-action=leave-table]")
    # The logo asks too; "Cancel" keeps us at the table.
    page.click("[data-testid=brand]")
    confirm = page.locator("[data-testid=leave-confirm]")
    expect(confirm).to_be_visible()
    expect(confirm).to_contain_text("Leave this match?")
    expect(confirm).to_contain_text("托管")
    confirm.locator("[data-action=leave-cancel]").click()
    expect(confirm).to_have_count(0)
    expect(table).to_be_visible()
    # The Leave button asks; yes: back in the lobby.
    leave.click()
    expect(confirm).to_be_visible()
    assert_inside_viewport(page, "[data-testid=leave-confirm] [data-action=leave-confirm]")
    shot(page, artifacts, f"leave-confirm-{width}x{height}")
    confirm.locator("[data-action=leave-confirm]").click()
    expect(table).to_have_count(0, timeout=TIMEOUT)
    expect(page.locator("[data-action=create]")).to_be_visible(timeout=TIMEOUT)
    shot(page, artifacts, f"leave-lobby-{width}x{height}")
    # The match goes on for the others: a bot plays the seat.
    expect(host.locator("[data-testid=table]")).to_be_visible()
    expect(leaver_panel).not_to_have_text("Leaver", timeout=TIMEOUT)
    seat = server.app.rooms[room_id].room.seats[1]
    assert seat is not None and seat.bot
    shot(host, artifacts, f"leave-others-play-on-{width}x{height}")
    ctx.close()
    host_ctx.close()
