"""The lobby's public rooms past the first page of 50, and searched: 55 public rooms (each held by a
player over a raw websocket) page as 50 + 5 with "page X of Y"; the page stays while the lobby refreshes
itself, and a page gone since (rooms closed) falls back to the last one; typing a player's name searches
as one types, and the search stays through refreshes; an invite code finds its room; a search that
finds nothing says so, not "no public rooms"; × clears it. At 1280x800 in English and at 360x640 in
Chinese (tap targets of at least 32 px). The tournaments' list likewise: 55 of them and the scheduled
event page as 50 + 6, and a search by name keeps its answer through refreshes."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import TIMEOUT, box, shot, sign_in
from tests.browser.test_tournament import WsPlayer

WORDS = {
    "en-US": {"page": "Page {} of {}", "none": "No rooms match “{}”"},
    "zh-CN": {"page": "第 {} / {} 页", "none": "没有符合“{}”的房间"},
}
LISTED = "li[data-room]"  # the public rooms listed
REFRESH = 15_000  # ms: the lobby asks again every 5 s by itself


def listed(page: Page) -> list[str]:
    return page.locator(LISTED).evaluate_all("els => els.map(e => e.dataset.room)")


def expect_listed(page: Page, rooms, timeout: float = REFRESH) -> None:
    """The list shows exactly ``rooms`` (in any order), without anybody pressing Refresh."""
    want = sorted(rooms)
    try:
        page.wait_for_function(
            "want => JSON.stringify([...document.querySelectorAll('li[data-room]')]"
            ".map(e => e.dataset.room).sort()) === JSON.stringify(want)", arg=want, timeout=timeout)
    except Exception as e:
        raise AssertionError(f"listed {sorted(listed(page))}, not {want}") from e


def open_room(name: str, url: str) -> tuple[WsPlayer, dict]:
    p = WsPlayer(url, name)
    return p, p.ok({"t": "create", "config": {"hands": 4, "private": False}})


def tap_target(page: Page, selector: str) -> None:
    b = box(page, selector)
    vw = page.viewport_size["width"]
    assert b["width"] >= 32 and b["height"] >= 32, f"{selector} is {b['width']:.0f}x{b['height']:.0f} px"
    assert b["x"] >= 0 and b["x"] + b["width"] <= vw + 0.5, f"{selector} at {b} leaves the {vw} px screen"


@pytest.mark.parametrize("width,height,locale", [(1280, 800, "en-US"), (360, 640, "zh-CN")])
def test_public_rooms_page_and_search_and_keep_both_through_refreshes(browser, server, artifacts, width, height, locale):
    words = WORDS[locale]
    players: list[WsPlayer] = []
    rooms: dict[str, dict] = {}  # room id -> its create answer
    host: dict[str, WsPlayer] = {}
    try:
        for name in ["Bob", "Bobby"] + [f"Host {i:02}" for i in range(53)]:
            p, r = open_room(name, server.url)
            players.append(p)
            rooms[r["room"]] = r
            host[name] = p
        bobs = [r["room"] for r in rooms.values() if r["info"]["seats"][0]["id"] in (host["Bob"].id, host["Bobby"].id)]
        ctx = browser.new_context(viewport={"width": width, "height": height}, locale=locale, has_touch=width < 700)
        page = ctx.new_page()
        sign_in(page, server.url, "Watcher")
        section = page.locator("[data-testid=public-rooms]")
        pager = section.locator("[data-testid=pager]")

        # -- 55 rooms: 50 on the first page, 5 on the second --------------------------------------------
        expect(page.locator(LISTED)).to_have_count(50, timeout=TIMEOUT)
        expect(pager.locator("[data-testid=page-of]")).to_have_text(words["page"].format(1, 2))
        expect(pager.locator("[data-action=prev-page]")).to_be_disabled()
        first = listed(page)
        pager.locator("[data-action=next-page]").click()
        expect(page.locator(LISTED)).to_have_count(5, timeout=TIMEOUT)
        expect(pager.locator("[data-testid=page-of]")).to_have_text(words["page"].format(2, 2))
        expect(pager.locator("[data-action=next-page]")).to_be_disabled()
        second = listed(page)
        assert set(first) | set(second) == set(rooms) and not set(first) & set(second)
        for sel in ("[data-testid=pager] [data-action=prev-page]", "[data-testid=pager] [data-action=next-page]",
                    "input[name=room_search]"):
            tap_target(page, sel)
        section.screenshot(path=str(artifacts / f"lobby-search-page2-{width}x{height}.png"))

        # -- a room of page 2 closes: the lobby's own refresh shows page 2 without it ---------------------
        gone = next(r for r in second if r not in bobs)
        owner = next(p for p in players if rooms[gone]["info"]["seats"][0]["id"] == p.id)
        owner.ok({"t": "leave"})
        expect_listed(page, [r for r in second if r != gone])
        expect(pager.locator("[data-testid=page-of]")).to_have_text(words["page"].format(2, 2))

        # -- four more close: 50 rooms are one page, so page 2 falls back to page 1 ---------------------
        closing = [r for r in first if r not in bobs][:4]
        for r in closing:
            next(p for p in players if rooms[r]["info"]["seats"][0]["id"] == p.id).ok({"t": "leave"})
        left = [r for r in rooms if r != gone and r not in closing]
        expect_listed(page, left)
        expect(pager).to_have_count(0)

        # -- searching as one types: Bob's and Bobby's rooms; the search stays through refreshes ----------
        search = page.locator("input[name=room_search]")
        search.press_sequentially("bob", delay=60)
        expect_listed(page, bobs, timeout=TIMEOUT)
        tap_target(page, "[data-action=clear-search]")
        p, bobo = open_room("Bobo", server.url)  # a new room whose player matches
        players.append(p)
        expect_listed(page, bobs + [bobo["room"]])
        expect(search).to_have_value("bob")
        section.screenshot(path=str(artifacts / f"lobby-search-bob-{width}x{height}.png"))

        # -- an invite code (either case, with its dash) finds its room -----------------------------------
        some = left[-1]
        code = rooms[some]["info"]["invite"]
        search.fill(f"{code[:4].lower()}-{code[4:].lower()}")
        expect_listed(page, [some], timeout=TIMEOUT)

        # -- nothing found: said so, with the search --------------------------------------------------------
        search.fill("zzz")
        expect(section.locator("[data-testid=no-match]")).to_have_text(words["none"].format("zzz"), timeout=TIMEOUT)
        expect(section.locator("[data-testid=no-rooms]")).to_have_count(0)
        shot(page, artifacts, f"lobby-search-none-{width}x{height}")

        # -- × clears the search: every room again, from the first page (51 now: two pages) -------------
        section.locator("[data-action=clear-search]").click()
        expect(search).to_have_value("")
        expect(page.locator(LISTED)).to_have_count(50, timeout=TIMEOUT)
        expect(pager.locator("[data-testid=page-of]")).to_have_text(words["page"].format(1, 2))
        ctx.close()
    finally:
        for p in players:
            p.close()


TOURNAMENTS = "[data-testid=tournaments]"


def test_tournaments_page_and_search_by_name(browser, server, artifacts):
    orgs = [WsPlayer(server.url, f"Org {i}") for i in range(10)]  # each sends few frames (a rate per connection)
    org = orgs[0]
    try:
        made = {}
        for i in range(50):  # cancelled ones stay listed for an hour (and no longer count as organised)
            o = orgs[i % len(orgs)]
            r = o.ok({"t": "tournament_create", "config": {"name": f"Spring Cup {i:02}", "hands": 1}})
            o.ok({"t": "tournament_cmd", "tournament": r["tournament"]["id"], "cmd": {"t": "cancel"}})
            made[r["tournament"]["id"]] = f"Spring Cup {i:02}"
        for name in ("Autumn Open", "Autumn Cup", "Winter Cup", "Summer Cup", "Night Cup"):
            r = orgs[-1].ok({"t": "tournament_create", "config": {"name": name, "hands": 1}})
            made[r["tournament"]["id"]] = name
        ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
        page = ctx.new_page()
        sign_in(page, server.url, "Fan")
        section = page.locator(TOURNAMENTS)
        rows = section.locator("li[data-tournament]")

        def ids() -> list[str]:
            return rows.evaluate_all("els => els.map(e => e.dataset.tournament)")

        # With the scheduled event, 56: open ones first, then 44 cancelled (folded) on page 1, 6 on page 2.
        expect(section.locator("[data-testid=page-of]")).to_have_text("Page 1 of 2", timeout=TIMEOUT)
        expect(rows).to_have_count(50)
        first = ids()
        expect(section.locator("[data-testid=over-events] summary")).to_contain_text("(44)")
        section.locator("[data-action=next-page]").click()
        expect(section.locator("[data-testid=page-of]")).to_have_text("Page 2 of 2", timeout=TIMEOUT)
        expect(rows).to_have_count(6)
        second = ids()
        assert set(made) <= set(first) | set(second) and not set(first) & set(second)
        # Only cancelled ones here: shown unfolded, and no "no tournaments right now" (they are on page 1).
        expect(section.locator("li[data-tournament]:visible")).to_have_count(6)
        assert "No tournaments right now" not in section.inner_text()
        section.screenshot(path=str(artifacts / "lobby-search-tournaments-page2-1280x800.png"))

        search = page.locator("input[name=tournament_search]")
        search.press_sequentially("autumn", delay=60)
        autumn = sorted(k for k, v in made.items() if v.startswith("Autumn"))
        page.wait_for_function(
            "want => JSON.stringify([...document.querySelectorAll('[data-testid=tournaments] li[data-tournament]')]"
            ".map(e => e.dataset.tournament).sort()) === JSON.stringify(want)", arg=autumn, timeout=TIMEOUT)
        expect(section.locator("[data-testid=pager]")).to_have_count(0)
        # A new one with the name: the lobby's own refresh finds it under the same search.
        fair = org.ok({"t": "tournament_create", "config": {"name": "Autumn Fair", "hands": 1}})["tournament"]["id"]
        expect(section.locator(f"li[data-tournament='{fair}']")).to_be_visible(timeout=REFRESH)
        expect(rows).to_have_count(3)
        expect(search).to_have_value("autumn")
        search.fill("nothing like it")
        expect(section.locator("[data-testid=no-match]")).to_have_text("No tournaments match “nothing like it”",
                                                                       timeout=TIMEOUT)
        section.locator("[data-action=clear-search]").click()
        expect(section.locator("[data-testid=page-of]")).to_have_text("Page 1 of 2", timeout=TIMEOUT)
        ctx.close()
    finally:
        for o in orgs:
            o.close()
