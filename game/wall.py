"""The wall: the full tile set, a seeded shuffle, and the deal layout.

Layout of a wall (a tuple of 144 tiles, or 136 without flowers; procedure.md §4.3 allows a server to
shuffle, deal 13/13/13/14 and use one end as the live end and the other as the replacement end):

- ``wall[13*i : 13*i + 13]`` is dealt to the seat ``i`` places after the dealer (dealer, S, W, N);
- ``wall[52]`` is the dealer's 14th tile;
- live draws continue from ``wall[53]`` towards the end;
- replacements (补花, kongs) are taken from the other end: ``wall[-1]``, ``wall[-2]``, ...

The generator is a splitmix64 whose 64-bit state is a plain int kept in the game state, so a match is
fully determined by (seed, rules, actions) and replays on any Python version (``random`` does not
promise a stable ``shuffle``).
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

from game.tiles import FLOWERS, NUM_KINDS, Tile, tile_name

MASK64 = (1 << 64) - 1
DEAL_SIZE = 53  # 13 * 4 + the dealer's 14th


class WallError(ValueError):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def full_set(flowers: bool = True) -> tuple[Tile, ...]:
    """Every tile once: 4 of each of the 34 kinds, plus the 8 flowers (decisions.md item 7)."""
    tiles = tuple(t for t in range(NUM_KINDS) for _ in range(4))
    return tiles + FLOWERS if flowers else tiles


def seed_state(seed: int) -> int:
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"a seed is an int, got {seed!r}")
    return seed & MASK64


def next_u64(state: int) -> tuple[int, int]:
    """splitmix64: returns (new state, 64 random bits)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def below(state: int, n: int) -> tuple[int, int]:
    """A uniform int in [0, n) (rejection sampling, no modulo bias)."""
    limit = (1 << 64) - (1 << 64) % n
    while True:
        state, x = next_u64(state)
        if x < limit:
            return state, x % n


def shuffled(tiles: Iterable[Tile], state: int) -> tuple[tuple[Tile, ...], int]:
    """Fisher-Yates with the generator; returns (shuffled tuple, new generator state)."""
    out = list(tiles)
    for i in range(len(out) - 1, 0, -1):
        state, j = below(state, i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out), state


def build_wall(seed: int, flowers: bool = True) -> tuple[Tile, ...]:
    return shuffled(full_set(flowers), seed_state(seed))[0]


def check_wall(wall: Sequence[Tile], flowers: bool = True) -> tuple[Tile, ...]:
    """A given wall order must hold exactly the full tile set."""
    wall = tuple(wall)
    if not all(isinstance(t, int) and not isinstance(t, bool) for t in wall):
        raise WallError("wall/bad_tile", "a wall holds tile ints")
    want, got = Counter(full_set(flowers)), Counter(wall)
    if want != got:
        missing = sorted((want - got).elements())
        extra = sorted((got - want).elements())
        raise WallError(
            "wall/not_full_set",
            f"a wall of {len(want)} tiles is needed; missing {[_name(t) for t in missing]}, "
            f"extra {[_name(t) for t in extra]}",
        )
    return wall


def _name(t: Tile) -> str:
    try:
        return tile_name(t)
    except ValueError:
        return repr(t)


def arrange_wall(
    hands: Sequence[Sequence[Tile]],
    draws: Sequence[Tile] = (),
    replacements: Sequence[Tile] = (),
    flowers: bool = True,
    filler: Sequence[Tile] | None = None,
) -> tuple[Tile, ...]:
    """Build a wall order that deals the given hands (for scenarios, duplicate tables, referees).

    ``hands`` lists the dealt tiles in seat order starting with the dealer: the dealer's 13 or 14 and
    the others' 13 (fewer may be given; the rest is filled). ``draws`` are the next live draws,
    ``replacements`` the next tiles taken from the tail, in the order they are taken. Remaining tiles
    go in between in ascending order unless ``filler`` orders (some of) them first.
    """
    if len(hands) != 4:
        raise WallError("wall/bad_layout", "give the dealt tiles of four seats")
    pool = Counter(full_set(flowers))

    def take(tiles: Iterable[Tile]) -> list[Tile]:
        out = []
        for t in tiles:
            if pool[t] <= 0:
                raise WallError("wall/not_full_set", f"no copy of {_name(t)} left to place")
            pool[t] -= 1
            out.append(t)
        return out

    dealt = [take(h) for h in hands]
    for i, h in enumerate(dealt):
        if len(h) > (14 if i == 0 else 13):
            raise WallError("wall/bad_layout", f"seat +{i} is dealt {len(h)} tiles")
    draws_l = take(draws)
    repl_l = take(replacements)
    rest = take(filler) if filler is not None else []
    rest += sorted(pool.elements())

    def fill(n: int) -> list[Tile]:
        got = rest[:n]
        del rest[:n]
        return got

    head: list[Tile] = []
    for i in range(4):
        h = dealt[i][:13]
        head += h + fill(13 - len(h))
    d = dealt[0][13:]
    head += d if d else fill(1)
    head += draws_l
    return tuple(head + rest + repl_l[::-1])
