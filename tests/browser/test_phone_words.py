"""What a new player reads at the table on a phone, where the hint's title is folded away: a hand with
no waits says so in words that are not the room's "Not ready" button."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from game.tiles import parse_tiles
from game.wall import arrange_wall
from tests.browser.helpers import TIMEOUT, add_bots, assert_inside_viewport, create_room, overlap, shot, sign_in

# We deal first: 14 scattered tiles, four from ready whatever we throw.
FAR_FROM_READY = "1m3m6m8m2p4p7p9p1s3s6s8sEW"
OTHERS = ("19m19p5s5pESWCFP7s", "28m28p6s6p8sESWCFP", "37m37p4p5s7p9sESWCF")


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_a_hand_without_waits_does_not_read_like_the_ready_button(browser, server, fast, scripted_wall, artifacts,
                                                                   width, height):
    scripted_wall(arrange_wall([parse_tiles(FAR_FROM_READY)] + [parse_tiles(h) for h in OTHERS]))
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Newcomer")
    create_room(page, "guobiao", hands=4)
    ready = page.locator("[data-action=ready]")
    ready.click()
    expect(ready).to_have_text("Not ready")  # the room's switch: these words mean "I am not ready to start"
    ready.click()
    expect(ready).to_have_text("Ready")
    add_bots(page, 3)
    page.click("[data-action=start]")
    hint = page.locator("[data-testid=hint]")
    expect(hint).to_be_visible(timeout=TIMEOUT)
    expect(hint).to_contain_text("No waits yet")
    assert "Not ready" not in page.locator("[data-testid=table]").inner_text()
    b = assert_inside_viewport(page, "[data-testid=hint]")
    assert overlap(b, assert_inside_viewport(page, "[data-testid=hand] .tile >> nth=-1")) == 0
    shot(page, artifacts, f"phone-words-no-waits-{width}x{height}")
    ctx.close()


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_a_watch_link_says_it_opens_a_room_to_watch_before_the_name(browser, server, fast, artifacts, width, height):
    host_ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    host = host_ctx.new_page()
    sign_in(host, server.url, "Hostess")
    create_room(host, "dazhong", hands=8)
    code = host.locator("[data-testid=invite-code]").inner_text()
    add_bots(host, 3)
    host.click("[data-action=start]")
    expect(host.locator("[data-testid=table]")).to_be_visible(timeout=TIMEOUT)
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    fan = ctx.new_page()
    fan.goto(f"{server.url}#watch={code.replace('-', '')}")
    note = fan.locator("[data-testid=invite-note]")
    expect(note).to_contain_text("watch a room as a spectator")
    room = fan.locator("[data-testid=invite-room]")
    expect(room).to_have_attribute("data-found", "true", timeout=TIMEOUT)
    expect(room).to_contain_text("Popular room · 8 hands · host Hostess")
    expect(room).to_contain_text("the match has started")
    b_room = assert_inside_viewport(fan, "[data-testid=invite-room]")
    b_name = assert_inside_viewport(fan, "input[name=name]")
    assert b_room["y"] + b_room["height"] <= b_name["y"]  # told before the name is asked
    shot(fan, artifacts, f"watch-link-note-{width}x{height}")
    fan.fill("input[name=name]", "Fan")
    fan.click("form.name-form button[type=submit]")
    expect(fan.locator(".spectator-bar")).to_be_visible(timeout=TIMEOUT)
    expect(fan.locator("[data-testid=hand]")).to_have_count(0)
    ctx.close()
    host_ctx.close()
