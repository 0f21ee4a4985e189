"""One wire schema: the messages are declared in server/wire.py, the client's types are generated from it
(server/wire_ts.py, ``make wire``), and what the server really sends matches the declarations."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import types
import typing
from pathlib import Path
from typing import Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints

from game.views import EVENT_FIELDS
from rooms.tournament.config import TournamentConfig
from server import wire, wire_ts
from tests.server.client import play
from tests.server.test_play import table

GENERATED = Path(__file__).resolve().parents[2] / "web_client" / "src" / "wire.gen.ts"
_BY_T = {get_args(get_type_hints(td)["t"])[0]: td for td in wire.MESSAGES + wire.EVENTS}
_ACTIONS = {get_args(get_type_hints(td)["a"])[0]: td for td in get_args(wire.Action)}


def problems(value, tp, path: str = "") -> list[str]:
    """Where ``value`` differs from the annotation ``tp``: an unknown key, a missing one, a wrong type."""
    if tp is Any:
        return []
    if tp is float:
        return [] if type(value) in (int, float) else [f"{path}: {value!r} is not a number"]
    if tp in (int, str, bool, type(None)):
        return [] if type(value) is tp else [f"{path}: {value!r} is not {tp.__name__}"]
    if isinstance(tp, type) and (typing.is_typeddict(tp) or dataclasses.is_dataclass(tp)):
        if not isinstance(value, dict):
            return [f"{path}: {value!r} is not a {tp.__name__}"]
        hints = get_type_hints(tp, include_extras=True)
        keys = {k[:-1] if k.endswith("_") else k: k for k in hints}
        out = [f"{path}.{k}: not in {tp.__name__}" for k in value if k not in keys]
        for key, name in keys.items():
            ann = hints[name]
            optional = get_origin(ann) is NotRequired
            if optional:
                ann = get_args(ann)[0]
            if key in value:
                out += problems(value[key], ann, f"{path}.{key}")
            elif not optional:
                out.append(f"{path}.{key}: missing from {tp.__name__}")
        return out
    origin, args = get_origin(tp), get_args(tp)
    if origin is Literal:
        return [] if value in args else [f"{path}: {value!r} not one of {args}"]
    if origin in (Union, types.UnionType):
        if isinstance(value, dict) and value.get("t") in _BY_T and _BY_T[value["t"]] in args:
            return problems(value, _BY_T[value["t"]], path)
        if isinstance(value, dict) and value.get("a") in _ACTIONS and _ACTIONS[value["a"]] in args:
            return problems(value, _ACTIONS[value["a"]], path)
        if value is not None and type(None) in args:
            args = tuple(a for a in args if a is not type(None))
        tries = [problems(value, a, path) for a in args]
        return [] if any(not p for p in tries) else min(tries, key=len)
    if origin in (list, tuple):
        if not isinstance(value, (list, tuple)):
            return [f"{path}: {value!r} is not a list"]
        if origin is tuple:
            if len(value) != len(args):
                return [f"{path}: {value!r} has not {len(args)} items"]
            return [p for i, (v, a) in enumerate(zip(value, args)) for p in problems(v, a, f"{path}[{i}]")]
        return [p for i, v in enumerate(value) for p in problems(v, args[0], f"{path}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: {value!r} is not a map"]
        return [p for k, v in value.items() for p in problems(k, args[0], f"{path} key") + problems(v, args[1], f"{path}.{k}")]
    raise TypeError(tp)


def test_the_generated_client_types_are_up_to_date():
    """web_client/src/wire.gen.ts is what `make wire` writes from server/wire.py and server/schema.py."""
    assert GENERATED.read_text(encoding="utf-8") == wire_ts.generate(), "stale: run `make wire`"


def test_the_generated_types_name_every_message_and_command():
    text = wire_ts.generate()
    for td in wire.MESSAGES:
        assert f"export interface {td.__name__} {{" in text
        assert f'  t: "{get_args(get_type_hints(td)["t"])[0]}";' in text
    assert '  t: "act";\n  id?: number;\n  action: Record<string, any>;' in text
    assert "  from: number | null;" in text  # a Python keyword on the wire


def test_every_game_event_is_declared_with_the_fields_a_seat_may_see():
    """The events' declarations are game/views.py EVENT_FIELDS (what each seat may see), field for field."""
    assert set(_BY_T) >= set(EVENT_FIELDS)
    for t, (public, own) in EVENT_FIELDS.items():
        fields = {k.rstrip("_") for k in get_type_hints(_BY_T[t])}
        assert fields == {"t", "hand", *(public or ()), *own}, t


def test_the_tournament_config_declaration_has_the_config_keys():
    keys = set(get_type_hints(wire.TournamentConfig))
    assert keys == {f.name for f in dataclasses.fields(TournamentConfig)}


def test_the_checker_finds_a_wrong_message():
    ok = {"t": "commitment", "match": 0, "commitment": "ab", "room": "r", "rseq": 3, "n": 1}
    assert problems(ok, wire.ServerMessage) == []
    assert problems({**ok, "extra": 1}, wire.ServerMessage) == [".extra: not in CommitmentMsg"]
    assert problems({**ok, "match": "0"}, wire.ServerMessage) == [".match: '0' is not int"]
    assert problems({"t": "commitment", "match": 0}, wire.ServerMessage) == [".commitment: missing from CommitmentMsg"]


async def test_every_message_of_a_played_match_matches_the_schema(server):
    """Four clients play a match over real sockets (with the wait hint, a chat and the lobby's lists):
    every frame each of them got is one of server/wire.py's messages, exactly."""
    cs, room = await table(server, ("msgpack", "msgpack", "msgpack", "json"))
    assert (await cs[0].request({"t": "hint", "on": True}))["t"] == "ok"
    assert (await cs[1].request({"t": "chat", "text": "好"}))["t"] == "ok"
    rng = random.Random(3)
    await asyncio.gather(*(play(c, rng, lambda m: m.get("t") == "reveal") for c in cs))
    await cs[0].request({"t": "snapshot"})
    await cs[2].request({"t": "rooms"})
    await cs[2].request({"t": "tournaments"})
    await cs[3].request({"t": "ping"})
    frames = [f for c in cs for f in c.frames]
    seen = {f["t"] for f in frames}
    assert {"welcome", "snapshot", "room", "game", "hand_result", "match_result", "commitment", "reveal", "chat",
            "ok", "rooms", "tournaments", "pong"} <= seen, seen
    assert any("hint" in f for f in frames if f["t"] == "game")
    bad = [(f["t"], p) for f in frames for p in problems(f, wire.ServerMessage)]
    assert not bad, bad[:10]
    # The match's replay file (GET /api/matches/<id>), as the client's replay viewer reads it.
    (reveal,) = [f for f in cs[0].frames if f["t"] == "reveal"]
    status, served = await server.app.api(f"/api/matches/{reveal['id']}")
    assert status == 200 and served["hands"] and all("events" in h for h in served["hands"])
    assert problems(served, wire.MatchFile) == []
