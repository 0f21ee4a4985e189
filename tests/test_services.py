"""The private PostgreSQL and Redis servers the storage and cluster tests run on (tests/conftest.py)."""

import os
import shutil
import subprocess
import sys
import time
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
            # (generous timeouts: each returns as soon as the message is there)
            assert (await ps.get_message(timeout=10.0))["type"] == "subscribe"  # before the publish
            assert await r.publish("guobiao:ch", "hello") == 1
            m = await ps.get_message(ignore_subscribe_messages=True, timeout=10.0)
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


def test_the_servers_stop_when_the_test_run_is_killed(tmp_path):
    """kill -9 of the test run skips every fixture's teardown: the servers it started stop anyway."""
    from tests.support import services

    if services.redis_bin() is None or services.pg_bin() is None:
        import pytest
        pytest.skip("needs redis-server and PostgreSQL")
    script = ("import sys, time; from tests.support import services as s; "
              "r = s.start_redis(s.redis_bin()); p = s.start_postgres(s.pg_bin()); "
              "print(r.proc.pid, p.proc.pid, r.folder, p.folder, flush=True); time.sleep(600)")
    run = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        line = run.stdout.readline().split()
        pids, folders = [int(x) for x in line[:2]], line[2:]
        assert len(pids) == 2
    finally:
        run.kill()
        run.wait()
        run.stdout.close()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    assert not any(_alive(p) for p in pids)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"  # a zombie has stopped
    except FileNotFoundError:
        return False
