"""The Enter that declares a win, pressed twice or held, does not skip the hand's result: the fans stay
on screen until a later Enter (or the button) continues."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from game.tiles import parse_tiles
from game.wall import arrange_wall
from tests.browser.helpers import TIMEOUT, add_bots, assert_inside_viewport, create_room, shot, sign_in
from tests.browser.test_results import OTHERS, OURS


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_a_double_or_held_enter_after_winning_does_not_skip_the_fans(browser, server, fast, scripted_wall, artifacts,
                                                                      width, height):
    scripted_wall(arrange_wall([parse_tiles(OURS)] + [parse_tiles(h) for h in OTHERS]))
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Keys")
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    expect(page.locator("[data-testid=actions] [data-action=win]")).to_be_visible(timeout=TIMEOUT)
    result = page.locator("[data-testid=hand-result]")
    page.keyboard.down("Enter")  # 和
    expect(result).to_be_visible(timeout=TIMEOUT)
    page.keyboard.down("Enter")  # the key still held: a repeat
    page.keyboard.up("Enter")
    page.keyboard.press("Enter")  # a quick second press
    page.wait_for_timeout(300)
    expect(result).to_be_visible()
    expect(result.locator("h2").first).to_contain_text("Hand 1 of 4")
    expect(result.locator("[data-testid=fans] tr[data-fan='28']")).to_be_visible()
    assert_inside_viewport(page, "[data-testid=hand-result] [data-action=continue]")
    shot(page, artifacts, f"result-keys-fans-kept-{width}x{height}")
    # A deliberate Enter a moment later continues.
    page.wait_for_timeout(1000)
    page.keyboard.press("Enter")
    expect(page.locator("[data-testid=hand-result] h2").first).not_to_contain_text("Hand 1 of 4", timeout=TIMEOUT)
    ctx.close()
