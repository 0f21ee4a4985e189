"""Fixtures shared by every test folder: private PostgreSQL and Redis servers (tests/support/services.py).

Without the binaries the tests that need them are skipped on a developer's machine and FAIL under
CI=true (.ci/run installs Debian's ``postgresql`` and ``redis-server``), like the browser tests.
"""

from __future__ import annotations

import itertools
import os

import pytest
from hypothesis import HealthCheck, settings

from tests.support import services

# Every property test runs without hypothesis's 200 ms deadline and its "too slow" health check: both
# measure wall-clock time, and a loaded CI machine (several times slower, paused by other processes)
# failed tests that were correct. The tests' own @settings still set how many examples they try.
settings.register_profile("guobiao", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("guobiao")

IN_CI = os.environ.get("CI") == "true"
_databases = itertools.count(1)


def missing(what: str) -> None:
    if IN_CI:
        pytest.fail(f"{what} (CI=true: these tests must run, not skip)", pytrace=False)
    pytest.skip(what)


@pytest.fixture(scope="session")
def postgres():
    """A PostgreSQL server of this test run's own (stopped at the end)."""
    bin_dir = services.pg_bin()
    if bin_dir is None:
        missing("PostgreSQL is not installed (apt-get install postgresql)")
    pg = services.start_postgres(bin_dir)
    yield pg
    pg.stop()


@pytest.fixture
def pg_url(postgres):
    """The URL of a new, empty database on the test run's PostgreSQL, dropped after the test."""
    name = f"t{os.getpid()}_{next(_databases)}"
    postgres.psql(f"CREATE DATABASE {name}")
    yield postgres.url(name)
    postgres.psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def redis_server():
    """A Redis server of this test run's own (no persistence, stopped at the end)."""
    server = services.redis_bin()
    if server is None:
        missing("redis-server is not installed (apt-get install redis-server)")
    r = services.start_redis(server)
    yield r
    r.stop()


@pytest.fixture
def redis_url(redis_server) -> str:
    """The URL of the test run's Redis, emptied for this test."""
    import redis

    r = redis.Redis.from_url(redis_server.url)
    try:
        r.flushall()
    finally:
        r.close()
    return redis_server.url
