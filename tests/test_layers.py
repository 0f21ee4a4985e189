"""The layers depend downwards only: game/ does no I/O and keeps no clock or global random;
rooms/ imports nothing from server/ (DESIGN.md)."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GAME_FORBIDDEN = {"asyncio", "time", "os", "sys", "io", "socket", "sqlite3", "aiosqlite", "websockets",
                  "msgpack", "datetime", "threading", "subprocess", "pathlib", "json",
                  "rooms", "server", "logging", "secrets", "uuid", "shutil", "tempfile"}
ROOMS_FORBIDDEN = {"asyncio", "time", "socket", "sqlite3", "aiosqlite", "websockets", "msgpack",
                   "server", "subprocess", "threading"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def sources(package: str):
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("path", sources("game"), ids=lambda p: str(p.relative_to(ROOT)))
def test_game_is_pure(path):
    bad = imported_modules(path) & GAME_FORBIDDEN
    assert not bad, f"{path.name} imports {sorted(bad)}"


@pytest.mark.parametrize("path", sources("rooms"), ids=lambda p: str(p.relative_to(ROOT)))
def test_rooms_do_no_io(path):
    bad = imported_modules(path) & ROOMS_FORBIDDEN
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_game_uses_no_global_random():
    # A seeded random.Random object is allowed only if passed in; the module `random` is not imported.
    for path in sources("game"):
        assert "random." not in path.read_text(encoding="utf-8").replace("random.Random", ""), path
