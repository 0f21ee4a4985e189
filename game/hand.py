"""A player's hand: declared melds plus concealed standing tiles, and its notation.

Notation (docs/notation.md): melds first, each in brackets: ``[123m]`` a claimed chow, ``[EEE]`` a
claimed pung, ``[EEEE]`` a melded (or added) kong, ``{CCCC}`` a concealed kong; then the standing
tiles (``55pWWWNN``); then optionally the winning tile after a plus sign (``+N``).
Example: ``[EEE] [SSSS] 55pWWWNN +N``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from game.tiles import (
    NotationError,
    Tile,
    format_tiles,
    is_number,
    parse_tiles,
    rank,
    tile_name,
)

CHOW, PUNG, KONG = "chow", "pung", "kong"


@dataclass(frozen=True, slots=True)
class Meld:
    """A declared set. ``tile`` is the lowest tile of a chow, the tile of a pung or kong.

    ``concealed`` is true only for a concealed kong (暗杠). ``claimed`` is the tile taken from
    another player (for a chow, which one), kept for display; scoring does not need it.
    """

    kind: str
    tile: Tile
    concealed: bool = False
    claimed: Tile | None = field(default=None, compare=False)

    @property
    def tiles(self) -> tuple[Tile, ...]:
        if self.kind == CHOW:
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * (4 if self.kind == KONG else 3)

    @property
    def is_melded(self) -> bool:
        """Claimed from another player (R98: exposed); a concealed kong is not."""
        return not self.concealed

    def __str__(self) -> str:
        body = format_tiles(self.tiles)
        return f"{{{body}}}" if self.concealed else f"[{body}]"


@dataclass(frozen=True, slots=True)
class Hand:
    """Melds plus the concealed standing tiles (sorted), without the winning tile."""

    melds: tuple[Meld, ...] = ()
    tiles: tuple[Tile, ...] = ()

    def __str__(self) -> str:
        return format_hand(self)


_TOKEN = re.compile(r"\[([^\]]*)\]|\{([^}]*)\}|\+\s*([^\s\[\]{}+]+)|([^\s\[\]{}+]+)|(\S)")


def _meld_from_tiles(tiles: list[Tile], concealed: bool, text: str) -> Meld:
    n = len(tiles)
    if concealed:
        if n != 4 or len(set(tiles)) != 1:
            raise NotationError("notation/bad_meld", f"a concealed kong needs four identical tiles: {text!r}")
        return Meld(KONG, tiles[0], concealed=True)
    if n in (3, 4) and len(set(tiles)) == 1:
        return Meld(PUNG if n == 3 else KONG, tiles[0])
    if n == 3:
        low = min(tiles)
        if sorted(tiles) == [low, low + 1, low + 2] and is_number(low) and rank(low) <= 7 and is_number(low + 2):
            return Meld(CHOW, low)
        raise NotationError("notation/bad_meld", f"not a chow of one suit: {text!r}")
    raise NotationError("notation/bad_meld", f"a meld is a chow, a pung or a kong: {text!r}")


def parse_hand(text: str) -> tuple[Hand, Tile | None]:
    """Parse hand notation; returns the hand and the winning tile (``None`` if not given)."""
    melds: list[Meld] = []
    standing: list[Tile] = []
    win: Tile | None = None
    for m in _TOKEN.finditer(text):
        open_meld, concealed_meld, win_text, plain, stray = m.groups()
        if stray is not None:
            raise NotationError("notation/bad_character", f"unexpected {stray!r} at {m.start()} in {text!r}")
        if win is not None:
            raise NotationError("notation/win_not_last", f"the winning tile must come last in {text!r}")
        if open_meld is not None or concealed_meld is not None:
            if standing:
                raise NotationError("notation/meld_after_tiles", f"melds must come before standing tiles in {text!r}")
            body = open_meld if open_meld is not None else concealed_meld
            melds.append(_meld_from_tiles(parse_tiles(body), concealed_meld is not None, m.group(0)))
        elif win_text is not None:
            tiles = parse_tiles(win_text)
            if len(tiles) != 1:
                raise NotationError("notation/not_one_tile", f"the winning tile must be one tile: {m.group(0)!r}")
            win = tiles[0]
        else:
            standing.extend(parse_tiles(plain))
    return Hand(tuple(melds), tuple(sorted(standing))), win


def format_hand(hand: Hand, win: Tile | None = None) -> str:
    parts = [str(meld) for meld in hand.melds]
    if hand.tiles:
        parts.append(format_tiles(sorted(hand.tiles)))
    if win is not None:
        parts.append("+" + tile_name(win))
    return " ".join(parts)
