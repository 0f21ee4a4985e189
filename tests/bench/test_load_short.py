"""The short CI version of bench/load.py and bench/soak.py (issue 8).

Soak: 50 tables (200 connections) for 20 s at 10 actions/s per table, with single-client drops, one mass
reconnect of half the clients and one SIGKILL of the server; afterwards, from the database, no
acknowledged action may be missing or duplicated, every match finished or continues (the server restores
every open room), and the clients saw no protocol error. Load: a few seconds of closed-loop tables against
the server and against the fan-out baseline, without errors. Both run as their own processes (they pin
themselves and the server to cores), bounded in time.
"""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(args: list[str], out: Path, timeout: float) -> dict:
    proc = subprocess.run([sys.executable, *args, "--json", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    assert out.exists(), proc.stdout + proc.stderr
    return json.loads(out.read_text()) | {"_stdout": proc.stdout, "_stderr": proc.stderr, "_code": proc.returncode}


def test_soak_short_with_a_kill(tmp_path):
    r = run(["bench/soak.py", "--minutes", str(20 / 60), "--tables", "50", "--rate", "10", "--kills", "1",
             "--mass", "1", "--drops-per-min", "30", "--sample-every", "2", "--workdir", str(tmp_path / "w")],
            tmp_path / "soak.json", timeout=150)
    info = r["_stdout"] + r["_stderr"]
    d = r["database"]
    assert r["faults"]["kills"] == 1 and r["faults"]["mass_reconnects"] == 1, info
    assert d["acked"] > 1000, info  # the tables really played
    assert d["missing"] == 0 and d["duplicated"] == 0 and d["acked_twice"] == 0, info
    assert d["log_problem_count"] == 0, info
    assert d["matches_unfinished_in_closed_rooms"] == 0, info
    assert r["rooms_restored_after"] == d["open_rooms"], info
    assert r["errors"] == {}, info  # no protocol error, no unexpected close, no gap, no ERROR in the server log
    assert r["counts"]["reconnects"] >= 200, info  # everybody came back after the kill
    assert r["ok"] and r["_code"] == 0, info


def test_load_short_against_the_baseline(tmp_path):
    r = run(["bench/load.py", "--tables", "20", "--closed", "--duration", "4", "--warmup", "1", "--baseline"],
            tmp_path / "load.json", timeout=120)
    info = r["_stdout"] + r["_stderr"]
    ours, base = r["runs"]
    for x in (ours, base):
        assert x["error_count"] == 0, info
        assert x["actions"] > 100, info
        assert x["latency_ms"]["p50"] is not None, info
    assert 0 < r["ratio"], info
    assert r["_code"] == 0, info
