"""The ``guobiao`` command line: score, waits, simulate, replay, serve."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="guobiao", description="Guobiao: Chinese Official Mahjong (MCR)")
    sub = parser.add_subparsers(dest="command", required=True)
    from server import cli_game, cli_score, cli_serve

    cli_score.register(sub)
    cli_game.register(sub)
    cli_serve.register(sub)
    args = parser.parse_args(argv)
    return args.run(args) or 0


if __name__ == "__main__":
    sys.exit(main())
