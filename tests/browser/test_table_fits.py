"""The table fits the viewport at every size from a 360x640 phone to 1920x1080, late in a hand too: no
page scrolling, the own hand, the action bar and every name label on screen, and a claim prompt that
covers neither the hand nor a name label.

"Late in a hand" is the fullest table the rules allow, set into the page's state (window.guobiao): 24
discards in every pond, four kongs at one seat, three or two sets at the others, flowers."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.helpers import TIMEOUT, add_bots, assert_inside_viewport, create_room, overlap, shot, sign_in

SIZES = [(360, 640), (390, 844), (768, 1024), (1024, 768), (1280, 800), (1280, 900), (1366, 768), (1920, 1080)]

FULL_TABLE = """([claim]) => {
  const app = window.guobiao, s = app.state, g = s.game;
  const kong = (t) => ({ kind: "kong", tile: t, concealed: false, claimed: t, source: 1 });
  const pung = (t) => ({ kind: "pung", tile: t, concealed: false, claimed: t, source: 2 });
  const chow = (t) => ({ kind: "chow", tile: t, concealed: false, claimed: t + 1, source: 3 });
  const players = g.players.map((p, i) => ({
    ...p,
    discards: Array.from({ length: 24 }, (_, k) => [(k * 7 + i * 5) % 34, k % 9 === 4]),
    melds: i === g.seat ? [pung(31), chow(2)] : i % 2 ? [kong(27), kong(28), kong(29), kong(30)] : [chow(9), pung(32), chow(19)],
    flowers: i === g.seat ? [34, 35] : i % 2 ? [36, 37, 38, 39] : [40, 41],
  }));
  const game = { ...g, players };
  if (claim) Object.assign(game, {
    phase: "claim", to_act: true, claim: { kind: "discard", tile: 5, seat: (g.seat + 3) % 4 },
    legal: [{ a: "win" }, { a: "kong" }, { a: "pung" }, { a: "chow", low: 3 }, { a: "chow", low: 4 }, { a: "pass" }],
  });
  app.set({ ...s, game });
}"""


def _no_page_scroll(page: Page) -> None:
    size = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight, innerWidth, innerHeight]")
    assert size[0] <= size[2] and size[1] <= size[3], f"the page scrolls: content {size[0]}x{size[1]} in {size[2]}x{size[3]}"


def _name_labels_visible(page: Page) -> list[dict]:
    boxes = []
    for i in range(4):
        boxes.append(assert_inside_viewport(page, f".seat-panel >> nth={i} >> .badge .pname"))
    return boxes


def test_the_full_table_fits_every_viewport_without_scrolling(browser, server, fast, artifacts):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    page = ctx.new_page()
    sign_in(page, server.url, "Fitter")
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    # We deal first: our turn, 14 tiles, and nobody moves until we discard.
    expect(page.locator("[data-testid=your-turn]")).to_be_visible(timeout=TIMEOUT)
    for claim in (False, True):
        page.evaluate(FULL_TABLE, [claim])
        expect(page.locator("[data-testid=pond]").first.locator(".tile")).to_have_count(24)
        if claim:
            expect(page.locator("[data-testid=claim-prompt]")).to_be_visible()
        for w, h in SIZES:
            page.set_viewport_size({"width": w, "height": h})
            page.wait_for_timeout(60)
            what = f"{'claim' if claim else 'turn'} at {w}x{h}"
            shot(page, artifacts, f"fit-{'claim' if claim else 'turn'}-{w}x{h}")
            _no_page_scroll(page)
            labels = _name_labels_visible(page)
            # Nothing scrolls inside the table either, and no seat covers another.
            inner = page.locator("[data-testid=table]").evaluate(
                "e => [e.scrollWidth, e.scrollHeight, e.clientWidth, e.clientHeight]")
            assert inner[0] <= inner[2] + 1 and inner[1] <= inner[3] + 1, f"{what}: the table overflows: {inner}"
            panels = [page.locator(".seat-panel").nth(i).bounding_box() for i in range(4)]
            for i in range(4):
                for j in range(i + 1, 4):
                    assert overlap(panels[i], panels[j]) < 1, f"{what}: seat panels {i} and {j} overlap"
            assert_inside_viewport(page, "[data-testid=hand] .tile >> nth=0")
            hand_last = assert_inside_viewport(page, "[data-testid=hand] .tile >> nth=-1")
            hand_first = assert_inside_viewport(page, "[data-testid=hand] .tile >> nth=0")
            if claim:
                prompt = assert_inside_viewport(page, "[data-testid=claim-prompt]")
                assert_inside_viewport(page, "[data-testid=claim-prompt] [data-action=pass]")
                for b in labels:
                    assert overlap(prompt, b) == 0, f"{what}: the claim prompt covers a name label"
                assert overlap(prompt, hand_first) == 0 and overlap(prompt, hand_last) == 0, f"{what}: it covers the hand"
            else:
                assert_inside_viewport(page, "[data-testid=actions]")
                assert_inside_viewport(page, "[data-testid=actions] [data-action=auto]")
    ctx.close()
