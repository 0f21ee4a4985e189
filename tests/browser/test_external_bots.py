"""The browser offers the server's external bots (docs/bots.md) beside the built-in one, and a 136-tile
room: the host unticks flowers, adds the reference bot by its name, and the bot plays at the table."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ServerThread
from tests.browser.helpers import TIMEOUT, add_bots, shot, sign_in

GREEDY = str(Path(__file__).resolve().parents[1] / "support" / "botzone_greedy.py")


class BotServer(ServerThread):
    async def _start(self) -> None:
        from server.app import App, Settings
        from server.botzone import BotSpec
        from server.store import Store

        store = await Store.open(self.db)
        spec = BotSpec("greedy", (sys.executable, GREEDY), answer_time=5.0, network=True)
        self.app = App(store, Settings(external_bots={"greedy": spec}))
        self.port = await self.app.start("127.0.0.1", 0)


@pytest.fixture
def bot_server(tmp_path, client_build, fast):
    s = BotServer(str(tmp_path / "browser.db")).start()
    yield s
    s.stop()


def test_host_seats_an_external_bot_in_a_136_tile_room(browser, bot_server, artifacts):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, bot_server.url, "Hostess")
    page.check("input[name=type][value=wufan]")
    page.uncheck("input[name=flowers]")
    page.click("[data-action=create]")
    expect(page.locator("[data-testid=invite-code]")).to_be_visible(timeout=TIMEOUT)
    button = page.locator("[data-action=add-external-bot]").first
    expect(button).to_have_text("Add greedy")
    button.click()
    expect(page.locator(".seats li.seat [data-testid=external-bot]")).to_have_text("greedy", timeout=TIMEOUT)
    add_bots(page, 2)
    shot(page, artifacts, "external-bot-lobby")
    (task,) = bot_server.app.rooms.values()
    assert task.room.config.flowers is False
    assert [s.bot for s in task.room.seats[1:]].count("greedy") == 1
    page.click("[data-action=ready]")
    page.locator("[data-action=auto]").click(timeout=TIMEOUT)  # 托管 plays the host's seat
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the bot answers at the table (托管 plays the host's seat)
        acted = [p for p, _ in list(task.room.actions) if task.room.seats[p].bot == "greedy"]
        if acted:
            break
        time.sleep(0.2)
    assert acted, "the external bot never acted"
    assert len(task.room.match.hand.wall) == 136
    shot(page, artifacts, "external-bot-table")
    ctx.close()
