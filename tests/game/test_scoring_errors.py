"""Every error code of ``game.fans.context.validate`` and ``game.scoring.score``.

decisions.md item 5: impossible inputs are errors, never silently corrected; each has a stable code
and a message naming the offending tile or flag. Each case checks the code from both ``validate``
and ``score`` and that the message holds the given fragments.
"""

from __future__ import annotations

import pytest

from game.fans.context import HandError, WinContext, validate
from game.hand import CHOW, KONG, PUNG, Hand, Meld, format_hand, parse_hand
from game.scoring import score
from game.tiles import EAST, M1, M8, P5, S1

CHICKEN = "[123m] [678s] 34p888mWW +5p"  # a valid win (无番和) to break one thing at a time


def _ctx(win: int, **flags) -> WinContext:
    return WinContext(win_tile=win, **flags)


def _parsed(notation: str, **flags) -> tuple[Hand, WinContext]:
    hand, win = parse_hand(notation)
    return hand, _ctx(win, **flags)


def _built(melds=(), tiles=(), win=P5, **flags) -> tuple[Hand, WinContext]:
    return Hand(tuple(melds), tuple(tiles)), _ctx(win, **flags)


_STANDING_10 = tuple(parse_hand("456s678p234s5p")[0].tiles)

# fmt: off
ERRORS = [
    # id                           (hand, context)                                                 code                         message holds
    ("five-melds",                 _built([Meld(PUNG, t) for t in range(5)], (), win=P5),          "hand/too_many_melds",       ("4 melds", "got 5")),
    ("nine-standing",              _parsed("[123m] 456s678p234s +5p"),                              "hand/tile_count",           ("10 tiles", "got 9")),
    ("eleven-standing",            _parsed("[123m] 456s678p234s55p +5p"),                           "hand/tile_count",           ("10 tiles", "got 11")),
    ("no-melds-fourteen",          _parsed("123m456s678p234s55p +5p"),                              "hand/tile_count",           ("13 tiles", "got 14")),
    ("flower-standing",            _built([Meld(CHOW, M1)], _STANDING_10[:-1] + (34,), win=P5),     "hand/bad_tile",             ("34",)),
    ("flower-win-tile",            _built([Meld(CHOW, M1)], _STANDING_10, win=41),                  "hand/bad_tile",             ("41",)),
    ("negative-tile",              _built([Meld(CHOW, M1)], _STANDING_10, win=-1),                  "hand/bad_tile",             ("-1",)),
    ("string-tile",                _built([Meld(CHOW, M1)], _STANDING_10, win="5p"),                "hand/bad_tile",             ("'5p'",)),
    ("float-win-tile",             _built([Meld(CHOW, M1)], _STANDING_10, win=22.0),                "hand/bad_tile",             ("22.0",)),
    ("float-standing-tile",        _built([Meld(CHOW, M1)], _STANDING_10[:-1] + (22.0,), win=P5),   "hand/bad_tile",             ("22.0",)),
    ("float-meld-tile",            _built([Meld(PUNG, 5.0)], _STANDING_10, win=P5),                 "hand/bad_tile",             ("meld", "5.0")),
    ("flower-meld",                _built([Meld(PUNG, 35)], _STANDING_10, win=P5),                  "hand/bad_tile",             ("meld", "35")),
    ("chow-across-suits",          _built([Meld(CHOW, M8)], _STANDING_10, win=P5),                  "hand/bad_chow",             ("8m",)),
    ("chow-of-honors",             _built([Meld(CHOW, EAST)], _STANDING_10, win=P5),                "hand/bad_chow",             ("E",)),
    ("concealed-pung",             _built([Meld(PUNG, M1, concealed=True)], _STANDING_10, win=P5),  "hand/bad_meld",             ("111m",)),
    ("concealed-chow",             _built([Meld(CHOW, S1, concealed=True)], _STANDING_10, win=P5),  "hand/bad_meld",             ("123s",)),
    ("fifth-copy-in-meld",         _parsed("[1111m] 1m23m456s678p5p +5p"),                          "hand/too_many_copies",      ("5 copies", "1m")),
    ("fifth-copy-win-tile",        _parsed("[123m] 5555p678p234s +5p"),                             "hand/too_many_copies",      ("5 copies", "5p")),
    ("flowers-9",                  _parsed(CHICKEN, flowers=9),                                     "context/flowers",           ("flowers", "9")),
    ("flowers-negative",           _parsed(CHICKEN, flowers=-1),                                    "context/flowers",           ("flowers", "-1")),
    ("flowers-float",              _parsed(CHICKEN, flowers=2.0),                                   "context/flowers",           ("flowers", "2.0")),
    ("seat-wind-4",                _parsed(CHICKEN, seat_wind=4),                                   "context/wind",              ("seat_wind", "4")),
    ("prevalent-wind-negative",    _parsed(CHICKEN, prevalent_wind=-1),                             "context/wind",              ("prevalent_wind", "-1")),
    ("seat-wind-float",            _parsed(CHICKEN, seat_wind=1.0),                                 "context/wind",              ("seat_wind", "1.0")),
    ("fourth-tile-held",           _parsed("[123m] [678s] 55p888mWW +5p", fourth_tile=True),        "context/fourth_tile_held",  ("和绝张", "5p")),
    ("kong-flower-without-kong",   _parsed(CHICKEN, self_drawn=True, kong=True),                    "context/kong_without_kong", ("杠上开花", "kong")),
    ("robbed-tile-held",           _parsed("[123m] [678s] 55p888mWW +5p", kong=True),               "context/robbed_tile_held",  ("抢杠和", "5p")),
    ("robbed-tile-melded",         _parsed("[123m] [678s] 45s888mWW +6s", kong=True),               "context/robbed_tile_held",  ("抢杠和", "6s")),
    ("robbed-and-last",            _parsed(CHICKEN, kong=True, last_tile=True),                     "context/robbed_and_last",   ("抢杠和", "海底捞月")),
    ("not-winning",                _parsed("[123m] [678s] 34p888mWW +6p"),                          "hand/not_winning",          ("888m34pWW +6p", "not a complete hand")),
    ("not-winning-seven-pairs",    _parsed("1133m2266s44pEEC +F"),                                  "hand/not_winning",          ("+F",)),
]
# fmt: on

VALIDATE_CODES = {code for _, _, code, _ in ERRORS} - {"hand/not_winning"}

# Known gaps in the engine: run as xfail(strict=True) so a fix is noticed.
KNOWN_GAPS: dict[str, str] = {}


def _error_params():
    params = []
    for id_, case, code, fragments in ERRORS:
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[id_])] if id_ in KNOWN_GAPS else []
        params.append(pytest.param(case, code, fragments, id=id_, marks=marks))
    return params


@pytest.mark.parametrize(("case", "code", "fragments"), _error_params())
def test_error_code_and_message(case, code, fragments):
    hand, ctx = case
    if code in VALIDATE_CODES:
        with pytest.raises(HandError) as raised:
            validate(hand, ctx)
        assert raised.value.code == code
    with pytest.raises(HandError) as raised:
        score(hand, ctx)
    error = raised.value
    assert error.code == code
    assert error.message == str(error)
    for fragment in fragments:
        assert fragment in error.message, f"{fragment!r} not in {error.message!r}"


def test_every_error_code_is_covered():
    assert {code for _, _, code, _ in ERRORS} == {
        "hand/too_many_melds", "hand/tile_count", "hand/bad_tile", "hand/bad_chow", "hand/bad_meld",
        "hand/too_many_copies", "context/flowers", "context/wind", "context/fourth_tile_held",
        "context/kong_without_kong", "context/robbed_tile_held", "context/robbed_and_last", "hand/not_winning",
    }


def test_hand_error_is_a_value_error():
    hand, ctx = _parsed(CHICKEN, flowers=9)
    with pytest.raises(ValueError):
        score(hand, ctx)


def test_not_winning_names_the_hand():
    hand, ctx = _parsed("[123m] [678s] 34p888mWW +6p")
    with pytest.raises(HandError) as raised:
        score(hand, ctx)
    assert format_hand(hand, ctx.win_tile) in raised.value.message


@pytest.mark.parametrize(
    ("notation", "flags"),
    [
        # The edges of the valid range raise nothing.
        (CHICKEN, {"flowers": 0}),
        (CHICKEN, {"flowers": 8}),
        (CHICKEN, {"seat_wind": 3, "prevalent_wind": 3}),
        # 和绝张 with the winner's copies in melds only (not concealed) is allowed.
        ("[111m] [456s] 23m789p55s +1m", {"fourth_tile": True}),
        # 杠上开花 with a concealed kong, and with a melded kong.
        ("{1111m} [678s] 34p888mWW +5p", {"self_drawn": True, "kong": True}),
        ("[1111m] [678s] 34p888mWW +5p", {"self_drawn": True, "kong": True, "last_tile": True}),
        # 抢杠和 with 和绝张 (the flag is dropped, not an error).
        (CHICKEN, {"kong": True, "fourth_tile": True}),
        # Four copies of a tile are fine: three in a pung, one in a chow.
        ("[111m] 1m23m456s678p5p +5p", {}),
    ],
)
def test_valid_inputs_raise_nothing(notation, flags):
    hand, ctx = _parsed(notation, **flags)
    counts = validate(hand, ctx)
    assert sum(counts) == 14 + sum(1 for m in hand.melds if m.kind == KONG)
    score(hand, ctx)
