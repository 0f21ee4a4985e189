"""Helpers for tournament tests: a tournament factory, fabricated hand records as a table room sends
them (rooms/records.hand_record: hands counted from 0, per-player lists indexed by room seat), and
effect filters."""

from __future__ import annotations

from rooms.tournament import Notify, OpenTable, TableCommand, Tournament, TournamentConfig

SECRET = bytes(range(32))
ORG, REF = "org", "ref"


def make(now: float = 0.0, **config) -> Tournament:
    """A tournament organised by ORG and refereed by REF (named at creation, and accepting)."""
    config.setdefault("name", "Spring Open")
    t = Tournament.create("t1", TournamentConfig(**config), ORG, REF, SECRET, now)
    t.handle(REF, {"t": "accept_referee"}, now)
    return t


def register(t: Tournament, players, now: float = 1.0, team=None) -> None:
    for p in players:
        cmd = {"t": "register"} if team is None else {"t": "register", "team": team(p)}
        t.handle(p, cmd, now)


def hand(n: int, deltas, void: bool = False, winner=None) -> dict:
    """A room hand_result record: ``n`` is the room's 0-based hand number."""
    rec = {"match": 1, "hand": n, "deltas": list(deltas), "winner": winner, "discarder": None,
           "self_drawn": False, "total": 0, "fans": []}
    if void:
        rec["void"] = True
    return rec


def deltas_for(seats, by_player: dict) -> list[int]:
    """Deltas per room seat from a {player: delta} dict (players not named: 0)."""
    return [by_player.get(p, 0) if p is not None else by_player.get(None, 0) for p in seats]


def opened(effects) -> dict[str, list]:
    return {e.table: e.players for e in effects if isinstance(e, OpenTable)}


def commands(effects, table: str | None = None) -> list[dict]:
    return [e.cmd for e in effects if isinstance(e, TableCommand) and (table is None or e.table == table)]


def events(effects, name: str) -> list[Notify]:
    return [e for e in effects if isinstance(e, Notify) and e.msg["event"] == name]


def seats_of(t: Tournament, key: str) -> list:
    return list(t.tables[key].seats)


def play(t: Tournament, key: str, hands_by_player: list[dict], now: float, void_last: bool = False) -> list:
    """Report every hand (deltas by player) of table ``key`` and then its match result."""
    seats = seats_of(t, key)
    out = []
    for i, by in enumerate(hands_by_player):
        void = void_last and i == len(hands_by_player) - 1
        out += t.table_event(key, {"t": "hand_result", "record": hand(i, deltas_for(seats, by), void)}, now)
    out += t.table_event(key, {"t": "match_result", "record": {"match": 1, "hands": []}}, now)
    return out
