"""Match records as plain data for the server to persist: per hand the result (winner, discarder, fans,
settlement per player), the running totals, and at the end of a match the ranking.

Players are the room's seat indices 0..3 (= ``game.match`` players, by first-round seat); ``ids`` gives
who sat there (a player id or a bot name).
"""

from __future__ import annotations

from dataclasses import fields

from game.actions import to_dict as action_dict
from game.match import LOG_FORMAT, MatchState
from game.records import fan_lists
from game.shanten import shanten


def hand_record(m: MatchState, match_no: int, ids: list[str]) -> dict:
    """The hand just finished in ``m`` (its result is ``m.history[-1]``)."""
    result = m.history[-1]
    seats = m.seats()  # the player at each table seat this round

    def per_player(by_seat) -> list[int]:
        out = [0, 0, 0, 0]
        for seat, v in enumerate(by_seat):
            out[seats[seat]] = v
        return out

    rec = {
        "match": match_no, "hand": m.number, "round": m.round, "dealer": seats[m.number % 4],
        "seats": list(seats), "ids": list(ids), "winner": None, "discarder": None, "self_drawn": False,
        "robbed": False, "tile": None, "fans": [], "total": 0,
        "payments": per_player(result.payments), "penalties": per_player(result.penalties),
        "deltas": per_player(result.deltas), "scores": list(m.scores), "void": False,
    }
    w = result.win
    if w is not None:
        rec.update(
            winner=seats[w.winner], discarder=None if w.payer is None else seats[w.payer], self_drawn=w.self_drawn,
            robbed=w.robbed, tile=w.tile, fans=fan_lists(w.fans), total=w.total,
        )
    return rec


def foul_evidence(h, seat: int) -> dict:
    """What a false declaration showed, for the referee (R98 第十四条6: 诈和 is one tile from ready,
    有意诈和 two or more, and intent is the referee's judgement): the standing tiles without a tile
    just drawn, the melds (concealed kongs included: the hand is shown) and ``from_ready``, the
    shanten of those tiles (0 ready, 1 one tile from ready, ...)."""
    standing = list(h.concealed[seat])
    melds = h.melds[seat]
    if len(standing) + 3 * len(melds) == 14:  # declared on a tile of its own: take that tile out
        tile = h.drawn if h.drawn in standing and h.turn == seat else None
        options = [tile] if tile is not None else list(dict.fromkeys(standing))
        away = min(shanten(standing[:standing.index(t)] + standing[standing.index(t) + 1:], len(melds))
                   for t in options)
        if tile is not None:
            standing.remove(tile)
    else:
        tile, away = None, shanten(standing, len(melds))
    return {"tiles": standing, "drawn": tile, "melds": [m.to_dict(hidden=False) for m in melds],
            "from_ready": away}


def foul_offence(m: MatchState, foul: dict) -> dict:
    """The offence a table reports for a game ``foul`` event: the hand, what was paid (to three
    seats), the foul's kind, and the evidence (None if that hand is no longer the one in ``m``)."""
    same = m.hand is not None and m.number == foul["hand"]
    return {"hand": foul["hand"], "points": 3 * foul["points"], "foul": foul["kind"], "applied": True,
            "evidence": foul_evidence(m.hand, foul["seat"]) if same else None}


def void_hand_record(m: MatchState, match_no: int, ids: list[str]) -> dict:
    """The hand in progress when time was called (R98 第六条四; tournament.md 2.6): void, it changes no
    scores (its 错和/诈和 penalties included: they are charged only when a hand ends)."""
    seats = m.seats()
    return {
        "match": match_no, "hand": m.number, "round": m.round, "dealer": seats[m.number % 4],
        "seats": list(seats), "ids": list(ids), "winner": None, "discarder": None, "self_drawn": False,
        "robbed": False, "tile": None, "fans": [], "total": 0, "payments": [0] * 4, "penalties": [0] * 4,
        "deltas": [0] * 4, "scores": list(m.scores), "void": True,
    }


def ranking(scores, ids: list[str]) -> list[dict]:
    """Players by final score, highest first; equal scores share a place (1, 1, 3, 4)."""
    order = sorted(range(4), key=lambda p: (-scores[p], p))
    out = []
    for i, p in enumerate(order):
        place = out[-1]["place"] if out and scores[p] == out[-1]["score"] else i + 1
        out.append({"place": place, "player": p, "id": ids[p], "score": scores[p]})
    return out


def match_record(m: MatchState, match_no: int, ids: list[str], hands: list[dict], actions: list) -> dict:
    """The finished match: ranking, totals, every hand, and what ``game.match.replay`` needs to rebuild
    it (seed, rules, the (player, action) list, system actions included: player None for time_up).
    ``void``: time was called during a hand; ``no_win``: players that could not win (substitutes)."""
    return {
        "match": match_no, "ids": list(ids), "scores": list(m.scores), "ranking": ranking(m.scores, ids),
        "hands": hands, "seed": json_seed(m.seed), "rules": _rules_dict(m.rules),
        "actions": [[p, action_dict(a)] for p, a in actions], "void": m.void, "no_win": list(m.no_win),
        "log_format": LOG_FORMAT,  # a record without it is format 1 (game.match.replay_step)
    }


SUMMARY_KEYS = ("match", "ids", "scores", "ranking", "void")


def match_summary(rec: dict) -> dict:
    """What a room keeps of a match before its last one: what its history lists. The whole record
    (hands, actions) stays in the database (GET /api/matches/<id>), so a room rematching all day
    does not grow with every match."""
    return {k: rec[k] for k in SUMMARY_KEYS}


MAX_SAFE = 2**53 - 1  # JavaScript reads larger JSON numbers inexactly


def json_seed(seed: int | None) -> int | str | None:
    """A seed as messages carry it: a string when it is beyond what JavaScript reads exactly."""
    return str(seed) if seed is not None and abs(seed) > MAX_SAFE else seed


def _rules_dict(rules) -> dict:
    return {f.name: getattr(rules, f.name) for f in fields(rules)}


__all__ = ["hand_record", "void_hand_record", "match_record", "match_summary", "ranking", "json_seed"]
