"""Tiles and hand notation: parse/format round-trips, errors, reference codes."""

import pytest
from hypothesis import given, strategies as st

from game.hand import CHOW, KONG, PUNG, Hand, Meld, format_hand, parse_hand
from game.tiles import (
    EAST,
    M1,
    NUM_KINDS,
    P5,
    RED,
    S9,
    WHITE,
    NotationError,
    format_tiles,
    from_reference,
    parse_tile,
    parse_tiles,
    tile_name,
    to_reference,
)

kinds = st.integers(min_value=0, max_value=NUM_KINDS - 1)
tiles_and_flowers = st.integers(min_value=0, max_value=41)


@given(st.lists(tiles_and_flowers, max_size=20))
def test_tiles_round_trip(tiles):
    assert parse_tiles(format_tiles(tiles)) == tiles


@given(kinds)
def test_reference_codes_round_trip(t):
    assert from_reference(to_reference(t)) == t


def test_named_constants_and_codes():
    assert tile_name(M1) == "1m" and to_reference(M1) == "W1"
    assert tile_name(S9) == "9s" and to_reference(S9) == "T9"
    assert tile_name(P5) == "5p" and to_reference(P5) == "B5"
    assert tile_name(EAST) == "E" and to_reference(EAST) == "F1"
    assert tile_name(RED) == "C" and to_reference(RED) == "J1"
    assert tile_name(WHITE) == "P" and to_reference(WHITE) == "J3"
    assert parse_tiles("1h8h") == [34, 41]


melds = st.one_of(
    st.builds(lambda t: Meld(CHOW, t), st.sampled_from([s * 9 + r for s in range(3) for r in range(7)])),
    st.builds(lambda t: Meld(PUNG, t), kinds),
    st.builds(lambda t, c: Meld(KONG, t, concealed=c), kinds, st.booleans()),
)


@given(st.lists(melds, max_size=4), st.lists(kinds, max_size=13), st.one_of(st.none(), kinds))
def test_hand_round_trip(meld_list, standing, win):
    hand = Hand(tuple(meld_list), tuple(sorted(standing)))
    text = format_hand(hand, win)
    assert parse_hand(text) == (hand, win)


def test_hand_notation_example():
    hand, win = parse_hand("[EEE] {FFFF} [123m] 55pWW +W")
    assert hand.melds == (Meld(PUNG, EAST), Meld(KONG, 32, concealed=True), Meld(CHOW, M1))
    assert win == 29
    assert str(hand) == "[EEE] {FFFF} [123m] 55pWW"


@pytest.mark.parametrize("text, code", [
    ("123", "notation/missing_suit"),
    ("m", "notation/bad_tile"),
    ("0m", "notation/bad_tile"),
    ("9h", "notation/bad_tile"),
    ("12x", "notation/bad_character"),
    ("[124m]", "notation/bad_meld"),
    ("[89m1s]", "notation/bad_meld"),
    ("{EEE}", "notation/bad_meld"),
    ("[EE]", "notation/bad_meld"),
    ("11m [EEE]", "notation/meld_after_tiles"),
    ("11m +E 22m", "notation/win_not_last"),
    ("11m +EE", "notation/not_one_tile"),
])
def test_notation_errors(text, code):
    with pytest.raises(NotationError) as e:
        parse_hand(text)
    assert e.value.code == code


def test_parse_tile_needs_one():
    assert parse_tile(" 7s ") == 15
    with pytest.raises(NotationError):
        parse_tile("7s8s")
