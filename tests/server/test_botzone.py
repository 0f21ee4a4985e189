"""External bots through the server: the reference bot (tests/support/botzone_greedy.py, a subprocess
speaking the Botzone protocol) plays whole matches against built-in bots; broken bots are replaced by
the safe action each time and nothing crashes; the subprocesses end with the room and the server;
``bots.toml`` is checked and a client can only name a registered bot."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from server.app import App
from server.botzone import KEEP_RUNNING, BotConfigError, BotFault, BotProcess, BotSpec, check_isolation, parse_bots
from server.store import Store
from tests.server.client import Client, play
from tests.server.conftest import FAST, Running, fast_settings

ROOT = Path(__file__).resolve().parents[2]
GREEDY = str(ROOT / "tests" / "support" / "botzone_greedy.py")


def _isolation() -> bool:
    try:
        check_isolation({"x": BotSpec("x", ("true",))})
        return True
    except BotConfigError:
        return False


ISOLATED = _isolation()  # bots run without a network (the default) where user namespaces allow it


def spec(mode: str = "ok", answer_time: float = 5.0, start_time: float = 10.0) -> BotSpec:
    return BotSpec(f"greedy-{mode}", (sys.executable, GREEDY, mode), answer_time=answer_time, memory_mb=1024,
                   start_time=start_time, network=not ISOLATED)


async def start_with(tmp_path, *specs: BotSpec) -> Running:
    store = await Store.open(str(tmp_path / "g.db"))
    settings = fast_settings()
    settings.external_bots = {s.name: s for s in specs}
    app = App(store, settings)
    port = await app.start("127.0.0.1", 0)
    return Running(app, port, str(tmp_path / "g.db"))


async def match_with_bot(running: Running, name: str, **config):
    """The host plays randomly, the external bot sits at seat 1, built-in bots at 2 and 3; the match
    is played to its end. Returns the room's task and the final room info."""
    c = await running.client(name="Host")
    snap = await c.request({"t": "create", "config": {**FAST, "type": "wufan", **config}})
    assert (await c.request({"t": "add_bot", "seat": 1, "level": name}))["t"] == "ok"
    for s in (2, 3):
        assert (await c.request({"t": "add_bot", "seat": s, "level": "random"}))["t"] == "ok"
    task = running.app.rooms[snap["room"]]
    assert (await c.request({"t": "ready"}))["t"] == "ok"
    await play(c, random.Random(5), lambda m: m.get("t") == "match_result", timeout=300)
    info = task.room.info()
    return task, info


@pytest.mark.parametrize("flowers", [False, True])
async def test_reference_bot_plays_whole_matches_against_builtin_bots(tmp_path, flowers):
    running = await start_with(tmp_path, spec())
    try:
        task, info = await match_with_bot(running, "greedy-ok", flowers=flowers)
        assert info["seats"][1]["bot"] == "greedy-ok"
        assert info["seats"][1]["faults"] == {}  # every answer was its own
        faults = task.bots.faults[1]
        assert faults["late"] == faults["exited"] == faults["malformed"] == faults["illegal"] == 0
        assert faults["started"] == 4 and faults["restarts"] == 0  # one process per hand, none restarted
        rec = task.room.finished[-1]
        assert len(rec["hands"]) == 4
        assert any(p == 1 for p, _ in rec["actions"])
    finally:
        await running.app.stop()


def own_draws(actions, seat: int) -> int:
    """The seat's discards that followed one of its draws: all of them but those right after its own
    chow or pung (how many pungs a random match gives the bot is chance)."""
    n, claimed = 0, False
    for p, a in actions:
        if p != seat:
            continue
        if a["a"] == "discard":
            n += not claimed
        claimed = a["a"] in ("chow", "pung")
    return n


@pytest.mark.parametrize("mode,kind", [("sleep", "late"), ("garbage", "bad"), ("exit", "bad"),
                                       ("flood", "bad"), ("illegal", "bad")])
async def test_broken_bot_is_replaced_safely_each_time(tmp_path, mode, kind):
    """The bot misbehaves after each of its own draws: each time the safe action (discarding the drawn
    tile) is played for it, counted for the host to see; a dead bot is started again with its history,
    and the match ends normally."""
    running = await start_with(tmp_path, spec(mode, answer_time=0.25 if mode == "sleep" else 1.0,
                                                start_time=1.0 if mode == "sleep" else 5.0))
    try:
        task, info = await match_with_bot(running, f"greedy-{mode}", flowers=(mode == "exit"))
        faults = info["seats"][1]["faults"]
        draws = own_draws(task.room.finished[-1]["actions"], 1)
        # every own turn after a draw went wrong: its discard was the safe one (a discard after the bot's
        # own pung is not a draw's); on a loaded machine a restarted bot may also be late
        assert faults.get(kind, 0) >= 1 and faults.get("late", 0) + faults.get("bad", 0) >= draws > 0, (faults, draws)
        server = task.bots.faults[1]
        if mode in ("exit", "sleep", "flood"):
            # started again in the middle of a hand with its history, and it went on
            assert server["restarts"] >= 1 and server["replayed"] >= 1, (server, faults)
        if mode == "illegal":
            assert server["illegal"] >= 1
    finally:
        await running.app.stop()


async def sleeping_bot(running: Running):
    """A room whose seat 1 is a bot that never answers, started: the room's task and the bot's process."""
    c = await running.client(name="Host")
    snap = await c.request({"t": "create", "config": {**FAST, "type": "wufan"}})
    assert (await c.request({"t": "add_bot", "seat": 0 + 1, "level": "greedy-sleep"}))["t"] == "ok"
    for s in (2, 3):
        assert (await c.request({"t": "add_bot", "seat": s, "level": "random"}))["t"] == "ok"
    task = running.app.rooms[snap["room"]]
    assert (await c.request({"t": "ready"}))["t"] == "ok"
    for _ in range(500):
        seat = task.bots and task.bots.seats.get(1)
        if seat is not None and seat.proc.running:
            break
        await asyncio.sleep(0.02)
    return task, seat.proc.proc


async def test_bot_processes_end_with_the_server(tmp_path):
    running = await start_with(tmp_path, spec("sleep", answer_time=30.0))
    _, proc = await sleeping_bot(running)
    pid = proc.pid
    await running.app.stop()
    await asyncio.wait_for(proc.wait(), 10)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_a_room_that_ends_has_reaped_its_bots_processes(tmp_path):
    """Killed and waited for, their pipes read to the end, before the room's task is over: before, the
    wait was left running, and a loop closed meanwhile (the server's stop at the end of a test) left
    the process's transport open for the garbage collector to warn about in a later test."""
    running = await start_with(tmp_path, spec("sleep", answer_time=30.0))
    try:
        task, proc = await sleeping_bot(running)
        task.task.cancel()  # the room's task ends, as at the server's stop
        await asyncio.gather(task.task, return_exceptions=True)
        assert proc.returncode is not None and proc.stdout.at_eof()
    finally:
        await running.app.stop()


async def test_a_client_cannot_name_a_program(tmp_path):
    running = await start_with(tmp_path, spec())
    try:
        c = await running.client()
        assert (await c.guest("Host"))["bots"] == ["greedy-ok"]  # what add_bot accepts besides fan, random
        await c.request({"t": "create", "config": {**FAST}})
        for level in ("/bin/sh", "greedy", ["python"], "fan; rm -rf /"):
            r = await c.request({"t": "add_bot", "seat": 1, "level": level})
            assert r["t"] == "error" and r["code"] in ("room/bad_command", "protocol/bad_field"), r
    finally:
        await running.app.stop()


def test_bots_toml_is_checked():
    ok = parse_bots({"bot": [{"name": "a-1", "command": ["/bin/true"], "answer_time": 1, "memory_mb": 256}]})
    assert ok["a-1"].command == ("/bin/true",) and ok["a-1"].answer_time == 1.0
    assert ok["a-1"].network is False and ok["a-1"].argv()[-1] == "/bin/true" and ok["a-1"].argv()[0] == "unshare"
    for bad in ({"bot": [{"name": "fan", "command": ["x"]}]}, {"bot": [{"name": "a b", "command": ["x"]}]},
                {"bot": [{"name": "a", "command": "x -y"}]}, {"bot": [{"name": "a", "command": []}]},
                {"bot": [{"name": "a", "command": ["x"], "answer_time": 0}]},
                {"bot": [{"name": "a", "command": ["x"], "memory_mb": True}]},
                {"bot": [{"name": "a", "command": ["x"], "shell": True}]},
                {"bot": [{"name": "a", "command": ["x"], "network": "no"}]},
                {"bot": [{"name": "a", "command": ["x"]}, {"name": "a", "command": ["y"]}]}, {"other": 1}):
        with pytest.raises(BotConfigError):
            parse_bots(bad)


def test_serve_refuses_a_bad_bots_file(tmp_path):
    bad = tmp_path / "bots.toml"
    bad.write_text('[[bot]]\nname = "x"\ncommand = "sh -c evil"\n')
    r = subprocess.run([sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", str(tmp_path / "g.db"),
                        "--bots", str(bad)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--bots" in r.stderr and "command" in r.stderr


async def test_after_a_server_restart_the_bot_goes_on_from_the_history(tmp_path):
    """Stopped mid-match and started again on the same database: the bot's new process gets the hand
    so far and answers on; the match ends without a replaced answer."""
    running = await start_with(tmp_path, spec())
    c = await running.client(name="Host")
    snap = await c.request({"t": "create", "config": {**FAST, "type": "wufan"}})
    assert (await c.request({"t": "add_bot", "seat": 1, "level": "greedy-ok"}))["t"] == "ok"
    for s in (2, 3):
        assert (await c.request({"t": "add_bot", "seat": s, "level": "random"}))["t"] == "ok"
    assert (await c.request({"t": "ready"}))["t"] == "ok"
    turns = []

    def mid_hand(m):
        if m.get("t") == "game":
            turns.extend(e for e in m.get("events", ()) if e["t"] == "discard")
        return len(turns) >= 30  # in the first hand's play (or later): the bot has answered already
    await play(c, random.Random(2), mid_hand, timeout=120)
    token = c.token
    task = running.app.rooms[snap["room"]]
    before = len([1 for p, _ in task.room.actions if p == 1])
    await c.close()
    await running.app.stop()
    running = await start_with(tmp_path, spec())
    try:
        c = await running.client()
        c.strict = False
        assert (await c.request({"t": "resume", "token": token}))["t"] == "welcome"
        await play(c, random.Random(3), lambda m: m.get("t") == "match_result", timeout=300)
        task = running.app.rooms[snap["room"]]
        assert task.room.info()["seats"][1]["faults"] == {}
        rec = task.room.finished[-1]
        assert len([1 for p, _ in rec["actions"] if p == 1]) > before  # it played on after the restart
        f = task.bots.faults[1]
        assert f["late"] == f["exited"] == 0 and f["replayed"] >= 1  # started mid-hand, with the history
    finally:
        await running.app.stop()


async def test_a_bot_runs_under_its_resource_limits():
    """The child's limits are set before exec: address space, CPU, open files, file size, no core."""
    probe = ("import resource as r, sys; sys.stdin.readline(); print(*[r.getrlimit(getattr(r, 'RLIMIT_' + k))[0] "
             "for k in ('AS', 'CPU', 'NOFILE', 'FSIZE', 'CORE')]); print('" + KEEP_RUNNING + "', flush=True); "
             "sys.stdin.readline()")
    bot = BotProcess(BotSpec("probe", (sys.executable, "-c", probe), memory_mb=300, cpu_seconds=7, network=not ISOLATED))
    await bot.start()
    try:
        line = await bot.ask("1\n0 0 0\n", 20)
        assert [int(x) for x in line.split()] == [300 << 20, 7, 64, 16 << 20, 0]
        assert bot.running  # it said it keeps running
    finally:
        await bot.stop()


async def test_a_bot_over_its_memory_is_stopped_not_the_server():
    hog = "import sys; sys.stdin.readline(); x = bytearray(400 << 20); print('PASS')"
    bot = BotProcess(BotSpec("hog", (sys.executable, "-c", hog), memory_mb=200, network=True))
    await bot.start()
    with pytest.raises(BotFault) as e:
        await bot.ask("1\n0 0 0\n", 20)
    assert e.value.kind == "exited" and not bot.running
    await bot.stop()


async def test_a_bot_killed_with_its_output_unread_is_reaped():
    """A bot floods its stdout and nobody reads it (the reader pauses past twice LINE_MAX): once killed,
    its pipe is read to the end and it is waited for. Waiting first never ended on Python 3.11 (``wait``
    returns once the pipes are closed); the transport left open failed a later test's collection."""
    flood = "import sys; sys.stdin.readline(); print('ready', flush=True); sys.stdout.write('x' * 10_000_000)"
    bot = BotProcess(BotSpec("flood", (sys.executable, "-c", flood), network=not ISOLATED))
    await bot.start()
    proc = bot.proc
    proc.stdin.write(b"1\n")
    await proc.stdin.drain()
    assert await proc.stdout.readline() == b"ready\n"
    await asyncio.sleep(0.3)  # the flood fills the reader's buffer; it stops reading
    await asyncio.wait_for(bot.stop(), 10)
    assert proc.returncode is not None and proc.stdout.at_eof()


@pytest.mark.skipif(not ISOLATED, reason="no unprivileged user namespaces here (check_isolation refuses such a bots.toml)")
async def test_a_bot_has_no_network_unless_the_operator_allows_it(tmp_path):
    """By default a bot runs in a network namespace of its own: it cannot reach even this server."""
    running = await start_with(tmp_path)
    probe = ("import socket, sys; sys.stdin.readline(); s = socket.socket(); s.settimeout(5); "
             f"print(s.connect_ex(('127.0.0.1', {running.port})), flush=True)")
    try:
        for network, reached in ((False, False), (True, True)):
            bot = BotProcess(BotSpec("probe", (sys.executable, "-c", probe), network=network))
            await bot.start()
            try:
                assert (await bot.ask("1\n0 0 0\n", 20) == "0") is reached
            finally:
                await bot.stop()
    finally:
        await running.app.stop()


async def test_a_bot_holds_at_most_its_seats_across_rooms(tmp_path):
    """``seats`` in bots.toml caps the processes one bot may cost: past it, add_bot is refused."""
    limited = BotSpec("greedy-ok", (sys.executable, GREEDY), seats=2, network=not ISOLATED)
    running = await start_with(tmp_path, limited)
    try:
        a, b = await running.client(name="A"), await running.client(name="B")
        await a.request({"t": "create", "config": {**FAST}})
        await b.request({"t": "create", "config": {**FAST}})
        assert (await a.request({"t": "add_bot", "seat": 1, "level": "greedy-ok"}))["t"] == "ok"
        assert (await b.request({"t": "add_bot", "seat": 1, "level": "greedy-ok"}))["t"] == "ok"
        r = await a.request({"t": "add_bot", "seat": 2, "level": "greedy-ok"})
        assert r["t"] == "error" and r["code"] == "room/bots_disabled", r
        assert (await b.request({"t": "remove_bot", "seat": 1}))["t"] == "ok"
        assert (await a.request({"t": "add_bot", "seat": 2, "level": "greedy-ok"}))["t"] == "ok"  # one was freed
    finally:
        await running.app.stop()


async def test_serve_with_bots_offers_them(tmp_path):
    """``guobiao serve --bots bots.toml``: the registered names reach the clients in ``welcome``."""
    toml = tmp_path / "bots.toml"
    toml.write_text(f'[[bot]]\nname = "greedy"\ncommand = ["{sys.executable}", "{GREEDY}"]\nanswer_time = 3\n'
                    f'network = {"false" if ISOLATED else "true"}\n')
    argv = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", str(tmp_path / "g.db"),
            "--log-level", "WARNING", "--bots", str(toml)]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 30)
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        c = await Client.open(f"ws://127.0.0.1:{port}/ws")
        try:
            assert (await c.guest("Ann"))["bots"] == ["greedy"]
        finally:
            await c.close()
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()
