"""``guobiao serve``: the websocket server with its SQLite database."""

from __future__ import annotations

import asyncio
import logging
import sys


def register(sub) -> None:
    p = sub.add_parser("serve", help="run the websocket server (HTTP on the same port)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8765, help="0: any free port (the URL printed says which)")
    p.add_argument("--db", default="var/guobiao.db", help="SQLite database, created with its folder if needed")
    p.add_argument("--rate", type=float, default=None,
                   help="frames a second allowed per connection (default 10, bursts of 3 seconds' worth)")
    p.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    p.set_defaults(run=serve)


def serve(args) -> int:
    from server.app import Limits, Settings, run

    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("websockets").setLevel(logging.WARNING)

    def ready(port: int) -> None:
        host = f"[{args.host}]" if ":" in args.host else args.host
        print(f"Guobiao is serving on http://{host}:{port}/ (websocket: ws://{host}:{port}/ws)", flush=True)
        print(f"database: {args.db}; stop with Ctrl-C", flush=True)

    try:
        settings = Settings()
        if args.rate is not None:
            settings.limits = Limits(rate=args.rate, burst=3 * args.rate)
        asyncio.run(run(args.host, args.port, args.db, settings, ready=ready))
    except OSError as e:
        print(f"serve: {e}", file=sys.stderr)
        return 2
    return 0
