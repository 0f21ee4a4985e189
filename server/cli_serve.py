"""``guobiao serve``: the websocket server with its database (a SQLite file, or PostgreSQL given by a
postgresql:// URL); ``guobiao backup``: a copy of a SQLite database."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import sys
from pathlib import Path
from urllib.parse import quote


def register(sub) -> None:
    p = sub.add_parser("serve", help="run the websocket server (HTTP on the same port)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8765, help="0: any free port (the URL printed says which)")
    p.add_argument("--db", default="var/guobiao.db", help="SQLite database, created with its folder if needed, or a PostgreSQL database: "
                        "postgresql://USER[:PASSWORD]@HOST:PORT/DB (migrated when the server starts)")
    p.add_argument("--cluster", default=None, metavar="redis://HOST:PORT",
                   help="run as one node of a cluster sharing this Redis and a PostgreSQL --db (docs/cluster.md: "
                        "what works yet)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="with --cluster: start N nodes on this machine sharing --port (SO_REUSEPORT)")
    p.add_argument("--rate", type=float, default=None,
                   help="frames a second allowed per connection (default 10, bursts of 3 seconds' worth)")
    p.add_argument("--count-loopback", action="store_true",
                   help="count loopback clients against the per-address limits and quotas (by default they are "
                        "exempt: behind a reverse proxy every player comes from loopback)")
    p.add_argument("--metrics", default="on", choices=("on", "off"),
                   help="GET /metrics for Prometheus on the same port (docs/deploy.md: restrict it at the proxy)")
    p.add_argument("--bots", default=None, metavar="BOTS.TOML",
                   help="external bots players may seat (Botzone protocol; docs/bots.md)")
    p.add_argument("--client", default=None, metavar="DIR",
                   help="the browser client's build to serve (default: the installed package's copy, else "
                        "web_client/dist of the checkout; docs/deploy.md \"Installing\")")
    p.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    p.add_argument("--loop", default="asyncio", choices=("asyncio", "uvloop", "auto"),
                   help="event loop: asyncio's own (the default), uvloop (pip install 'guobiao[uvloop]'), "
                        "or auto: uvloop if it is installed")
    p.set_defaults(run=serve)
    b = sub.add_parser("backup", help="copy the database to DEST, safely while the server runs")
    b.add_argument("dest", help="the copy (replaced if it exists); restore it by serving it with --db")
    b.add_argument("--db", default="var/guobiao.db", help="the server's SQLite database")
    b.set_defaults(run=backup)


def serve(args) -> int:
    from server.app import WORKER, Limits, Settings, run
    from server.store import StorageError
    from server.store_sql import redact
    from redis.exceptions import RedisError
    from server.http import client_missing

    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("websockets").setLevel(logging.WARNING)

    def ready(port: int) -> None:
        host = f"[{args.host}]" if ":" in args.host else args.host
        loop = "uvloop" if type(asyncio.get_running_loop()).__module__.startswith("uvloop") else "asyncio"
        say([f"Guobiao is serving on http://{host}:{port}/ (websocket: ws://{host}:{port}/ws)",
             f"database: {redact(args.db)}; event loop: {loop}; stop with Ctrl-C",
             *([f"cluster node: {redact(args.cluster)}"] if args.cluster is not None else [])])
        if (note := client_missing(settings.client)) is not None:  # once serving: a fault that stops it says only that
            print(note, file=sys.stderr, flush=True)

    if args.cluster is not None and not args.db.startswith(("postgresql://", "postgres://")):
        print("serve: --cluster needs a PostgreSQL --db (postgresql://...) that every node shares", file=sys.stderr)
        return 2
    if args.workers != 1 and os.environ.get(WORKER) != "1":
        return workers(args)
    try:
        settings = Settings(metrics=args.metrics == "on", client=client_dir(args.client))
        if args.bots is not None:
            from server.botzone import BotConfigError, check_isolation, load_bots
            try:
                settings.external_bots = load_bots(args.bots)
                check_isolation(settings.external_bots)
            except BotConfigError as e:
                print(f"serve: --bots: {e}", file=sys.stderr)
                return 2
        if args.rate is not None:
            settings.limits = Limits(rate=args.rate, burst=3 * args.rate)
        if args.count_loopback:
            settings.limits.exempt_loopback = settings.attempts.exempt_loopback = False
        factory = loop_factory(args.loop)
        with asyncio.Runner(loop_factory=factory) as runner:
            runner.run(run(args.host, args.port, args.db, settings, ready=ready, cluster=args.cluster))
    except (OSError, StorageError, RedisError) as e:  # RedisError: --cluster's Redis unreachable
        print(f"serve: {e}", file=sys.stderr)
        return 2
    return 0


def say(lines: list[str]) -> None:
    """Lines to stdout in one write: the workers of ``--workers`` share it, and a pipe keeps a write of
    up to 4 KiB whole, where print's text and newline (two writes, unbuffered) could mingle with another's."""
    sys.stdout.write("".join(line + "\n" for line in lines))
    sys.stdout.flush()


def client_dir(arg: str | None) -> Path:
    """The client's build to serve (when it is not there, ``ready`` says so and the server runs all the same)."""
    from server.http import STATIC

    return STATIC if arg is None else Path(arg).resolve()


def workers(args) -> int:
    """``--workers N``: N nodes sharing the port, restarted when they die (server.cluster.workers)."""
    from server.app import WORKER
    from server.cluster.workers import workers as supervise

    return supervise(args, WORKER)


def loop_factory(choice: str):
    """The event loop for ``--loop``: None for asyncio's own. uvloop (libuv) runs the same code; on this
    project's benchmark it made no difference beyond the noise (docs/performance.md "Public APIs only")."""
    if choice == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        if choice == "uvloop":
            raise OSError("--loop uvloop: uvloop is not installed (pip install 'guobiao[uvloop]')") from None
        return None
    return uvloop.new_event_loop


def backup(args) -> int:
    """SQLite's online backup (``Connection.backup``): a consistent copy of the database as of one
    moment, taken while the server goes on writing (WAL: the copy reads, nobody waits). It is written
    next to DEST first and renamed over it only when complete and checked."""
    if args.db.startswith(("postgresql://", "postgres://")):
        print("backup: copies a SQLite database; back PostgreSQL up with pg_dump", file=sys.stderr)
        return 2
    src_path, dest = Path(args.db), Path(args.dest)
    if not src_path.is_file():
        print(f"backup: no database at {src_path}", file=sys.stderr)
        return 2
    part = dest.with_name(dest.name + ".part")
    try:
        # mode=rw: a missing database is an error, never a new empty one.
        src = sqlite3.connect(f"file:{quote(str(src_path.resolve()))}?mode=rw", uri=True, timeout=10.0)
        try:
            (version,) = src.execute("PRAGMA user_version").fetchone()
            if version == 0:
                raise sqlite3.DatabaseError("not a Guobiao database (no migrations applied)")
            part.unlink(missing_ok=True)
            dst = sqlite3.connect(part)
            try:
                src.backup(dst)
                (check,) = dst.execute("PRAGMA quick_check").fetchone()
                if check != "ok":
                    raise sqlite3.DatabaseError(f"the copy does not check: {check}")
                (rooms,) = dst.execute("SELECT COUNT(*) FROM rooms").fetchone()
            finally:
                dst.close()
        finally:
            src.close()
        os.replace(part, dest)
    except (OSError, sqlite3.Error) as e:
        with contextlib.suppress(OSError):
            part.unlink(missing_ok=True)
        print(f"backup: {e}", file=sys.stderr)
        return 2
    print(f"backed up {src_path} to {dest} ({rooms} rooms, {dest.stat().st_size} bytes)")
    return 0
