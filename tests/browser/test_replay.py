"""Spectating, a whole match under 托管 to the final ranking, and its replay stepped through."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.helpers import TIMEOUT, add_bots, create_room, shot, sign_in, to_final_ranking


def test_watch_a_match_then_step_through_its_replay(browser, server, fast, artifacts):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Erin")
    create_room(page, "wufan", hands=4)
    code = page.locator("[data-testid=invite-code]").inner_text()
    add_bots(page, 3)
    page.click("[data-action=start]")
    expect(page.locator("[data-testid=table]")).to_be_visible(timeout=TIMEOUT)

    # A spectator joins by the code: the table without anybody's concealed tiles.
    fan_ctx = browser.new_context(viewport={"width": 800, "height": 800}, locale="en-US")
    fan = fan_ctx.new_page()
    fan.goto(f"{server.url}#watch={code.replace('-', '')}")
    fan.fill("input[name=name]", "Fan")
    fan.click("form.name-form button[type=submit]")
    expect(fan.locator("[data-testid=table]")).to_be_visible(timeout=TIMEOUT)
    expect(fan.locator(".spectator-bar")).to_be_visible()
    expect(fan.locator("[data-testid=hand]")).to_have_count(0)
    expect(fan.locator(".seat-panel .concealed.backs").first).to_be_visible()
    shot(fan, artifacts, "e-spectator")

    # 托管 plays our seat (and continues between hands) until the match is over.
    page.click("[data-testid=actions] [data-action=auto]")
    to_final_ranking(page)
    result = page.locator("[data-testid=match-result]")
    expect(result.locator(".ranking li")).to_have_count(4)
    expect(result.locator("[data-testid=scoreboard] tbody tr")).to_have_count(4)
    expect(result.locator("[data-action=rematch]")).to_be_visible()
    shot(page, artifacts, "e-final-ranking")

    result.locator("a.button", has_text="Replay").click()
    replay = page.locator("[data-testid=replay]")
    expect(replay).to_be_visible(timeout=TIMEOUT)
    expect(page.locator("[data-testid=replay-board]")).to_be_visible(timeout=TIMEOUT)
    step = page.locator("[data-testid=step]")
    expect(step).to_contain_text("Step 1 of")
    for _ in range(5):
        page.click("[data-action=next-step]")
    expect(step).to_contain_text("Step 6 of")
    # Every seat's tiles are open in a replay; the first discards are in the ponds by now.
    assert page.locator("[data-testid=replay-board] .pond .tile").count() >= 1
    page.click("text=Next hand")
    expect(step).to_contain_text("Step 1 of")
    shot(page, artifacts, "e-replay")
    fan_ctx.close()
    ctx.close()
