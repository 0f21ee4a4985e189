"""Bots as competitors in the tournament core: the organiser enters an external bot by its name and
takes it out again before the start (``unregister_bot``); bad input is refused and changes nothing."""

import pytest

from rooms.tournament import errors as E

from .support import ORG, REF, events, make, register
from .test_commands import rejected


def ids(t) -> list[str]:
    return [p["id"] for p in t.view(None)["players"]]


def test_unregister_bot_takes_the_bot_out_before_the_start():
    t = make(starts=(100.0,), hands=1)
    t.handle(ORG, {"t": "register_bot", "bot": "greedy"}, 1.0)
    register(t, ["a"], 2.0)
    assert ids(t) == ["bot:greedy", "a"]
    out = t.handle(ORG, {"t": "unregister_bot", "bot": "greedy"}, 3.0)
    assert [e.msg["player"] for e in events(out, "unregistered")] == ["bot:greedy"]
    assert ids(t) == ["a"]
    assert [r["player"] for r in t.view(None)["standings"]] == ["a"]
    t.handle(ORG, {"t": "register_bot", "bot": "greedy"}, 4.0)  # and may enter it again
    assert ids(t) == ["a", "bot:greedy"]


@pytest.mark.parametrize("who, cmd, code", [
    ("a", {"t": "unregister_bot", "bot": "greedy"}, E.NOT_ORGANISER),  # a player
    (REF, {"t": "unregister_bot", "bot": "greedy"}, E.NOT_ORGANISER),  # the referee
    (ORG, {"t": "unregister_bot", "bot": "other"}, E.NOT_REGISTERED),  # not in this tournament
    (ORG, {"t": "unregister_bot", "bot": "a"}, E.NOT_REGISTERED),  # a player's id is not a bot's name
    (ORG, {"t": "unregister_bot", "bot": "bot:greedy"}, E.BAD_COMMAND),  # the name, not the id
    (ORG, {"t": "unregister_bot", "bot": "/usr/bin/greedy"}, E.BAD_COMMAND),
    (ORG, {"t": "unregister_bot", "bot": "x" * 33}, E.BAD_COMMAND),
    (ORG, {"t": "unregister_bot", "bot": 5}, E.BAD_COMMAND),
    (ORG, {"t": "unregister_bot"}, E.BAD_COMMAND),
    (ORG, {"t": "unregister_bot", "bot": "greedy", "x": 1}, E.BAD_COMMAND),
])
def test_unregister_bot_refuses_bad_input_and_changes_nothing(who, cmd, code):
    t = make(starts=(100.0,), hands=1)
    t.handle(ORG, {"t": "register_bot", "bot": "greedy"}, 1.0)
    register(t, ["a"], 2.0)
    rejected(t, who, cmd, 3.0, code)
    assert ids(t) == ["bot:greedy", "a"]


def test_unregister_bot_is_refused_once_the_event_starts():
    t = make(starts=(100.0,), hands=1)
    t.handle(ORG, {"t": "register_bot", "bot": "greedy"}, 1.0)
    register(t, ["a", "b", "c"], 2.0)
    rejected(t, ORG, {"t": "unregister_bot", "bot": "greedy"}, 100.0, E.STARTED)  # due, before the tick
    t.tick(100.0)
    rejected(t, ORG, {"t": "unregister_bot", "bot": "greedy"}, 101.0, E.STARTED)
    assert "bot:greedy" in ids(t)


def test_unregister_bot_is_refused_after_a_cancel():
    t = make(hands=1)
    t.handle(ORG, {"t": "register_bot", "bot": "greedy"}, 1.0)
    t.handle(ORG, {"t": "cancel"}, 2.0)
    rejected(t, ORG, {"t": "unregister_bot", "bot": "greedy"}, 3.0, E.CLOSED)
