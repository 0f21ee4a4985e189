"""Acceptance (d): the wait hint (听牌提示) shows the right waits, with their fans from the server, for a
scripted hand."""

from __future__ import annotations

from playwright.sync_api import expect

from game.tiles import parse_tiles
from game.wall import arrange_wall
from tests.browser.helpers import TIMEOUT, add_bots, create_room, shot, sign_in

# We deal first (seat 0): a pure straight 123456789m with 11s 23s, and N to throw. After N we wait on
# 1s (two unseen: we hold the other two) and 4s (four unseen).
OURS = "123456789m11s23sN"
OTHERS = ("19m19p5s5pESWCFP7s", "28m28p6s6p8sESWCFP", "37m37p4p5s7p9sESWCF")


def waits(page) -> dict:
    return dict(page.locator("[data-testid=hint] [data-wait]").evaluate_all(
        "els => els.map(e => [e.dataset.wait, e.querySelector('.unseen').textContent])"))


def fans(page) -> dict:
    """wait -> (its fans as shown, its total, whether it reaches the room's minimum)."""
    rows = page.locator("[data-testid=hint] [data-wait]").evaluate_all(
        "els => els.map(e => [e.dataset.wait, e.querySelector('.fan-list')?.textContent,"
        " e.querySelector('.wait-total')?.textContent, e.dataset.meetsMin])")
    return {w: (f, total, meets) for w, f, total, meets in rows}


def check_fans(page) -> None:
    """清龙 16 + 门前清 2 + 平和 2 (+ 喜相逢 1 on 1s) + 缺一门 1: both waits reach the 8-fan minimum."""
    page.wait_for_function("() => document.querySelectorAll('[data-testid=hint] .fan-list').length === 2",
                           timeout=TIMEOUT)
    got = fans(page)
    assert got["9"] == ("Pure Straight 16 · Concealed Hand 2 · All Chows 2 · Mixed Double Chow 1 · "
                        "One Voided Suit 1", "22 fans", "true"), got
    assert got["12"] == ("Pure Straight 16 · Concealed Hand 2 · All Chows 2 · One Voided Suit 1", "21 fans", "true"), got


def test_the_wait_hint_shows_the_waits_of_a_scripted_hand(browser, server, fast, scripted_wall, artifacts):
    scripted_wall(arrange_wall([parse_tiles(OURS)] + [parse_tiles(h) for h in OTHERS]))
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Dora")
    # The browser's language picks English; the switch goes to Chinese and back.
    expect(page.locator("[data-testid=lang]")).to_have_text("中文")
    page.click("[data-testid=lang]")
    expect(page.locator("[data-action=create]")).to_have_text("创建")
    page.click("[data-testid=lang]")
    expect(page.locator("[data-action=create]")).to_have_text("Create")
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    expect(page.locator("[data-testid=hand] .tile")).to_have_count(14, timeout=TIMEOUT)

    north = page.locator("[data-testid=hand] [data-tile=N]")
    if "selected" not in (north.get_attribute("class") or ""):
        north.click()
    expect(page.locator("[data-testid=hint]")).to_contain_text("Discard North")
    expect(page.locator("[data-testid=hint] [data-wait]")).to_have_count(2)
    assert waits(page) == {"9": "2 unseen", "12": "4 unseen"}
    check_fans(page)
    # The discards that keep the hand ready are marked in the hand.
    assert "marked" in (north.get_attribute("class") or "")
    shot(page, artifacts, "d-hint-own-turn")

    north.click()  # a raised tile discards on the next click
    expect(page.locator(".seat-panel.bottom [data-testid=pond] [data-tile=N]")).to_have_count(1, timeout=TIMEOUT)
    expect(page.locator("[data-testid=hint]")).to_contain_text("Waits")
    expect(page.locator("[data-testid=hint] [data-wait]")).to_have_count(2)
    assert set(waits(page)) == {"9", "12"}
    check_fans(page)
    shot(page, artifacts, "d-hint-waiting")

    # The hint can be turned off; the server then stops computing it for this player.
    page.uncheck("[data-testid=hint-toggle]")
    expect(page.locator("[data-testid=hint]")).to_have_count(0)
    (task,) = server.app.rooms.values()
    for _ in range(50):
        if not any(m.hints for m in task.room.members.values()):
            break
        page.wait_for_timeout(100)
    assert not any(m.hints for m in task.room.members.values())
    ctx.close()


def test_declaring_ready_in_the_popular_room(browser, server, fast, scripted_wall, artifacts):
    """报听 (大众馆 only): the button, then a discard that keeps the hand ready; the table shows 听."""
    scripted_wall(arrange_wall([parse_tiles(OURS)] + [parse_tiles(h) for h in OTHERS]))
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    page = ctx.new_page()
    sign_in(page, server.url, "Ezra")
    create_room(page, "dazhong", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    expect(page.locator("[data-testid=hand] .tile")).to_have_count(14, timeout=TIMEOUT)
    page.click("[data-testid=actions] [data-action=declare]")
    expect(page.locator("[data-testid=your-turn]")).to_contain_text("报听")
    # Only discards that keep the hand ready may be chosen now: N and 1s.
    enabled = page.locator("[data-testid=hand] button.tile:not(.dim)").evaluate_all("els => els.map(e => e.dataset.tile)")
    assert sorted(set(enabled)) == ["1s", "N"], enabled
    north = page.locator("[data-testid=hand] [data-tile=N]")
    if "selected" not in (north.get_attribute("class") or ""):
        north.click()  # raise it first
    north.click()
    expect(page.locator(".seat-panel.bottom .ready-tag")).to_be_visible(timeout=TIMEOUT)
    expect(page.locator(".seat-panel.bottom [data-testid=pond] [data-tile=N]")).to_have_count(1)
    shot(page, artifacts, "d-declared-ready")
    ctx.close()
