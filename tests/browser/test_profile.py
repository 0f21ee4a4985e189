"""Ratings in the browser: a ranked quick match (bots fill the table, short config) changes the
player's rating; their profile (#player=ID) shows the rating curve and the fan bar chart, and the
leaderboard lists them."""

from __future__ import annotations

import json
import urllib.request

from playwright.sync_api import expect

from tests.browser.helpers import TIMEOUT, shot, sign_in, to_final_ranking


def api(server, path: str) -> dict:
    with urllib.request.urlopen(server.url.rstrip("/") + path, timeout=10) as r:
        return json.loads(r.read())


def test_a_quick_match_changes_the_rating_and_the_profile_shows_charts_and_leaderboard(browser, server, fast, artifacts):
    server.app.settings.quick_wait = 0.0  # bots fill the table at once
    ctx = browser.new_context(viewport={"width": 1100, "height": 1000}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Rita")
    page.click("[data-testid=me]")
    player = page.locator("[data-testid=account-id]").inner_text()
    assert api(server, f"/api/players/{player}")["ratings"] == {}  # no rated match yet

    page.click("[data-testid=brand]")
    page.click("[data-quick=guobiao]")
    expect(page.locator("[data-testid=table]")).to_be_visible(timeout=TIMEOUT)
    page.click("[data-testid=actions] [data-action=auto]")  # 托管 plays the seat to the end
    to_final_ranking(page)

    profile = None
    for _ in range(50):  # the update runs once the result is stored
        profile = api(server, f"/api/players/{player}")
        if profile["ratings"]:
            break
        page.wait_for_timeout(100)
    rating = profile["ratings"]["guobiao"]
    assert rating["matches"] == 1 and rating["rating"] != 0.0  # a new player's rating is 0

    # Fans as if the player had won twice (托管 rarely wins): the bar chart draws one bar a fan.
    async def add_fans():
        async with server.app.store.transaction() as db:
            await db.executemany("INSERT INTO player_fans VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET count = count + 1",
                                 [(player, "平和", "All Chows", 2), (player, "自摸", "Self-Drawn", 1)])

    server.call(add_fans())
    profile = api(server, f"/api/players/{player}")
    page.goto(f"{server.url}#player={player}")
    expect(page.locator("[data-testid=profile]")).to_be_visible(timeout=TIMEOUT)
    expect(page.locator("[data-testid=profile-name]")).to_have_text("Rita")
    expect(page.locator("[data-testid=rating-guobiao] strong")).to_have_text(f"{rating['rating']:.2f}")
    expect(page.locator("[data-testid=curve-guobiao] svg polyline")).to_have_count(1)
    expect(page.locator("[data-testid=fan-chart] rect")).to_have_count(len(profile["fans"]))
    expect(page.locator("[data-testid=fan-chart]")).to_contain_text("All Chows")  # the page is in English
    expect(page.locator("[data-testid=matches] a[data-replay]")).to_have_count(1)
    row = page.locator(f"[data-testid=leaderboard-guobiao] tr[data-player={player}]")
    expect(row).to_have_count(1, timeout=TIMEOUT)
    expect(row).to_have_class("me")
    expect(page.locator("[data-testid=board-you]")).to_contain_text("#1")
    shot(page, artifacts, "profile-after-quick-match")


def test_the_host_chooses_a_ranked_private_room(browser, server, fast, artifacts):
    ctx = browser.new_context(viewport={"width": 1000, "height": 900}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Hana")
    expect(page.locator("input[name=ranked]")).not_to_be_checked()  # not ranked unless chosen
    page.check("input[name=ranked]")
    page.click("[data-action=create]")
    expect(page.locator("[data-testid=invite-code]")).to_be_visible(timeout=TIMEOUT)
    (room,) = server.app.rooms.values()
    assert room.room.config.ranked is True
    shot(page, artifacts, "profile-ranked-room")
