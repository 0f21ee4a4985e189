"""The match's last hand: its result (the fan breakdown) shows first, then the final ranking."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from game.tiles import parse_tiles
from game.wall import arrange_wall
from tests.browser.helpers import TIMEOUT, add_bots, assert_inside_viewport, create_room, shot, sign_in, to_final_ranking
from tests.browser.test_results import OTHERS, OURS


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_last_hands_result_shows_before_the_final_ranking(browser, server, fast, scripted_wall, artifacts, width, height):
    # Every hand deals the dealer a complete hand: each of the four hands is won at once by 自摸.
    scripted_wall(arrange_wall([parse_tiles(OURS)] + [parse_tiles(h) for h in OTHERS]))
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Last")
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    result = page.locator("[data-testid=hand-result]")
    ranking = page.locator("[data-testid=match-result]")
    end = time.monotonic() + 120
    while time.monotonic() < end:
        assert ranking.count() == 0, "the final ranking appeared before the last hand's result"
        if result.count() and result.locator("h2").first.text_content().find("4 of 4") >= 0:
            break
        for sel in ("[data-testid=actions] [data-action=win]", "[data-testid=hand-result] [data-action=continue]"):
            b = page.locator(sel)
            if b.count():
                try:
                    b.first.click(timeout=1000)
                except Exception:
                    pass
        page.wait_for_timeout(100)
    else:
        raise AssertionError("the fourth hand's result never showed")
    # The last hand's fans are shown, the ranking waits for its button.
    expect(result.locator("[data-testid=fans]")).to_be_visible()
    expect(result.locator("[data-testid=fans] tr[data-fan='28']")).to_be_visible()
    button = result.locator("[data-action=show-ranking]")
    expect(button).to_be_visible(timeout=TIMEOUT)
    assert ranking.count() == 0
    assert_inside_viewport(page, "[data-testid=hand-result] [data-action=show-ranking]")
    assert_inside_viewport(page, "[data-testid=hand-result] [data-testid=fan-total]")
    shot(page, artifacts, f"last-hand-result-{width}x{height}")
    button.click()
    expect(ranking).to_be_visible(timeout=TIMEOUT)
    expect(result).to_have_count(0)
    expect(ranking.locator(".ranking li")).to_have_count(4)
    assert_inside_viewport(page, "[data-testid=match-result] .ranking li >> nth=0")
    shot(page, artifacts, f"last-hand-ranking-{width}x{height}")
    ctx.close()


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_back_to_the_lobby_works_after_the_server_closed_the_finished_room(browser, server, fast, scripted_wall, artifacts, width, height):
    """A final ranking left open: the server closes the idle room (30 min after the match, here at once);
    "Back to the lobby" still leads to the lobby (it used to do nothing until a reload)."""
    ctx, page = play_to_the_last_result(browser, server, scripted_wall, width, height, "Idle")
    to_final_ranking(page, timeout=TIMEOUT)
    room_id = page.evaluate("() => window.guobiao.state.room.id")
    # What the room's tick does when the room has been idle for its idle_after.
    server.call(server.app.rooms[room_id].dispose())
    page.wait_for_timeout(300)
    back = page.locator("[data-testid=match-result] button", has_text="Back to the lobby")
    back.scroll_into_view_if_needed()
    assert_inside_viewport(page, "[data-testid=match-result] button:has-text('Back to the lobby')")
    back.click(timeout=2000)
    expect(page.locator("[data-action=create]")).to_be_visible(timeout=TIMEOUT)
    expect(page.locator("[data-testid=match-result]")).to_have_count(0)
    assert_inside_viewport(page, "[data-quick=guobiao]")
    shot(page, artifacts, f"back-to-lobby-after-close-{width}x{height}")
    ctx.close()


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_a_reload_at_the_end_of_the_match_shows_the_final_ranking_again(browser, server, fast, scripted_wall, artifacts,
                                                                        width, height):
    """A reload (or a phone waking up) on the last hand's result or the ranking: the ranking is shown
    again, not an empty room lobby with no word of how the match ended."""
    ctx, page = play_to_the_last_result(browser, server, scripted_wall, width, height, "Reloader")
    expect(page.locator("[data-action=show-ranking]")).to_be_visible(timeout=TIMEOUT)
    page.reload()
    ranking = page.locator("[data-testid=match-result]")
    expect(ranking).to_be_visible(timeout=TIMEOUT)
    expect(ranking.locator(".ranking li")).to_have_count(4)
    expect(ranking.locator("[data-testid=scoreboard] tbody tr")).to_have_count(4)
    assert_inside_viewport(page, "[data-testid=match-result] .ranking li >> nth=0")
    assert_inside_viewport(page, "[data-testid=match-result] button:has-text('Back to the lobby')")
    shot(page, artifacts, f"reload-final-ranking-{width}x{height}")
    page.locator("[data-testid=match-result] button", has_text="Back to the lobby").click()
    expect(page.locator("[data-action=create]")).to_be_visible(timeout=TIMEOUT)
    ctx.close()


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_a_reloaded_final_ranking_links_the_replay_as_the_live_one_does(browser, server, fast, scripted_wall, artifacts,
                                                                       width, height):
    """The ranking shown again after a reload has the Replay link of the live one, to the same match."""
    ctx, page = play_to_the_last_result(browser, server, scripted_wall, width, height, "Replayer")
    to_final_ranking(page, timeout=TIMEOUT)
    live = page.locator("[data-testid=match-result] a.button", has_text="Replay")
    expect(live).to_be_visible(timeout=TIMEOUT)
    href = live.get_attribute("href")
    assert href and href.startswith("#replay="), href
    page.reload()
    ranking = page.locator("[data-testid=match-result]")
    expect(ranking).to_be_visible(timeout=TIMEOUT)
    link = ranking.locator("a.button", has_text="Replay")
    expect(link).to_be_visible(timeout=TIMEOUT)
    assert link.get_attribute("href") == href
    link.scroll_into_view_if_needed()
    b = assert_inside_viewport(page, "[data-testid=match-result] a.button:has-text('Replay')")
    assert b["height"] >= 32  # a tap target
    shot(page, artifacts, f"reload-final-ranking-replay-{width}x{height}")
    link.click()
    expect(page.locator("[data-testid=replay]")).to_be_visible(timeout=TIMEOUT)
    assert page.evaluate("location.hash") == href
    ctx.close()


def play_to_the_last_result(browser, server, scripted_wall, width, height, name):
    """A 4-hand 国标 match with three bots, every hand won at once, played until the last hand's result
    offers the ranking."""
    scripted_wall(arrange_wall([parse_tiles(OURS)] + [parse_tiles(h) for h in OTHERS]))
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, name)
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    end = time.monotonic() + 120
    while page.locator("[data-action=show-ranking]").count() == 0 and time.monotonic() < end:
        for sel in ("[data-testid=actions] [data-action=win]", "[data-testid=hand-result] [data-action=continue]"):
            b = page.locator(sel)
            if b.count():
                try:
                    b.first.click(timeout=1000)
                except Exception:
                    pass
        page.wait_for_timeout(100)
    return ctx, page
