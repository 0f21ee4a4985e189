"""The own hand's tiles are tap targets at least 32 px wide on a 360x640 phone (two rows of seven there),
and the fullest table still fits the screen without page scrolling."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import TIMEOUT, add_bots, assert_inside_viewport, create_room, overlap, shot, sign_in
from tests.browser.test_table_fits import FULL_TABLE, _name_labels_visible, _no_page_scroll


@pytest.mark.parametrize("width,height", [(360, 640), (1280, 800)])
def test_own_hand_tiles_are_32px_tap_targets_and_the_table_fits(browser, server, fast, artifacts, width, height):
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US", has_touch=True)
    page = ctx.new_page()
    sign_in(page, server.url, "Thumbs")
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    expect(page.locator("[data-testid=your-turn]")).to_be_visible(timeout=TIMEOUT)
    page.evaluate(FULL_TABLE, [False])
    expect(page.locator("[data-testid=pond]").first.locator(".tile")).to_have_count(24)
    tiles = page.locator("[data-testid=hand] button.tile")
    expect(tiles).to_have_count(14)
    page.wait_for_timeout(100)
    shot(page, artifacts, f"tap-targets-{width}x{height}")

    _no_page_scroll(page)
    labels = _name_labels_visible(page)
    boxes = [assert_inside_viewport(page, f"[data-testid=hand] button.tile >> nth={i}") for i in range(14)]
    for i, b in enumerate(boxes):
        assert b["width"] >= 32 and b["height"] >= 32, f"hand tile {i} is {b['width']:.1f}x{b['height']:.1f} px"
        for j in range(i + 1, 14):
            assert overlap(b, boxes[j]) < 1, f"hand tiles {i} and {j} overlap"
        for lb in labels:
            assert overlap(b, lb) == 0, f"hand tile {i} covers a name label"
    for b in page.locator(".seat-panel").evaluate_all("els => els.map(e => e.getBoundingClientRect().toJSON())"):
        for i, t in enumerate(boxes):
            assert overlap(b, t) == 0, f"hand tile {i} lies over a seat panel"
    assert_inside_viewport(page, "[data-testid=actions] [data-action=leave-table]")

    # A tap at the middle of a tile chooses it (the second tap would throw it).
    b = boxes[3]
    page.touchscreen.tap(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
    expect(tiles.nth(3)).to_have_class(re.compile(r"\bselected\b"))
    ctx.close()
