"""The results: a win's fans with the sets that formed them (a scripted wall: we deal ourselves a win)."""

from __future__ import annotations

from playwright.sync_api import expect

from game.tiles import parse_tiles
from game.wall import arrange_wall
from tests.browser.helpers import TIMEOUT, add_bots, create_room, shot, sign_in

# We deal first with a complete hand: a pure straight, 11s, and 23s with the dealt 14th tile 4s.
OURS = "123456789m11s23s4s"
OTHERS = ("19m19p5s5pESWCFP7s", "28m28p6s6p8sESWCFP", "37m37p4p5s7p9sESWCF")


def test_a_wins_fans_show_their_sets(browser, server, fast, scripted_wall, artifacts):
    scripted_wall(arrange_wall([parse_tiles(OURS)] + [parse_tiles(h) for h in OTHERS]))
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Fay")
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    win = page.locator("[data-testid=actions] [data-action=win]")
    expect(win).to_be_visible(timeout=TIMEOUT)
    win.click()
    result = page.locator("[data-testid=hand-result]")
    expect(result).to_be_visible(timeout=TIMEOUT)
    fans = result.locator("[data-testid=fans]")
    straight = fans.locator("tr[data-fan='28']")
    expect(straight).to_contain_text("Pure Straight")
    sets = straight.locator(".fan-set")
    expect(sets).to_have_count(3)
    assert sets.evaluate_all("els => els.map(e => e.dataset.set)") == ["123m", "456m", "789m"]
    assert sets.evaluate_all("els => els.map(e => e.querySelectorAll('.tile').length)") == [3, 3, 3]
    expect(fans.locator("tr[data-fan='56'] .fan-set")).to_have_count(0)  # 不求人: the whole hand
    expect(fans.locator("[data-testid=fan-total]")).to_have_text("23")
    shot(page, artifacts, "f-fans-with-sets")
    ctx.close()
