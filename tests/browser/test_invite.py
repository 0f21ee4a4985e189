"""Acceptance (b): two browser contexts join one private room by invite link and see each other's discards."""

from __future__ import annotations

import time

from playwright.sync_api import expect

from tests.browser.helpers import TIMEOUT, add_bots, create_room, pond, shot, sign_in, step


def test_two_players_join_by_invite_link_and_see_each_others_discards(browser, server, fast, artifacts):
    alice_ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    bob_ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="zh-CN", is_mobile=True, has_touch=True)
    alice, bob = alice_ctx.new_page(), bob_ctx.new_page()

    sign_in(alice, server.url, "Alice")
    create_room(alice, "guobiao", hands=4)
    link = alice.locator("[data-testid=invite-link]").input_value()
    assert "#join=" in link

    # Bob follows the link: he chooses a name and lands in Alice's room.
    bob.goto(link)
    bob.fill("input[name=name]", "Bob")
    bob.click("form.name-form button[type=submit]")
    expect(bob.locator("[data-testid=invite-code]")).to_have_text(alice.locator("[data-testid=invite-code]").inner_text(), timeout=TIMEOUT)
    expect(alice.locator(".seats li.seat[data-seat='1'] .name")).not_to_have_text("", timeout=TIMEOUT)

    add_bots(alice, 2)
    alice.click("[data-action=ready]")
    bob.click("[data-action=ready]")
    expect(alice.locator("[data-testid=table]")).to_be_visible(timeout=TIMEOUT)
    expect(bob.locator("[data-testid=table]")).to_be_visible(timeout=TIMEOUT)

    # Alice is seat 0 (East, the first dealer), Bob seat 1. Play until both have discarded and each
    # page shows the other's pond as its owner sees it.
    end = time.monotonic() + 120
    while time.monotonic() < end:
        a_own, b_own = pond(alice, 0), pond(bob, 1)
        if a_own and b_own and pond(bob, 0) == a_own and pond(alice, 1) == b_own:
            break
        acted = step(alice) | step(bob)
        alice.wait_for_timeout(40 if acted else 80)
    else:
        raise AssertionError(f"ponds never matched: alice {pond(alice, 0)} / {pond(bob, 0)}, bob {pond(bob, 1)} / {pond(alice, 1)}")
    assert pond(bob, 0) == pond(alice, 0) and pond(alice, 1) == pond(bob, 1)
    shot(alice, artifacts, "b-alice-desktop")
    shot(bob, artifacts, "b-bob-phone")
    alice_ctx.close()
    bob_ctx.close()
