"""TournamentConfig: validation with stable codes, to_dict/from_dict."""

import pytest

from rooms.tournament import TournamentConfig, TournamentError
from rooms.tournament.errors import BAD_CONFIG, CODES


def test_defaults_round_trip():
    c = TournamentConfig(name="Open")
    assert (c.type, c.sessions, c.hands, c.time_limit, c.time_up) == ("guobiao", 1, 16, 0, "void")
    assert (c.checkin_before, c.min_players, c.fill_bots, c.checkin_required) == (1800.0, 4, True, True)
    assert TournamentConfig.from_dict(c.to_dict()) == c
    c2 = TournamentConfig(name="Cup", sessions=2, starts=(100.0, None), seating="snake", time_limit=90)
    d = c2.to_dict()
    assert d["starts"] == [100.0, None]
    assert TournamentConfig.from_dict(d) == c2
    assert c2.start_of(1) == 100.0 and c2.start_of(2) is None
    assert TournamentConfig(name="x", sessions=3).start_of(2) is None


def test_table_config_carries_the_room_settings():
    c = TournamentConfig(name="x", type="dazhong", hands=8, turn_time=20.0, claim_time=6.0, bank=30.0)
    assert c.table_config() == {"type": "dazhong", "private": True, "hands": 8, "turn_time": 20.0,
                                "claim_time": 6.0, "bank": 30.0, "bots": True, "false_win_penalty": False}


@pytest.mark.parametrize("fields", [
    {"name": ""}, {"name": "  "}, {"name": "x" * 61}, {"name": 5},
    {"type": "riichi"}, {"sessions": 0}, {"sessions": 21}, {"sessions": True},
    {"hands": 0}, {"hands": 17}, {"time_limit": -1}, {"time_up": "later"}, {"seating": "lottery"},
    {"starts": [1.0]}, {"starts": (1.0,), "sessions": 2}, {"starts": (2.0, 1.0), "sessions": 2},
    {"starts": (float("nan"),)}, {"checkin_before": -1}, {"max_players": 0}, {"min_players": 0},
    {"min_players": 9, "max_players": 8}, {"fill_bots": 1}, {"fill_bots": False, "min_players": 2},
    {"turn_time": 0}, {"bank": -5}, {"checkin_required": "yes"},
])
def test_bad_configs(fields):
    fields = {"name": "ok", **fields}
    with pytest.raises(TournamentError) as err:
        TournamentConfig(**fields)
    assert err.value.code == BAD_CONFIG


def test_from_dict_rejects_unknown_and_missing():
    for d in ({"name": "x", "colour": "red"}, {}, [], {"name": "x", "starts": 5}):
        with pytest.raises(TournamentError) as err:
            TournamentConfig.from_dict(d)
        assert err.value.code == BAD_CONFIG


def test_codes_are_stable_strings():
    assert all(c.startswith("tournament/") for c in CODES)
    assert len(set(CODES)) == len(CODES)
    assert TournamentError(BAD_CONFIG, "m").to_dict() == {"t": "error", "code": BAD_CONFIG, "message": "m"}
