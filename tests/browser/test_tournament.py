"""Tournaments in the browser: the referee creates one from the lobby, players register and check in
(one in a phone-sized browser, three over a raw websocket), the organiser starts the session, the
player is taken to the table, the referee gives a −10 penalty and a public notice (通报) from the
referee's panel, the player sees the penalty under "your sanctions" and the notice as a banner, and the
referee cancels the penalty with a reason (it stays listed, struck through)."""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import time

from playwright.sync_api import Page, expect

from tests.browser.helpers import TIMEOUT, shot, sign_in, to_final_ranking


class WsPlayer:
    """A player over a raw websocket (JSON text frames): what it is sent is read on a thread (the server
    cuts off clients that do not read) and kept; ``request`` waits for the answer that echoes its id."""

    def __init__(self, url: str, name: str):
        from websockets.sync.client import connect

        self.stack = contextlib.ExitStack()  # connect() is a context manager (a bare call warns in websockets 17)
        self.ws = self.stack.enter_context(connect(url.replace("http://", "ws://").rstrip("/") + "/ws"))
        self.seen: list[dict] = []
        self.lock = threading.Lock()
        self.replies: dict[int, queue.Queue] = {}
        self.next_id = 1
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        welcome = self.request({"t": "guest", "name": name})
        assert welcome["t"] == "welcome", welcome
        self.id = welcome["player"]

    def _read(self) -> None:
        try:
            for frame in self.ws:
                msg = json.loads(frame)
                with self.lock:
                    self.seen.append(msg)
                    box = self.replies.get(msg.get("re")) if "re" in msg else None
                if box is not None:
                    box.put(msg)
        except Exception as e:  # closed at the end of the test (anything else shows in failure messages)
            with self.lock:
                self.seen.append({"t": "_reader_stopped", "error": repr(e)})

    def request(self, msg: dict, timeout: float = 10) -> dict:
        with self.lock:
            rid = self.next_id
            self.next_id += 1
            box = self.replies[rid] = queue.Queue()
        self.ws.send(json.dumps({**msg, "id": rid}))
        try:
            return box.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no answer to {msg!r} within {timeout} s; got {self.seen[-5:]!r}") from None

    def ok(self, msg: dict) -> dict:
        reply = self.request(msg)
        assert reply["t"] != "error", f"{msg!r} was refused: {reply!r}"
        return reply

    def wait_for(self, pred, what: str, timeout: float = 15) -> dict:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                hit = next((m for m in self.seen if pred(m)), None)
            if hit is not None:
                return hit
            time.sleep(0.05)
        raise AssertionError(f"{what} never arrived; last messages: {self.seen[-5:]!r}")

    def close(self) -> None:
        self.stack.close()


def tournament_id(page: Page) -> str:
    page.wait_for_function("() => location.hash.startsWith('#tournament=')", timeout=TIMEOUT)
    return page.evaluate("() => new URLSearchParams(location.hash.slice(1)).get('tournament')")


def player_id(page: Page) -> str:
    return page.evaluate("() => window.guobiao.state.me.player")


def test_referee_runs_a_tournament_and_sanctions_a_player(browser, server, fast, artifacts):
    ref_ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    bob_ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US", is_mobile=True, has_touch=True)
    ref, bob = ref_ctx.new_page(), bob_ctx.new_page()
    others: list[WsPlayer] = []
    try:
        # -- the referee creates the tournament in the lobby (defaults: first session in 15 min) --------
        sign_in(ref, server.url, "裁判长")
        ref.locator("[data-testid=create-tournament-fold] summary").click()  # folded in the lobby
        form = ref.locator("[data-testid=create-tournament]")
        expect(form).to_be_visible(timeout=TIMEOUT)
        start_default = form.locator("input[name=t_start]").input_value()
        assert start_default, "the first start has a default"
        form.locator("input[name=t_name]").fill("春季公开赛")
        form.locator("input[name=t_sessions]").fill("2")
        form.locator("input[name=t_hands]").fill("4")
        form.locator("select[name=t_seating]").select_option("standing")
        form.locator("[data-action=create-tournament]").click()
        tid = tournament_id(ref)
        page = ref.locator("[data-testid=tournament-page]")
        expect(page.locator("[data-testid=t-name]")).to_have_text("春季公开赛", timeout=TIMEOUT)
        expect(page.locator("[data-testid=t-state]").first).to_have_attribute("data-state", "registering")
        expect(ref.locator("[data-testid=referee-panel]")).to_be_visible()

        # -- players register and check in --------------------------------------------------------------
        sign_in(bob, server.url + f"#tournament={tid}", "Bob")
        expect(bob.locator("[data-testid=t-name]")).to_have_text("春季公开赛", timeout=TIMEOUT)
        expect(bob.locator("[data-testid=referee-panel]")).to_have_count(0)
        bob.fill("input[name=team]", "Red")
        bob.click("[data-action=register]")
        expect(bob.locator("[data-testid=registered]")).to_be_visible(timeout=TIMEOUT)
        bob.click("[data-action=checkin]")
        expect(bob.locator("[data-testid=checked-in]")).to_be_visible(timeout=TIMEOUT)
        bob_id = player_id(bob)

        for name in ("Cai", "Dora", "Eve"):
            p = WsPlayer(server.url, name)
            others.append(p)
            p.ok({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}})
            p.ok({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "checkin"}})
        expect(ref.locator(".players .plist li")).to_have_count(4, timeout=TIMEOUT)
        shot(ref, artifacts, "t-referee-registration")

        # The lobby lists it (the list is asked for on sign-in and every 5 s).
        lobby_ctx = browser.new_context(viewport={"width": 360, "height": 780}, locale="zh-CN", is_mobile=True)
        lobby = lobby_ctx.new_page()
        sign_in(lobby, server.url, "Fay")
        row = lobby.locator(f"[data-tournament={tid}]")
        expect(row).to_be_visible(timeout=TIMEOUT)
        expect(row.locator("[data-testid=signup-open]")).to_be_visible()
        shot(lobby, artifacts, "t-lobby-phone")
        lobby_ctx.close()

        # -- the organiser starts the session now: the table opens and Bob is taken there -------------
        ref.click("[data-action=start-session]")
        expect(bob.locator("[data-testid=table]")).to_be_visible(timeout=TIMEOUT)
        expect(bob.locator("[data-testid=table-strip]")).to_be_visible()
        for p in others:
            p.wait_for(lambda m: m.get("t") == "table" and m.get("tournament") == tid, "the table message")
        ref_table = ref.locator("[data-testid=referee-panel] .ref-tables li").first
        expect(ref_table).to_be_visible(timeout=TIMEOUT)
        expect(ref_table.locator(".tblstate")).to_have_class("tag tblstate playing", timeout=TIMEOUT)

        # -- the referee: −10 for Bob, then a public notice -------------------------------------------
        sf = ref.locator("[data-testid=sanction-form]")
        sf.locator("select[name=s_kind]").select_option("points")
        sf.locator("select[name=s_player]").select_option(bob_id)
        sf.locator("select[name=s_points]").select_option("10")
        sf.locator("input[name=s_reason]").fill("拖延时间 / stalling")
        sf.locator("[data-action=issue-sanction]").click()
        expect(sf.locator("[data-testid=sanction-issued]")).to_be_visible(timeout=TIMEOUT)
        listed = ref.locator("[data-testid=sanction-list] li[data-kind=points]")
        expect(listed).to_have_count(1, timeout=TIMEOUT)
        expect(listed).to_contain_text("−10")

        # Bob, at the table, gets a banner about his own sanction (nobody else does: it is not public).
        mine = bob.locator("[data-testid=notice-banner][data-kind=mine]")
        expect(mine).to_be_visible(timeout=TIMEOUT)
        expect(mine).to_contain_text("stalling")

        sf.locator("select[name=s_kind]").select_option("notice")
        sf.locator("select[name=s_player]").select_option("")
        sf.locator("input[name=s_reason]").fill("请各位选手不要在聊天中讨论牌局 / no table talk in chat")
        sf.locator("[data-action=issue-sanction]").click()
        public = bob.locator("[data-testid=notice-banner][data-kind=public]")
        expect(public).to_be_visible(timeout=TIMEOUT)
        expect(public).to_contain_text("no table talk")
        for p in others:
            p.wait_for(lambda m: m.get("t") == "tournament_event" and m.get("event") == "sanction"
                       and m["sanction"]["kind"] == "notice", "the public notice")
        assert not any(m.get("event") == "sanction" and m["sanction"]["kind"] == "points"
                       for p in others for m in p.seen), "a private sanction went to other players"
        expect(ref.locator("[data-testid=notice-banner][data-kind=public]")).to_be_visible(timeout=TIMEOUT)

        # 停和 for Bob in the hand in play, and 停赛 for Eve: Bob's table shows the 停和 badge on his
        # seat and a substitute (a bot that cannot win) in Eve's.
        sf.locator("select[name=s_kind]").select_option("stop_win")
        sf.locator("select[name=s_player]").select_option(bob_id)
        sf.locator("input[name=s_reason]").fill("错碰 / wrong pung")
        sf.locator("[data-action=issue-sanction]").click()
        expect(bob.locator(".seat-panel.self [data-testid=no-win]")).to_be_visible(timeout=TIMEOUT)
        eve = others[2]
        sf.locator("select[name=s_kind]").select_option("suspend")
        sf.locator("select[name=s_player]").select_option(eve.id)
        sf.locator("input[name=s_reason]").fill("换牌 / cheating")
        sf.locator("input[name=s_public]").check()
        sf.locator("[data-action=issue-sanction]").click()
        sub = bob.locator(".seat-panel [data-testid=substitute]")
        expect(sub).to_be_visible(timeout=TIMEOUT)
        expect(sub.locator("xpath=..").locator("[data-testid=no-win]")).to_be_visible()
        eve.wait_for(lambda m: m.get("t") == "substituted", "Eve's substitute message")
        shot(bob, artifacts, "t-bob-table-notices-phone")

        # -- Bob's tournament page: the sanction under "your sanctions", the notice in the list ---------
        bob.click("[data-action=view-tournament]")
        my = bob.locator("[data-testid=my-sanctions] li[data-kind=points]")
        expect(my).to_be_visible(timeout=TIMEOUT)
        expect(my).to_contain_text("−10")
        expect(my).to_contain_text("stalling")
        expect(bob.locator("[data-testid=notices] li[data-kind=notice]")).to_contain_text("no table talk")
        expect(bob.locator("[data-testid=notices] li[data-kind=suspend]")).to_contain_text("cheating")
        expect(bob.locator("[data-testid=my-sanctions] li[data-kind=stop_win]")).to_be_visible()
        expect(bob.locator("[data-testid=my-table]")).to_be_visible()
        shot(bob, artifacts, "t-bob-tournament-phone")
        # The page shows the standings (nobody has finished a table yet) and the live table.
        expect(bob.locator(".tcard[data-table='1-1'] .tblstate")).to_have_text("Playing")

        # -- the referee cancels the penalty, with a reason: it stays listed, struck through ------------
        listed.locator("[data-action=cancel-sanction]").click()
        listed.locator("input[name=cancel_reason]").fill("申诉成立 / appeal upheld")
        listed.locator("[data-action=confirm-cancel]").click()
        expect(listed.locator("[data-testid=cancel-note]")).to_contain_text("appeal upheld", timeout=TIMEOUT)
        expect(listed).to_have_class("cancelled")
        expect(my.locator("[data-testid=cancel-note]")).to_contain_text("appeal upheld", timeout=TIMEOUT)
        shot(ref, artifacts, "t-referee-panel")
        shot(bob, artifacts, "t-bob-cancelled-phone")

        # -- back to the table from the page; the referee watches it -----------------------------------
        bob.click("[data-action=go-to-table]")
        expect(bob.locator("[data-testid=table]")).to_be_visible(timeout=TIMEOUT)
        ref_table.locator("[data-action=watch-table]").click()
        expect(ref.locator("[data-testid=table]")).to_be_visible(timeout=TIMEOUT)
        expect(ref.locator("[data-testid=table-strip]")).to_contain_text("1-1")
        shot(ref, artifacts, "t-referee-watching")
    finally:
        for p in others:
            p.close()
        ref_ctx.close()
        bob_ctx.close()


def test_a_table_waits_for_a_late_player_who_is_sanctioned_on_arrival(browser, server, fast, artifacts):
    ref_ctx = browser.new_context(viewport={"width": 1024, "height": 800}, locale="en-US")
    bob_ctx = browser.new_context(viewport={"width": 360, "height": 740}, locale="zh-CN", is_mobile=True, has_touch=True)
    ref, bob = ref_ctx.new_page(), bob_ctx.new_page()
    others: list[WsPlayer] = []
    try:
        # An unscheduled tournament: the organiser starts every session.
        sign_in(ref, server.url, "Rita")
        ref.locator("[data-testid=create-tournament-fold] summary").click()
        form = ref.locator("[data-testid=create-tournament]")
        form.locator("input[name=t_name]").fill("Friday league")
        form.locator("input[name=t_sessions]").fill("1")
        form.locator("input[name=t_hands]").fill("1")
        form.locator("input[name=t_scheduled]").uncheck()
        form.locator("[data-action=create-tournament]").click()
        tid = tournament_id(ref)
        expect(ref.locator("[data-testid=t-name]")).to_have_text("Friday league", timeout=TIMEOUT)

        # Bob finds it in the lobby's list and opens it there (after a link to no tournament).
        sign_in(bob, server.url, "Bob")
        bob.evaluate("() => { location.hash = 'tournament=t00000000'; }")
        expect(bob.locator("[data-testid=t-missing]")).to_have_text("没有这个比赛", timeout=TIMEOUT)
        bob.click(".brand")
        bob.locator(f"[data-tournament={tid}] [data-action=open-tournament]").click()
        expect(bob.locator("[data-testid=t-name]")).to_have_text("Friday league", timeout=TIMEOUT)
        bob.click("[data-action=register]")
        bob.click("[data-action=checkin]")
        expect(bob.locator("[data-testid=checked-in]")).to_be_visible(timeout=TIMEOUT)

        for name in ("Cai", "Dora", "Eve"):
            p = WsPlayer(server.url, name)
            others.append(p)
            p.ok({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "register"}})
        cai = others[0]
        for p in others[1:]:
            p.ok({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "checkin"}})
        expect(ref.locator(".players .plist li")).to_have_count(4, timeout=TIMEOUT)

        # The session starts without Cai: the table waits for him; Bob is taken to its waiting room.
        ref.click("[data-action=start-session]")
        waiting = bob.locator(".room-lobby")
        expect(waiting.locator("[data-testid=table-strip]")).to_contain_text("Friday league", timeout=TIMEOUT)
        expect(waiting.locator(".seat")).to_have_count(4)
        expect(waiting.locator(".seat .muted", has_text="未签到")).to_have_count(1)
        expect(bob.locator("[data-action=ready]")).to_have_count(0)  # a table has no ready or start
        expect(ref.locator("[data-testid=referee-panel] .ref-tables .tblstate")).to_have_text("Waiting", timeout=TIMEOUT)
        shot(bob, artifacts, "t-bob-table-waiting-phone")

        # Cai arrives after the start: late, −10 by the system (R98 第十三条(二)1); the table deals.
        cai.ok({"t": "tournament_cmd", "tournament": tid, "cmd": {"t": "checkin"}})
        late = cai.wait_for(lambda m: m.get("t") == "tournament_event" and m.get("event") == "sanction"
                            and m["sanction"]["kind"] == "late", "the late sanction")
        assert late["sanction"]["kind"] == "late" and late["sanction"]["points"] == 10, late
        expect(bob.locator("[data-testid=table]")).to_be_visible(timeout=TIMEOUT)
        row = ref.locator("[data-testid=sanction-list] li[data-kind=late]")
        expect(row).to_contain_text("−10", timeout=TIMEOUT)
        expect(row).to_contain_text("system")
        expect(ref.locator(".tcard[data-table='1-1'] tr[data-seat] .tag.warn", has_text="late −10")).to_have_count(1)
        # Bob does not see Cai's sanction (it is not public).
        expect(bob.locator("[data-testid=notice-banner]")).to_have_count(0)
        shot(ref, artifacts, "t-referee-late-desktop")

        # Everybody hands over to 托管: the one hand is played out, the table and the tournament finish,
        # and the standings show 标准分 (×12 integers shown as 4 / 2 / 1 / 0, ties shared).
        for p in others:
            p.ok({"t": "auto", "on": True})
        bob.click("[data-action=auto]")
        to_final_ranking(bob, timeout=60_000)
        bob.click("[data-action=back-to-tournament]")
        expect(bob.locator("[data-testid=t-state]").first).to_have_attribute("data-state", "finished", timeout=TIMEOUT)
        stds = bob.locator("[data-testid=standings] [data-testid=std]").all_inner_texts()
        assert len(stds) == 4 and all(x != "–" for x in stds), stds
        twelfths = sorted(round(float(x) * 12) for x in stds)
        assert sum(twelfths) <= 84 and twelfths[-1] <= 48, stds  # 4+2+1+0 = 7 = 84/12 at most
        expect(bob.locator(".tcard[data-table='1-1'] .tblstate")).to_have_text("已结束")
        shot(bob, artifacts, "t-bob-finished-phone")
        ref.set_viewport_size({"width": 360, "height": 740})
        expect(ref.locator("[data-testid=sanction-form]")).to_be_visible()
        shot(ref, artifacts, "t-referee-panel-phone")
    finally:
        for p in others:
            p.close()
        ref_ctx.close()
        bob_ctx.close()
