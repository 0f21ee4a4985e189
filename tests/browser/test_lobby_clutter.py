"""The lobby on a phone: cancelled events are folded under a count, the tournament form is folded, and
"Create a room" is near the top; the referee box suggests yourself by name, not an internal id."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import TIMEOUT, assert_inside_viewport, shot, sign_in
from tests.browser.test_tournament import WsPlayer


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_lobby_folds_cancelled_events_and_the_tournament_form(browser, server, artifacts, width, height):
    org = WsPlayer(server.url, "Org")
    try:
        for i in range(5):
            r = org.ok({"t": "tournament_create", "config": {"name": f"Ten-minute {i}", "hands": 1}})
            org.ok({"t": "tournament_cmd", "tournament": r["tournament"]["id"], "cmd": {"t": "cancel"}})
        live = org.ok({"t": "tournament_create", "config": {"name": "Still open", "hands": 1}})
        ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
        page = ctx.new_page()
        sign_in(page, server.url, "Phone")
        tournaments = page.locator("[data-testid=tournaments]")
        expect(tournaments.locator(f"li[data-tournament='{live['tournament']['id']}']")).to_be_visible(timeout=TIMEOUT)
        # The five cancelled ones are one folded line.
        folded = tournaments.locator("[data-testid=over-events]")
        expect(folded.locator("summary")).to_contain_text("(5)")
        shown = tournaments.locator("li[data-tournament]:visible").count()
        assert tournaments.locator("li[data-tournament]:visible", has_text="Ten-minute").count() == 0
        # The tournament form is folded; the room form's Create button is within the first two screens.
        expect(page.locator("[data-testid=create-tournament]")).not_to_be_visible()
        create = page.locator("[data-action=create]").bounding_box()
        assert create["y"] + create["height"] <= 2 * height, create
        assert_inside_viewport(page, "[data-testid=over-events] summary")
        shot(page, artifacts, f"lobby-folded-{width}x{height}")
        # Unfolded: the referee box names you, not your player id.
        page.locator("[data-testid=create-tournament-fold] summary").click()
        referee = page.locator("input[name=t_referee]")
        expect(referee).to_be_visible()
        placeholder = referee.get_attribute("placeholder") or ""
        assert "Phone" in placeholder and not placeholder.startswith("p"), placeholder
        folded.locator("summary").click()
        assert tournaments.locator("li[data-tournament]:visible").count() == shown + 5
        shot(page, artifacts, f"lobby-unfolded-{width}x{height}")
        ctx.close()
    finally:
        org.close()
