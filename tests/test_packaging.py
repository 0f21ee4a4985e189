"""pyproject.toml lists every folder of the installed packages, so setuptools installs none of them
as bare data (its BuildBackendWarning "Package 'server.migrations' is absent from the `packages`
configuration") and the migrations' SQL files are package data of a listed package. `make` reinstalls
the venv when an install file changes."""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_every_package_folder_is_listed_so_install_does_not_warn():
    listed = set(_config()["packages"])
    tops = {name for name in listed if "." not in name}
    folders = set()
    for top in tops:
        for d in [ROOT / top, *(p for p in (ROOT / top).rglob("*") if p.is_dir())]:
            if d.name == "__pycache__" or not any(f.is_file() for f in d.iterdir()):
                continue
            folders.add(".".join(d.relative_to(ROOT).parts))
    assert folders - listed == set(), "folders setuptools would install as data (list them in packages)"


def test_migrations_are_package_data():
    data = _config()["package-data"]
    assert "*.sql" in data.get("server.migrations", [])
    assert list((ROOT / "server" / "migrations").glob("*.sql"))


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("changed", ["pyproject.toml", "setup.py"])
def test_make_reinstalls_the_venv_after_a_change_to_the_install_files(tmp_path, changed):
    # `make test` after a dependency change (pyproject.toml) or a build change (setup.py) must reinstall:
    # the venv's stamp is out of date once either file is newer than it.
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    for name in ("pyproject.toml", "setup.py"):
        (tmp_path / name).write_text("")
    stamp = tmp_path / ".venv" / ".installed"
    stamp.parent.mkdir()
    stamp.write_text("")
    os.utime(tmp_path / "pyproject.toml", (1_000_000, 1_000_000))
    os.utime(tmp_path / "setup.py", (1_000_000, 1_000_000))
    os.utime(stamp, (2_000_000, 2_000_000))

    def fresh() -> bool:  # make -q: exit 0 when the target is up to date, 1 when it would be rebuilt
        return subprocess.run(["make", "-q", ".venv/.installed"], cwd=tmp_path, capture_output=True).returncode == 0

    assert fresh()
    os.utime(tmp_path / changed, (3_000_000, 3_000_000))
    assert not fresh()
