"""When a win is offered, Enter wins: 和 is the primary action and the winning tile is not thrown away."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from game.tiles import parse_tiles
from game.wall import arrange_wall
from tests.browser.helpers import TIMEOUT, add_bots, assert_inside_viewport, create_room, shot, sign_in
from tests.browser.test_results import OTHERS, OURS


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_enter_wins_and_never_discards_when_a_win_is_offered(browser, server, fast, scripted_wall, artifacts, width, height):
    # We deal first with a complete hand: 自摸 is offered on the first turn.
    scripted_wall(arrange_wall([parse_tiles(OURS)] + [parse_tiles(h) for h in OTHERS]))
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Win")
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    win = page.locator("[data-testid=actions] [data-action=win]")
    expect(win).to_be_visible(timeout=TIMEOUT)
    hand = page.locator("[data-testid=hand] .tile")
    expect(hand).to_have_count(14)
    # 和 is the primary, highlighted action; no tile is raised ready to be thrown, no discard button.
    expect(win).to_have_class("win primary")
    assert page.locator("[data-testid=hand] .tile.selected").count() == 0
    assert page.locator("[data-testid=actions] [data-action=discard]").count() == 0
    assert_inside_viewport(page, "[data-testid=actions] [data-action=win]")
    shot(page, artifacts, f"win-offered-{width}x{height}")
    # One click on a tile only chooses it (a second click would throw it): nothing is discarded.
    hand.last.click()
    expect(page.locator("[data-testid=hand] .tile.selected")).to_have_count(1)
    discard = page.locator("[data-testid=actions] [data-action=discard]")
    expect(discard).to_be_visible()
    assert "primary" not in (discard.get_attribute("class") or "")
    expect(hand).to_have_count(14)
    # Enter wins even with a tile chosen.
    page.keyboard.press("Enter")
    result = page.locator("[data-testid=hand-result]")
    expect(result).to_be_visible(timeout=TIMEOUT)
    expect(result.locator("[data-testid=fans]")).to_be_visible()
    expect(result.locator("[data-testid=fans] tr[data-fan='28']")).to_be_visible()  # Pure Straight: our win
    shot(page, artifacts, f"win-offered-enter-{width}x{height}")
    ctx.close()


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_auto_win_toggle_declares_an_offered_win(browser, server, fast, scripted_wall, artifacts, width, height):
    scripted_wall(arrange_wall([parse_tiles(OURS)] + [parse_tiles(h) for h in OTHERS]))
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Auto")
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    win = page.locator("[data-testid=actions] [data-action=win]")
    expect(win).to_be_visible(timeout=TIMEOUT)
    toggle = page.locator("[data-testid=auto-win-toggle]")
    # Off by default: the offered win waits for us.
    expect(toggle).not_to_be_checked()
    page.wait_for_timeout(800)
    expect(win).to_be_visible()
    assert_inside_viewport(page, "[data-testid=auto-win-toggle]")
    assert_inside_viewport(page, "[data-action=leave-table]")
    shot(page, artifacts, f"auto-win-off-{width}x{height}")
    # Switched on: the win is declared without a click on 和.
    toggle.check()
    result = page.locator("[data-testid=hand-result]")
    expect(result).to_be_visible(timeout=TIMEOUT)
    expect(result.locator("[data-testid=fans] tr[data-fan='28']")).to_be_visible()
    shot(page, artifacts, f"auto-win-on-{width}x{height}")
    ctx.close()


CLAIM = """([legal]) => {
  const app = window.guobiao, s = app.state, g = s.game;
  app.set({ ...s, game: { ...g, phase: "claim", to_act: true, legal,
    claim: { kind: "discard", tile: 5, seat: (g.seat + 3) % 4 } } });
}"""


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_no_calls_toggle_skips_chow_and_pung_prompts_but_not_a_win(browser, server, fast, artifacts, width, height):
    """With "No calls" on, a window offering only a chow or pung is not put to the player; one that
    offers a win still is. (The windows are set into the page's state: a scripted claim is not needed
    to show which prompt appears.)"""
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Caller")
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    expect(page.locator("[data-testid=your-turn]")).to_be_visible(timeout=TIMEOUT)
    calls = [{"a": "pung"}, {"a": "chow", "low": 3}, {"a": "pass"}]
    prompt = page.locator("[data-testid=claim-prompt]")
    page.evaluate(CLAIM, [calls])
    expect(prompt).to_be_visible()  # off by default: asked
    page.evaluate("() => window.guobiao.set({ ...window.guobiao.state, game: { ...window.guobiao.state.game, phase: 'turn', legal: [] } })")
    expect(prompt).to_have_count(0)
    assert_inside_viewport(page, "[data-testid=no-calls-toggle]")
    page.locator("[data-testid=no-calls-toggle]").check()
    page.evaluate(CLAIM, [calls])
    page.wait_for_timeout(300)
    expect(prompt).to_have_count(0)
    shot(page, artifacts, f"no-calls-skipped-{width}x{height}")
    page.evaluate(CLAIM, [[{"a": "win"}, {"a": "pung"}, {"a": "pass"}]])
    expect(prompt).to_be_visible()
    expect(prompt.locator("[data-action=win]")).to_be_visible()
    assert_inside_viewport(page, "[data-testid=claim-prompt] [data-action=win]")
    shot(page, artifacts, f"no-calls-win-still-asked-{width}x{height}")
    ctx.close()


SPY = """() => {
  const app = window.guobiao;
  window.sentActions = [];
  app.act = (a) => { window.sentActions.push(a); };
  app.onMessage = () => {};  // the table's own messages no longer replace the windows set below
}"""


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_enter_takes_the_win_offered_on_another_players_discard(browser, server, fast, artifacts, width, height):
    """A claim prompt offering 和 on a discard: 和 is its primary action and Enter takes it, as for 自摸.
    A prompt with only a pung or chow is not answered by Enter (each claim keeps its own key). (The
    windows are set into the page's state, which then stops taking the server's messages; what the
    page would send is recorded, not sent.)"""
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Ron")
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    expect(page.locator("[data-testid=your-turn]")).to_be_visible(timeout=TIMEOUT)
    page.evaluate(SPY)
    prompt = page.locator("[data-testid=claim-prompt]")
    # Only a pung and a chow: Enter does nothing; P pungs.
    page.evaluate(CLAIM, [[{"a": "pung"}, {"a": "chow", "low": 3}, {"a": "pass"}]])
    expect(prompt).to_be_visible()
    page.keyboard.press("Enter")
    page.wait_for_timeout(200)
    assert page.evaluate("window.sentActions") == []
    page.keyboard.press("p")
    assert page.evaluate("window.sentActions") == [{"a": "pung"}]
    # 和 offered with a pung: 和 is highlighted as the primary action, and Enter takes it.
    page.evaluate("window.sentActions = []")
    page.evaluate(CLAIM, [[{"a": "win"}, {"a": "pung"}, {"a": "pass"}]])
    win = prompt.locator("[data-action=win]")
    expect(win).to_be_visible()
    expect(win).to_have_class(re.compile(r"\bprimary\b"))
    assert win.evaluate("e => getComputedStyle(e).boxShadow") != "none"
    assert "primary" not in (prompt.locator("[data-action=pung]").get_attribute("class") or "")
    assert_inside_viewport(page, "[data-testid=claim-prompt] [data-action=win]")
    shot(page, artifacts, f"claim-win-primary-{width}x{height}")
    page.keyboard.press("Enter")
    assert page.evaluate("window.sentActions") == [{"a": "win"}]
    ctx.close()


# We deal first, throw 北 and wait on 西 with six pairs (七对); South draws 西 and throws it (test_sound).
PAIRS_ON_WEST = "NW55m66s77s88p99p22m"


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_enter_wins_on_a_discarded_winning_tile(browser, server, fast, scripted_wall, artifacts, width, height):
    """The whole path, no state set by the test: South throws our winning 西, the claim prompt offers
    和 as its primary action, and Enter declares the win (Seven Pairs on South's discard)."""
    from tests.browser.test_sound import NORTH, SOUTH, WEST, _throw

    scripted_wall(arrange_wall([parse_tiles(h) for h in (PAIRS_ON_WEST, SOUTH, WEST, NORTH)], draws=parse_tiles("W")))
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Ronny")
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    expect(page.locator("[data-testid=your-turn]")).to_be_visible(timeout=TIMEOUT)
    _throw(page, "N")
    prompt = page.locator("[data-testid=claim-prompt]")
    win = prompt.locator("[data-action=win]")
    expect(win).to_be_visible(timeout=TIMEOUT)
    expect(win).to_have_class(re.compile(r"\bprimary\b"))
    assert_inside_viewport(page, "[data-testid=claim-prompt] [data-action=win]")
    shot(page, artifacts, f"claim-win-on-discard-{width}x{height}")
    page.keyboard.press("Enter")
    result = page.locator("[data-testid=hand-result]")
    expect(result).to_be_visible(timeout=TIMEOUT)
    expect(result.locator("[data-testid=headline]")).to_contain_text("Ronny wins on")
    expect(result.locator("[data-testid=fans]")).to_contain_text("Seven Pairs")
    shot(page, artifacts, f"claim-win-on-discard-result-{width}x{height}")
    ctx.close()
