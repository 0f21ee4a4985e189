"""The browser client's unit tests (Vitest, web_client/test/) run as part of the Python suite, so that
`make test` covers them: the view-state reducer (checked against this repository's game/), the wait
hint, the tile faces, the message reducer. Needs Node 20+ and npm; without them the test is skipped on
a developer's machine and fails under CI=true."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parents[2] / "web_client"


def test_vitest_unit_tests_pass():
    npm = shutil.which("npm")
    if npm is None:
        if os.environ.get("CI") == "true":
            pytest.fail("npm is not installed (CI=true: the client's unit tests must run)", pytrace=False)
        pytest.skip("npm is not installed")
    if not (CLIENT / "node_modules").is_dir():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=CLIENT, check=True)
    env = {**os.environ, "PYTHON": sys.executable, "NO_COLOR": "1", "FORCE_COLOR": "0"}
    r = subprocess.run([npm, "test", "--silent"], cwd=CLIENT, env=env, capture_output=True, text=True, timeout=600)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-8000:]
    assert " passed" in out and " failed" not in out, out[-4000:]
