"""Every script under bench/ still runs: each is started with ``--smoke`` (its smallest sizes, a few
seconds) and must exit 0 and print its figures. The scripts are found by listing bench/, so a new one
joins by itself, and one that does not accept ``--smoke`` fails here (argparse refuses the flag)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p.name for p in (ROOT / "bench").glob("*.py") if p.name != "__init__.py")
# A figure: a label, then a number on the same line ("wins: 7 (87.5 %)", "ours  11,246 hands/s").
SKIPPED = 77  # bench/cluster.py without redis-server or PostgreSQL
FIGURE = re.compile(r"[^\W\d_].*?\d")


def test_the_bench_scripts_are_found():
    assert {"bots.py", "load.py", "soak.py", "loadgen.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_bench_script_runs_with_smoke_and_prints_figures(script):
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / script), "--smoke"], cwd=ROOT, capture_output=True,
                          text=True, timeout=180, stdin=subprocess.DEVNULL)
    info = f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}"
    if proc.returncode == SKIPPED:  # a service it needs is not installed (under CI=true it exits 1)
        pytest.skip(proc.stdout.strip().splitlines()[-1])
    assert proc.returncode == 0, info
    figures = [line for line in proc.stdout.splitlines() if FIGURE.search(line)]
    assert figures, info
