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
