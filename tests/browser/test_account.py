"""Accounts in the browser: claim the account in one browser, sign in with the password in another
(a second context: no shared storage) and be the same player; the devices list shows both."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.helpers import TIMEOUT, shot, sign_in


def test_claim_in_one_browser_and_sign_in_from_another_as_the_same_player(browser, server, artifacts):
    one = browser.new_context(viewport={"width": 900, "height": 900})
    page = one.new_page()
    sign_in(page, server.url, "Ann")
    page.click("[data-testid=me]")
    expect(page.locator("[data-testid=account]")).to_be_visible(timeout=TIMEOUT)
    player = page.locator("[data-testid=account-id]").inner_text()
    assert player.startswith("p")
    page.fill("[data-testid=claim-form] input[name=login]", "Ann.Lee")
    page.fill("[data-testid=claim-form] input[name=password]", "correct horse battery")
    page.click("[data-testid=claim-form] button[type=submit]")
    expect(page.locator("[data-testid=account-login]")).to_contain_text("ann.lee", timeout=TIMEOUT)
    expect(page.locator("[data-testid=password-form]")).to_be_visible()
    # The new form starts empty (not the claim form's fields reused, password shown in them).
    assert page.input_value("[data-testid=password-form] input[name=current]") == ""
    assert page.input_value("[data-testid=password-form] input[name=new]") == ""
    shot(page, artifacts, "account-claimed")

    # Another browser: nothing stored; the first screen's sign-in form with the login and password.
    two = browser.new_context(viewport={"width": 900, "height": 900})
    other = two.new_page()
    other.goto(server.url)
    other.fill("form.login-form input[name=login]", "ANN.LEE")
    other.fill("form.login-form input[name=password]", "correct horse battery")
    shot(other, artifacts, "account-sign-in-form")
    other.click("form.login-form button[type=submit]")
    expect(other.locator("[data-testid=conn]")).to_have_attribute("data-state", "online", timeout=TIMEOUT)
    expect(other.locator("[data-testid=me]")).to_have_text("Ann", timeout=TIMEOUT)
    token = other.evaluate("localStorage.getItem('guobiao.token')")
    assert token and len(token) == 32 and token != page.evaluate("localStorage.getItem('guobiao.token')")
    other.click("[data-testid=me]")
    expect(other.locator("[data-testid=account-id]")).to_have_text(player, timeout=TIMEOUT)
    expect(other.locator("[data-testid=account-name]")).to_have_text("Ann")
    sessions = other.locator("[data-testid=sessions] li")
    expect(sessions).to_have_count(2, timeout=TIMEOUT)
    expect(other.locator("[data-testid=sessions] .tag")).to_have_count(1)  # this device
    other.check("[data-testid=hide-history]")
    expect(other.locator("[data-testid=hide-history]")).to_be_checked(timeout=TIMEOUT)
    shot(other, artifacts, "account-second-browser")
    # A reload signs in again with this browser's own token: still the same player.
    other.reload()
    expect(other.locator("[data-testid=account-id]")).to_have_text(player, timeout=TIMEOUT)
    expect(other.locator("[data-testid=hide-history]")).to_be_checked(timeout=TIMEOUT)
    # The first browser's session is signed out from here: one device left.
    other.click("[data-testid=sessions] [data-action=revoke]")
    expect(sessions).to_have_count(1, timeout=TIMEOUT)
    # The revoked browser does not come back as a new guest: it asks for the password, login filled in.
    page.reload()
    page.wait_for_timeout(1500)
    shot(page, artifacts, "account-revoked")
    expect(page.locator("form.login-form input[name=login]")).to_have_value("ann.lee", timeout=TIMEOUT)
    expect(page.locator("[data-testid=me]")).to_have_count(0)

    # Deleting asks for a confirmation (and the password); then this browser is back at the first screen.
    other.click("[data-action=delete-account]")
    other.fill("[data-testid=delete-form] input[name=password]", "correct horse battery")
    shot(other, artifacts, "account-delete-confirm")
    other.click("[data-testid=delete-form] button[type=submit]")
    expect(other.locator("form.name-form")).to_be_visible(timeout=TIMEOUT)
    assert other.evaluate("localStorage.getItem('guobiao.token')") is None
    status, body = server.call(server.app.api(f"/api/players/{player}"))
    assert status == 200 and body["name"] == "deleted player" and body["deleted"]
    one.close()
    two.close()
