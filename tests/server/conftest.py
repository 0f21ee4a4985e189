import logging
import random

import pytest

from rooms.bot_random import RandomBot
from server.app import App, Limits, Settings
from server.quotas import Quotas
from server.store import open_store
from tests.server.client import Client

FAST = {"hands": 4, "claim_min": 0, "bot_delay": 0, "private": True}


def fast_settings(**limits) -> Settings:
    rng = random.Random(7)
    bots = {"fan": RandomBot(rng, take_wins=True).choose, "random": RandomBot(rng, take_wins=True).choose}
    lim = Limits(**{"rate": 1000.0, "burst": 1000.0, **limits})
    return Settings(limits=lim, quick_config={"hands": 4, "claim_min": 0, "bot_delay": 0}, quick_wait=0.0,
                    bot_policies=bots, table_config={"claim_min": 0, "bot_delay": 0}, series=[],
                    # FAST rooms (zero delays), made and replayed as fast as the tests go
                    quotas=Quotas(timer_minimums={}, creates=(1e3, 1e3), rematches=(1e3, 1e3)))


class Running:
    def __init__(self, app: App, port: int, db: str):
        self.app, self.port, self.db = app, port, db
        self.url = f"ws://127.0.0.1:{port}/ws"
        self.clients: list[Client] = []

    async def client(self, encoding: str = "msgpack", name: str | None = None) -> Client:
        c = await Client.open(self.url, encoding)
        self.clients.append(c)
        if name is not None:
            await c.guest(name)
        return c


async def start(db: str, **limits) -> Running:
    store = await open_store(db)
    app = App(store, fast_settings(**limits))
    port = await app.start("127.0.0.1", 0)
    return Running(app, port, db)


async def stop(running: Running) -> None:
    for c in running.clients:
        await c.ws.close()
    await running.app.stop()


@pytest.fixture
async def server(tmp_path):
    running = await start(str(tmp_path / "g.db"))
    yield running
    await stop(running)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request, tmp_path) -> str:
    """What ``--db`` is given, for each backend: a SQLite file, and a new database on the test run's
    PostgreSQL (skipped without PostgreSQL; failing under CI=true)."""
    if request.param == "sqlite":
        return str(tmp_path / "g.db")
    return request.getfixturevalue("pg_url")


@pytest.fixture
async def store(db_url):
    """A store on each backend (the storage tests run on both)."""
    st = await open_store(db_url)
    yield st
    await st.close()


@pytest.fixture(autouse=True)
def no_errors_logged(caplog):
    """A server that logs an ERROR (a bug caught in a room or a handler) fails the test."""
    caplog.set_level(logging.WARNING)
    yield
    errors = [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


def pytest_collection_modifyitems(config, items):
    """Run the browser tests last: their session-wide sync Playwright keeps an event loop running on
    the main thread, and pytest-asyncio cannot start these tests' loops while it does."""
    items.sort(key=lambda item: "tests/browser/" in item.nodeid.replace("\\", "/"))
