"""Tiles: the 34 playable kinds and the 8 flowers as small integers, and their notation.

Kinds are numbered in the order 万 (m) 1-9, 条 (s) 1-9, 饼 (p) 1-9, then 东南西北 and 中发白,
the order of the reference calculator, so that decompositions are enumerated in the same order.
A hand is usually held as a count array of length 34 (see ``counts``).

Notation (docs/notation.md): number tiles as digits followed by their suit letter (``123m``,
``55p``, ``789s``), honors as letters ``E S W N`` (winds) and ``C F P`` (中 red, 发 green, 白 white),
flowers as ``1h``..``8h``.
"""

from __future__ import annotations

from typing import Iterable

Tile = int

NUM_KINDS = 34
NUM_FLOWERS = 8

MAN, SOU, PIN, HONOR = 0, 1, 2, 3
SUIT_LETTERS = "msp"

# Named constants: M1..M9 (万), S1..S9 (条), P1..P9 (饼).
M1, M2, M3, M4, M5, M6, M7, M8, M9 = range(0, 9)
S1, S2, S3, S4, S5, S6, S7, S8, S9 = range(9, 18)
P1, P2, P3, P4, P5, P6, P7, P8, P9 = range(18, 27)
EAST, SOUTH, WEST, NORTH = range(27, 31)
RED, GREEN, WHITE = range(31, 34)  # 中 发 白
FLOWERS = tuple(range(34, 42))  # 春夏秋冬梅兰竹菊

WINDS = (EAST, SOUTH, WEST, NORTH)
DRAGONS = (RED, GREEN, WHITE)
HONORS = WINDS + DRAGONS
ALL_KINDS = tuple(range(NUM_KINDS))

HONOR_LETTERS = "ESWNCFP"
CHINESE_HONORS = "东南西北中发白"
CHINESE_SUITS = "万条饼"
CHINESE_FLOWERS = "春夏秋冬梅兰竹菊"


def suit(t: Tile) -> int:
    return t // 9 if t < 27 else HONOR


def rank(t: Tile) -> int:
    """1..9 for number tiles, 0 for honors."""
    return t % 9 + 1 if t < 27 else 0


def make(suit_index: int, rank_value: int) -> Tile:
    return suit_index * 9 + rank_value - 1


def is_number(t: Tile) -> bool:
    return t < 27


def is_honor(t: Tile) -> bool:
    return 27 <= t < 34


def is_wind(t: Tile) -> bool:
    return 27 <= t < 31


def is_dragon(t: Tile) -> bool:
    return 31 <= t < 34


def is_flower(t: Tile) -> bool:
    return 34 <= t < 42


def is_terminal(t: Tile) -> bool:
    return t < 27 and t % 9 in (0, 8)


def is_terminal_or_honor(t: Tile) -> bool:
    return t >= 27 or t % 9 in (0, 8)


GREEN_TILES = frozenset((S2, S3, S4, S6, S8, GREEN))
REVERSIBLE_TILES = frozenset((P1, P2, P3, P4, P5, P8, P9, S2, S4, S5, S6, S8, S9, WHITE))
THIRTEEN_ORPHANS = (M1, M9, S1, S9, P1, P9) + HONORS

# The six knitted straights: 147 / 258 / 369 spread over the three suits, in the reference's order.
KNITTED_STRAIGHTS = tuple(
    tuple(sorted(make(s, r) for s, start in zip((MAN, SOU, PIN), starts) for r in (start, start + 3, start + 6)))
    for starts in ((1, 2, 3), (1, 3, 2), (2, 1, 3), (2, 3, 1), (3, 1, 2), (3, 2, 1))
)


class NotationError(ValueError):
    """A string that is not valid tile notation; ``code`` is stable, the message names the spot."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def tile_name(t: Tile) -> str:
    """The notation of one tile: ``5p``, ``E``, ``3h``."""
    if t < 27:
        return f"{rank(t)}{SUIT_LETTERS[suit(t)]}"
    if t < 34:
        return HONOR_LETTERS[t - 27]
    if t < 42:
        return f"{t - 33}h"
    raise ValueError(f"not a tile: {t!r}")


def chinese_name(t: Tile) -> str:
    if t < 27:
        return "一二三四五六七八九"[rank(t) - 1] + CHINESE_SUITS[suit(t)]
    if t < 34:
        return CHINESE_HONORS[t - 27]
    return CHINESE_FLOWERS[t - 34]


def parse_tiles(text: str) -> list[Tile]:
    """Parse a run of tiles such as ``123m55pEEN`` or ``1h2h`` (spaces allowed)."""
    tiles: list[Tile] = []
    pending: list[int] = []
    pending_at = 0
    for pos, ch in enumerate(text):
        if ch.isspace():
            if pending:
                raise NotationError("notation/missing_suit", f"digits at {pending_at} have no suit letter in {text!r}")
            continue
        if ch.isdigit():
            if not pending:
                pending_at = pos
            pending.append(int(ch))
        elif ch in "msph":
            if not pending:
                raise NotationError("notation/bad_tile", f"suit letter {ch!r} at {pos} follows no digit in {text!r}")
            for r in pending:
                if ch == "h":
                    if not 1 <= r <= 8:
                        raise NotationError("notation/bad_tile", f"flower {r}h at {pos} is not 1h..8h in {text!r}")
                    tiles.append(33 + r)
                else:
                    if not 1 <= r <= 9:
                        raise NotationError("notation/bad_tile", f"rank 0 at {pos} in {text!r}")
                    tiles.append(make(SUIT_LETTERS.index(ch), r))
            pending = []
        elif ch in HONOR_LETTERS:
            if pending:
                raise NotationError("notation/missing_suit", f"digits at {pending_at} have no suit letter in {text!r}")
            tiles.append(27 + HONOR_LETTERS.index(ch))
        else:
            raise NotationError("notation/bad_character", f"unexpected {ch!r} at {pos} in {text!r}")
    if pending:
        raise NotationError("notation/missing_suit", f"digits at {pending_at} have no suit letter in {text!r}")
    return tiles


def parse_tile(text: str) -> Tile:
    tiles = parse_tiles(text.strip())
    if len(tiles) != 1:
        raise NotationError("notation/not_one_tile", f"expected exactly one tile, got {text!r}")
    return tiles[0]


def format_tiles(tiles: Iterable[Tile]) -> str:
    """Format tiles compactly, grouping runs of one suit: ``[0, 1, 2, 27]`` -> ``123mE``.

    Tiles are written in the order given; consecutive number tiles of one suit share a letter.
    """
    out: list[str] = []
    run_suit = None
    for t in tiles:
        if t < 27:
            s = suit(t)
            if run_suit is not None and run_suit != s:
                out.append(SUIT_LETTERS[run_suit])
            out.append(str(rank(t)))
            run_suit = s
        else:
            if run_suit is not None:
                out.append(SUIT_LETTERS[run_suit])
                run_suit = None
            out.append(tile_name(t))
    if run_suit is not None:
        out.append(SUIT_LETTERS[run_suit])
    return "".join(out)


def counts(tiles: Iterable[Tile]) -> list[int]:
    """A count array over the 34 kinds."""
    c = [0] * NUM_KINDS
    for t in tiles:
        c[t] += 1
    return c


# Conversion to and from the reference calculator's codes (W 万, T 条, B 饼, F winds, J dragons).
_REFERENCE_SUIT = "WTB"


def to_reference(t: Tile) -> str:
    if t < 27:
        return f"{_REFERENCE_SUIT[suit(t)]}{rank(t)}"
    if t < 31:
        return f"F{t - 26}"
    if t < 34:
        return f"J{t - 30}"
    raise ValueError(f"the reference has no code for {tile_name(t)}")


def from_reference(code: str) -> Tile:
    if not isinstance(code, str) or len(code) != 2 or not code[1].isdigit():
        raise NotationError("notation/bad_reference_code", f"not a tile code: {code!r}")
    letter, digit = code[0], int(code[1])
    if letter in _REFERENCE_SUIT and 1 <= digit <= 9:
        return make(_REFERENCE_SUIT.index(letter), digit)
    if letter == "F" and 1 <= digit <= 4:
        return 26 + digit
    if letter == "J" and 1 <= digit <= 3:
        return 30 + digit
    raise NotationError("notation/bad_reference_code", f"not a tile code: {code!r}")
