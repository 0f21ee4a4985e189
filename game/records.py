"""Plain records held in the hand state: melds with their source, the claim window, the result."""

from __future__ import annotations

from dataclasses import dataclass

from game.fans.context import WinContext
from game.hand import CHOW, KONG, PUNG, Hand, Meld
from game.scoring import FanScore
from game.tiles import Tile

__all__ = ["CHOW", "PUNG", "KONG", "MeldRec", "ClaimWindow", "WinRecord", "HandResult", "fan_lists"]

DISCARD_CLAIM, ROB_CLAIM = "discard", "rob"
_OTHERS = tuple(tuple(s for s in range(4) if s != d) for d in range(4))  # the seats a window asks


@dataclass(frozen=True, slots=True)
class MeldRec:
    """A declared set and where it came from (procedure.md §4.12: packs with offer/source)."""

    kind: str
    tile: Tile  # lowest tile of a chow; the tile of a pung or kong
    concealed: bool = False  # only a concealed kong
    claimed: Tile | None = None  # the tile taken from another seat
    source: int | None = None  # the seat it was taken from
    added: bool = False  # a kong made by adding to an exposed pung (加杠)

    def meld(self) -> Meld:
        return Meld(self.kind, self.tile, self.concealed, self.claimed)

    @property
    def tiles(self) -> tuple[Tile, ...]:
        if self.kind == CHOW:
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * (4 if self.kind == KONG else 3)

    def to_dict(self, hidden: bool = False) -> dict:
        """``hidden``: a concealed kong seen by another seat before the hand ends: face down."""
        if hidden:
            return {"kind": KONG, "concealed": True}
        d = {"kind": self.kind, "tile": self.tile, "concealed": self.concealed}
        if self.claimed is not None:
            d["claimed"] = self.claimed
            d["source"] = self.source
        if self.added:
            d["added"] = True
        return d


@dataclass(frozen=True, slots=True)
class ClaimWindow:
    """Open after a discard (``kind="discard"``) or an added kong (``kind="rob"``, 抢杠和 only).

    Every seat but ``seat`` is asked, whether or not it can claim, so that nothing about the window
    tells who could: ``options[s]`` are seat s's claims besides passing (empty: it may only pass);
    ``responses[s]`` is its answer once given. The window closes when all three have answered.
    """

    kind: str
    tile: Tile
    seat: int  # the discarder, or the seat adding to its pung
    options: tuple[tuple, tuple, tuple, tuple]
    responses: tuple

    @property
    def waiting(self) -> tuple[int, ...]:
        r = self.responses
        return tuple([s for s in _OTHERS[self.seat] if r[s] is None])


@dataclass(frozen=True, slots=True)
class WinRecord:
    winner: int
    payer: int | None  # the discarder or robbed seat; None for a self-draw
    tile: Tile
    hand: Hand  # without the winning tile
    ctx: WinContext
    fans: tuple[FanScore, ...]  # flowers and the extra fans (id None) included
    total: int  # 基本分: all fans including flowers (and 听 when declared)
    robbed: bool = False

    @property
    def self_drawn(self) -> bool:
        return self.payer is None


def fan_lists(fans) -> list[list]:
    """A win's fans as plain lists, the form events, views and records carry:
    ``[id, name, name_en, points, count, [set, ...]]`` (sets in notation; [] for the whole hand)."""
    return [[f.id, f.name, f.name_en, f.points, f.count, list(f.sets)] for f in fans]


@dataclass(frozen=True, slots=True)
class HandResult:
    win: WinRecord | None  # None: exhaustive draw (荒牌)
    payments: tuple[int, int, int, int]  # from the settlement, per seat, zero-sum
    penalties: tuple[int, int, int, int]  # 错和/诈和 transfers, per seat, zero-sum

    @property
    def deltas(self) -> tuple[int, int, int, int]:
        return tuple(p + q for p, q in zip(self.payments, self.penalties))
