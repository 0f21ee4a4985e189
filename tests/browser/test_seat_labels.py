"""The room lobby's seat labels ("East", "South" in English) never overlap the names beside them."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import add_bots, assert_inside_viewport, create_room, overlap, shot, sign_in


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_seat_labels_do_not_overlap_names(browser, server, artifacts, width, height, locale):
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    page = ctx.new_page()
    sign_in(page, server.url, "Hostess")
    create_room(page, "guobiao", hands=4)
    add_bots(page, 1)  # seats with a host, a bot and two empty ones
    seats = page.locator(".seats li.seat")
    expect(seats).to_have_count(4)
    shot(page, artifacts, f"seat-labels-{locale}-{width}x{height}")
    for i in range(4):
        seat = seats.nth(i)
        wind = seat.locator(".wind")
        label = wind.bounding_box()
        # The word fits its pill, and the pill does not cover what follows (a name, or "Empty").
        fits = wind.evaluate("e => e.scrollWidth <= e.clientWidth + 0.5")
        assert fits, f"seat {i}: the label {wind.text_content()!r} overflows its box"
        after = seat.locator(":scope > .wind + *")
        box = after.bounding_box()
        # The four seats and the Ready button are on the first screen, phone too.
        assert_inside_viewport(page, f".seats li.seat >> nth={i} >> .wind")
        assert_inside_viewport(page, f".seats li.seat >> nth={i} >> :scope > .wind + *")
        assert overlap(label, box) == 0, f"seat {i}: {wind.text_content()!r} overlaps {after.text_content()!r}"
        assert box["x"] >= label["x"] + label["width"] or box["y"] >= label["y"] + label["height"]
    assert_inside_viewport(page, "[data-action=ready]")
    ctx.close()
