"""Make docs/table.png, the README's picture of the table (not a test; run it by hand):

    .venv/bin/python -m tests.browser.readme_screenshot [--phone]

A 国标馆 room with three bots, a dozen turns played by clicking, then a screenshot. Needs the built
client, /usr/bin/chromium and a CJK font for the Chinese text (fonts-noto-cjk).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import server.app as server_app
from playwright.sync_api import sync_playwright
from tests.browser.conftest import ARTIFACTS, CHROMIUM, FAST, ROOT, ServerThread
from tests.browser.helpers import add_bots, create_room, sign_in, step


def main() -> None:
    phone = "--phone" in sys.argv
    real = server_app.RoomConfig

    class Fast:
        def __call__(self, **kw):
            return real(**{**FAST, **kw})

        @staticmethod
        def from_dict(d):
            return real.from_dict({**FAST, "bot_delay": 0.3, **d})

    server_app.RoomConfig = Fast()
    with tempfile.TemporaryDirectory() as tmp:
        srv = ServerThread(str(Path(tmp) / "shot.db")).start()
        try:
            with sync_playwright() as p:
                b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
                size = {"width": 360, "height": 740} if phone else {"width": 1100, "height": 780}
                page = b.new_page(viewport=size, locale="zh-CN", device_scale_factor=2 if phone else 1)
                sign_in(page, srv.url, "小明")
                create_room(page, "guobiao", hands=4)
                add_bots(page, 3)
                page.click("[data-action=start]")
                # Play until our pond holds eight tiles and it is our turn again (continue past hands
                # that end early).
                end = time.monotonic() + 300
                while time.monotonic() < end:
                    result = page.locator("[data-testid=hand-result] [data-action=continue]")
                    if result.count():
                        result.click()
                        continue
                    mine = page.locator(".seat-panel.bottom [data-testid=pond] .tile").count()
                    if mine >= 8 and page.locator("[data-testid=your-turn]").count():
                        break
                    step(page)
                    page.wait_for_timeout(80)
                page.wait_for_timeout(300)
                out = ARTIFACTS / "phone-table.png" if phone else ROOT / "docs" / "table.png"
                out.parent.mkdir(exist_ok=True)
                page.screenshot(path=str(out))
                print(out, out.stat().st_size, "bytes")
                b.close()
        finally:
            srv.stop()


if __name__ == "__main__":
    main()
