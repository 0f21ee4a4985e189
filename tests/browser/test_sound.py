"""Table sounds: a discard, a claim, a win and the start of your turn each play a cue made with the Web
Audio API; the table's mute switch silences them and is remembered; automated browsers start muted.

The wall is scripted so each kind happens in the first hand: we deal and throw 北 (nobody wants it),
South draws 西 and throws it, we pung it, then throw 2p, on which West wins (一气通贯)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from game.tiles import parse_tiles
from game.wall import arrange_wall
from tests.browser.helpers import TIMEOUT, add_bots, assert_inside_viewport, create_room, overlap, shot, sign_in

OURS = "WWN2p55m66s77s88p99p"
SOUTH = "123m456m789m123p5p"  # ready on 5p: throws the 西 it draws
WEST = "123s456s789s11p34p"  # waits on 2p or 5p
NORTH = "19m19p19sESCFP55s"  # nothing to claim

# Counts the oscillators the page starts: proof that a cue reached the Web Audio API, not only a counter.
HOOK = """(() => {
  window.__oscillators = 0;
  const real = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () { window.__oscillators++; return real.call(this); };
})()"""


def _played(page: Page) -> dict:
    return page.evaluate("() => ({ ...window.guobiao.sound.played, oscillators: window.__oscillators })")


def _throw(page: Page, tile: str) -> None:
    """Choose the tile (a click raises it; the drawn tile is chosen already), then throw it."""
    t = page.locator(f"[data-testid=hand] button.tile[data-tile='{tile}']").first
    if "selected" not in (t.get_attribute("class") or ""):
        t.click()
    page.locator(f"[data-testid=hand] button.tile.selected[data-tile='{tile}']").click()


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_sound_cues_for_discard_claim_win_and_turn_and_mute_stops_them(
        browser, server, fast, scripted_wall, artifacts, width, height):
    scripted_wall(arrange_wall([parse_tiles(h) for h in (OURS, SOUTH, WEST, NORTH)], draws=parse_tiles("W")))
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    ctx.add_init_script(HOOK)
    page = ctx.new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}") if m.type in ("warning", "error") else None)
    sign_in(page, server.url, "Ears")
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    expect(page.locator("[data-testid=your-turn]")).to_be_visible(timeout=TIMEOUT)

    # Automated browsers start muted: our first turn made no sound.
    toggle = page.locator("[data-testid=sound-toggle]")
    expect(toggle).to_have_attribute("data-on", "false")
    assert _played(page) == {"discard": 0, "claim": 0, "win": 0, "turn": 0, "oscillators": 0}
    b = assert_inside_viewport(page, "[data-testid=sound-toggle]")
    assert b["width"] >= 32 and b["height"] >= 32, f"the mute switch is a small target: {b}"
    for other in ("[data-testid=auto-win-toggle]", "[data-action=auto]", "[data-action=leave-table]"):
        assert overlap(b, page.locator(other).first.bounding_box()) == 0, f"the mute switch covers {other}"

    toggle.click()
    expect(toggle).to_have_attribute("data-on", "true")
    assert page.evaluate("() => localStorage.getItem('guobiao.sound')") == "on"

    _throw(page, "N")
    claim = page.locator("[data-testid=claim-prompt] [data-action=pung]")
    expect(claim).to_be_visible(timeout=TIMEOUT)
    claim.click()
    expect(page.locator("[data-testid=your-turn]")).to_be_visible(timeout=TIMEOUT)
    _throw(page, "2p")
    expect(page.locator("[data-testid=hand-result]")).to_be_visible(timeout=TIMEOUT)
    shot(page, artifacts, f"sound-on-{width}x{height}")
    played = _played(page)
    # Our 北, South's 西 and our 2p; our pung; West's win; our turn after the pung.
    assert played["discard"] == 3, played
    assert played["claim"] == 1, played
    assert played["win"] == 1, played
    assert played["turn"] == 1, played
    assert played["oscillators"] >= 6, played

    # Muted: the next hand's discards and turns are silent, and the switch stays off after a reload.
    page.locator("[data-testid=hand-result] [data-action=continue]").click()
    expect(page.locator("[data-testid=hand-result]")).to_have_count(0, timeout=TIMEOUT)
    toggle.click()
    expect(toggle).to_have_attribute("data-on", "false")
    before = _played(page)
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=pond]')].reduce((n, p) => n + p.children.length, 0) >= 2",
        timeout=TIMEOUT)
    page.wait_for_timeout(300)
    assert _played(page) == before
    shot(page, artifacts, f"sound-muted-{width}x{height}")
    page.reload()
    expect(page.locator("[data-testid=sound-toggle]")).to_have_attribute("data-on", "false", timeout=TIMEOUT)
    assert page.evaluate("() => localStorage.getItem('guobiao.sound')") == "off"
    # No AudioContext is started before a person touches the page, so the console stays clean.
    assert not [line for line in console if "AudioContext" in line], console
    ctx.close()
