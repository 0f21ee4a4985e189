"""Short animations for claims and wins: the call's word over the seat and the new set dropping in, the
winner's seat and winning tile glowing; they never hold up input, and prefers-reduced-motion stills them.

The scripted hand of test_sound: we throw 北, pung South's 西, throw 2p, and West wins on it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from game.tiles import parse_tiles
from game.wall import arrange_wall
from tests.browser.helpers import TIMEOUT, add_bots, assert_inside_viewport, create_room, overlap, shot, sign_in
from tests.browser.test_sound import NORTH, OURS, SOUTH, WEST, _throw


def _animation(page: Page, selector: str) -> str:
    return page.locator(selector).first.evaluate("e => getComputedStyle(e).animationName")


@pytest.mark.parametrize("width,height,motion", [(1280, 800, "no-preference"), (360, 640, "no-preference"), (360, 640, "reduce")])
def test_claim_and_win_animate_briefly_without_delaying_input(
        browser, server, fast, scripted_wall, artifacts, width, height, motion):
    scripted_wall(arrange_wall([parse_tiles(h) for h in (OURS, SOUTH, WEST, NORTH)], draws=parse_tiles("W")))
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US", reduced_motion=motion)
    page = ctx.new_page()
    sign_in(page, server.url, "Eyes")
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    expect(page.locator("[data-testid=your-turn]")).to_be_visible(timeout=TIMEOUT)
    still = motion == "reduce"

    _throw(page, "N")
    expect(page.locator("[data-testid=claim-prompt] [data-action=pung]")).to_be_visible(timeout=TIMEOUT)
    # Nobody else has called yet: no word over any seat.
    assert page.locator("[data-testid=callout]").count() == 0
    page.click("[data-testid=claim-prompt] [data-action=pung]")

    callout = page.locator(".seat-panel.self [data-testid=callout][data-kind=pung]")
    expect(callout).to_be_visible(timeout=TIMEOUT)
    expect(callout).to_have_text("Pung")
    page.wait_for_timeout(250)  # the word at full size
    assert _animation(page, ".seat-panel.self [data-testid=callout]") == ("none" if still else "callout")
    assert _animation(page, ".seat-panel.self .meld-slot.fresh") == ("none" if still else "meld-in")
    assert callout.evaluate("e => getComputedStyle(e).pointerEvents") == "none"
    c = assert_inside_viewport(page, ".seat-panel.self [data-testid=callout]")
    panel = page.locator(".seat-panel.self").bounding_box()
    assert overlap(c, panel) == c["width"] * c["height"], f"the word leaves its seat: {c} in {panel}"
    shot(page, artifacts, f"anim-pung-{width}x{height}-{motion}")

    # Input is not held up: our turn is open while the word still shows, and the discard goes through.
    expect(page.locator("[data-testid=your-turn]")).to_be_visible(timeout=TIMEOUT)
    assert callout.count() == 1, "the discard should be possible while the callout shows"
    _throw(page, "2p")
    result = page.locator("[data-testid=hand-result]")
    expect(result).to_be_visible(timeout=TIMEOUT)

    # West won: its seat glows and says so (under the result), the winning tile in the result glows.
    west = page.locator(".seat-panel.won")
    expect(west).to_have_count(1)
    expect(west.locator("[data-testid=callout][data-kind=win]")).to_have_count(1)
    assert _animation(page, ".seat-panel.won") == ("none" if still else "won-glow")
    assert _animation(page, "[data-testid=winning-hand] .win-tile .tile") == ("none" if still else "win-tile")
    assert_inside_viewport(page, "[data-testid=winning-hand] .win-tile .tile")
    shot(page, artifacts, f"anim-win-{width}x{height}-{motion}")
    # The words go away by themselves.
    expect(page.locator("[data-testid=callout]")).to_have_count(0, timeout=3000)
    ctx.close()
