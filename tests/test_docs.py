"""What the docs say about the wire agrees with the code."""

import re
from pathlib import Path

from game.tiles import CHINESE_SUITS, parse_tiles

ROOT = Path(__file__).resolve().parents[1]


def test_protocol_tile_ids_are_the_codes():
    text = " ".join((ROOT / "docs" / "protocol.md").read_text(encoding="utf-8").split())
    found = re.findall(r"(\d+)–(\d+) (characters|bamboo|dots) \((.)\)", text)
    assert found == [("0", "8", "characters", "万"), ("9", "17", "bamboo", "条"), ("18", "26", "dots", "饼")]
    for (low, high, _, chinese), letter in zip(found, "msp"):
        assert parse_tiles(f"1{letter}9{letter}") == [int(low), int(high)]
        assert CHINESE_SUITS["msp".index(letter)] == chinese


def _section(title: str) -> str:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    start = text.index(f"\n### {title}\n")
    end = text.index("\n#", start + 1)
    return text[start:end]


def _rows(section: str) -> list[list[str]]:
    rows = [line.strip().strip("|").split("|") for line in section.splitlines() if line.startswith("| `")]
    return [[c.strip() for c in r] for r in rows]


def test_protocol_room_config_table_is_roomconfig():
    """Every config field, its type and its default, as rooms.config.RoomConfig has them."""
    from dataclasses import fields

    from rooms.config import RoomConfig

    kinds = {"str": "string", "bool": "bool", "int": "int", "float": "seconds"}
    documented = {r[0].strip("`"): (r[1], r[3].strip("`")) for r in _rows(_section("Room config"))}
    expected = {}
    for f in fields(RoomConfig):
        d = f.default
        shown = str(d).lower() if isinstance(d, bool) else f"{d:g}" if isinstance(d, float) else str(d)
        expected[f.name] = (kinds[f.type], shown)
    assert documented == expected


def test_protocol_event_table_lists_every_forwarded_event_with_its_fields():
    """Each event type the views project (the game's claim answers never leave the room) has a row
    whose example carries only fields the projection lets through."""
    import json

    from game.views import EVENT_FIELDS

    rows = _rows(_section("Events"))
    documented = {r[0].strip("`"): json.loads(r[2].strip("`")) for r in rows}
    assert set(documented) == set(EVENT_FIELDS) - {"response"}
    for t, example in documented.items():
        public, own = EVENT_FIELDS[t]
        assert example["t"] == t
        assert set(example) - {"t", "hand"} <= set(public) | set(own), t


def test_protocol_action_examples_are_actions():
    import json

    from game.actions import from_dict

    rows = _rows(_section("Actions"))
    assert len(rows) >= 9
    names = set()
    for r in rows:
        action = from_dict(json.loads(r[2].strip("`")))
        names.add(action.name)
    assert names == {"discard", "win", "concealed_kong", "added_kong", "chow", "pung", "pass", "continue"}


def test_protocol_seat_changes_are_the_match_scheme():
    from game.match import SEAT_SCHEME

    text = " ".join(_section("Seats: room seats and game seats").split())
    found = re.findall(r"room seat (\d) (?:sits )?at (?:game seat )?(\d), (\d), (\d), (\d)", text)
    assert {int(p): tuple(map(int, seats)) for p, *seats in found} == dict(enumerate(SEAT_SCHEME))
