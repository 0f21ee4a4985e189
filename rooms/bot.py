"""The fan bot: a seat occupant that plays for fans, knowing the room's minimum (国标馆: 8, flowers
excluded).

It sees only its seat's view (``game.views.view(state, seat)``): its own tiles, the table's melds,
flowers and discards, the claim window and its legal actions. Each decision:

- 和 whenever it is legal (the state machine offers it only for a real win; training rooms offer it
  everywhere, so a hand without a winning shape never declares, and ``check_wins`` counts the fans).
- Discards: every fan plan of ``rooms.bot_plans`` worth the minimum is measured by its restricted
  shanten; the discard keeps the lowest plan shanten, then the most useful draws (weighted by the
  unseen copies) over the plans at that shanten, then the safest tile. Once a discard makes the hand
  ready, the waits are scored (``game.scoring.score``) and only waits reaching the minimum without
  flowers count: a ready hand that cannot win is treated as one step short.
- Claims (吃/碰/杠) and kongs: when they lower the best plan shanten (a kong: when it does not raise it).

Unseen copies are counted from the view (own tiles, every discard still in a pond, every exposed
meld); nothing hidden from the seat is read. Deterministic: the only randomness is the ``rng``
passed in (ties between equal discards). ``FanBot(rng, min_fan).choose(view)``, or the module-level
``choose(view)`` the rooms load, seeded from the view.
"""

from __future__ import annotations

import random
from functools import lru_cache

from game.actions import from_dict
from game.fans.context import HandError, WinContext
from game.hand import Hand, Meld
from game.scoring import score
from game.shanten import shanten, useful_tiles
from rooms.bot_common import answer_seq, view_seed
from rooms.bot_plans import BIT, INF, Live, Plan, pack, prepare, prepared_plans, shanten_of, useful_draws

KONG, CHOW, PUNG = "kong", "chow", "pung"
# A wait that only wins by self-draw (e.g. 不求人 making the minimum) is worth this much of one that
# wins on any discard: one draw of one's own against three players' discards.
SELF_ONLY = 0.3
_FREE = Plan("无番", 0)  # the fallback when no plan is reachable: just complete the hand


class Seen:
    """What the seat knows, read from its view."""

    __slots__ = ("seat", "hand", "key", "melds", "seat_wind", "prevalent", "unseen", "live", "claim_tile")

    def __init__(self, view: dict):
        self.seat = seat = view["seat"]
        me = view["players"][seat]
        self.hand = tuple(view["hand"])
        self.key = pack(self.hand)
        self.melds = tuple((m["kind"], m["tile"], m["concealed"]) for m in me["melds"])
        self.seat_wind = me["wind"]
        self.prevalent = view["prevalent"]
        claim = view.get("claim")
        self.claim_tile = claim["tile"] if claim else None
        unseen = [4] * 34
        for t in self.hand:
            unseen[t] -= 1
        for p in view["players"]:
            for t, claimed in p["discards"]:
                if not claimed:  # a claimed discard is counted in the claimer's meld
                    unseen[t] -= 1
            for m in p["melds"]:
                t = m.get("tile")  # None: another seat's concealed kong, face down
                if t is None:
                    continue
                for x in ((t, t + 1, t + 2) if m["kind"] == CHOW else (t,) * (4 if m["kind"] == KONG else 3)):
                    unseen[x] -= 1
        self.unseen = [max(0, n) for n in unseen]
        self.live = Live(self.unseen)


def _meld_objs(melds: tuple) -> tuple:
    return tuple(Meld(kind, t, concealed) for kind, t, concealed in melds)


@lru_cache(maxsize=2048)
def _wait_fans(melds: tuple, tiles: tuple, seat_wind: int, prevalent: int, min_fan: int) -> tuple:
    """(wait, wins on a discard, wins by self-draw) for a ready hand; () when not ready."""
    res = useful_tiles(tiles, len(melds))
    if res.shanten != 0:
        return ()
    hand = Hand(_meld_objs(melds), tiles)
    used = [0] * 34
    for t in tiles:
        used[t] += 1
    for m in hand.melds:
        for t in m.tiles:
            used[t] += 1
    out = []
    for w in res.useful:
        if used[w] >= 4:
            continue  # no fifth copy to win on
        ok = []
        for self_drawn in (False, True):
            try:
                sc = score(hand, WinContext(w, self_drawn=self_drawn, seat_wind=seat_wind, prevalent_wind=prevalent))
                ok.append(sc.total_without_flowers >= min_fan)
            except HandError:
                ok.append(False)
        out.append((w, ok[0], ok[1]))
    return tuple(out)


class FanBot:
    """``choose(view) -> action``: a ``game.actions`` action built from one of the view's legal
    actions, answering the view's ``seq``."""

    def __init__(self, rng, min_fan: int = 8, check_wins: bool = False):
        self.rng = rng
        self.min_fan = min_fan
        # Training rooms (rules.false_win_penalty) offer 和 everywhere; the view carries no rules, so the
        # room says so: then 和 only when the bot's own count reaches the minimum.
        self.check_wins = check_wins

    # -- entry point --

    def choose(self, view: dict):
        """The action for this view; None when the seat has nothing to do."""
        legal = view["legal"]
        if not legal:
            return None
        seq = answer_seq(view)
        if len(legal) == 1:
            return from_dict({**legal[0], "seq": seq})
        names = [a["a"] for a in legal]
        seen = Seen(view)
        if "win" in names:
            if self._complete(seen, view) and (not self.check_wins or self._real_win(seen, view)):
                return from_dict({"a": "win", "seq": seq})
            legal = [a for a in legal if a["a"] != "win"]
            names.remove("win")
            if len(legal) == 1:
                return from_dict({**legal[0], "seq": seq})
        if "discard" in names:
            d = self._turn(seen, legal)
        else:
            d = self._claim(seen, legal)
        return from_dict({**d, "seq": seq})

    @staticmethod
    def _complete(seen: Seen, view: dict) -> bool:
        """A winning shape: always so when 和 is legal, except in training rooms, which offer it
        everywhere (a declaration without it is 诈和)."""
        tiles = seen.hand if seen.claim_tile is None else seen.hand + (seen.claim_tile,)
        return shanten(tiles, len(seen.melds)) == -1

    def _real_win(self, seen: Seen, view: dict) -> bool:
        """Whether 和 reaches the minimum by the bot's own count (best effort: a 杠上开花 is not seen)."""
        rob = seen.claim_tile is not None and view["claim"]["kind"] == "rob"
        if seen.claim_tile is None:
            tile = view["drawn"]
            i = seen.hand.index(tile)
            standing = seen.hand[:i] + seen.hand[i + 1:]
        else:
            tile, standing = seen.claim_tile, seen.hand
        self_drawn = seen.claim_tile is None
        # 和绝张: the other copies all visible (a claimed discard is itself one of them).
        visible = 4 - seen.unseen[tile] - seen.hand.count(tile)
        fourth = not rob and tile not in standing and visible == (3 if self_drawn else 4)
        ctx = WinContext(tile, self_drawn=self_drawn, fourth_tile=fourth, kong=rob,
                         last_tile=not rob and view["wall"] == 0, seat_wind=seen.seat_wind,
                         prevalent_wind=seen.prevalent)
        try:
            return score(Hand(_meld_objs(seen.melds), standing), ctx).total_without_flowers >= self.min_fan
        except HandError:
            return False

    # -- measuring hands --

    def plans(self, seen: Seen, melds: tuple | None = None) -> tuple:
        melds = seen.melds if melds is None else melds
        return prepared_plans(melds, seen.seat_wind, seen.prevalent, self.min_fan)

    def best_shanten(self, preps: tuple, key: int, live: Live, melds: tuple) -> int:
        """The lowest plan shanten of a packed hand (with a fallback when no plan is reachable)."""
        best = INF
        for p in preps:
            v = shanten_of(p, key, live, best)
            if v < best:
                best = v
        if best >= INF:
            best = 20 + shanten_of(prepare(_FREE, melds), key, live)  # far behind any real plan
        return best

    def wait_value(self, seen: Seen, melds: tuple, tiles: tuple) -> float:
        """Unseen copies of the waits that make the minimum (self-draw-only waits count less)."""
        v = 0.0
        unseen = seen.unseen
        for w, on_discard, on_self in _wait_fans(melds, tiles, seen.seat_wind, seen.prevalent, self.min_fan):
            if on_discard:
                v += unseen[w]
            elif on_self:
                v += SELF_ONLY * unseen[w]
        return v

    # -- own turn --

    def _within_reach(self, seen: Seen) -> list:
        """The plans within reach: those at the best shanten of the 14 tiles (and one more when
        ready, in case the ready hand's waits are dead or short of the minimum)."""
        key, live = seen.key, seen.live
        rated = []
        best = INF
        for p in self.plans(seen):
            v = shanten_of(p, key, live, best + 2)
            rated.append((v, p))
            if v < best:
                best = v
        if best >= INF:
            free = prepare(_FREE, seen.melds)
            best = shanten_of(free, key, live)
            rated = [(best, free)]
        margin = 1 if best <= 0 else 0
        return [p for v, p in rated if v <= best + margin]

    def _turn(self, seen: Seen, legal: list) -> dict:
        key, unseen, live, melds = seen.key, seen.unseen, seen.live, seen.melds
        keep = self._within_reach(seen)

        tiles = seen.hand
        # The discards on offer (after 报听 only the drawn tile); a declaration is decided below.
        kinds = sorted({a["tile"] for a in legal if a["a"] == "discard" and not a.get("ready")})
        ready = {}  # discard -> wait value, for discards that leave the hand ready
        if shanten(tiles, len(melds)) <= 0:
            for t in kinds:
                i = tiles.index(t)
                rest = tiles[:i] + tiles[i + 1:]
                ready[t] = self.wait_value(seen, melds, rest)
        per = {}  # discard -> [(plan shanten, plan)]
        eff = {}
        for t in kinds:
            k13 = key - BIT[t]
            vals = [(shanten_of(p, k13, live), p) for p in keep]
            per[t] = vals
            e = min(v for v, _ in vals)
            if e <= 0 and not ready.get(t):
                e = 1  # ready, but nothing to win on: one step short
            eff[t] = e
        target = min(eff.values())
        winning = {t: w for t, w in ready.items() if w > 0}
        if winning:
            target = 0

        # Kongs first: a kong that keeps the hand as good gets a free replacement draw.
        for a in legal:
            if a["a"] in ("concealed_kong", "added_kong") and self._kong_ok(seen, a, target):
                return a

        if winning:
            choice = max(winning, key=lambda t: (winning[t], -self._risk(seen, t), self.rng.random()))
            # 大众馆 (decisions.md: 听): declaring costs nothing a ready bot would use and adds its fan.
            declare = {"a": "discard", "tile": choice, "ready": True}
            return declare if declare in legal else {"a": "discard", "tile": choice}
        cands = [t for t in kinds if eff[t] == target]
        scored = []
        for t in cands:
            k13 = key - BIT[t]
            useful = set()
            for v, p in per[t]:
                if v == target:
                    useful |= useful_draws(p, k13, live, v, useful)
            scored.append((sum(unseen[u] for u in useful), -self._risk(seen, t), self.rng.random(), t))
        return {"a": "discard", "tile": max(scored)[-1]}

    def _kong_ok(self, seen: Seen, a: dict, target: int) -> bool:
        t = a["tile"]
        melds = seen.melds
        if a["a"] == "concealed_kong":
            melds2 = melds + ((KONG, t, True),)
            key2 = seen.key - 4 * BIT[t]
            rest = tuple(x for x in seen.hand if x != t)
        else:
            melds2 = tuple((KONG, x, False) if (k == PUNG and x == t) else (k, x, c) for k, x, c in melds)
            key2 = seen.key - BIT[t]
            i = seen.hand.index(t)
            rest = seen.hand[:i] + seen.hand[i + 1:]
        v = self.best_shanten(self.plans(seen, melds2), key2, seen.live, melds2)
        if v > target:
            return False
        if v <= 0:
            return self.wait_value(seen, melds2, rest) > 0
        return True

    @staticmethod
    def _risk(seen: Seen, t: int) -> float:
        """How dangerous a discard looks (lower is safer): live copies, and number tiles over honors."""
        kind = 0 if t >= 27 else 1 if t % 9 in (0, 8) else 2
        return seen.unseen[t] + 0.5 * kind

    # -- claim windows --

    def _claim(self, seen: Seen, legal: list) -> dict:
        """Claim when it lowers the best plan shanten (a kong: when it keeps it)."""
        live, melds, key = seen.live, seen.melds, seen.key
        now = self.best_shanten(self.plans(seen), key, live, melds)
        if now <= 0:
            return {"a": "pass"}
        t = seen.claim_tile
        best, choice = now, {"a": "pass"}
        for a in legal:
            name = a["a"]
            if name == "chow":
                low = a["low"]
                used = [x for x in (low, low + 1, low + 2) if x != t]
                melds2 = melds + ((CHOW, low, False),)
                key2 = key - BIT[used[0]] - BIT[used[1]]
            elif name == "pung":
                melds2 = melds + ((PUNG, t, False),)
                key2 = key - 2 * BIT[t]
            elif name == "kong":
                melds2 = melds + ((KONG, t, False),)
                key2 = key - 3 * BIT[t]
            else:
                continue
            v = self.best_shanten(self.plans(seen, melds2), key2, live, melds2)
            if name == "kong":
                # A kong leaves 13-3k tiles and draws a replacement: keeping the shanten is enough.
                if v == 0 and self.wait_value(seen, melds2, _unpack(key2)) == 0:
                    v = 1
                if v <= best:
                    best, choice = v - 0.5, a
                continue
            if v == 0 and not self._can_reach_win(seen, melds2, key2):
                v = 1
            if v < best:
                best, choice = v, a
        return choice

    def _can_reach_win(self, seen: Seen, melds: tuple, key: int) -> bool:
        """After a chow or pung: some discard leaves a ready hand with a wait worth the minimum."""
        tiles = _unpack(key)
        for t in sorted(set(tiles)):
            i = tiles.index(t)
            if self.wait_value(seen, melds, tiles[:i] + tiles[i + 1:]) > 0:
                return True
        return False


def _unpack(key: int) -> tuple:
    out = []
    t = 0
    while key:
        c = key & 31
        out.extend((t,) * c)
        key >>= 5
        t += 1
    return tuple(out)


def choose(view: dict, *, min_fan: int = 8, check_wins: bool = False):
    """The fan bot as a function of the view alone (the rooms' bot interface): a 国标馆 player by
    default; ``min_fan`` for other rooms, ``check_wins`` for training rooms. Its tie-breaking
    generator is seeded from the view, so the same view always gets the same action."""
    return FanBot(random.Random(view_seed(view)), min_fan, check_wins).choose(view)

