"""Invite codes and room configuration."""

import math

import pytest

from rooms.config import RoomConfig
from rooms.errors import RoomError
from rooms.invite import ALPHABET, LENGTH, display, new_code, normalize


def test_alphabet_is_unambiguous():
    assert len(ALPHABET) == 31 and len(set(ALPHABET)) == 31
    assert not set("0O1IL") & set(ALPHABET)
    assert ALPHABET == ALPHABET.upper()


def test_codes_carry_enough_entropy():
    assert LENGTH * math.log2(len(ALPHABET)) > 39


def test_new_code_is_a_function_of_the_bytes():
    code = new_code(bytes(range(16)))
    assert len(code) == LENGTH and set(code) <= set(ALPHABET)
    assert code == new_code(bytes(range(16)))
    assert new_code(bytes(range(1, 17))) != code


def test_new_code_skips_biased_bytes():
    # 248..255 would favour the first 8 symbols: they are skipped.
    assert new_code(bytes([255, 250, 248]) + bytes(range(8))) == new_code(bytes(range(8)))
    assert new_code(bytes([30] * 8)) == ALPHABET[30] * 8


def test_new_code_needs_enough_bytes():
    with pytest.raises(ValueError):
        new_code(bytes([255] * 20))
    with pytest.raises(ValueError):
        new_code(bytes(7))


def test_every_symbol_is_reachable_evenly():
    counts = {ch: 0 for ch in ALPHABET}
    for b in range(248):
        counts[new_code(bytes([b] * 8))[0]] += 1
    assert set(counts.values()) == {8}


@pytest.mark.parametrize("typed", ["ABCD2345", "abcd2345", "abcd-2345", " AbCd 2345 ", "ab.cd_23-45"])
def test_normalize_accepts_case_and_separators(typed):
    assert normalize(typed) == "ABCD2345"


@pytest.mark.parametrize("typed", ["ABCD234", "ABCD23456", "ABCD2340", "ABCDO345", "ABCD1345", "ABCDI345",
                                   "ABCDL345", "", None, 12345678, "ABCD234!"])
def test_normalize_rejects_what_cannot_be_a_code(typed):
    assert normalize(typed) is None


def test_display_groups_the_code():
    assert display("ABCD2345") == "ABCD-2345" and normalize(display("ABCD2345")) == "ABCD2345"


def test_config_defaults_are_r98():
    c = RoomConfig()
    assert (c.first_turn_time, c.turn_time, c.claim_time, c.bank, c.grace) == (30, 15, 8, 60, 20)
    assert c.type == "guobiao" and c.hands == 16 and not c.false_win_penalty


def test_config_round_trips():
    c = RoomConfig(type="dazhong", private=False, hands=8, turn_time=10, claim_time=5, bank=30, bots=False,
                   spectators=False, false_win_penalty=True)
    assert RoomConfig.from_dict(c.to_dict()) == c
    r = c.rules()
    assert r.hands == 8 and r.false_win_penalty and r.settlement == "dazhong"


@pytest.mark.parametrize("kw", [
    {"type": "riichi"}, {"hands": 5}, {"hands": "4"}, {"turn_time": -1}, {"bank": float("nan")},
    {"bots": 1}, {"private": "yes"}, {"claim_min": 9.0}, {"pair_258_points": -1}, {"claim_time": 10 ** 6},
])
def test_config_rejects_bad_values(kw):
    with pytest.raises(RoomError) as e:
        RoomConfig(**kw)
    assert e.value.code == "room/bad_config"


def test_config_from_dict_rejects_unknown_fields():
    with pytest.raises(RoomError):
        RoomConfig.from_dict({"type": "guobiao", "speed": 2})
    with pytest.raises(RoomError):
        RoomConfig.from_dict("guobiao")


def test_a_configs_dict_is_built_once_and_each_caller_gets_its_own_copy(monkeypatch):
    """A room's info carries its config in every message (~26 at a tournament table's start): asdict
    once per config, then a copy; the fields' values and types as given (30 stays an int)."""
    from dataclasses import asdict

    import rooms.config

    built = []
    monkeypatch.setattr(rooms.config, "asdict", lambda c: built.append(c) or asdict(c))
    c = RoomConfig(hands=4, turn_time=30)
    first = c.to_dict()
    first["hands"] = 8  # a caller's change stays its own
    for _ in range(25):
        assert c.to_dict() == asdict(c)
    assert len(built) == 1 and type(c.to_dict()["turn_time"]) is int
    assert c == RoomConfig(hands=4, turn_time=30) and "_dict" not in repr(c)
    assert RoomConfig.from_dict(c.to_dict()) == c and len(built) == 1
    assert RoomConfig(hands=4, turn_time=30.0).to_dict()["turn_time"] == 30.0 and len(built) == 2  # its own
