"""External bots (docs/bots.md): the operator's ``bots.toml`` and one bot subprocess.

A bot runs as a subprocess without a shell, in its own session, with resource limits set in the child
(``resource.setrlimit``): address space, CPU seconds, open files, file size, no core files. It speaks
Botzone's simple interaction in long-running mode: its first input is the history (rooms.botzone
``history_input``), then one request line at a time; after each answer it prints the keep-running
line. Anything else (no keep-running line, an exit, a crash, a line too long, a late answer) ends the
process; the next request starts it again with the history.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import resource
import signal
import subprocess
import tomllib
from dataclasses import dataclass

from rooms.botzone_seats import BOT_PREFIX, ExternalBot
from rooms.config import BOT_LEVELS

KEEP_RUNNING = ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<"
REAP_TIME = 5.0  # seconds a killed bot's stdout is read for its end (a child outside its group may hold it)
LINE_MAX = 64 * 1024  # bytes in one line from a bot: longer is a fault (a flood is cut there)
OPEN_FILES = 64
FILE_SIZE = 16 << 20  # bytes a bot may write to one file
NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")
ENV_KEEP = ("PATH", "LANG", "HOME")
UNSHARE = "unshare"


class BotConfigError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class BotSpec:
    name: str
    command: tuple[str, ...]
    answer_time: float = 2.0  # seconds per answer
    memory_mb: int = 1024  # address space
    cpu_seconds: int = 600  # CPU time of one process (one hand)
    start_time: float = 10.0  # seconds more for a process's first answer (loading)
    network: bool = False  # False: run in a network namespace of its own (no network at all)
    seats: int = 16  # seats it may hold at once in the server's rooms (each a process during a hand)

    def argv(self) -> tuple[str, ...]:
        """The command as run: without a network, inside ``unshare --user --net`` (util-linux; needs
        unprivileged user namespaces: ``check_isolation``)."""
        return self.command if self.network else (UNSHARE, "--user", "--net", "--", *self.command)

    def policy(self, free=None) -> ExternalBot:
        return ExternalBot(self.name, self.answer_time, free)


def _number(entry: dict, key: str, default, low, high, kind):
    v = entry.get(key, default)
    if type(v) not in ((int, float) if kind is float else (int,)) or isinstance(v, bool) or not low <= v <= high:
        raise BotConfigError(f"bot {entry.get('name')!r}: {key} must be a number in {low}..{high}, got {v!r}")
    return kind(v)


def _flag(entry: dict, key: str, default: bool) -> bool:
    v = entry.get(key, default)
    if type(v) is not bool:
        raise BotConfigError(f"bot {entry.get('name')!r}: {key} must be true or false, got {v!r}")
    return v


def parse_bots(data: dict) -> dict[str, BotSpec]:
    """The bots of a parsed ``bots.toml`` (``[[bot]]`` tables), by name; BotConfigError if one is wrong."""
    entries = data.get("bot", [])
    if not isinstance(entries, list) or set(data) - {"bot"}:
        raise BotConfigError("bots.toml holds [[bot]] tables only")
    out: dict[str, BotSpec] = {}
    for e in entries:
        if not isinstance(e, dict):
            raise BotConfigError("bots.toml holds [[bot]] tables only")
        extra = set(e) - {"name", "command", "answer_time", "memory_mb", "cpu_seconds", "start_time", "network", "seats"}
        if extra:
            raise BotConfigError(f"bot {e.get('name')!r}: unknown keys {sorted(extra)}")
        name = e.get("name")
        if not isinstance(name, str) or not NAME.fullmatch(name) or name in BOT_LEVELS or name == "auto":
            raise BotConfigError(f"bot name {name!r}: 1-32 letters, digits, - or _, not fan/random/auto")
        if name in out:
            raise BotConfigError(f"bot {name!r} is registered twice")
        cmd = e.get("command")
        if not isinstance(cmd, list) or not cmd or not all(isinstance(a, str) and a and "\0" not in a for a in cmd):
            raise BotConfigError(f"bot {name!r}: command must be a list of strings (argv), the program first")
        out[name] = BotSpec(name, tuple(cmd), _number(e, "answer_time", 2.0, 0.05, 60.0, float),
                            _number(e, "memory_mb", 1024, 64, 65536, int), _number(e, "cpu_seconds", 600, 1, 86400, int),
                            _number(e, "start_time", 10.0, 0.0, 120.0, float), _flag(e, "network", False),
                            _number(e, "seats", 16, 1, 1000, int))
    return out


def load_bots(path: str) -> dict[str, BotSpec]:
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise BotConfigError(f"{path}: {e}") from None
    return parse_bots(data)


def check_isolation(bots: dict[str, BotSpec]) -> None:
    """BotConfigError unless the bots without a network can have none here (a trial ``unshare``)."""
    closed = sorted(name for name, b in bots.items() if not b.network)
    if not closed:
        return
    try:
        ok = subprocess.run([UNSHARE, "--user", "--net", "--", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    if not ok:
        raise BotConfigError(f"bots {closed} have network = false, but `{UNSHARE} --user --net` does not work here "
                             "(util-linux, unprivileged user namespaces): isolate them otherwise and set network = true")


def policies(builtin: dict | None, bots: dict[str, BotSpec], rooms: dict | None = None,
             tournaments: dict | None = None) -> dict | None:
    """The rooms' ``bot_policies``: the built-in ones (None: the rooms' own modules) and each external bot,
    which ``add_bot`` seats only while fewer than its ``seats`` are held (``held``)."""
    if not bots:
        return builtin

    def free(spec: BotSpec):
        return lambda: held(spec.name, rooms or {}, tournaments or {}) < spec.seats

    return {**(builtin or {}), **{name: spec.policy(free(spec)) for name, spec in bots.items()}}


def held(name: str, rooms: dict, tournaments: dict) -> int:
    """The seats bot ``name`` holds: in open rooms (id -> room task), and one per tournament not over
    that registered it as a competitor (docs/tournaments.md), which its tables' seats do not count again."""
    competitor = BOT_PREFIX + name
    seats = sum(1 for task in rooms.values() if not task.closed
                for s in task.room.seats if s is not None and s.bot == name and s.id != competitor)
    return seats + sum(1 for x in tournaments.values() if not x.t.over and competitor in x.t.players)


def _limits(spec: BotSpec):
    mem = spec.memory_mb << 20
    cpu = spec.cpu_seconds

    def apply() -> None:  # in the child, before exec
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE, FILE_SIZE))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


class BotFault(Exception):
    """The bot gave no answer: ``kind`` is late, exited or malformed."""

    def __init__(self, kind: str, detail: str = ""):
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind


class BotProcess:
    """One running bot. ``ask`` sends its input and returns the answer line, or raises BotFault (the
    process is then gone: the next ``ask`` must give the whole history)."""

    def __init__(self, spec: BotSpec):
        self.spec = spec
        self.proc: asyncio.subprocess.Process | None = None
        self.fresh = False  # started and given no input yet: its first input is the history
        self.ending: asyncio.Task | None = None  # the wait for the last killed process

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def start(self) -> None:
        env = {k: os.environ[k] for k in ENV_KEEP if k in os.environ}
        self.proc = await asyncio.create_subprocess_exec(
            *self.spec.argv(), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, preexec_fn=_limits(self.spec), start_new_session=True, env=env,
            limit=LINE_MAX)
        self.fresh = True

    async def ask(self, text: str, timeout: float) -> str:
        """Write ``text`` (one or more lines) and read the answer within ``timeout`` seconds."""
        try:
            async with asyncio.timeout(timeout):
                return await self._ask(text)
        except TimeoutError:
            self.kill()
            raise BotFault("late") from None
        except BotFault:
            self.kill()
            raise
        except (OSError, ValueError, asyncio.LimitOverrunError, asyncio.IncompleteReadError) as e:
            self.kill()  # a broken pipe, a line over LINE_MAX
            raise BotFault("malformed", type(e).__name__) from None

    async def _ask(self, text: str) -> str:
        proc = self.proc
        self.fresh = False
        proc.stdin.write(text.encode())
        await proc.stdin.drain()
        answer = await self._line()
        while not answer.strip():
            answer = await self._line()
        keep = await self._line(eof_ok=True)
        if keep is None or keep.strip() != KEEP_RUNNING:
            self.kill()  # not long-running (or it said more): started again with the history next time
        return answer.strip()

    async def _line(self, eof_ok: bool = False) -> str | None:
        raw = await self.proc.stdout.readline()
        if not raw:
            if eof_ok:
                return None
            raise BotFault("exited")
        return raw.decode("utf-8", "replace")

    def kill(self) -> None:
        """End the bot and anything it started (its session's process group)."""
        proc, self.proc = self.proc, None
        if proc is None or proc.returncode is not None:
            return
        try:
            # The group (the bot leads its own session): not proc.kill() after it, whose poll() would
            # reap the child before asyncio's watcher does.
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        if proc.stdin is not None:
            proc.stdin.close()
        self.ending = asyncio.get_running_loop().create_task(_reap(proc))  # off the caller's path

    async def stop(self) -> None:
        """``kill``, and wait until the process is gone."""
        self.kill()
        if self.ending is not None:
            await self.ending


async def _reap(proc: asyncio.subprocess.Process) -> None:
    """Read a killed bot's stdout to the end, then wait for it: its pipe (and the process's transport)
    closes with the loop still running, not left open for the garbage collector to warn about. In this
    order because on Python 3.11 ``wait`` returns only once the pipes are closed, and the pipe of a bot
    that wrote more than its reader holds (a flood) stays paused, never at its end, until read."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(REAP_TIME):
            while await proc.stdout.read(LINE_MAX):
                pass
            await proc.wait()


__all__ = ["BotSpec", "BotConfigError", "BotFault", "BotProcess", "load_bots", "parse_bots", "policies"]
