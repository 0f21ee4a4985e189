"""Room and tournament tasks talk to a narrow outbox (server/outbox.py), not to the whole App: they use
only the outbox's members, and the App provides every one of them."""

import ast
from pathlib import Path

import pytest

from server.outbox import RoomOutbox, TournamentOutbox

SERVER = Path(__file__).resolve().parents[2] / "server"


def members(protocol) -> set[str]:
    names = set(getattr(protocol, "__annotations__", {}))
    names |= {n for n, v in vars(protocol).items() if callable(v) and not n.startswith("_")}
    return names


def used_of_app(path: Path) -> set[str]:
    """Every ``X`` in ``self.app.X`` (and ``app.X`` passed on, in ``Failures.failed``) in a module."""
    used = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute):
            v = node.value
            if isinstance(v, ast.Attribute) and v.attr == "app" and isinstance(v.value, ast.Name) and v.value.id == "self":
                used.add(node.attr)
    return used


@pytest.mark.parametrize("module, protocol", [("roomtask.py", RoomOutbox), ("tournaments.py", TournamentOutbox)])
def test_tasks_use_only_their_outbox(module, protocol):
    used = used_of_app(SERVER / module)
    assert used, module
    assert used <= members(protocol), f"{module} uses {sorted(used - members(protocol))} of the App"


def test_failures_answer_through_the_outbox():
    """server/taskfail.py answers and pushes with what both outboxes have."""
    text = (SERVER / "taskfail.py").read_text(encoding="utf-8")
    used = {n.attr for n in ast.walk(ast.parse(text))
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "app"}
    assert used <= members(RoomOutbox) & members(TournamentOutbox)


async def test_the_app_is_both_outboxes(server):
    for protocol in (RoomOutbox, TournamentOutbox):
        missing = {m for m in members(protocol) if not hasattr(server.app, m)}
        assert not missing and isinstance(server.app, protocol)
