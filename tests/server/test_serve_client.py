"""Where ``guobiao serve`` finds the browser client: the installed package's copy (a build of the
package made where web_client/dist was built carries it, setup.py), the checkout's web_client/dist, or
``--client DIR``. Without one it says so clearly on stderr and serves all the same, GET / answering a
page that says how to connect."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

from server.http import STATIC, client_missing, default_client

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
    assert STATIC == ROOT / "web_client" / "dist"  # no copy in a checkout's package (.gitignore)
    assert client_missing(ROOT / "docs") is not None  # a folder without index.html


def _build(src: Path, out: Path) -> None:
    """``setup.py build``: what a wheel (a non-editable ``pip install .``) is made of."""
    subprocess.run([sys.executable, "setup.py", "-q", "build", "--build-lib", str(out)], cwd=src, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)


def test_a_build_of_the_package_carries_the_client_built_before_it(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in ("game", "rooms", "server"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "client"))
    _build(src, tmp_path / "bare")
    assert (tmp_path / "bare" / "server" / "http.py").is_file()
    assert not (tmp_path / "bare" / "server" / "client").exists()  # nothing built: nothing carried
    dist = src / "web_client" / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<!doctype html>", encoding="utf-8")
    (dist / "assets" / "index-1.js").write_text("1", encoding="utf-8")
    _build(src, tmp_path / "full")
    packaged = tmp_path / "full" / "server" / "client"
    assert sorted(p.relative_to(packaged).as_posix() for p in packaged.rglob("*") if p.is_file()) == [
        "assets/index-1.js", "index.html"]
    # The installed package serves its copy; without one, the checkout's build.
    assert default_client(packaged, tmp_path / "checkout") == packaged
    assert default_client(tmp_path / "bare" / "server" / "client", tmp_path / "checkout") == tmp_path / "checkout"
