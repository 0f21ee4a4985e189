"""Browser tests: the real server in this process (its own thread and event loop, on 127.0.0.1 port 0)
serving the built client (web_client/dist), driven by Playwright in Debian's headless Chromium.

We never run ``playwright install``: the browser is /usr/bin/chromium (``apt-get install chromium``;
.ci/run does it). Without it the tests are skipped on a developer's machine and FAIL under CI=true, so
CI cannot go green without having run them. Each test saves a screenshot under test-artifacts/.

Test-only hooks, all in this process (no server option is needed):
- ``fast``: rooms get short bot and claim delays (RoomConfig defaults the client does not send);
- ``scripted_wall``: every match deals a given wall (``game.wall.arrange_wall``) instead of a seeded one.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "web_client"
DIST = CLIENT / "dist"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("GUOBIAO_CHROMIUM", "/usr/bin/chromium")  # the override is for checking the CI rule
IN_CI = os.environ.get("CI") == "true"

FAST = {"bot_delay": 0.05, "claim_min": 0.05}


def _missing(what: str) -> None:
    if IN_CI:
        pytest.fail(f"{what} (CI=true: browser tests must run, not skip)", pytrace=False)
    pytest.skip(what)


def _sources_newer_than_dist() -> bool:
    index = DIST / "index.html"
    if not index.is_file():
        return True
    built = index.stat().st_mtime
    watched = [CLIENT / "index.html", CLIENT / "package.json", CLIENT / "package-lock.json", CLIENT / "vite.config.ts"]
    watched += [p for p in (CLIENT / "src").rglob("*") if p.is_file()]
    return any(p.exists() and p.stat().st_mtime > built for p in watched)


@pytest.fixture(scope="session")
def client_build() -> Path:
    """web_client/dist, built now if it is missing or older than its sources (needs npm)."""
    if _sources_newer_than_dist():
        npm = shutil.which("npm")
        if npm is None:
            _missing("web_client/dist is missing or stale and npm is not installed")
        if not (CLIENT / "node_modules").is_dir():
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=CLIENT, check=True)
        subprocess.run([npm, "run", "build"], cwd=CLIENT, check=True)
    return DIST


@pytest.fixture(scope="module")
def browser(client_build):
    # Module scope: Playwright's sync API keeps an event loop of its own on this thread while it runs,
    # so it is stopped before the suite's asyncio tests in other modules run.
    if not os.path.exists(CHROMIUM):
        _missing(f"{CHROMIUM} is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the playwright package is not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


class ServerThread:
    """The Guobiao server on its own event loop in a daemon thread."""

    def __init__(self, db: str):
        self.db = db
        self.loop = asyncio.new_event_loop()
        self.app = None
        self.port = None
        self.thread = threading.Thread(target=self._run, name="guobiao-server", daemon=True)
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._start())
        except BaseException as e:  # pragma: no cover - reported by start()
            self._error = e
            self._ready.set()
            return
        self._ready.set()
        self.loop.run_forever()

    async def _start(self) -> None:
        from server.app import App, Settings
        from server.store import Store

        store = await Store.open(self.db)
        self.app = App(store, Settings())
        self.port = await self.app.start("127.0.0.1", 0)

    def start(self) -> "ServerThread":
        self.thread.start()
        self._ready.wait(30)
        if self._error is not None:
            raise self._error
        assert self.port, "the server did not start"
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def call(self, coro, timeout: float = 10):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        if self.app is not None:
            try:
                self.call(self.app.stop(), timeout=20)
            except Exception:  # pragma: no cover - best effort at teardown
                pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.fixture
def fast(monkeypatch):
    """Rooms created by the client get fast bots and short claim windows (the form does not send them)."""
    import server.events as server_events
    import server.lobby as server_lobby  # where a client's create and quick matches make their config

    real = server_lobby.RoomConfig

    class FastConfig:
        def __call__(self, **kw):
            return real(**{**FAST, **kw})

        @staticmethod
        def from_dict(d):
            return real.from_dict({**FAST, **d}) if isinstance(d, dict) else real.from_dict(d)

    monkeypatch.setattr(server_lobby, "RoomConfig", FastConfig())
    monkeypatch.setattr(server_events, "RoomConfig", FastConfig())  # tournament tables
    return FAST


@pytest.fixture
def scripted_wall(monkeypatch):
    """``scripted_wall(wall)``: every match started from now on deals ``wall`` for every hand."""
    import game.match as gm

    real = gm.start_match

    def use(wall):
        def start_match(rules, seed=None, walls=None):
            m, events = real(rules, walls=[wall] * rules.hands)
            m.seed = seed  # the room's seed stays on record (commitment, reveal); the deals are the wall's
            return m, events

        monkeypatch.setattr(gm, "start_match", start_match)

    return use


@pytest.fixture
def server(tmp_path, client_build):
    s = ServerThread(str(tmp_path / "browser.db")).start()
    yield s
    s.stop()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
