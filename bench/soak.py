"""Soak with faults: paced tables for M minutes while clients drop and come back and the server is killed.

    python bench/soak.py [--minutes 10] [--tables 50] [--rate 15] [--drops-per-min 30] [--mass 4]
                         [--kills 2] [--json out.json] [--smoke]

The server runs as a child process pinned to core 0 on a fresh database; this process is the load
generator (bench/loadgen.py), pinned to core 1. Every table plays a match in its own private room,
then its four players leave (the room closes) and form a new one: rooms churn all the time. Faults:
- single drops: a random client's connection is cut (no close frame) and it resumes with its token
  after 0-3 s (``--drops-per-min`` on average, at random times);
- mass reconnects: half of all clients cut at once, all resuming together a second later (``--mass``
  times, spread over the run);
- server crashes: SIGKILL, then the server is started again on the same database and port; every client
  reconnects and resumes (``--kills`` times, in the first 40 % of the run so that the last server life
  is long enough to judge its memory).

Afterwards, from the SQLite database (``loadgen.check_database``): every room's log has no gap and no
repeat, every action the server acknowledged (``ok``) is in its room's log exactly once and no player
action is there twice, and every match either finished or belongs to a room that is still open; the
server is then started once more and must restore every open room (it continues). RSS: sampled every
few seconds; over the last server life (if it lasted ``--min-life`` seconds), after a warm-up, the
median of its last fifth must be within ±10 % of the median of its first fifth. The plateau of that life
is reported too (judged only by the ±10 % rule): the highest RSS of its last third against the highest of
its middle third, and when RSS first reached 95 % of the life's highest (for an hour-long run: does RSS
level off, and by when). ``--smoke``: a few seconds, four tables, no kill (tests/bench has one).

Exit status 0 when all of that holds and no protocol error was seen.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.load import machine  # noqa: E402
from bench.loadgen import (  # noqa: E402
    ROOM_CONFIG, Generator, ServerProc, check_database, free_port, guobiao_argv, pin, raise_nofile,
)


async def soak(args, workdir: Path) -> dict:
    rng = random.Random(args.seed)
    port = free_port()
    db = workdir / "soak.db"
    srv = ServerProc(guobiao_argv(port, db), port, workdir / "soak.log", cpu=None if args.no_pin else 0)
    srv.start()
    config = {**ROOM_CONFIG, "claim_min": 0}
    gen = Generator(port, args.tables, args.rate, seed=args.seed, expect_drops=True, rematch=False, record=True,
                    room_config=config, request_timeout=30.0, reconnect_for=60.0)
    samples: list[tuple[float, int, int]] = []  # (seconds, rss, server life)
    faults = {"drops": 0, "mass_reconnects": 0, "clients_in_mass_reconnects": 0, "kills": 0}
    t_start = time.monotonic()
    try:
        await gen.connect_all()
        gen.holding = True
        await gen.form_all()
        gen.start_tables()
        gen.release()
        duration = args.minutes * 60.0
        begin = time.monotonic()
        kills = sorted(begin + duration * 0.4 * (i + 1) / (args.kills + 1) for i in range(args.kills))
        mass = sorted(begin + duration * (i + 0.5) / max(1, args.mass) for i in range(args.mass))
        next_drop = begin + rng.expovariate(args.drops_per_min / 60.0) if args.drops_per_min > 0 else float("inf")
        next_sample = begin
        end = begin + duration
        while time.monotonic() < end:  # bounded by the deadline
            now = time.monotonic()
            if now >= next_sample:
                samples.append((now - begin, srv.rss(), srv.starts))
                next_sample += args.sample_every
            if kills and now >= kills[0]:
                kills.pop(0)
                faults["kills"] += 1
                srv.kill()
                await asyncio.sleep(1.0)
                await asyncio.to_thread(srv.start)
                continue
            if mass and now >= mass[0]:
                mass.pop(0)
                seats = [s for s in gen.seats if s.conn is not None and not s.conn.closed and not s.reconnecting]
                half = rng.sample(seats, len(seats) // 2)
                faults["mass_reconnects"] += 1
                faults["clients_in_mass_reconnects"] += len(half)
                for s in half:
                    s.start_reconnect(1.0)
                continue
            if now >= next_drop:
                next_drop = now + rng.expovariate(args.drops_per_min / 60.0)
                seats = [s for s in gen.seats if s.conn is not None and not s.conn.closed and not s.reconnecting]
                if seats:
                    faults["drops"] += 1
                    rng.choice(seats).start_reconnect(rng.uniform(0.0, 3.0))
            await asyncio.sleep(min(0.2, max(0.0, min(next_sample, next_drop, end) - time.monotonic())))
        elapsed = time.monotonic() - begin
        await gen.stop()
    finally:
        gen.stopping = True
        code = srv.stop()
    problems = srv.log_problems()
    check = check_database(db, gen.record)

    # The open rooms must come back: start the server once more on the same database.
    srv2 = ServerProc(guobiao_argv(port, db), port, workdir / "restart.log", cpu=None)
    srv2.start()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=30) as r:
            health = json.loads(r.read())
    finally:
        srv2.stop()
    restored = health.get("rooms")
    restore_problems = srv2.log_problems()

    # RSS over the last server life, after its warm-up.
    life = max((s[2] for s in samples), default=0)
    rss = [(t, r) for t, r, lf in samples if lf == life]
    rss_growth = None
    if len(rss) >= 10 and rss[-1][0] - rss[0][0] >= args.min_life:  # a short life is all warm-up
        t0, t1 = rss[0][0], rss[-1][0]
        warm = t0 + args.warmup_fraction * (t1 - t0)
        rest = [r for t, r in rss if t >= warm]
        k = max(1, len(rest) // 5)
        first, last = statistics.median(rest[:k]), statistics.median(rest[-k:])
        rss_growth = 100.0 * (last - first) / first
    level = plateau(rss)
    errors = dict(gen.errors)
    if problems:
        errors["server log ERROR lines"] = len(problems)
    ok = (check["missing"] == 0 and check["duplicated"] == 0 and check["acked_twice"] == 0
          and check["log_problem_count"] == 0 and check["matches_unfinished_in_closed_rooms"] == 0
          and restored == check["open_rooms"] and not restore_problems and not errors
          and (rss_growth is None or abs(rss_growth) <= 10.0))
    return {
        "ok": ok, "minutes": round(elapsed / 60, 2), "tables": args.tables, "connections": 4 * args.tables,
        "rate": args.rate, "faults": faults, "counts": dict(gen.counts), "errors": errors,
        "database": check, "rooms_restored_after": restored, "restore_problems": restore_problems[:5],
        "server_exit_on_sigterm": code, "rss_mib": [(round(t), round(r / 2**20, 1), lf) for t, r, lf in samples],
        "rss_growth_pct_last_life": rss_growth, "rss_plateau": level, "wall_s": round(time.monotonic() - t_start, 1),
    }


def plateau(rss: list[tuple[float, int]]) -> dict | None:
    """Of one server life's RSS samples (seconds since the start of the run, bytes): the highest RSS of
    the middle third and of the last third (by time), the growth between them, and the first time RSS
    reached 95 % of the life's highest (seconds since the run's start and since the life's)."""
    if len(rss) < 6:
        return None
    t0, t1 = rss[0][0], rss[-1][0]
    third = (t1 - t0) / 3
    middle = [r for t, r in rss if t0 + third <= t < t0 + 2 * third]
    last = [r for t, r in rss if t >= t0 + 2 * third]
    if not middle or not last:
        return None
    top = max(r for _, r in rss)
    t95 = next(t for t, r in rss if r >= 0.95 * top)
    mid_max, last_max = max(middle), max(last)
    return {"life_start_s": round(t0), "life_s": round(t1 - t0), "max_mib": round(top / 2**20, 1),
            "max_middle_third_mib": round(mid_max / 2**20, 1), "max_last_third_mib": round(last_max / 2**20, 1),
            "last_vs_middle_pct": round(100.0 * (last_max - mid_max) / mid_max, 1),
            "t95_s": round(t95), "t95_in_life_s": round(t95 - t0)}


def show(r: dict) -> None:
    d = r["database"]
    print(f"soak: {r['minutes']} min, {r['tables']} tables ({r['connections']} connections) at {r['rate']:g} "
          f"actions/s per table")
    print(f"  faults            {r['faults']}")
    print(f"  play              {r['counts']}")
    print(f"  database          {d['rooms']} rooms ({d['open_rooms']} open), {d['matches']} matches "
          f"({d['matches_finished']} finished, {d['matches_unfinished_in_closed_rooms']} unfinished in closed rooms), "
          f"{d['player_actions_logged']} player actions logged")
    print(f"  acknowledged      {d['acked']} actions: {d['missing']} missing, {d['duplicated']} duplicated in the "
          f"log, {d['acked_twice']} acknowledged twice; log problems {d['log_problem_count']} {d['log_problems'][:3]}")
    print(f"  restart           {r['rooms_restored_after']} rooms restored (open in the database: {d['open_rooms']})"
          f"{'; ' + str(r['restore_problems']) if r['restore_problems'] else ''}")
    g = r["rss_growth_pct_last_life"]
    print(f"  RSS               last life after warm-up: {'n/a' if g is None else f'{g:+.1f} %'}; samples (s, MiB, "
          f"life): {r['rss_mib'][:3]} ... {r['rss_mib'][-3:]}")
    lv = r["rss_plateau"]
    if lv is None:
        print("  RSS plateau       n/a (too few samples in the last server life)")
    else:
        print(f"  RSS plateau       last server life {lv['life_s']} s (from {lv['life_start_s']} s): max of its middle "
              f"third {lv['max_middle_third_mib']} MiB, of its last third {lv['max_last_third_mib']} MiB "
              f"({lv['last_vs_middle_pct']:+.1f} %); 95 % of its max ({lv['max_mib']} MiB) reached at "
              f"{lv['t95_s']} s ({lv['t95_in_life_s']} s into the life)")
    print(f"  errors            {sum(r['errors'].values())} {r['errors'] or ''}")
    print(f"  result            {'OK' if r['ok'] else 'FAILED'}")


async def main_async(args) -> int:
    raise_nofile()
    pinned = False if args.no_pin else pin(1)
    gc.freeze()
    print(f"machine: {machine()}; generator on core 1, server on core 0: {pinned}", flush=True)
    print(f"command: {' '.join([Path(sys.executable).name] + sys.argv)}", flush=True)
    with tempfile.TemporaryDirectory(prefix="guobiao-soak-") as tmp:
        workdir = Path(args.workdir) if args.workdir else Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        r = await soak(args, workdir)
    r["machine"], r["argv"] = machine(), sys.argv
    show(r)
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=1))
    return 0 if r["ok"] else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--rate", type=float, default=15.0, help="actions a second per table")
    ap.add_argument("--drops-per-min", type=float, default=30.0, help="single-client drops a minute, on average")
    ap.add_argument("--mass", type=int, default=4, help="mass reconnects of half the clients")
    ap.add_argument("--kills", type=int, default=2, help="server SIGKILLs (in the first 40 %% of the run)")
    ap.add_argument("--sample-every", type=float, default=5.0, help="seconds between RSS samples")
    ap.add_argument("--warmup-fraction", type=float, default=0.3, help="of the last server life, before judging RSS")
    ap.add_argument("--min-life", type=float, default=180.0,
                    help="seconds the last server life must last for its RSS to be judged")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-pin", action="store_true")
    ap.add_argument("--workdir", default=None, help="keep the database and logs here")
    ap.add_argument("--json", default=None)
    ap.add_argument("--smoke", action="store_true", help="smallest sizes, a few seconds (tests/test_bench_smoke.py)")
    args = ap.parse_args(argv)
    if args.smoke:
        args.minutes, args.tables, args.rate, args.kills, args.mass, args.sample_every = 0.1, 4, 10.0, 0, 1, 0.5
    if not 0.1 <= args.minutes <= 600 or not 1 <= args.tables <= 2000 or not 0 < args.rate <= 100:
        ap.error("--minutes 0.1..600, --tables 1..2000, --rate 0..100")
    if not 0 <= args.kills <= 20 or not 0 <= args.mass <= 100 or args.drops_per_min < 0:
        ap.error("--kills 0..20, --mass 0..100, --drops-per-min >= 0")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
