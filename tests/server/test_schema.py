"""Unknown fields and fields of the wrong type are protocol/bad_field for every command, checked before
the command is dispatched (server/schema.py, rooms/fields.py)."""

from rooms import commands
from rooms.fields import BOOL, INT, MAP, NUMBER, TEXT
from rooms.tournament import tournament
from server import schema

GOOD = {TEXT: "x", INT: 1, BOOL: True, MAP: {}, NUMBER: 1}
WRONG = {TEXT: [12345, None], INT: ["1", True, None, 1.5], BOOL: [1, "true", None], MAP: [[1], "x", None],
         NUMBER: ["1", True, None]}


def valid(spec: dict, t: str) -> dict:
    """``t`` with each required field given a value of its type."""
    return {"t": t, **{name: GOOD[f.types] for name, f in spec.items() if f.required}}


def bad_variants(spec: dict, t: str):
    base = valid(spec, t)
    yield {**base, "x": 1}
    for name, f in spec.items():
        for v in WRONG[f.types]:
            yield {**base, name: v}
        if f.required:
            yield {k: v for k, v in base.items() if k != name}


def test_every_command_declares_its_fields():
    assert set(commands.COMMANDS) == set(commands.FIELDS)
    assert set(tournament._COMMANDS) == set(tournament.COMMAND_FIELDS)
    assert set(schema.COMMANDS) >= set(commands.COMMANDS) | {"ping", "guest", "chat", "tournament_cmd"}


async def test_unknown_fields_and_wrong_types_are_bad_field_for_every_command(server):
    c = await server.client(name="Strict")
    tried = 0
    for t, spec in schema.COMMANDS.items():
        for msg in bad_variants(spec, t):
            r = await c.request(msg)
            assert (r["t"], r.get("code")) == ("error", "protocol/bad_field"), (msg, r)
            tried += 1
    for t, spec in tournament.COMMAND_FIELDS.items():
        for cmd in bad_variants(spec, t):
            r = await c.request({"t": "tournament_cmd", "tournament": "t00000000", "cmd": cmd})
            assert (r["t"], r.get("code")) == ("error", "protocol/bad_field"), (cmd, r)
            tried += 1
    assert tried > 100
    # The examples that used to be answered as if nothing was wrong:
    assert (await c.request({"t": "ping", "x": 1}))["code"] == "protocol/bad_field"
    assert (await c.request({"t": "join", "code": 12345}))["code"] == "protocol/bad_field"
    # Not signed in: the fields are checked first all the same.
    d = await server.client()
    assert (await d.request({"t": "ping", "x": 1}))["code"] == "protocol/bad_field"
    assert (await d.request({"t": "ping"}))["t"] == "pong"


def test_docs_list_every_commands_fields():
    """docs/protocol.md "Commands and their fields" says what the schema does, command by command."""
    import re
    from pathlib import Path

    from rooms.fields import describe

    text = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text[text.index("### Commands and their fields"):text.index("## Errors")]
    lobby, inner = section.split("tournament_cmd`'s `cmd`")
    for part, specs in ((lobby, schema.COMMANDS), (inner, tournament.COMMAND_FIELDS)):
        rows = dict(re.findall(r"^\| `([a-z_]+)` \| (.*) \|$", part, re.M))
        for t, spec in specs.items():
            want = ", ".join(f"`{n}`{'' if f.required else '?'} {describe(f)}" for n, f in spec.items()) or "—"
            assert rows.pop(t, None) == want, t
        assert rows == {}


def test_the_command_table_has_one_handler_for_every_command():
    """server/commands.py: the table (``t`` -> handler) covers exactly the commands the schema declares;
    only ping and the sign-ins are taken from a connection that has not signed in."""
    from server import commands

    assert set(commands.HANDLERS) == set(schema.COMMANDS)
    assert set(commands.BEFORE_SIGN_IN) == {"ping", "guest", "resume", "login"}
