"""External bots as tournament competitors in the browser: on a server started with a bots.toml listing
the reference bot (tests/support/botzone_greedy.py) twice, the organiser picks one on the tournament
page, sees it in the players list marked as a bot, and removes it again; a player sees no picker. At
1280x800 and on a 360x640 phone, the picker and the bot's line lie inside the viewport. Once the event
starts, the bot's seat at its table is tagged as a bot and it can no longer be removed."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ServerThread
from tests.browser.helpers import TIMEOUT, assert_inside_viewport, overlap, shot, sign_in
from tests.browser.test_tournament import tournament_id

GREEDY = Path(__file__).resolve().parents[1] / "support" / "botzone_greedy.py"


def bots_toml(path: Path) -> Path:
    """Two entries for the reference bot, as an operator writes them (docs/bots.md); no network
    namespace, which a test machine may not allow (the file says so, as docs/bots.md asks)."""
    argv = json.dumps([sys.executable, str(GREEDY)])  # a TOML array of strings is JSON's
    path.write_text("".join(f'[[bot]]\nname = "{n}"\ncommand = {argv}\nanswer_time = 5.0\nnetwork = true\n\n'
                            for n in ("greedy", "greedy-b")), encoding="utf-8")
    return path


class BotsTomlServer(ServerThread):
    def __init__(self, db: str, toml: Path):
        super().__init__(db)
        self.toml = toml

    async def _start(self) -> None:
        from server.app import App, Settings
        from server.botzone import load_bots  # what guobiao serve --bots reads
        from server.store import Store

        store = await Store.open(self.db)
        self.app = App(store, Settings(external_bots=load_bots(str(self.toml))))
        self.port = await self.app.start("127.0.0.1", 0)


@pytest.fixture
def toml_server(tmp_path, client_build):
    s = BotsTomlServer(str(tmp_path / "browser.db"), bots_toml(tmp_path / "bots.toml")).start()
    yield s
    s.stop()


def players_of(server, tid: str, want: list[str], timeout: float = 15) -> list[str]:
    """The tournament's players as the server holds them, once they are ``want`` (polled)."""
    end = time.monotonic() + timeout
    while True:
        have = list(server.app.tournaments[tid].t.players)
        if have == want or time.monotonic() > end:
            return have
        time.sleep(0.05)


def create_tournament(page: Page, name: str) -> str:
    page.locator("[data-testid=create-tournament-fold] summary").click()
    form = page.locator("[data-testid=create-tournament]")
    form.locator("input[name=t_name]").fill(name)
    form.locator("[data-action=create-tournament]").click()
    tid = tournament_id(page)
    expect(page.locator("[data-testid=t-name]")).to_have_text(name, timeout=TIMEOUT)
    return tid


def inside(page: Page, selector: str) -> dict:
    page.locator(selector).first.scroll_into_view_if_needed()
    return assert_inside_viewport(page, selector)


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_organiser_adds_an_external_bot_to_a_tournament_and_removes_it(browser, toml_server, artifacts, width, height):
    phone = width < 600
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US", is_mobile=phone, has_touch=phone)
    org = ctx.new_page()
    sign_in(org, toml_server.url, "Orga")
    tid = create_tournament(org, "Bot Cup")
    entry = org.locator("[data-testid=bot-entry]")
    picker = entry.locator("select[name=t_bot]")
    expect(picker.locator("option")).to_have_text(["greedy", "greedy-b"], timeout=TIMEOUT)  # welcome's bots

    # -- add greedy-b: listed under its name, marked as a bot, with "Remove" ----------------------
    picker.select_option("greedy-b")
    entry.locator("[data-action=register-bot]").click()
    line = org.locator(".players .plist li[data-player='bot:greedy-b']")
    expect(line.locator(".name")).to_have_text("greedy-b", timeout=TIMEOUT)
    expect(line.locator("[data-testid=competitor-bot]")).to_have_text("Bot")
    assert players_of(toml_server, tid, ["bot:greedy-b"]) == ["bot:greedy-b"]
    expect(picker.locator("option")).to_have_text(["greedy"])  # the one entered is offered no more
    shot(org, artifacts, f"t-bot-added-{width}x{height}")
    sel = ".players .plist li[data-player='bot:greedy-b']"
    parts = [inside(org, f"{sel} {x}") for x in (".name", "[data-testid=competitor-bot]", "[data-action=unregister-bot]")]
    for i, a in enumerate(parts):
        for b in parts[i + 1:]:
            assert overlap(a, b) == 0, f"parts of the bot's line overlap: {parts}"
    for x in ("select[name=t_bot]", "[data-action=register-bot]"):
        inside(org, f"[data-testid=bot-entry] {x}")
    b = org.locator(f"{sel} [data-action=unregister-bot]").bounding_box()
    assert b["height"] >= 24 and b["width"] >= 24, f"the Remove button is {b}: too small to tap"

    # -- a player sees the bot but neither the picker nor "Remove" --------------------------------
    other = browser.new_context(viewport={"width": width, "height": height}, locale="en-US").new_page()
    sign_in(other, toml_server.url + f"#tournament={tid}", "Pia")
    expect(other.locator(f"{sel} [data-testid=competitor-bot]")).to_be_visible(timeout=TIMEOUT)
    expect(other.locator("[data-testid=bot-entry]")).to_have_count(0)
    expect(other.locator("[data-action=unregister-bot]")).to_have_count(0)

    # -- remove it: gone from the list (the player's too) and from the server, offered again -------
    org.locator(f"{sel} [data-action=unregister-bot]").click()
    expect(line).to_have_count(0, timeout=TIMEOUT)
    expect(other.locator(sel)).to_have_count(0, timeout=TIMEOUT)
    assert players_of(toml_server, tid, []) == []
    expect(picker.locator("option")).to_have_text(["greedy", "greedy-b"])
    shot(org, artifacts, f"t-bot-removed-{width}x{height}")
    other.context.close()
    ctx.close()


def test_a_bot_competitor_is_tagged_as_a_bot_at_its_table(browser, toml_server, artifacts):
    from tests.browser.test_tournament import WsPlayer

    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    org = ctx.new_page()
    others: list[WsPlayer] = []
    try:
        sign_in(org, toml_server.url, "Orga")
        tid = create_tournament(org, "Bot Table")
        org.locator("[data-testid=bot-entry] [data-action=register-bot]").click()  # the first: greedy
        for name in ("Cai", "Dora", "Eve"):
            p = WsPlayer(toml_server.url, name)
            others.append(p)
            p.ok({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}})
            p.ok({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "checkin"}})
        expect(org.locator(".players .plist li")).to_have_count(4, timeout=TIMEOUT)
        org.click("[data-action=start-session]")
        seat = org.locator(".sessions .tcard tr", has=org.locator("[data-testid=competitor-bot]"))
        expect(seat).to_have_count(1, timeout=TIMEOUT)
        expect(seat).to_contain_text("greedy")
        expect(org.locator("[data-action=unregister-bot]")).to_have_count(0)  # started: no Remove
        expect(org.locator("[data-testid=bot-entry]")).to_have_count(0)
        (table,) = toml_server.app.tournaments[tid].t.tables.values()
        assert "bot:greedy" in table.seats
        seat.scroll_into_view_if_needed()
        shot(org, artifacts, "t-bot-at-table")
        assert_inside_viewport(org, ".sessions .tcard tr:has([data-testid=competitor-bot]) [data-testid=competitor-bot]")
    finally:
        for p in others:
            p.close()
        ctx.close()
