"""Private PostgreSQL and Redis servers for the tests: each in a temporary folder of its own (data, unix
socket, log), on a free port of 127.0.0.1, stopped and removed at the end. Never a system service.

PostgreSQL refuses to run as root: under root the server runs as the ``postgres`` user when there is
one, else as ``nobody`` (the folder is handed to that user). The binaries are looked for in
GUOBIAO_PG_BIN, then Debian's /usr/lib/postgresql/<version>/bin, then PATH; Redis's in PATH.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

START_TIMEOUT = 30.0  # seconds for a server to accept connections
PR_SET_PDEATHSIG = 1  # prctl(2)
try:
    _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True) if sys.platform == "linux" else None
except OSError:  # pragma: no cover - no C library to load
    _libc = None


def _dies_with_us(sig: int):
    """A preexec_fn: the server gets ``sig`` when the test run's process dies, even by SIGKILL (the
    fixtures' teardown never runs then), so no server outlives the run. Set after Popen's change of
    user, which would clear it."""
    if _libc is None:
        return None
    return lambda: _libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pg_bin() -> Path | None:
    """The folder of initdb and postgres, or None when PostgreSQL is not installed."""
    env = os.environ.get("GUOBIAO_PG_BIN")
    if env is not None:  # also how a test checks the rule for a machine without them
        return Path(env) if (Path(env) / "postgres").exists() else None
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"),
                    key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0)
    if debian:
        return debian[-1].parent
    found = shutil.which("postgres")
    return Path(found).parent if found else None


def redis_bin() -> Path | None:
    env = os.environ.get("GUOBIAO_REDIS_SERVER")
    if env is not None:
        return Path(env) if Path(env).exists() else None
    found = shutil.which("redis-server")
    return Path(found) if found else None


def _run_as() -> str | None:
    """The user PostgreSQL runs as when we are root (it refuses root), else None (ourselves)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError("running as root with neither a 'postgres' nor a 'nobody' user for PostgreSQL")


def _wait(ready, proc: subprocess.Popen, what: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}: {log.read_text(errors='replace')[-2000:]}")
        if ready():
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not start in {START_TIMEOUT} s: {log.read_text(errors='replace')[-2000:]}")


def _stop(proc: subprocess.Popen, sig: int) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class Postgres:
    """One private PostgreSQL server. ``url(db)`` is a libpq/asyncpg URL of one of its databases."""
    folder: Path
    port: int
    user: str
    proc: subprocess.Popen
    bin: Path

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def psql(self, sql: str, database: str = "postgres") -> str:
        out = subprocess.run([str(self.bin / "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                              "-d", self.url(database), "-c", sql], capture_output=True, text=True, check=True)
        return out.stdout.strip()

    def stop(self) -> None:
        _stop(self.proc, signal.SIGINT)  # PostgreSQL's fast shutdown
        shutil.rmtree(self.folder, ignore_errors=True)


def start_postgres(bin_dir: Path) -> Postgres:
    folder = Path(tempfile.mkdtemp(prefix="guobiao-pg-"))
    data, sockets, log = folder / "data", folder / "sockets", folder / "postgres.log"
    sockets.mkdir()
    runas = _run_as()
    if runas is not None:
        for p in (folder, sockets):
            shutil.chown(p, runas)
    try:
        subprocess.run([str(bin_dir / "initdb"), "-D", str(data), "-U", "guobiao", "--auth=trust", "--no-sync",
                        "--locale=C", "--encoding=UTF8"],  # C: text sorts by code point, as in SQLite
                       user=runas, cwd=folder, check=True, capture_output=True)
        port = free_port()
        with open(log, "ab") as out:
            proc = subprocess.Popen(
                [str(bin_dir / "postgres"), "-D", str(data), "-p", str(port), "-k", str(sockets),
                 "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "full_page_writes=off",
                 "-c", "max_connections=200"],
                user=runas, cwd=folder, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                preexec_fn=_dies_with_us(signal.SIGINT))  # PostgreSQL's fast shutdown
        pg = Postgres(folder, port, "guobiao", proc, bin_dir)
        ready = [str(bin_dir / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(port), "-U", "guobiao"]
        _wait(lambda: subprocess.run(ready).returncode == 0, proc, "postgres", log)
        return pg
    except BaseException:
        with contextlib.suppress(NameError):
            _stop(proc, signal.SIGINT)
        shutil.rmtree(folder, ignore_errors=True)
        raise


@dataclass
class Redis:
    folder: Path
    port: int
    socket: Path
    proc: subprocess.Popen

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        _stop(self.proc, signal.SIGTERM)
        shutil.rmtree(self.folder, ignore_errors=True)


def _redis_answers(sock: Path) -> bool:
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(1.0)
            s.connect(str(sock))
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def start_redis(server: Path) -> Redis:
    folder = Path(tempfile.mkdtemp(prefix="guobiao-redis-"))
    sock, log = folder / "redis.sock", folder / "redis.log"
    port = free_port()
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            [str(server), "--port", str(port), "--bind", "127.0.0.1", "--unixsocket", str(sock),
             "--dir", str(folder), "--save", "", "--appendonly", "no", "--daemonize", "no"],
            cwd=folder, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=_dies_with_us(signal.SIGTERM))
    r = Redis(folder, port, sock, proc)
    try:
        _wait(lambda: _redis_answers(sock), proc, "redis-server", log)
    except BaseException:
        r.stop()
        raise
    return r
