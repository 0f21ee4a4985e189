"""A duplicate (复式) tournament in the browser: the referee creates it from the lobby with the
duplicate box ticked, eight players over raw websockets register, check in and play both tables with
random legal moves; once the session is over the referee's panel and the public page show per hand
every table's holder of each seat, the walls' seed checks against the commitment (in the browser), and
a holder's replay link opens that table's match."""

from __future__ import annotations

import json
import random
import time

from playwright.sync_api import expect

from tests.browser.helpers import TIMEOUT, shot, sign_in
from tests.browser.test_tournament import WsPlayer, tournament_id

HANDS = 2


class AutoPlayer(WsPlayer):
    """A websocket player that answers every prompt at once with a random legal action (a win first)."""

    def __init__(self, url: str, name: str, seed: int):
        self.rng = random.Random(seed)
        self.act_id = 100_000
        self.last = 0.0
        super().__init__(url, name)

    def _read(self) -> None:
        try:
            for frame in self.ws:
                msg = json.loads(frame)
                with self.lock:
                    self.seen.append(msg)
                    box = self.replies.get(msg.get("re")) if "re" in msg else None
                if box is not None:
                    box.put(msg)
                self._answer(msg)
        except Exception as e:  # closed at the end of the test
            with self.lock:
                self.seen.append({"t": "_reader_stopped", "error": repr(e)})

    def _answer(self, msg: dict) -> None:
        legal, seq = None, None
        if msg.get("t") == "game" and msg.get("legal"):
            legal, seq = msg["legal"], msg["seq"]
        elif msg.get("t") == "snapshot" and (msg.get("game") or {}).get("legal"):
            legal, seq = msg["game"]["legal"], msg["game"]["match"]["seq"]
        if legal is None:
            return
        action = next((a for a in legal if a["a"] == "win"), None) or legal[self.rng.randrange(len(legal))]
        time.sleep(max(0.0, self.last + 0.11 - time.monotonic()))  # under the 10 frames a second allowed
        self.last = time.monotonic()
        self.act_id += 1
        self.ws.send(json.dumps({"t": "act", "action": {**action, "seq": seq}, "id": self.act_id}))


def test_duplicate_event_shows_each_hand_at_every_table_with_replays(browser, server, fast, artifacts):
    ref_ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    pub_ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    ref, pub = ref_ctx.new_page(), pub_ctx.new_page()
    players: list[AutoPlayer] = []
    try:
        sign_in(ref, server.url, "裁判长")
        ref.locator("[data-testid=create-tournament-fold] summary").click()
        form = ref.locator("[data-testid=create-tournament]")
        form.locator("input[name=t_name]").fill("复式邀请赛")
        form.locator("input[name=t_sessions]").fill("1")
        form.locator("input[name=t_hands]").fill(str(HANDS))
        form.locator("select[name=t_seating]").select_option("random")
        form.locator("input[name=t_duplicate]").check()
        form.locator("input[name=t_scheduled]").uncheck()
        form.locator("[data-action=create-tournament]").click()
        tid = tournament_id(ref)
        expect(ref.locator("[data-testid=t-duplicate]")).to_be_visible(timeout=TIMEOUT)

        for i in range(8):
            p = AutoPlayer(server.url, f"Dup{i}", seed=i)
            players.append(p)
            p.ok({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}})
            p.ok({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "checkin"}})
        expect(ref.locator(".players .plist li")).to_have_count(8, timeout=TIMEOUT)
        ref.click("[data-action=start-session]")
        commitment = ref.locator("[data-testid=ref-dup-deals] [data-testid=dup-commitment]")
        expect(commitment).to_be_visible(timeout=TIMEOUT)
        before = commitment.inner_text()

        # Both tables play out; then the hands appear, each with both tables' holders of each seat.
        panel = ref.locator("[data-testid=ref-dup-deals]")
        expect(panel.locator("[data-testid=dup-deal]")).to_have_count(HANDS, timeout=180_000)
        expect(panel.locator("[data-testid=dup-verified]")).to_be_visible(timeout=TIMEOUT)
        assert commitment.inner_text() == before
        first = panel.locator("[data-testid=dup-deal]").first
        expect(first.locator("tbody tr")).to_have_count(4)
        expect(first.locator("td a[data-replay]")).to_have_count(8)
        replays = {a.get_attribute("data-replay") for a in first.locator("td a[data-replay]").all()}
        assert len(replays) == 2, replays  # one match per table
        # Each seat's two holders: slot s at table 1 holds what slot s + 1 holds at table 2.
        for row in first.locator("tbody tr").all():
            a, b = (int(x.get_attribute("data-slot")) for x in row.locator("[data-testid=dup-slot]").all())
            assert b == (a + 1) % 4, (a, b)
        expect(first.locator("[data-testid=dup-slot]").first).to_contain_text("桌内第")
        # An appeal: −10 off one player's first hand. Half of it shows against the other table's holder.
        victim = players[0]
        mine = first.locator(f"td[data-player={victim.id}] [data-testid=dup-diff]")
        base = float(mine.inner_text())
        sf = ref.locator("[data-testid=sanction-form]")
        sf.locator("select[name=s_kind]").select_option("points")
        sf.locator("select[name=s_player]").select_option(victim.id)
        sf.locator("select[name=s_points]").select_option("10")
        sf.locator("select[name=s_table]").select_option(index=1)
        sf.locator("input[name=s_hand]").fill("1")
        sf.locator("input[name=s_reason]").fill("appeal: slow play")
        sf.locator("[data-action=issue-sanction]").click()
        expect(mine).to_have_text(f"{base - 5:+.2f}".replace("+0.00", "0.00"), timeout=TIMEOUT)
        panel.scroll_into_view_if_needed()
        shot(ref, artifacts, "t-duplicate-referee")

        # The public page: the duplicate standings beside the usual ones, and the same hands.
        sign_in(pub, server.url + f"#tournament={tid}", "Watcher")
        expect(pub.locator("[data-testid=duplicate-standings] tbody tr")).to_have_count(8, timeout=TIMEOUT)
        expect(pub.locator("[data-testid=standings]")).to_be_visible()
        deals = pub.locator("[data-testid=dup-deals] [data-testid=dup-deal]")
        expect(deals).to_have_count(HANDS)
        scores = [float(x) for x in pub.locator("[data-testid=dup-score]").all_inner_texts()]
        assert abs(sum(scores)) < 0.05, scores  # differences from a mean add up to nothing
        pub.locator("[data-testid=duplicate-standings]").scroll_into_view_if_needed()
        shot(pub, artifacts, "t-duplicate-public")
        link = deals.nth(1).locator("td a[data-replay]").first  # hand 2 of the first table
        link.click()
        expect(pub.locator("[data-testid=replay]")).to_be_visible(timeout=TIMEOUT)
        expect(pub.locator("[data-testid=replay]")).to_contain_text(f"Hand 2 of {HANDS}")
    finally:
        for p in players:
            p.close()
        ref_ctx.close()
        pub_ctx.close()
