"""What a player on a 360 px phone met after the table fitted the screen: a keyboard hint ("↵") on the
Continue button, long names wrapping in the settlement table, and "My recent matches" at the bottom of a
long lobby. Checked at 1280x800 and 360x640 (key hints stay on a desktop; boxes inside the viewport)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from game.tiles import parse_tiles
from game.wall import arrange_wall
from tests.browser.helpers import TIMEOUT, add_bots, assert_inside_viewport, box, create_room, shot, sign_in
from tests.browser.test_results import OTHERS, OURS

SIZES = [(1280, 800), (360, 640)]
LONG_NAME = "Bartholomew Fairweat"  # 20 characters, the longest a name may be


@pytest.mark.parametrize("width,height,touch", [(1280, 800, False), (360, 640, False), (1024, 768, True)])
def test_phone_result_has_no_key_hint_and_long_names_stay_on_one_line(browser, server, fast, scripted_wall, artifacts,
                                                                      width, height, touch):
    """1024x768 with a touch screen: a tablet, wide enough for whole names but with no keyboard."""
    scripted_wall(arrange_wall([parse_tiles(OURS)] + [parse_tiles(h) for h in OTHERS]))
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US", has_touch=touch)
    page = ctx.new_page()
    sign_in(page, server.url, LONG_NAME)
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    page.locator("[data-testid=actions] [data-action=win]").click(timeout=TIMEOUT)
    result = page.locator("[data-testid=hand-result]")
    expect(result).to_be_visible(timeout=TIMEOUT)
    cont = result.locator("[data-action=continue]")
    expect(cont).to_be_visible(timeout=TIMEOUT)
    # The "↵" hint is for a keyboard: shown on a desktop, not on a phone.
    hint = cont.locator("kbd")
    if width <= 700 or touch:
        expect(hint).to_be_hidden()
    else:
        expect(hint).to_be_visible()
    # The settlement: each row one line high, the long name cut with an ellipsis on a phone, and the
    # points inside the screen.
    rows = page.locator("[data-testid=settlement] tbody tr")
    expect(rows).to_have_count(4)
    heights = rows.evaluate_all("els => els.map(e => e.getBoundingClientRect().height)")
    assert max(heights) - min(heights) <= 1, f"a row is taller than the others (a name wrapped): {heights}"
    mine = page.locator("[data-testid=settlement] tbody tr", has_text="Bartholomew")
    cell = mine.locator("td").first
    cut = cell.evaluate("e => [e.scrollWidth > e.clientWidth, getComputedStyle(e).textOverflow]")
    if width <= 700:
        assert cut == [True, "ellipsis"], cut
    else:
        assert cut[0] is False, "the whole name fits on a desktop"
    total = mine.locator("td").last
    total.scroll_into_view_if_needed()
    assert_inside_viewport(page, "[data-testid=settlement] tbody tr:has-text('Bartholomew') td >> nth=-1")
    table = box(page, "[data-testid=settlement]")
    assert table["x"] + table["width"] <= width + 0.5, table
    cont.scroll_into_view_if_needed()
    assert_inside_viewport(page, "[data-testid=hand-result] [data-action=continue]")
    shot(page, artifacts, f"phone-result-{width}x{height}{'-touch' if touch else ''}")
    ctx.close()


@pytest.mark.parametrize("width,height", SIZES)
def test_recent_matches_come_before_the_lobby_forms(browser, server, artifacts, width, height):
    """"My recent matches" follows quick match and the tournament list, above the room and tournament
    forms: on a phone within the first screen and a half (it was three screens down)."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Recent")
    recent = page.locator("[data-testid=recent]")
    expect(recent.locator("[data-testid=no-matches]")).to_be_visible(timeout=TIMEOUT)
    assert page.evaluate("scrollY") == 0
    head = box(page, "[data-testid=recent] h2")
    assert head["y"] + head["height"] <= 1.5 * height, head
    assert head["y"] < box(page, "[data-action=create]")["y"]
    quick = box(page, ".lobby > section:first-child h2")  # quick match stays first
    assert quick["y"] <= head["y"] and page.locator(".lobby > section:first-child [data-quick=guobiao]").count() == 1
    # Opening a replay by its id is folded into the same card.
    expect(page.locator("input[name=match]")).to_be_hidden()
    page.locator("[data-testid=replay-by-id] summary").click()
    expect(page.locator("input[name=match]")).to_be_visible()
    recent.scroll_into_view_if_needed()
    assert_inside_viewport(page, "[data-testid=recent] h2")
    shot(page, artifacts, f"lobby-recent-up-{width}x{height}")
    ctx.close()
