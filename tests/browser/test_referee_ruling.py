"""The referee's panel in the browser: an account named referee accepts the role from the tournament
page, and rules a false win 有意诈和 (R98 第十四条6) from the panel, next to the hand as evidence."""

from __future__ import annotations

import time

from playwright.sync_api import expect

from game.tiles import parse_tiles
from game.wall import arrange_wall
from tests.browser.helpers import TIMEOUT, shot, sign_in
from tests.browser.test_tournament import WsPlayer, player_id
from tests.server.client import prompt


# The dealer's 14 tiles are four from ready (more than one: a false win with them is 有意诈和 to rule on).
FAR_FROM_READY = "1m3m6m8m2p4p7p9p1s3s6s8sEW"
OTHERS = ("19m19p5s5pESWCFP7s", "28m28p6s6p8sESWCFP", "37m37p4p5s7p9sESWCF")


def test_the_named_referee_accepts_and_rules_an_intentional_false_win(browser, server, fast, scripted_wall, artifacts):
    scripted_wall(arrange_wall([parse_tiles(FAR_FROM_READY)] + [parse_tiles(h) for h in OTHERS]))
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    ref = ctx.new_page()
    players: list[WsPlayer] = []
    try:
        sign_in(ref, server.url, "Judge")
        judge = player_id(ref)
        org = WsPlayer(server.url, "Org")
        players.append(org)
        r = org.ok({"t": "tournament_create", "config": {"name": "Training cup", "hands": 1,
                                                           "false_win_penalty": True, "referee": judge}})
        tid = r["tournament"]["id"]
        ref.evaluate(f"() => {{ location.hash = 'tournament={tid}'; }}")
        # named, not yet referee: the page offers to accept, and shows no panel until then
        accept = ref.locator("[data-action=accept-referee]")
        expect(accept).to_be_visible(timeout=TIMEOUT)
        expect(ref.locator("[data-testid=referee-panel]")).to_have_count(0)
        accept.click()
        expect(ref.locator("[data-testid=referee-panel]")).to_be_visible(timeout=TIMEOUT)
        expect(accept).to_have_count(0)

        for name in ("Cai", "Dora", "Eve", "Fay"):
            p = WsPlayer(server.url, name)
            players.append(p)
            p.ok({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}})
            p.ok({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "checkin"}})
        org.ok({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "start"}})
        # The dealer declares 和 on the first turn (a training table offers it after every draw).
        dealer, seq = None, None
        end = time.monotonic() + 15
        while dealer is None and time.monotonic() < end:
            for p in players[1:]:
                with p.lock:
                    asked = [prompt(m) for m in p.seen if prompt(m) is not None]
                if asked and {"a": "win"} in asked[-1][0]:
                    dealer, seq = p, asked[-1][1]
            time.sleep(0.05)
        assert dealer is not None, "nobody was asked to act first"
        dealer.ok({"t": "act", "action": {"a": "win", "seq": seq}})
        note = dealer.wait_for(lambda m: m.get("event") == "sanction" and m["sanction"]["kind"] == "false_win",
                               "the false win record")
        evidence = note["sanction"]["evidence"]
        assert evidence is not None and len(evidence["tiles"]) == 13
        row = ref.locator("[data-testid=sanction-list] li[data-kind=false_win]")
        expect(row.locator("[data-testid=evidence]")).to_be_visible(timeout=TIMEOUT)
        expect(row.locator("[data-testid=evidence]")).to_contain_text(f"{evidence['from_ready']} from ready")
        rule = row.locator("[data-action=rule-intentional]")
        assert evidence["from_ready"] >= 2, evidence  # the scripted deal: never skipped for a lucky hand
        shot(ref, artifacts, "t-referee-false-win-evidence")
        rule.click()
        ruling = ref.locator("[data-testid=sanction-list] li[data-kind=suspend]")
        expect(ruling).to_be_visible(timeout=TIMEOUT)
        expect(ruling).to_contain_text("有意诈和")
        expect(rule).to_have_count(0, timeout=TIMEOUT)  # the player is suspended: nothing more to rule
        dealer.wait_for(lambda m: m.get("event") == "sanction" and m["sanction"]["kind"] == "suspend",
                        "the 停赛 reaches the player")
    finally:
        for p in players:
            p.close()
        ctx.close()
