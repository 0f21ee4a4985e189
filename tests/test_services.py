"""The private PostgreSQL and Redis servers the storage and cluster tests run on (tests/conftest.py)."""

import os
import subprocess
import sys
from pathlib import Path

import asyncpg
import redis

ROOT = Path(__file__).resolve().parents[1]


async def test_postgres_fixture_is_a_private_server(postgres, pg_url):
    con = await asyncpg.connect(pg_url)
    try:
        assert await con.fetchval("SELECT 1 + 1") == 2
        assert (await con.fetchval("SHOW data_directory")).startswith(str(postgres.folder))
        assert await con.fetchval("SHOW port") == str(postgres.port)
        assert await con.fetchval("SHOW lc_collate") == "C"
        await con.execute("CREATE TABLE t (x int)")  # the database is the test's own
    finally:
        await con.close()
    assert postgres.proc.poll() is None


def test_redis_fixture_answers_a_client(redis_server):
    r = redis.Redis.from_url(redis_server.url)
    try:
        assert r.ping()
        r.set("guobiao:k", "v", ex=60)
        assert r.get("guobiao:k") == b"v"
        assert r.config_get("save")["save"] == ""  # nothing written to disk
        assert int(r.config_get("port")["port"]) == redis_server.port
    finally:
        r.close()
    assert redis_server.socket.exists()


async def test_redis_url_is_empty_for_each_test_and_takes_an_asyncio_client(redis_url):
    import redis.asyncio

    r = redis.asyncio.Redis.from_url(redis_url)
    try:
        assert await r.dbsize() == 0  # test_redis_fixture_answers_a_client's key is gone
        await r.set("guobiao:async", "1")
        async with r.pubsub() as ps:  # what the cluster's nodes will talk over
            await ps.subscribe("guobiao:ch")
            await ps.get_message(timeout=1.0)  # the subscription's confirmation
            assert await r.publish("guobiao:ch", "hello") == 1
            m = await ps.get_message(ignore_subscribe_messages=True, timeout=2.0)
            assert m["data"] == b"hello"
    finally:
        await r.aclose()


def _run_without(tmp_path: Path, var: str, test: str, ci: bool) -> subprocess.CompletedProcess:
    env = {**os.environ, var: str(tmp_path / "absent"), "CI": "true" if ci else ""}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"tests/test_services.py::{test}"],
                          cwd=ROOT, env=env, capture_output=True, text=True)


def test_without_the_servers_tests_skip_locally_and_fail_under_ci(tmp_path):
    for var, test in (("GUOBIAO_PG_BIN", "test_postgres_fixture_is_a_private_server"),
                      ("GUOBIAO_REDIS_SERVER", "test_redis_fixture_answers_a_client")):
        local = _run_without(tmp_path, var, test, ci=False)
        assert local.returncode == 0 and "1 skipped" in local.stdout, local.stdout
        ci = _run_without(tmp_path, var, test, ci=True)
        assert ci.returncode == 1 and "CI=true" in ci.stdout, ci.stdout
