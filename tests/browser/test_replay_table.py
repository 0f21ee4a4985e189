"""The replay viewer is laid out as the table: four seats around the centre, each with its hand as the
replay reveals it, its sets and its pond, step controls, and at the win the winning tile set apart and
highlighted. Checked at 1280x800 (boxes inside the viewport, no overlap) and on a 360x640 phone, where
the seats are stacked so that every tile is at least 20 px wide (the page scrolls down, never sideways).

Hand 1 is test_sound's scripted hand: we throw 北, pung South's 西, throw 2p, and West wins on it;
托管 plays the rest of the match."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from game.tiles import parse_tiles
from game.wall import arrange_wall
from tests.browser.helpers import TIMEOUT, add_bots, assert_inside_viewport, box, create_room, overlap, shot, sign_in, to_final_ranking
from tests.browser.test_sound import NORTH, OURS, SOUTH, WEST, _throw


MIN_TILE = 20  # px: the narrowest tile that stays readable (a phone's ring of seats gave ~12)


def _check_tiles(page: Page, what: str) -> None:
    """Every tile of the board is at least MIN_TILE wide and none sticks out of the viewport's width."""
    widths = page.locator("[data-testid=replay-board] .tile").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.width, r.left, r.right]; })")
    vw = page.viewport_size["width"]
    assert widths and min(w for w, _, _ in widths) >= MIN_TILE, f"{what}: tiles {min(w for w, _, _ in widths)} px wide"
    assert all(left >= 0 and right <= vw + 0.5 for _, left, right in widths), f"{what}: a tile sticks out sideways"


def _check_phone_layout(page: Page, what: str) -> list[dict]:
    """On a phone the seats are stacked: each lies across the viewport's width, none covers another or
    the centre or a name; the page scrolls down only, and the tiles are readable and wrap."""
    for sel in ("[data-action=next-step]", "[data-action=prev-step]", "[data-testid=step]", "[data-action=last-step]"):
        assert_inside_viewport(page, sel)
    board = "[data-testid=replay-board]"
    vw = page.viewport_size["width"]
    panels = [box(page, f"{board} .seat-panel >> nth={i}") for i in range(4)]
    names = [box(page, f"{board} .seat-panel >> nth={i} >> .pname") for i in range(4)]
    center = box(page, f"{board} [data-testid=center]")
    for i in range(4):
        assert panels[i]["x"] >= 0 and panels[i]["x"] + panels[i]["width"] <= vw + 0.5, f"{what}: seat {i} {panels[i]}"
        assert overlap(panels[i], center) < 1, f"{what}: seat {i} covers the centre"
        for j in range(4):
            if j != i:
                assert overlap(panels[i], panels[j]) < 1, f"{what}: seats {i} and {j} overlap"
                assert overlap(names[i], panels[j]) == 0, f"{what}: seat {j} covers seat {i}'s name"
    sw = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert sw[0] <= sw[1], f"{what}: the page scrolls sideways: {sw}"
    inner = page.locator(board).evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert inner[0] <= inner[1] + 1, f"{what}: the board overflows sideways: {inner}"
    _check_tiles(page, what)
    return panels


def _check_layout(page: Page, what: str) -> list[dict]:
    """The board, its four seats, its centre and the step controls lie inside the viewport; no seat
    covers another or the centre, and no seat's name label is covered. On a phone: as stacked seats."""
    if page.viewport_size["width"] <= 700:
        return _check_phone_layout(page, what)
    assert_inside_viewport(page, "[data-testid=replay-board]")
    for sel in ("[data-action=next-step]", "[data-action=prev-step]", "[data-testid=step]", "[data-action=last-step]"):
        assert_inside_viewport(page, sel)
    board = "[data-testid=replay-board]"
    panels = [assert_inside_viewport(page, f"{board} .seat-panel >> nth={i}") for i in range(4)]
    center = assert_inside_viewport(page, f"{board} [data-testid=center]")
    names = [assert_inside_viewport(page, f"{board} .seat-panel >> nth={i} >> .pname") for i in range(4)]
    for i in range(4):
        assert overlap(panels[i], center) < 1, f"{what}: seat {i} covers the centre"
        for j in range(4):
            if j != i:
                assert overlap(panels[i], panels[j]) < 1, f"{what}: seats {i} and {j} overlap"
                assert overlap(names[i], panels[j]) == 0, f"{what}: seat {j} covers seat {i}'s name"
    # The page never scrolls sideways (below the board it may scroll down to the fans and scoreboard).
    sw = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert sw[0] <= sw[1], f"{what}: the page scrolls sideways: {sw}"
    # Nothing is cut off inside the board either.
    inner = page.locator(board).evaluate("e => [e.scrollWidth, e.scrollHeight, e.clientWidth, e.clientHeight]")
    assert inner[0] <= inner[2] + 1 and inner[1] <= inner[3] + 1, f"{what}: the board overflows: {inner}"
    _check_tiles(page, what)
    return panels


def _replay_id(browser, server, scripted_wall) -> str:
    scripted_wall(arrange_wall([parse_tiles(h) for h in (OURS, SOUTH, WEST, NORTH)], draws=parse_tiles("W")))
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Eyes")
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    expect(page.locator("[data-testid=your-turn]")).to_be_visible(timeout=TIMEOUT)
    _throw(page, "N")
    page.locator("[data-testid=claim-prompt] [data-action=pung]").click(timeout=TIMEOUT)
    expect(page.locator("[data-testid=your-turn]")).to_be_visible(timeout=TIMEOUT)
    _throw(page, "2p")
    expect(page.locator("[data-testid=hand-result]")).to_be_visible(timeout=TIMEOUT)
    page.locator("[data-testid=hand-result] [data-action=continue]").click()
    page.click("[data-testid=actions] [data-action=auto]")
    to_final_ranking(page)
    link = page.locator("[data-testid=match-result] a.button", has_text="Replay")
    href = link.get_attribute("href")
    ctx.close()
    assert href and href.startswith("#replay=")
    return href[len("#replay="):]


def test_replay_is_laid_out_as_the_table_with_the_winning_tile_highlighted(browser, server, fast, scripted_wall, artifacts):
    match = _replay_id(browser, server, scripted_wall)
    for width, height in ((1280, 800), (360, 640)):
        ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
        page = ctx.new_page()
        page.goto(f"{server.url}#replay={match}")
        board = page.locator("[data-testid=replay-board]")
        expect(board).to_be_visible(timeout=TIMEOUT)
        expect(page.locator("[data-testid=step]")).to_contain_text("Step 1 of 7")
        # Four seats around the centre; every hand open as dealt: the dealer's 14, the others' 13.
        for pos, n in (("bottom", 14), ("right", 13), ("top", 13), ("left", 13)):
            expect(board.locator(f".seat-panel.{pos} [data-testid=replay-hand] .tile")).to_have_count(n)
        expect(board.locator(".seat-panel.bottom .pname")).to_have_text("Eyes")
        _check_layout(page, f"step 1 at {width}x{height}")
        shot(page, artifacts, f"replay-table-start-{width}x{height}")

        # Stepping: our 北 lands in our pond.
        page.click("[data-action=next-step]")
        expect(page.locator("[data-testid=step]")).to_contain_text("Step 2 of 7")
        expect(board.locator(".seat-panel.bottom .pond .tile")).to_have_count(1)
        expect(board.locator(".seat-panel.bottom .pond .tile").first).to_have_attribute("data-tile", "N")

        # The last step: West's win on our 2p, the winning tile apart and highlighted; our pung of 西.
        page.click("[data-action=last-step]")
        expect(page.locator("[data-testid=step]")).to_contain_text("Step 7 of 7")
        won = board.locator(".seat-panel.won")
        expect(won).to_have_count(1)
        expect(won).to_have_attribute("data-pos", "top")
        tile = won.locator("[data-testid=winning-tile] .tile")
        expect(tile).to_have_attribute("data-tile", "2p")
        expect(tile).to_have_class(re.compile(r"\bwinning\b"))
        assert tile.evaluate("e => getComputedStyle(e).boxShadow") != "none"
        expect(won.locator("[data-testid=replay-hand] > .tile")).to_have_count(13)
        expect(board.locator("[data-testid=winning-tile]")).to_have_count(1)
        expect(board.locator("[data-testid=replay-outcome]")).to_contain_text("Win")
        expect(board.locator(".seat-panel.bottom .set[data-meld=pung] .tile[data-tile=W]")).to_have_count(3)
        _check_layout(page, f"the win at {width}x{height}")
        page.locator("[data-testid=winning-tile] .tile").scroll_into_view_if_needed()
        assert_inside_viewport(page, "[data-testid=winning-tile] .tile")
        shot(page, artifacts, f"replay-table-win-{width}x{height}")
        ctx.close()
