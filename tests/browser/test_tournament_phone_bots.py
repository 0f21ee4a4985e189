"""The tournament page of a host on a 360x640 phone with bots entered: the bot picker sits with the
players list, near the top while registration is open (not at the foot of the page); the referee panel's
table chips tag a bot competitor as a bot, as the other seat lists do; and names in the standings stay on
one line (a long one is cut with an ellipsis) instead of wrapping."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.helpers import TIMEOUT, shot, sign_in
from tests.browser.test_tournament import WsPlayer
from tests.browser.test_tournament_bots import create_tournament, toml_server  # noqa: F401 (a fixture)

LONG = "Maximiliana-Longname"


def top(page: Page, selector: str) -> float:
    """A node's top in page coordinates (not the viewport's)."""
    return page.locator(selector).first.evaluate("e => e.getBoundingClientRect().top + window.scrollY")


def test_phone_tournament_page_bot_picker_by_the_players_bot_tags_and_one_line_names(browser, toml_server, artifacts):
    ctx = browser.new_context(viewport={"width": 360, "height": 640}, locale="en-US", is_mobile=True, has_touch=True)
    org = ctx.new_page()
    others: list[WsPlayer] = []
    try:
        sign_in(org, toml_server.url, "Orga")
        tid = create_tournament(org, "Bot Cup")
        entry = org.locator("[data-testid=bot-entry]")
        expect(entry.locator("select[name=t_bot] option")).to_have_count(2, timeout=TIMEOUT)
        for name in ("Cai", LONG, "Eve"):
            p = WsPlayer(toml_server.url, name)
            others.append(p)
            p.ok({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}})
            p.ok({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "checkin"}})
        expect(org.locator(".players .plist li")).to_have_count(3, timeout=TIMEOUT)

        # -- registration: the picker is in the players card, which follows the overview, above the list
        assert org.locator("section.overview + section.players [data-testid=bot-entry]").count() == 1
        picker = top(org, "[data-testid=bot-entry]")
        assert picker < top(org, ".players .plist li"), "the picker sits under the whole list"
        for later in ("section.standings", "section.schedule"):
            assert picker < top(org, later), f"the picker comes after {later}"
        assert picker < 2 * 640, f"the picker is {picker:.0f} px down the page"
        entry.locator("select[name=t_bot]").select_option("greedy-b")
        entry.locator("[data-action=register-bot]").click()
        expect(org.locator(".players .plist li")).to_have_count(4, timeout=TIMEOUT)
        entry.scroll_into_view_if_needed()
        shot(org, artifacts, "t-phone-bot-picker")

        # -- started: the referee panel tags the bot's chip; the standings keep names on one line -------
        org.click("[data-action=start-session]")
        chip = org.locator("[data-testid=referee-panel] .ref-tables .seat-chip", has_text="greedy-b")
        expect(chip).to_have_count(1, timeout=TIMEOUT)
        expect(chip.locator("[data-testid=competitor-bot]")).to_have_text("Bot")
        humans = org.locator("[data-testid=referee-panel] .ref-tables .seat-chip", has_text="Cai")
        expect(humans.locator("[data-testid=competitor-bot]")).to_have_count(0)
        chip.scroll_into_view_if_needed()
        shot(org, artifacts, "t-phone-referee-bot-chip")

        rows = org.locator("[data-testid=standings] tbody tr")
        expect(rows).to_have_count(4, timeout=TIMEOUT)
        org.locator("[data-testid=standings]").scroll_into_view_if_needed()
        heights = {r.get_attribute("data-player"): r.bounding_box()["height"] for r in rows.all()}
        assert max(heights.values()) - min(heights.values()) <= 1, f"a standings name wraps: {heights}"
        names = org.locator("[data-testid=standings] tbody .one-line")
        assert names.count() == 4
        cut = org.locator("[data-testid=standings] tbody tr", has_text="Maximiliana").locator(".one-line")
        style = cut.evaluate("e => [getComputedStyle(e).whiteSpace, getComputedStyle(e).textOverflow]")
        assert style == ["nowrap", "ellipsis"], style
        assert cut.get_attribute("title") == LONG  # the whole name on hover / long press
        # The session's table card too: each seat's row one line high.
        seats = org.locator(".sessions .tcard tbody tr")
        expect(seats).to_have_count(4, timeout=TIMEOUT)
        tall = [r.bounding_box()["height"] for r in seats.all()]
        assert max(tall) - min(tall) <= 1, f"a table card's name wraps: {tall}"
        table = org.locator("[data-testid=standings] table").bounding_box()
        assert table["x"] >= 0 and table["x"] + table["width"] <= 360, f"the standings overflow the phone: {table}"
        shot(org, artifacts, "t-phone-standings")
    finally:
        for p in others:
            p.close()
        ctx.close()
