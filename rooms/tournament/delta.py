"""What one commit changed in a tournament's view (docs/protocol.md "Tournament deltas").

A full view costs time in the number of players, and a tournament changes on every hand of every table:
building one per follower per change was quadratic (a 1,024-player event). ``Deltas.after(tour,
entries)`` returns the public part of the change, built once and sent to every online follower, and
says which followers' personal part (``report.personal``) changed too. The view carries ``tseq``; a
delta goes from ``from`` to ``tseq``, and a client whose view is not at ``from`` asks for a new one.

The public delta's fields (each optional):
- ``players``: player lines (as in the view) to put in place of those with the same ``id``, or to add;
  ``unregistered``: ids to remove;
- ``tables``: table views to put in place of those with the same ``table`` key (in session ``session``);
- ``sessions``: session views (with their tables) to put in place of those with the same ``index``;
- ``set``: top-level view fields, replaced whole (``standings`` is not among them: see below);
- ``standings``: the rows that changed or are new (by ``player``), and ``ranking``: every player id in
  standings order. A finished table moves many players' places but changes only its four rows, so the
  ranking (ids only) is what grows with the field; it is left out when the order is the old one with the
  new rows at the end and the ``unregistered`` players' rows removed (registration).
"""

from __future__ import annotations

from rooms.tournament import duplicate, report

# Entries that change only their own table's view ("seated" not even that: the view does not show who sat
# down, and at a session start every table reports it, so a whole view each would cost the square of the field).
_TABLE_ONLY = frozenset(("hand", "table_start", "substitute", "time_up", "seated"))
# Entries that change players' lines and the standings (a player joins, leaves, checks in).
_PLAYER = frozenset(("register", "unregister", "checkin"))
_SANCTION = frozenset(("sanction", "cancel_sanction"))
# Entries that change nobody's personal part (report.personal: who you are, the sanctions you may see).
_IMPERSONAL = _TABLE_ONLY | frozenset(("checkin", "table_end", "session_start", "session_end", "finish",
                                       "cancel", "referee_offer"))


class Deltas:
    """Keeps what it last told followers of the standings, to send only the rows that changed."""

    def __init__(self, tour):
        self.standings = {r["player"]: r for r in tour.standings()}
        self.ranking = list(self.standings)
        self.teams = tour.team_standings()

    def after(self, tour, entries: list[dict]) -> tuple[dict, set[str] | None, bool]:
        """(the public delta of ``entries``; whose personal part changed: a set of ids, None = everybody's;
        whether the delta sets the whole public view)."""
        out: dict = {}
        personal = _personal(tour, entries)
        kinds = {e["k"] for e in entries}
        if kinds <= _TABLE_ONLY:
            out["tables"] = self._tables(tour, entries)
            return out, personal, False
        if kinds <= _TABLE_ONLY | _PLAYER | _SANCTION | {"table_end"}:
            tables = self._tables(tour, entries)
            if tables:
                out["tables"] = tables
            ids = {e["player"] for e in entries if e.get("player") is not None}
            for e in entries:  # a cancelled sanction changes its player's line and its table
                rec = tour.sanctions.get(e["sanction"]) if e["k"] == "cancel_sanction" else None
                if rec is not None and rec["player"] is not None:
                    ids.add(rec["player"])
            rows = report.player_rows(tour, ids) if ids else []
            if rows:
                out["players"] = rows
            gone = [p for p in ids if p not in tour.players]
            if gone:
                out["unregistered"] = gone
            if kinds & _SANCTION:
                out["set"] = {"suspended": [p for p in tour.players if tour.sanctions.suspended(p)]}
                if tour.config.duplicate:  # a penalty changes a 盘分, so the comparisons with it
                    out["set"]["duplicate"] = duplicate.view(tour)
            self._standings(tour, out)
            return out, _with_hidden(tour, out, personal), False
        # Anything else (sessions starting and ending, the referee, the end): the whole public view.
        full = report.public_view(tour)
        out["set"] = {k: v for k, v in full.items() if k != "standings"}
        self._standings(tour, out, full["standings"])
        return out, _with_hidden(tour, out, personal), True

    @staticmethod
    def _tables(tour, entries: list[dict]) -> list[dict]:
        keys = []
        for e in entries:
            key = e.get("table")
            if e["k"] == "cancel_sanction":
                rec = tour.sanctions.get(e["sanction"])
                key = None if rec is None else rec["table"]
            if key in tour.tables and key not in keys:
                keys.append(key)
        return [report.table_view(tour, tour.tables[k]) for k in keys]

    def _standings(self, tour, out: dict, rows: list[dict] | None = None) -> None:
        rows = tour.standings() if rows is None else rows
        new = {r["player"]: r for r in rows}
        changed = [r for p, r in new.items() if self.standings.get(p) != r]
        ranking = list(new)
        if changed or ranking != self.ranking:
            out["standings"] = changed
            # Registrations add rows at the end and unregistrations remove them: no need to send the order.
            kept = [p for p in self.ranking if p in new] + [p for p in new if p not in self.standings]
            dropped = set(self.ranking) - new.keys()
            if ranking != kept or not dropped <= set(out.get("unregistered", ())):
                out["ranking"] = ranking
        self.standings, self.ranking = new, ranking
        teams = tour.team_standings(rows)
        if teams != self.teams:
            out.setdefault("set", {})["teams"] = teams
            self.teams = teams


def _personal(tour, entries: list[dict]) -> set[str] | None:
    """Whose personal part ``entries`` changed (None: anybody's, e.g. a new referee sees every record)."""
    out: set[str] = set()
    for e in entries:
        k = e["k"]
        if k in ("register", "unregister"):
            out.add(e["player"])
        elif k in _SANCTION:
            rec = tour.sanctions.get(e["sanction"]) if k == "cancel_sanction" else e
            if rec is None or rec["public"]:
                return None
            # a record that is not public: its player, the organiser and the referee see it (Sanctions.visible)
            out.update(p for p in (rec["player"], tour.organiser, tour.referee) if p is not None)
        elif k not in _IMPERSONAL:
            return None
    return out


def _with_hidden(tour, out: dict, personal: set[str] | None) -> set[str] | None:
    """``personal`` and whoever sees other warnings in the delta's player lines than the public ones
    (report.own_rows: the referee, the organiser, the player warned)."""
    rows = out.get("players", []) + out.get("set", {}).get("players", [])
    if personal is None or not rows:
        return personal
    hidden = report.hidden_warnings(tour, [r["id"] for r in rows])
    return personal | hidden | {tour.organiser, tour.referee} if hidden else personal


def for_viewer(tour, delta: dict, personal: set[str] | None, viewer: str) -> dict:
    """``delta`` (from ``Deltas.after``) as ``viewer`` gets it: with their personal part if it changed,
    and the warnings they may see in its player lines."""
    if personal is not None and viewer not in personal:
        return delta
    m = {**delta, "set": {**delta.get("set", {}), **report.personal(tour, viewer)}}
    if "players" in m:
        m["players"] = report.own_rows(tour, m["players"], viewer)
    if "players" in m["set"]:
        m["set"]["players"] = report.own_rows(tour, m["set"]["players"], viewer)
    return m


def apply(view: dict, delta: dict) -> dict | None:
    """``view`` with ``delta`` applied (a new dict; ``view`` is not changed), or None when the delta does
    not follow from it (its ``from`` is not the view's ``tseq``): ask for a whole view then. What the
    browser client does too (web_client/src/tournament.ts ``applyDelta``)."""
    if delta.get("from") != view.get("tseq"):
        return None
    v = {**view, **delta.get("set", {}), "tseq": delta["tseq"]}
    if "names" in delta:
        v["names"] = {**v.get("names", {}), **delta["names"]}
    sessions = list(v["sessions"])
    for s in delta.get("sessions", ()):
        sessions[s["index"] - 1] = s
    for t in delta.get("tables", ()):
        s = sessions[t["session"] - 1]
        tables = [t if x["table"] == t["table"] else x for x in s["tables"]]
        if not any(x["table"] == t["table"] for x in s["tables"]):
            tables.append(t)
        sessions[t["session"] - 1] = {**s, "tables": tables}
    v["sessions"] = sessions
    if "players" in delta or "unregistered" in delta:
        rows = {p["id"]: p for p in v["players"]}
        for p in delta.get("players", ()):
            rows[p["id"]] = p
        for pid in delta.get("unregistered", ()):
            rows.pop(pid, None)
        v["players"] = sorted(rows.values(), key=lambda p: p["order"])
    if "standings" in delta:
        rows = {r["player"]: r for r in v["standings"]}
        order = delta.get("ranking")
        if order is None:
            gone = set(delta.get("unregistered", ()))
            order = [p for p in rows if p not in gone] + [r["player"] for r in delta["standings"] if r["player"] not in rows]
        rows.update((r["player"], r) for r in delta["standings"])
        v["standings"] = [rows[p] for p in order]
    return v
