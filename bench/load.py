"""Load: N tables of four bot-driven websocket clients playing real hands against the server.

    python bench/load.py [--tables 2500] [--rate 1.0 | --closed] [--duration 60] [--warmup 10]
                         [--baseline] [--json out.json] [--smoke]

The server runs as a child process pinned to core 0 (``sched_setaffinity``), on a fresh database; this
process is the load generator, pinned to core 1: one process, one event loop, every client a bare
asyncio protocol (bench/loadgen.py). On a two-core machine the two never share a core, but nothing
else gets one either: the generator's own CPU use is printed so that a run it limits can be told.

Each table creates a private room (claim windows close on the last answer: ``claim_min`` 0), the other
three seats join by invite code, all are ready and the match starts; every prompt is answered with a
random legal action (a win whenever offered). ``--rate R``: R actions a second per table, one at a time;
``--closed``: each table acts as soon as its previous action is answered and a prompt is there (the
server is then started with ``--rate 1000``: its 10 frames/s per connection is meant for people). Matches
that end are followed by a rematch.

Printed: tables, connections, actions/s in, messages/s out (received by the clients), latency
p50/p99/p99.9/max from an action to the last seat's update, server CPU % and RSS (at start, with every
connection signed in and idle, and with every table playing; per connection and per table), the
server's stalls in the measured window (from its GET /metrics: garbage collections by generation, and
how many collections, group commits and loop-lag samples took over 10 ms), errors
(protocol errors, refused actions other than ``action/stale``, unexpected closes, message gaps, actions
never answered, ERROR lines in the server's log) and the generator's own CPU %.

``--baseline``: then the same generator against bench/fanout_server.py (decode the action, send a
~100-byte msgpack message to the four seats, no game), and our actions/s as a ratio of its.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.loadgen import (  # noqa: E402
    HOST, Generator, ServerProc, baseline_argv, busy_pct, core_times, free_port, guobiao_argv, percentiles, pin,
    raise_nofile,
)

KIB = 1024
STALL = 0.01  # seconds: a collection, a commit or a loop-lag sample longer than this is counted as a stall


def scrape(port: int) -> dict[str, float]:
    """The server's GET /metrics as sample (name and labels) -> value; empty when it has none (the baseline)."""
    from prometheus_client.parser import text_string_to_metric_families
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/metrics", timeout=10) as r:
            text = r.read().decode()
    except OSError:
        return {}
    return {s.name + "".join(f"{{{k}={v}}}" for k, v in sorted(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def stalls(m0: dict, m1: dict) -> dict:
    """What the server's histograms saw between two scrapes: every collection by generation (count, total
    and longest bucket), and how many collections, commits and loop-lag samples took over STALL."""
    if not m0 or not m1:
        return {}

    def d(key: str) -> float:
        return m1.get(key, 0.0) - m0.get(key, 0.0)

    def over(name: str, labels: str = "") -> int:  # STALL is a bucket bound of each histogram
        return round(d(f"{name}_bucket{labels}{{le=+Inf}}") - d(f"{name}_bucket{labels}{{le={STALL!r}}}"))

    out = {}
    for g in range(3):
        lab = f"{{generation={g}}}"
        out[f"gc{g}"] = {"count": round(d(f"guobiao_gc_pause_seconds_count{lab}")),
                         "total_ms": round(1000 * d(f"guobiao_gc_pause_seconds_sum{lab}"), 1),
                         "over_stall": over("guobiao_gc_pause_seconds", lab)}
    out["commits_over_stall"] = over("guobiao_commit_seconds")
    # Frame read -> the answer written (every seat's messages before it): the server's share of the latency.
    out["server_action_ms"] = {q: bucket_quantile(m0, m1, "guobiao_action_latency_seconds", q)
                               for q in ("0.5", "0.99")}
    out["loop_lag_samples_over_stall"] = over("guobiao_event_loop_lag_seconds")
    return out


def bucket_quantile(m0: dict, m1: dict, name: str, q: str) -> str:
    """The histogram bucket that holds quantile ``q`` of what it saw between two scrapes, as "<= X ms"."""
    prefix = name + "_bucket{le="
    bounds = sorted((float(k[len(prefix):-1]), k) for k in m1 if k.startswith(prefix))
    total = m1.get(prefix + "+Inf}", 0.0) - m0.get(prefix + "+Inf}", 0.0)
    if not total:
        return "-"
    for bound, key in bounds:
        if m1[key] - m0.get(key, 0.0) >= float(q) * total:
            return "over the last bound" if bound == float("inf") else f"<= {bound * 1000:g} ms"
    return "-"


def machine() -> str:
    model = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores, {model}, {mem:.0f} GiB, Python {platform.python_version()}"


async def run(kind: str, args, workdir: Path) -> dict:
    port = free_port()
    if kind == "baseline":
        argv = baseline_argv(port, args.loop)  # the same event loop as ours: a fair ratio
    else:
        argv = guobiao_argv(port, workdir / f"{kind}.db", args.server_rate, args.loop)
    srv = ServerProc(argv, port, workdir / f"{kind}.log", cpu=None if args.no_pin else 0)
    srv.start()
    gen = None
    try:
        await asyncio.sleep(1.0)
        rss0 = srv.rss()
        gen = Generator(port, args.tables, None if args.closed else args.rate, seed=args.seed)
        conns = 4 * args.tables
        t = time.monotonic()
        await gen.connect_all()
        connect_s = time.monotonic() - t
        await asyncio.sleep(2.0)
        rss_idle = srv.rss()
        t = time.monotonic()
        gen.holding = True  # the matches start, but nobody acts before every table is there
        await gen.form_all()
        form_s = time.monotonic() - t
        gen.start_tables()
        gen.release()
        # The generator's collector is off from here to the end of the window: its full collections over
        # 10,000 clients took 100-200 ms every ~12 s, and every action in flight looked that much slower.
        gc.collect()
        gc.freeze()
        gc.disable()
        await asyncio.sleep(args.warmup)
        m0 = await asyncio.to_thread(scrape, port) if kind == "guobiao" else {}
        cpu0, g0, w0, k0 = srv.cpu_seconds(), os.times(), time.monotonic(), core_times()
        gen.begin()
        await asyncio.sleep(args.duration)
        gen.end()
        gc.enable()
        cpu1, g1, w1, k1 = srv.cpu_seconds(), os.times(), time.monotonic(), core_times()
        m1 = await asyncio.to_thread(scrape, port) if m0 else {}
        msgs, actions = gen.msgs_in, gen.actions
        rss_active = srv.rss()
        await asyncio.sleep(1.5)  # the other seats' updates of the last actions
        gen.settle_all()
        wall = w1 - w0
        lat = percentiles(gen.lat)
        problems = srv.log_problems()
        errors = dict(gen.errors)
        if problems:
            errors["server log ERROR lines"] = len(problems)
        return {
            "server": kind, "tables": args.tables, "connections": conns,
            "pace": "closed loop" if args.closed else f"{args.rate:g} actions/s per table",
            "seconds": round(wall, 1), "actions": actions,
            "actions_per_s": actions / wall, "messages_per_s": msgs / wall,
            "latency_ms": {k: None if v is None else round(v * 1000, 2) for k, v in lat.items()},
            "server_cpu_pct": 100 * (cpu1 - cpu0) / wall,
            "generator_cpu_pct": 100 * ((g1.user + g1.system) - (g0.user + g0.system)) / wall,
            "core_busy_pct": {c: round(v, 1) for c, v in busy_pct(k0, k1).items()},
            "loadavg": open("/proc/loadavg").read().split()[0],
            "rss_start_mib": rss0 / 2**20, "rss_idle_mib": rss_idle / 2**20, "rss_active_mib": rss_active / 2**20,
            "kib_per_idle_connection": (rss_idle - rss0) / conns / KIB,
            "kib_per_active_table": (rss_active - rss0) / args.tables / KIB,
            "kib_per_table_rooms_only": (rss_active - rss_idle) / args.tables / KIB,
            "connect_s": round(connect_s, 1), "form_s": round(form_s, 1),
            "errors": errors, "error_count": sum(errors.values()), "counts": dict(gen.counts),
            "server_stalls": stalls(m0, m1),
        }
    finally:
        if gen is not None:
            await gen.stop()
        srv.stop()


def show(r: dict) -> None:
    lat = r["latency_ms"]
    print(f"[{r['server']}] {r['tables']} tables, {r['connections']} connections, {r['pace']}, "
          f"{r['seconds']} s measured (connect {r['connect_s']} s, form {r['form_s']} s)")
    print(f"  actions/s in      {r['actions_per_s']:10.1f}   ({r['actions']} actions)")
    print(f"  messages/s out    {r['messages_per_s']:10.1f}")
    print(f"  latency ms        p50 {lat['p50']}  p99 {lat['p99']}  p99.9 {lat['p99.9']}  max {lat['max']}")
    print(f"  server CPU        {r['server_cpu_pct']:9.1f} %   (generator {r['generator_cpu_pct']:.1f} %; cores busy "
          f"{r['core_busy_pct']} %, whoever ran there; load average {r['loadavg']})")
    print(f"  server RSS        start {r['rss_start_mib']:.1f} MiB, idle {r['rss_idle_mib']:.1f} MiB, "
          f"active {r['rss_active_mib']:.1f} MiB")
    print(f"  RSS per idle connection {r['kib_per_idle_connection']:.1f} KiB; per active table "
          f"{r['kib_per_active_table']:.1f} KiB (rooms alone {r['kib_per_table_rooms_only']:.1f} KiB)")
    st = r.get("server_stalls")
    if st:
        gcs = "; ".join(f"gen {g}: {st[f'gc{g}']['count']} ({st[f'gc{g}']['total_ms']} ms, "
                        f"{st[f'gc{g}']['over_stall']} over {STALL * 1000:g} ms)" for g in range(3))
        print(f"  server stalls     collections {gcs}; commits over {STALL * 1000:g} ms "
              f"{st['commits_over_stall']}; loop-lag samples over {STALL * 1000:g} ms "
              f"{st['loop_lag_samples_over_stall']}")
        sa = st.get("server_action_ms", {})
        print(f"  server's share    frame read -> every seat written: p50 {sa.get('0.5')}, p99 {sa.get('0.99')}")
    print(f"  errors            {r['error_count']}  {r['errors'] or ''}")
    print(f"  counts            {r['counts']}")


async def main_async(args) -> int:
    raise_nofile()
    pinned = False if args.no_pin else pin(1)
    gc.freeze()
    print(f"machine: {machine()}; generator pinned to core 1: {pinned}; server pinned to core 0: "
          f"{pinned and not args.no_pin}", flush=True)
    print(f"command: {' '.join([Path(sys.executable).name] + sys.argv)}", flush=True)
    out = {"machine": machine(), "argv": sys.argv, "runs": []}
    with tempfile.TemporaryDirectory(prefix="guobiao-load-") as tmp:
        workdir = Path(args.workdir) if args.workdir else Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        ours = await run("guobiao", args, workdir)
        show(ours)
        out["runs"].append(ours)
        if args.baseline:
            base = await run("baseline", args, workdir)
            show(base)
            out["runs"].append(base)
            ratio = ours["actions_per_s"] / base["actions_per_s"] if base["actions_per_s"] else 0.0
            out["ratio"] = ratio
            print(f"throughput: Guobiao {ours['actions_per_s']:.1f} actions/s = {ratio:.2f} x baseline "
                  f"{base['actions_per_s']:.1f} actions/s")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0 if ours["error_count"] == 0 else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=2500)
    ap.add_argument("--rate", type=float, default=1.0, help="actions a second per table (paced)")
    ap.add_argument("--closed", action="store_true", help="closed loop: act as soon as answered")
    ap.add_argument("--duration", type=float, default=60.0, help="seconds measured")
    ap.add_argument("--warmup", type=float, default=10.0, help="seconds of play before measuring")
    ap.add_argument("--baseline", action="store_true", help="then the same load against the fan-out baseline")
    ap.add_argument("--server-rate", type=float, default=None,
                    help="the server's per-connection frame limit (default: the server's 10/s; 1000 with --closed)")
    ap.add_argument("--loop", default="asyncio", choices=("asyncio", "uvloop"), help="the event loop of both servers (ours and the baseline)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-pin", action="store_true", help="do not pin server and generator to cores")
    ap.add_argument("--workdir", default=None, help="keep the databases and logs here")
    ap.add_argument("--json", default=None, help="write the figures here")
    ap.add_argument("--smoke", action="store_true", help="smallest sizes, a few seconds (tests/test_bench_smoke.py)")
    args = ap.parse_args(argv)
    if args.smoke:
        args.tables, args.duration, args.warmup, args.closed = 4, 2.0, 0.5, True
    if args.closed and args.server_rate is None:
        args.server_rate = 1000.0  # a closed-loop table is no human: the 10 frames/s limit would refuse it
    if not 1 <= args.tables <= 4000:
        ap.error("--tables: 1 to 4000")
    if not 1 <= args.duration <= 3600 or not 0 <= args.warmup <= 600:
        ap.error("--duration 1..3600, --warmup 0..600")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
