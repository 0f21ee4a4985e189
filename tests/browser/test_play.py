"""Acceptance (a): one player creates a 国标馆 room, adds three bots and plays a hand to the result."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.helpers import TIMEOUT, add_bots, create_room, play_until, shot, sign_in


def test_create_room_add_bots_and_play_a_hand_to_the_result(browser, server, fast, artifacts):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    page = ctx.new_page()
    sign_in(page, server.url, "Alice")
    create_room(page, "guobiao", hands=4)
    expect(page.locator(".room-lobby h2").first).to_contain_text("国标馆")
    add_bots(page, 3)
    page.click("[data-action=start]")
    expect(page.locator("[data-testid=table]")).to_be_visible(timeout=TIMEOUT)
    # Thirteen or fourteen own tiles, three opponents, the wall count.
    expect(page.locator("[data-testid=hand] .tile")).to_have_count(14, timeout=TIMEOUT)  # player 0 deals first
    expect(page.locator(".seat-panel")).to_have_count(4)
    shot(page, artifacts, "a-table-start")
    discards: list = []
    play_until(page, "[data-testid=hand-result]", discards=discards)
    result = page.locator("[data-testid=hand-result]")
    expect(result.locator("[data-testid=settlement]")).to_be_visible()
    expect(result.locator("[data-testid=headline]")).not_to_be_empty()
    assert discards, "the player discarded at least once by clicking"
    if result.locator("[data-testid=all-hands]").count():
        # An exhaustive draw: every hand is laid open (R98), none face down.
        expect(result.locator("[data-testid=all-hands] .row")).to_have_count(4)
        assert result.locator("[data-testid=all-hands] .row > .tile.back").count() == 0
    else:
        expect(result.locator("[data-testid=fans]")).to_be_visible()
    shot(page, artifacts, "a-hand-result")
    # The next hand starts when everybody continues.
    result.locator("[data-action=continue]").click()
    expect(page.locator("[data-testid=hand-result]")).to_have_count(0, timeout=TIMEOUT)
    ctx.close()
