"""What a person does in the browser client, as Playwright steps (sync API)."""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import Page, expect

TIMEOUT = 15_000  # ms for one expectation


def sign_in(page: Page, url: str, name: str) -> None:
    seen = _watch(page)
    page.goto(url)
    page.fill("input[name=name]", name)
    button = page.locator("form.name-form button[type=submit]")
    try:
        expect(button).to_be_enabled(timeout=TIMEOUT)
    except AssertionError as e:
        state = page.locator("[data-testid=conn]").get_attribute("data-state")
        typed = page.input_value("input[name=name]")
        raise AssertionError(f"the sign-in button stayed disabled: connection {state!r}, name field "
                             f"{typed!r}; what the page did: {seen}") from e
    button.click()
    expect(page.locator("[data-testid=conn]")).to_have_attribute("data-state", "online", timeout=TIMEOUT)


def _watch(page: Page) -> list[str]:
    """The page's console lines, failed requests and websocket opens and closes, for failure messages."""
    seen: list[str] = []
    page.on("console", lambda m: seen.append(f"console.{m.type}: {m.text}"))
    page.on("pageerror", lambda e: seen.append(f"pageerror: {e}"))
    page.on("requestfailed", lambda r: seen.append(f"request failed: {r.url} {r.failure}"))

    def on_ws(ws) -> None:
        seen.append(f"websocket {ws.url}")
        ws.on("close", lambda _: seen.append("websocket closed"))
        ws.on("socketerror", lambda err: seen.append(f"websocket error {err}"))

    page.on("websocket", on_ws)
    return seen


def create_room(page: Page, room_type: str = "guobiao", hands: int = 4) -> None:
    page.check(f"input[name=type][value={room_type}]")
    page.select_option("select[name=hands]", str(hands))
    page.click("[data-action=create]")
    expect(page.locator("[data-testid=invite-code]")).to_be_visible(timeout=TIMEOUT)


def add_bots(page: Page, n: int) -> None:
    for i in range(n):
        before = page.locator(".seat .tag", has_text="Bot").count() + page.locator(".seat .tag", has_text="机器人").count()
        page.locator("[data-action=add-bot]").first.click()
        page.wait_for_function(
            "n => document.querySelectorAll('.seats li.seat').length === 4 && "
            "[...document.querySelectorAll('.seat .tag')].filter(e => /Bot|机器人/.test(e.textContent)).length > n",
            arg=before, timeout=TIMEOUT,
        )


def my_turn(page: Page) -> bool:
    return page.locator("[data-testid=your-turn]").count() > 0


def discard_one(page: Page) -> str | None:
    """Discard the rightmost tile that may be discarded: click it (it rises), click again if needed."""
    tiles = page.locator("[data-testid=hand] button.tile:not(.dim)")
    if tiles.count() == 0:
        return None
    tile = tiles.last
    name = tile.get_attribute("data-tile")
    try:
        tile.click(timeout=2000)
        if my_turn(page) and "selected" in (tile.get_attribute("class", timeout=500) or ""):
            tile.click(timeout=2000)
    except Exception:  # the hand changed under us (the turn moved on): the next round looks again
        return None
    return name


def answer_claim(page: Page, prefer_win: bool = True) -> bool:
    prompt = page.locator("[data-testid=claim-prompt]")
    if prompt.count() == 0:
        return False
    try:
        if prefer_win and prompt.locator("[data-action=win]").count():
            prompt.locator("[data-action=win]").click(timeout=2000)
        else:
            prompt.locator("[data-action=pass]").click(timeout=2000)
    except Exception:
        return False
    return True


def step(page: Page, discards: list | None = None) -> bool:
    """Do what the table asks now, if anything: win when offered, pass on claims, else discard the
    rightmost tile. True if something was clicked."""
    if answer_claim(page):
        return True
    if my_turn(page):
        win = page.locator("[data-testid=actions] [data-action=win]")
        if win.count():
            try:
                win.click(timeout=2000)
            except Exception:
                pass
            return True
        name = discard_one(page)
        if name and discards is not None:
            discards.append(name)
        return name is not None
    return False


def play_until(page: Page, done: str, timeout: float = 240.0, discards: list | None = None) -> None:
    """Play by clicking until ``done`` (a selector) is visible."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if page.locator(done).count() and page.locator(done).first.is_visible():
            return
        page.wait_for_timeout(50 if step(page, discards) else 60)
    raise AssertionError(f"{done} did not appear within {timeout} s")


def pond(page: Page, seat: int) -> list[str]:
    """The tiles in a seat's discard pond, as this page shows them."""
    return page.locator(f".seat-panel[data-seat='{seat}'] [data-testid=pond] .tile").evaluate_all(
        "els => els.map(e => e.dataset.tile)")


def hand(page: Page) -> list[str]:
    return page.locator("[data-testid=hand] .tile").evaluate_all("els => els.map(e => e.dataset.tile)")


def shot(page: Page, artifacts: Path, name: str) -> Path:
    path = artifacts / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def box(page: Page, selector: str) -> dict:
    """The bounding box of the first element matching ``selector`` (it must be rendered)."""
    b = page.locator(selector).first.bounding_box()
    assert b is not None, f"{selector} is not rendered"
    return b


def assert_inside_viewport(page: Page, selector: str) -> dict:
    """The element is wholly visible without scrolling: its box lies inside the viewport."""
    b = box(page, selector)
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]
    assert b["x"] >= -0.5 and b["y"] >= -0.5 and b["x"] + b["width"] <= vw + 0.5 and b["y"] + b["height"] <= vh + 0.5, (
        f"{selector} at {b} is not inside the {vw}x{vh} viewport")
    return b


def overlap(a: dict, b: dict) -> float:
    """The area two boxes share."""
    w = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    return max(0.0, w) * max(0.0, h)


def to_final_ranking(page: Page, timeout: float = 240_000) -> None:
    """The match ends: its last hand's result shows first, its button opens the final ranking."""
    button = page.locator("[data-testid=hand-result] [data-action=show-ranking]")
    expect(button).to_be_visible(timeout=timeout)
    button.click()
    expect(page.locator("[data-testid=match-result]")).to_be_visible(timeout=TIMEOUT)
