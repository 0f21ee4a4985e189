"""pyproject.toml lists every folder of the installed packages, so setuptools installs none of them
as bare data (its BuildBackendWarning "Package 'server.migrations' is absent from the `packages`
configuration") and the migrations' SQL files are package data of a listed package."""

from __future__ import annotations

import tomllib
from pathlib import Path

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
