"""Wording a player understands: the time bank is 备用时间 (not 银行), and leaving 托管 reads "Resume play"
(not "Take back", which reads like an undo)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import TIMEOUT, add_bots, assert_inside_viewport, create_room, shot, sign_in


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 640)])
def test_time_bank_is_beiyong_shijian_and_leaving_auto_play_is_resume_play(browser, server, fast, artifacts, width, height):
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="zh-CN")
    page = ctx.new_page()
    sign_in(page, server.url, "Words")
    bank_label = page.locator("label", has=page.locator("input[name=bank]"))
    expect(bank_label).to_contain_text("备用时间")
    create_room(page, "guobiao", hands=4)
    add_bots(page, 3)
    page.click("[data-action=start]")
    # We deal first: our own countdown shows the bank beside the free time.
    bank = page.locator("[data-testid=hand-bar] .bank")
    expect(bank).to_be_visible(timeout=TIMEOUT)
    expect(bank).to_contain_text("备用时间")
    assert "银行" not in page.locator("body").inner_text()
    assert_inside_viewport(page, "[data-testid=hand-bar] .bank")
    shot(page, artifacts, f"wording-zh-bank-{width}x{height}")
    # In English, the switch that ends 托管 says "Resume play".
    page.click("[data-testid=lang]")
    auto = page.locator("[data-testid=actions] [data-action=auto]")
    expect(auto).to_have_text("Auto-play")
    assert_inside_viewport(page, "[data-testid=actions] [data-action=auto]")
    auto.click()
    expect(auto).to_have_text("Resume play", timeout=TIMEOUT)
    assert "Take back" not in page.locator("body").inner_text()
    shot(page, artifacts, f"wording-en-resume-play-{width}x{height}")
    ctx.close()
