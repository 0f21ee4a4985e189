"""One wire schema: the messages are declared in server/wire.py, the client's types are generated from it
(server/wire_ts.py, ``make wire``), and what the server really sends matches the declarations."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from pathlib import Path
from typing import get_args, get_type_hints

from game.views import EVENT_FIELDS
from rooms.tournament.config import TournamentConfig
from server import wire, wire_ts
from tests.server.client import play
from tests.server.test_play import table
from tests.server.wirecheck import BY_T, problems

GENERATED = Path(__file__).resolve().parents[2] / "web_client" / "src" / "wire.gen.ts"


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
    assert set(BY_T) >= set(EVENT_FIELDS)
    for t, (public, own) in EVENT_FIELDS.items():
        fields = {k.rstrip("_") for k in get_type_hints(BY_T[t])}
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
