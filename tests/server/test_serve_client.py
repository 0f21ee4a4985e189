"""Where ``guobiao serve`` finds the browser client: the checkout's web_client/dist, or ``--client DIR``
(an installed package carries no build). Without one it says so clearly on stderr and serves all the
same, GET / answering a page that says how to connect."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

from server.http import STATIC, client_missing

ROOT = Path(__file__).resolve().parents[2]


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.read().decode()


async def _serve(tmp_path: Path, client: Path) -> tuple[int, str, str]:
    """Start ``guobiao serve --client client``: GET /'s status and page, and what it wrote to stderr."""
    argv = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", str(tmp_path / "g.db"),
            "--log-level", "WARNING", "--client", str(client)]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 30)
        assert "Guobiao is serving" in line, line
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        status, page = await asyncio.to_thread(_get, f"http://127.0.0.1:{port}/")
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()
        err = proc.stderr.read()
        proc.stderr.close()
    return status, page, err


async def test_serve_without_the_client_files_says_so_and_serves_the_placeholder(tmp_path):
    status, page, err = await _serve(tmp_path, tmp_path / "no-such-dist")
    assert "no browser client in" in err and "--client DIR" in err and "npm run build" in err
    assert status == 200 and "The browser client is not built yet" in page


async def test_serve_client_serves_the_build_it_names(tmp_path):
    dist = tmp_path / "dist"
    dist.mkdir()
    (dist / "index.html").write_text("<!doctype html><title>built client</title>", encoding="utf-8")
    status, page, err = await _serve(tmp_path, dist)
    assert status == 200 and "built client" in page
    assert "no browser client" not in err


def test_the_default_is_the_checkouts_build():
    assert STATIC == ROOT / "web_client" / "dist"
    assert client_missing(ROOT / "docs") is not None  # a folder without index.html
