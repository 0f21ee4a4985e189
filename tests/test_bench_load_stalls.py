"""bench/load.py reports the server's stalls in the measured window from two scrapes of its GET /metrics:
the difference of the histograms, not their totals since the start."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.load import STALL, stalls  # noqa: E402


def _scrape(gc2: int, gc2_fast: int, gc2_ms: float, commits: int, commits_fast: int) -> dict[str, float]:
    le = f"{{le={STALL!r}}}"
    m = {"guobiao_gc_pause_seconds_count{generation=2}": gc2,
         "guobiao_gc_pause_seconds_sum{generation=2}": gc2_ms / 1000,
         "guobiao_gc_pause_seconds_bucket{generation=2}{le=+Inf}": gc2,
         f"guobiao_gc_pause_seconds_bucket{{generation=2}}{le}": gc2_fast,
         "guobiao_commit_seconds_bucket{le=+Inf}": commits, f"guobiao_commit_seconds_bucket{le}": commits_fast,
         "guobiao_event_loop_lag_seconds_bucket{le=+Inf}": 10, f"guobiao_event_loop_lag_seconds_bucket{le}": 10}
    for g in (0, 1):
        m[f"guobiao_gc_pause_seconds_bucket{{generation={g}}}{{le=+Inf}}"] = 5
        m[f"guobiao_gc_pause_seconds_bucket{{generation={g}}}{le}"] = 5
    return m


def test_load_reports_server_stalls_of_the_window_only():
    before = _scrape(gc2=2, gc2_fast=1, gc2_ms=900.0, commits=100, commits_fast=99)  # start-up's collections
    after = _scrape(gc2=3, gc2_fast=1, gc2_ms=1900.0, commits=150, commits_fast=146)
    st = stalls(before, after)
    assert st["gc2"] == {"count": 1, "total_ms": 1000.0, "over_stall": 1}
    assert st["gc0"] == {"count": 0, "total_ms": 0.0, "over_stall": 0}
    assert st["commits_over_stall"] == 3
    assert st["loop_lag_samples_over_stall"] == 0
    assert stalls({}, after) == {}  # the baseline has no /metrics


def test_load_reports_the_servers_share_of_the_latency_in_the_window_only():
    def scrape(counts: dict[str, int]) -> dict[str, float]:
        return {f"guobiao_action_latency_seconds_bucket{{le={le}}}": n for le, n in counts.items()}

    # Before the window 1,000 slow actions (the start-up); in it 100 actions, 98 within 2 ms, 2 within 50 ms.
    before = scrape({"0.001": 0, "0.002": 0, "0.05": 0, "1.0": 1000, "+Inf": 1000})
    after = scrape({"0.001": 40, "0.002": 98, "0.05": 100, "1.0": 1100, "+Inf": 1100})
    st = stalls(before, after)
    assert st["server_action_ms"] == {"0.5": "<= 2 ms", "0.99": "<= 50 ms"}
    assert stalls(before, before)["server_action_ms"] == {"0.5": "-", "0.99": "-"}
