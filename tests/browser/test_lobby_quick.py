"""The first screen and the lobby as a new player meets them, at 1280x800 and 360x640: a calm first
screen before the socket opens; an invite link shows the room (type, length, host, seats taken) before
the name prompt; quick match of 4, 8 or 16 hands with the queue's count and the time until bots fill
the table; my recent matches, each opening its replay."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import TIMEOUT, assert_inside_viewport, box, create_room, overlap, shot, sign_in

SIZES = [(1280, 800), (360, 640)]

# A WebSocket that never opens: the page as it is before the server answers.
NO_SOCKET = """
window.WebSocket = class {
  constructor() { this.readyState = 0; }
  send() {}
  close() {}
};
"""


def inside_and_apart(page, selectors: list[str]) -> list[dict]:
    """Each element lies inside the viewport, and no two of them overlap."""
    boxes = [assert_inside_viewport(page, s) for s in selectors]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            assert overlap(boxes[i], boxes[j]) < 1, (selectors[i], selectors[j], boxes[i], boxes[j])
    return boxes


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_first_screen_is_neutral_and_an_invite_shows_the_room_before_the_name(browser, server, artifacts, size):
    w, h = size
    # Before the socket opens: a grey dot and no "Connecting…" (nothing has failed).
    ctx = browser.new_context(viewport={"width": w, "height": h}, locale="en-US")
    ctx.add_init_script(NO_SOCKET)
    page = ctx.new_page()
    page.goto(server.url)
    conn = page.locator("[data-testid=conn]")
    expect(conn).to_have_attribute("data-state", "starting", timeout=TIMEOUT)
    expect(page.locator("input[name=name]")).to_be_visible()
    assert "Connecting" not in page.locator("body").inner_text()
    dot = page.locator("[data-testid=conn] .dot").evaluate("e => getComputedStyle(e).backgroundColor")
    assert dot == "rgb(204, 204, 204)", dot  # grey, not the amber of a connection in trouble
    inside_and_apart(page, ["[data-testid=conn]", "input[name=name]", "form.name-form button[type=submit]"])
    shot(page, artifacts, f"lobby-quick-first-screen-{w}x{h}")
    ctx.close()

    # An invite link: the room's type, length, host and seats taken, above the name prompt.
    host_ctx = browser.new_context(viewport={"width": w, "height": h}, locale="en-US")
    host = host_ctx.new_page()
    sign_in(host, server.url, "Hostess")
    create_room(host, "dazhong", hands=8)
    link = host.locator("[data-testid=invite-link]").input_value()
    ctx = browser.new_context(viewport={"width": w, "height": h}, locale="en-US")
    guest = ctx.new_page()
    guest.goto(link)
    room = guest.locator("[data-testid=invite-room]")
    expect(room).to_have_attribute("data-found", "true", timeout=TIMEOUT)
    expect(room).to_contain_text("Popular room · 8 hands · host Hostess · 1/4 seats taken")
    expect(guest.locator("[data-testid=invite-note]")).to_contain_text("invited to a room")
    b_room, b_name, _ = inside_and_apart(guest, ["[data-testid=invite-room]", "input[name=name]",
                                                "form.name-form button[type=submit]"])
    assert b_room["y"] + b_room["height"] <= b_name["y"]  # told before the name is asked
    shot(guest, artifacts, f"lobby-quick-invite-{w}x{h}")
    # A code no open room has: said so before signing in.
    guest.goto(server.url + "#join=ZZZZ-ZZZZ")
    guest.reload()
    expect(room).to_have_attribute("data-found", "false", timeout=TIMEOUT)
    expect(room).to_contain_text("no longer valid")
    ctx.close()
    host_ctx.close()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_quick_match_of_8_hands_shows_the_queue_and_counts_down_to_the_bots(browser, server, artifacts, size):
    w, h = size
    pages = []
    for name in ("Quinn", "Rosa"):
        ctx = browser.new_context(viewport={"width": w, "height": h}, locale="en-US")
        page = ctx.new_page()
        sign_in(page, server.url, name)
        pages.append(page)
    a, b = pages
    expect(a.locator("[data-quick-hands='4']")).to_have_attribute("aria-checked", "true")  # the default
    a.click("[data-quick-hands='8']")
    expect(a.locator("[data-quick-hands='8']")).to_have_attribute("aria-checked", "true")
    a.click("[data-quick=guobiao]")
    wait = a.locator("[data-testid=quick-wait]")
    expect(wait).to_have_attribute("data-waiting", "1", timeout=TIMEOUT)
    expect(a.locator("[data-testid=queued-what]")).to_contain_text("8 hands")
    first = int(wait.get_attribute("data-left"))
    assert 15 <= first <= 20, first  # the server's default wait is 20 s
    queues = server.call(_queue_keys(server.app))
    assert list(queues.values()) == [("guobiao", 8)], queues

    # Another length is another queue: Quinn still waits alone.
    b.click("[data-quick-hands='16']")
    b.click("[data-quick=guobiao]")
    expect(b.locator("[data-testid=quick-wait]")).to_have_attribute("data-waiting", "1", timeout=TIMEOUT)
    b.locator(".queued button").click()
    expect(b.locator("[data-testid=quick-wait]")).to_have_count(0, timeout=TIMEOUT)
    # The same length: Quinn hears that two wait, and Rosa's estimate is Quinn's (they sit together).
    b.click("[data-quick-hands='8']")
    b.click("[data-quick=guobiao]")
    expect(wait).to_have_attribute("data-waiting", "2", timeout=TIMEOUT)
    expect(a.locator("[data-testid=quick-count]")).to_have_text("2 in the queue")
    b_left = int(b.locator("[data-testid=quick-wait]").get_attribute("data-left"))
    assert b_left <= int(wait.get_attribute("data-left")) + 1, b_left
    a.wait_for_timeout(1100)
    assert int(wait.get_attribute("data-left")) < first
    bar = a.locator(".quick-bar > span").evaluate("e => e.getBoundingClientRect().width")
    assert bar > 0
    inside_and_apart(a, ["[data-testid=queued-what]", "[data-testid=quick-wait]", ".queued button"])
    shot(a, artifacts, f"lobby-quick-wait-{w}x{h}")
    for p in pages:
        p.locator(".queued button").click()
        expect(p.locator("[data-testid=quick-wait]")).to_have_count(0, timeout=TIMEOUT)
        p.context.close()


async def _queue_keys(app) -> dict:
    return {pid: app.quick.queue_of(pid) for key in app.quick.queues for pid in app.quick.waiting(key)}


async def _finished_match(url: str) -> tuple[str, int]:
    """A guest plays a quick match with bots under 托管 to its end and leaves: (token, match id)."""
    from tests.server.client import Client

    c = await Client.open(url, "json")
    try:
        await c.guest("Mia")
        assert (await c.request({"t": "quick", "type": "wufan", "wait": 0}))["t"] == "queued"
        await c.wait_for(lambda m: m.get("t") == "snapshot")
        assert (await c.request({"t": "auto", "on": True}))["t"] == "ok"
        reveal = await c.wait_for(lambda m: m.get("t") == "reveal", timeout=150)
        assert (await c.request({"t": "leave"}))["t"] == "ok"
        # Hidden from the public profile: still in the player's own list.
        assert (await c.request({"t": "privacy", "hide_history": True}))["t"] == "account"
        return c.token, reveal["id"]
    finally:
        await c.close()


def test_my_recent_matches_open_their_replay(browser, server, fast, artifacts):
    token, match = server.call(_finished_match(f"ws://127.0.0.1:{server.port}/ws"), timeout=180)
    server.call(server.app.ratings.settle())  # the rows the list reads are written once the result is stored
    for w, h in SIZES:
        ctx = browser.new_context(viewport={"width": w, "height": h}, locale="en-US")
        ctx.add_init_script(f"localStorage.setItem('guobiao.token', {token!r})")
        page = ctx.new_page()
        page.goto(server.url)
        expect(page.locator("[data-testid=conn]")).to_have_attribute("data-state", "online", timeout=TIMEOUT)
        row = page.locator(f"[data-testid=recent] li[data-match='{match}']")
        expect(row).to_be_visible(timeout=TIMEOUT)
        expect(row).to_contain_text("No-fan room")
        expect(row).to_contain_text("4 hands")
        expect(row).to_contain_text("with 3 bots")
        row.scroll_into_view_if_needed()
        inside_and_apart(page, ["[data-testid=recent] h2", f"[data-testid=recent] li[data-match='{match}'] a"])
        assert box(page, f"[data-testid=recent] li[data-match='{match}'] a")["height"] >= 32  # a tap target
        shot(page, artifacts, f"lobby-recent-matches-{w}x{h}")
        row.locator("a").click()
        expect(page.locator("[data-testid=replay]")).to_be_visible(timeout=TIMEOUT)
        assert page.evaluate("location.hash") == f"#replay={match}"
        ctx.close()



@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_quick_match_wait_counts_from_joining_the_queue_after_a_reload(browser, server, artifacts, size):
    """The wait shown is the time since the player joined the queue, as the server counts it: a reload
    does not restart it at 0 (the queue message carries ``waited``)."""
    w, h = size
    ctx = browser.new_context(viewport={"width": w, "height": h}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Wendy")
    page.click("[data-quick-hands='16']")
    page.click("[data-quick=wufan]")
    wait = page.locator("[data-testid=quick-wait]")
    expect(wait).to_have_attribute("data-waiting", "1", timeout=TIMEOUT)
    # Wait until 4 s have passed (20 s before bots fill the table: far enough from being seated).
    page.wait_for_function("() => +document.querySelector('[data-testid=quick-wait]')?.dataset.waited >= 4",
                           timeout=TIMEOUT)
    left_before = int(wait.get_attribute("data-left"))
    page.reload()
    expect(wait).to_be_visible(timeout=TIMEOUT)
    expect(wait).to_have_attribute("data-waiting", "1", timeout=TIMEOUT)
    waited = int(wait.get_attribute("data-waited"))
    assert waited >= 4, f"the wait restarted after the reload: {waited} s"
    expect(wait).to_contain_text(f"Waiting {waited} s")
    assert int(wait.get_attribute("data-left")) <= left_before  # the same table, no later
    # The bar shows the share of the wait already gone, not an empty bar.
    bar = page.locator(".quick-bar > span").evaluate("e => e.getBoundingClientRect().width / e.parentElement.getBoundingClientRect().width")
    assert bar >= 0.15, bar
    inside_and_apart(page, ["[data-testid=queued-what]", "[data-testid=quick-wait]", ".queued button"])
    shot(page, artifacts, f"lobby-quick-wait-after-reload-{w}x{h}")
    page.locator(".queued button").click()
    expect(wait).to_have_count(0, timeout=TIMEOUT)
    ctx.close()
