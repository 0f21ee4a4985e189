"""Acceptance (c): a page reload mid-hand resumes the seat (and so does a dropped connection)."""

from __future__ import annotations

import time

from playwright.sync_api import expect

from tests.browser.helpers import TIMEOUT, add_bots, create_room, my_turn, pond, shot, sign_in, step


def _discard_once(page, timeout: float = 60) -> None:
    before = len(pond(page, 0))
    end = time.monotonic() + timeout
    while time.monotonic() < end and len(pond(page, 0)) == before:
        step(page)
        page.wait_for_timeout(60)
    assert len(pond(page, 0)) > before, "no discard of our own appeared"


def test_reload_mid_hand_resumes_the_seat(browser, server, fast, artifacts):
    ctx = browser.new_context(viewport={"width": 1024, "height": 800})
    page = ctx.new_page()
    sign_in(page, server.url, "Carol")
    create_room(page, "dazhong", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    expect(page.locator("[data-testid=table]")).to_be_visible(timeout=TIMEOUT)
    _discard_once(page)
    # Reload while it is not our turn: our 13 tiles stay as they are until we draw.
    end = time.monotonic() + 30
    while my_turn(page) and time.monotonic() < end:
        step(page)
        page.wait_for_timeout(60)
    tiles = page.locator("[data-testid=hand] .tile:not(.drawn)").evaluate_all("els => els.map(e => e.dataset.tile)")
    discarded = pond(page, 0)
    token = page.evaluate("localStorage.getItem('guobiao.token')")
    assert token and len(token) == 32

    page.reload()
    expect(page.locator("[data-testid=table]")).to_be_visible(timeout=TIMEOUT)
    expect(page.locator("[data-testid=conn]")).to_have_attribute("data-state", "online", timeout=TIMEOUT)
    expect(page.locator(".seat-panel.bottom .pname")).to_have_text("Carol")
    after = page.locator("[data-testid=hand] .tile:not(.drawn)").evaluate_all("els => els.map(e => e.dataset.tile)")
    assert sorted(after) == sorted(tiles), (tiles, after)
    assert pond(page, 0)[: len(discarded)] == discarded
    shot(page, artifacts, "c-after-reload")
    # The seat is ours again: we can play on.
    _discard_once(page)

    # A dropped connection: the client shows it, reconnects with its token and carries on.
    page.evaluate("window.guobiao.dropConnection()")
    expect(page.locator("[data-testid=conn]")).to_have_attribute("data-state", "online", timeout=TIMEOUT)
    _discard_once(page)
    shot(page, artifacts, "c-after-drop")
    ctx.close()


def test_a_page_that_paints_late_still_sees_its_socket_open(browser, server, artifacts):
    # On a busy machine the first frame can come after the socket opened (here: frames never come).
    # The page must still show the open connection, or its sign-in button stays disabled for good.
    ctx = browser.new_context()
    ctx.add_init_script("window.requestAnimationFrame = () => 0;")
    page = ctx.new_page()
    page.goto(server.url)
    page.fill("input[name=name]", "Late")
    expect(page.locator("form.name-form button[type=submit]")).to_be_enabled(timeout=5_000)
    page.click("form.name-form button[type=submit]")
    expect(page.locator("[data-testid=conn]")).to_have_attribute("data-state", "online", timeout=5_000)
    ctx.close()
