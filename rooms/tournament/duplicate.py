"""Duplicate (复式) sessions (docs/tournaments.md "Duplicate"): every table of a session deals the same
walls, so a player's result is compared with the others who held the same tiles, and luck cancels.

The walls: each table room's walls come from its secret (``rooms.room.match_seed(secret, 1)``: a table
plays one match). A duplicate session gives every table one secret derived from the tournament's, so
every table deals the same 16 walls in the same order. Before the session starts the tournament commits
to them: ``commitment = SHA-256("<seed>:<salt>")`` (the rooms' own fairness formula, server/fair.py),
in the ``session_start`` entry and the view; the seed and the salt are shown once the session is over.

Who held the same tiles: in hand h a table's wind seat w is played by the player who sat down at room
seat ``game.match.player_in(w, h)`` (decisions.md item 8 moves the players through the winds). Every
table follows the same scheme and deals the same walls, so the dealer, the prevailing wind and the
tiles of wind seat w in deal h are the same at every table, and the holders are the players of that
room seat. The seating turns the seats of table i by ``seating.shift(i)`` (``seating.rotate``): each
table's players are ranked into slots 0..3 (best first), and slot s sits at room seat s - shift, so
across four consecutive tables each hand's tiles reach each slot once.

Scoring (our formula): per deal and wind seat, each holder's 盘分 minus the mean 盘分 of the holders
compared; a player's duplicate score is the sum over the deals. A holder is compared where the deal was
played (recorded and not void) and the seat was the player's own (not a bot's, not substituted).
"""

from __future__ import annotations

import hashlib
from fractions import Fraction

from game.match import player_in
from rooms.room import match_seed
from rooms.tournament import report
from rooms.tournament.seating import shift
from rooms.tournament.states import DONE

_ROUND = 2  # decimals shown


def table_secret(secret: bytes, session: int) -> bytes:
    """The secret every table room of duplicate session ``session`` gets: the same walls everywhere."""
    return hashlib.sha256(secret + b"duplicate" + session.to_bytes(4, "big")).digest()


def draw(secret: bytes, session: int) -> dict:
    """The session's walls as the rooms will draw them: the seed, a salt, and the commitment to both."""
    seed = match_seed(table_secret(secret, session), 1)
    salt = hashlib.sha256(secret + b"duplicate salt" + session.to_bytes(4, "big")).hexdigest()[:32]
    return {"seed": seed, "salt": salt, "commitment": commitment(seed, salt)}


def commitment(seed: int, salt: str) -> str:
    """SHA-256 hex of ``"<seed>:<salt>"``, as the rooms commit to their walls (server/fair.py)."""
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()


def walls_secret(tour, table: str) -> bool:
    """Whether ``table`` is a table of a duplicate session still being played: its walls are the other
    tables' too, so its match (replay, seed) stays secret until the session ends, even once it finished."""
    t = tour.tables.get(table) if tour.config.duplicate else None
    return t is not None and tour.sessions[t.session - 1].state != DONE


def deals(tour, s) -> list[dict]:
    """Per hand of a finished session, per wind seat (0..3 = E S W N): each table's holder, its 盘分 and
    ``diff`` (盘分 − the mean of the holders compared; None when not compared), with exact ``_exact``
    differences kept for the totals (dropped from the view)."""
    rows = {t.key: report.seat_results(tour, t) for t in s.tables}
    count = max((len(r[0]["points"]) for r in rows.values()), default=0)
    out = []
    for h in range(1, count + 1):
        seats = []
        for wind in range(4):
            seat = player_in(wind, h - 1)
            holders = [_holder(t, rows[t.key][seat], h) for t in s.tables]
            compared = [x for x in holders if x["compared"]]
            if compared:
                mean = Fraction(sum(x["points"] for x in compared), len(compared))
                for x in compared:
                    x["_exact"] = x["points"] - mean
                    x["diff"] = round(float(x["_exact"]), _ROUND)
            seats.append({"seat": wind, "holders": holders})
        out.append({"hand": h, "seats": seats})
    return out


def _holder(t, row: dict, h: int) -> dict:
    rec = t.hands.get(h)
    points = row["points"][h - 1] if h <= len(row["points"]) else 0
    compared = (rec is not None and not rec.get("void") and row["player"] is not None
                and row["substituted"] is None and row["ranked"])
    return {"table": t.key, "room_seat": row["seat"], "slot": (row["seat"] + shift(t.number)) % 4,
            "player": row["player"], "points": points,
            "compared": compared, "diff": None, "replay": t.replay}


def standings(sessions: list[tuple[int, list[dict]]]) -> list[dict]:
    """Players by their duplicate score (the sum of their differences), best first; equal scores share
    a place. ``sessions``: (index, deals) of each finished duplicate session."""
    total: dict[str, Fraction] = {}
    count: dict[str, int] = {}
    for _, ds in sessions:
        for d in ds:
            for seat in d["seats"]:
                for x in seat["holders"]:
                    if x["compared"]:
                        total[x["player"]] = total.get(x["player"], Fraction(0)) + x["_exact"]
                        count[x["player"]] = count.get(x["player"], 0) + 1
    order = sorted(total, key=lambda p: -total[p])
    rows = []
    for i, p in enumerate(order):
        place = rows[-1]["place"] if rows and total[order[i - 1]] == total[p] else i + 1
        rows.append({"place": place, "player": p, "score": round(float(total[p]), _ROUND), "deals": count[p]})
    return rows


def view(tour) -> dict | None:
    """The duplicate part of the public view (None for other tournaments). The deals of a session, and
    its seed and salt, appear once every table of it has finished: until then a finished table's deals
    are the walls the other tables are still playing."""
    if not tour.config.duplicate:
        return None
    sessions, done = [], []
    for s in tour.sessions:
        entry = {"session": s.index, "commitment": s.commitment, "seed": None, "salt": None, "deals": []}
        if s.state == DONE and s.commitment is not None:
            d = draw(tour.secret, s.index)
            entry["seed"], entry["salt"] = str(d["seed"]), d["salt"]
            entry["deals"] = deals(tour, s)
            done.append((s.index, entry["deals"]))
        sessions.append(entry)
    rows = standings(done)
    for entry in sessions:
        for d in entry["deals"]:
            for seat in d["seats"]:
                for x in seat["holders"]:
                    x.pop("_exact", None)
    return {"sessions": sessions, "standings": rows}


__all__ = ["table_secret", "draw", "commitment", "walls_secret", "deals", "standings", "view"]
