"""A tournament: registration, check-in, sessions of tables, sanctions, scoring and standings
(docs/tournaments.md is the API).

Like ``rooms.room.Room`` it is event-sourced: its state changes only by committing a log entry
(``_commit`` = ``_apply`` + append), ``_apply`` is deterministic, and whatever the live path decides
(the seating drawn, the lateness sanction, the ladder's points) is written into the entry, so
``Tournament.replay(log)`` folds the entries and reaches the same tournament. No I/O, no clock: time
arrives as ``now``; randomness only from the ``secret`` the server passes in. Scores are never stored:
局分, 标准分 and the standings are computed from the hand records and the sanctions, so cancelling a
sanction changes them at once.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass, field

from rooms import text as policy
from rooms.errors import command_check
from rooms.fields import BOOL, INT, TEXT, opt, req
from rooms.tournament import errors as E
from rooms.tournament.config import TournamentConfig
from rooms.tournament.due import DueTables
from rooms.tournament.effects import Notify, OpenTable, TableCommand
from rooms.tournament.errors import TournamentError
from rooms.tournament.sanctions import SYSTEM, Sanctions
from rooms.tournament import lateness, table_events
from rooms.tournament.table_events import OFFENCES
from rooms.tournament import referee as referees
from rooms.tournament.referee import text as _text
from rooms.tournament.seating import meetings, seat_tables
from rooms.tournament import competitors, duplicate, report
from rooms.tournament.report import BASE
from rooms.tournament.standard import standings, team_standings

from rooms.tournament.states import CANCELLED, DONE, FINISHED, PENDING, PLAYING, REGISTERING, RUNNING, WAITING
_MAX_TEXT = referees.MAX_TEXT
_MAX_STEPS = 10_000  # automatic entries in one call; more is a bug


@dataclass(slots=True)
class Player:
    id: str
    team: str | None
    order: int  # registration order: the last tie-break


@dataclass(slots=True)
class Table:
    key: str  # "<session>-<number>"
    session: int
    number: int
    seats: list  # player id or None (a bot from the start), East first
    state: str = WAITING
    started: float | None = None
    subs: dict = field(default_factory=dict)  # seat -> "forfeit" | "suspended": a can't-win bot plays it now
    hands: dict = field(default_factory=dict)  # 1-based hand -> {"deltas", "void", "winner", ...}
    time_up: bool = False
    last_hand: int | None = None  # after time is called: the hand that was in play (none after it)
    watched: bool = False  # the server reports who has taken their seat (table event "seats")
    seated: set = field(default_factory=set)  # seats whose player has taken them
    replay: int | None = None  # the match id of the table's replay, when the server reported it

    def seat_of(self, player: str) -> int | None:
        return self.seats.index(player) if player in self.seats else None

    def hand_in_play(self, hands: int) -> int | None:
        """The 1-based hand being played now, if the table is playing and one is left."""
        n = max(self.hands, default=0) + 1
        last = hands if self.last_hand is None else min(hands, self.last_hand)
        return n if self.state == PLAYING and n <= last else None


@dataclass(slots=True)
class Session:
    index: int  # 1-based
    scheduled: float | None
    state: str = PENDING
    start: float | None = None  # the start lateness counts from (R98 第十三条(二)1: the announced start)
    ended: float | None = None
    tables: list = field(default_factory=list)
    byes: list = field(default_factory=list)  # R98 第十二条 轮空 (only without fill_bots)
    checkins: dict = field(default_factory=dict)  # player -> when they checked in
    commitment: str | None = None  # duplicate: SHA-256 of the walls' seed and salt, committed at the start


class Tournament:
    # ------------------------------------------------------------------------------------------
    # Creation, replay

    @classmethod
    def create(cls, tid: str, config: TournamentConfig, organiser: str, referee: str, secret: bytes,
               now: float) -> Tournament:
        if not isinstance(config, TournamentConfig):
            raise TournamentError(E.BAD_CONFIG, "config must be a TournamentConfig")
        for name, v in (("tid", tid), ("organiser", organiser), ("referee", referee)):
            if not isinstance(v, str) or not v:
                raise ValueError(f"{name} must be a non-empty string")
        if not isinstance(secret, bytes) or len(secret) < 16:
            raise ValueError("secret: at least 16 random bytes from the server")
        try:  # the one text policy (rooms/text.py), for new tournaments: replayed logs keep their names
            policy.name(config.name, 60, "a tournament's name")
        except ValueError as e:
            raise TournamentError(E.BAD_CONFIG, str(e)) from None
        t = cls()
        # The organiser referees by default; another account named here referees once it accepts.
        offer = {} if referee == organiser else {"offer": referee}
        t._commit({"k": "create", "tournament": tid, "config": config.to_dict(), "organiser": organiser,
                   "referee": organiser, **offer, "secret": secret.hex()}, now)
        return t

    @classmethod
    def replay(cls, log: list[dict]) -> Tournament:
        t = cls()
        for entry in log:
            t._apply(entry, entry["now"])
            t.tseq, t.last_now = entry["tseq"], entry["now"]
        return t

    def __init__(self):
        self._log: list[dict] = []
        self.tseq = 0
        self.last_now = -math.inf
        self._tables = DueTables()  # which tables may have an automatic entry due

    def take_log(self) -> list[dict]:
        """Entries committed since the last call: persist them before executing the effects."""
        log, self._log = self._log, []
        return log

    # ------------------------------------------------------------------------------------------
    # The calls

    def handle(self, player_id: str, cmd: dict, now: float) -> list:
        """One command; raises TournamentError (and changes nothing) when it is rejected."""
        now = max(now, self.last_now)
        check = command_check(cmd, _COMMANDS, _FIELDS, TournamentError, E.BAD_COMMAND)
        if not isinstance(player_id, str) or not player_id:
            raise TournamentError(E.BAD_COMMAND, "a player id is a non-empty string")
        entries = check(self, player_id, cmd, now)
        out = []
        for entry in entries:
            out += self._commit(entry, now)
        return out + self._run(now)

    def table_event(self, table_key: str, event: dict, now: float) -> list:
        """What a table room reported (forwarded by the server): hand_result, match_result, offence,
        seats, seated."""
        now = max(now, self.last_now)
        table = self.tables.get(table_key)
        if table is None:
            raise TournamentError(E.NO_TABLE, f"no table {table_key!r}")
        if not isinstance(event, dict) or event.get("t") not in _EVENTS:
            raise TournamentError(E.BAD_EVENT, f"unknown table event {event!r}")
        if table.state == WAITING and event["t"] not in lateness.SEAT_EVENTS:
            raise TournamentError(E.BAD_EVENT, f"table {table_key} has not started")
        if table.state == DONE and event["t"] != "offence":
            return []  # delivered again after the table finished (a server catching up): already known
        entries = _EVENTS[event["t"]](self, table, event, now)
        out = []
        for entry in entries:
            out += self._commit(entry, now)
        return out + self._run(now)

    def tick(self, now: float) -> list:
        self.last_now = now = max(now, self.last_now)
        return self._run(now)

    def next_deadline(self) -> float | None:
        times = []
        if self.state == REGISTERING:
            times.append(self.sessions[0].scheduled)
        elif self.state == RUNNING:
            cur = self._current()
            if cur is None:
                nxt = self._next_session()
                times.append(nxt.scheduled if nxt is not None else None)
            else:
                times.append(self._tables.deadline(self, cur))
        return min((x for x in times if x is not None), default=None)

    # ------------------------------------------------------------------------------------------
    # Commit and apply

    def _commit(self, entry: dict, now: float) -> list:
        self.tseq += 1
        entry = {**entry, "tseq": self.tseq, "now": now}
        self.last_now = now
        out = self._apply(entry, now)
        self._log.append(entry)
        return out

    def _apply(self, e: dict, now: float) -> list:
        out = _APPLY[e["k"]](self, e, now)
        self._tables.touched(e)
        return out

    def _apply_create(self, e, now):
        self.id = e["tournament"]
        self.config = TournamentConfig.from_dict(e["config"])
        self.organiser, self.referee = e["organiser"], e["referee"]
        self.referee_offer: str | None = e.get("offer")  # named as referee, not yet accepted
        self.secret = bytes.fromhex(e["secret"])
        self.created = now
        self.state = REGISTERING
        self.players: dict[str, Player] = {}
        self._order = 0
        self.sessions = [Session(i + 1, self.config.start_of(i + 1)) for i in range(self.config.sessions)]
        self.tables: dict[str, Table] = {}
        self.sanctions = Sanctions()
        self.pauses: list[tuple[float, float]] = []  # storage faults' (begin, end): lateness.paused
        self.cancel_reason: str | None = None
        return []

    def _apply_register(self, e, now):
        self._order += 1
        self.players[e["player"]] = Player(e["player"], e["team"], self._order)
        return [self._notify("all", "registered", player=e["player"], team=e["team"])]

    def _apply_unregister(self, e, now):
        del self.players[e["player"]]
        self.sessions[0].checkins.pop(e["player"], None)
        return [self._notify("all", "unregistered", player=e["player"])]

    def _apply_checkin(self, e, now):
        self.sessions[e["session"] - 1].checkins[e["player"]] = now
        return [self._notify("all", "checked_in", player=e["player"], session=e["session"])]

    def _apply_referee(self, e, now):
        self.referee = e["to"]  # None: nobody referees (the organiser's default went when they registered)
        if self.referee_offer == e["to"]:
            self.referee_offer = None
        return [self._notify("all", "referee", referee=e["to"])]

    def _apply_referee_offer(self, e, now):
        self.referee_offer = e["to"]
        if e["to"] is None:
            return []
        return [self._notify(list(dict.fromkeys([e["to"], self.organiser])), "referee_offered", player=e["to"])]

    def _apply_cancel(self, e, now):
        self.state = CANCELLED
        self.cancel_reason = e["reason"]
        return [self._notify("all", "cancelled", reason=e["reason"])]

    def _apply_sanction(self, e, now):
        rec = self.sanctions.add(e["kind"], e["player"], reason=e["reason"], by=e["by"], at=now,
                                 points=e["points"], session=e["session"], table=e["table"], hand=e["hand"],
                                 public=e["public"], offence=e["offence"], reported=e["reported"],
                                 evidence=e.get("evidence"))
        out = referees.sanction_notes(self, rec, "sanction")
        if rec["kind"] == "stop_win":
            t = self.tables[rec["table"]]
            out.append(TableCommand(t.key, {"t": "stop_win", "player": t.seat_of(rec["player"])}))
        return out

    def _apply_cancel_sanction(self, e, now):
        rec = self.sanctions.cancel(e["sanction"], e["by"], now, e["reason"])
        return referees.sanction_notes(self, rec, "sanction_cancelled")


    def _apply_session_start(self, e, now):
        s = self.sessions[e["session"] - 1]
        s.state, s.start, s.byes, s.commitment = RUNNING, e["start"], list(e["byes"]), e.get("commitment")
        self.state = RUNNING
        out = []
        for i, seats in enumerate(e["tables"]):
            t = Table(f"{s.index}-{i + 1}", s.index, i + 1, list(seats))
            s.tables.append(t)
            self.tables[t.key] = t
        out.append(self._notify("all", "session_started", session=s.index, start=s.start, byes=s.byes,
                                tables=[{"table": t.key, "players": list(t.seats)} for t in s.tables]))
        config = self.config.table_config()
        secret = duplicate.table_secret(self.secret, s.index) if self.config.duplicate else None
        out += [OpenTable(t.key, list(t.seats), dict(config), secret) for t in s.tables]
        return out

    def _apply_table_start(self, e, now):
        t = self.tables[e["table"]]
        t.state, t.started = PLAYING, now
        return [TableCommand(t.key, {"t": "start"}), self._notify("all", "table_started", table=t.key)]

    def _apply_substitute(self, e, now):
        t = self.tables[e["table"]]
        t.subs[e["seat"]] = e["why"]
        return [TableCommand(t.key, {"t": "substitute", "player": e["seat"]}),
                self._notify("all", "substituted", table=t.key, seat=e["seat"], player=t.seats[e["seat"]],
                             why=e["why"])]

    def _apply_time_up(self, e, now):
        t = self.tables[e["table"]]
        t.time_up = True
        t.last_hand = max(t.hands, default=0) + 1
        finish = self.config.time_up == "finish"
        return [TableCommand(t.key, {"t": "time_up", "finish_hand": finish}),
                self._notify("all", "time_up", table=t.key, finish_hand=finish)]

    def _apply_hand(self, e, now):
        t = self.tables[e["table"]]
        rec = e["record"]
        t.hands[rec["hand"]] = dict(rec)
        return [self._notify("all", "hand", table=t.key, hand=rec["hand"])]

    def _apply_table_end(self, e, now):
        t = self.tables[e["table"]]
        for rec in e["hands"]:  # hands the match record has and no hand_result brought
            t.hands.setdefault(rec["hand"], dict(rec))
        t.state, t.replay = DONE, e.get("replay")
        return [self._notify("all", "table_finished", table=t.key, seats=report.seat_results(self, t))]

    def _apply_session_end(self, e, now):
        s = self.sessions[e["session"] - 1]
        s.state, s.ended = DONE, now
        return [self._notify("all", "session_finished", session=s.index, standings=self.standings())]

    def _apply_finish(self, e, now):
        self.state = FINISHED
        return [self._notify("all", "finished", standings=self.standings(), teams=self.team_standings())]

    # ------------------------------------------------------------------------------------------
    # Automatic entries: session starts, table starts, forfeits, substitutes, time limits, ends

    def _run(self, now: float) -> list:
        out = []
        for _ in range(_MAX_STEPS):
            entries = self._due(now)
            if not entries:
                return out
            for entry in entries:
                out += self._commit(entry, now)
        raise AssertionError("tournament: automatic entries do not settle")

    def _due(self, now: float) -> list[dict]:
        """The next automatic entries that are due at ``now`` (empty: nothing to do)."""
        if self.state == REGISTERING:
            s = self.sessions[0]
            if s.scheduled is not None and now >= s.scheduled:
                active = self._active()
                if len(active) < self.config.min_players:
                    # tournament.md §4.5: too few at the start time: the event is called off
                    return [{"k": "cancel", "by": SYSTEM,
                             "reason": f"too few players: {len(active)} registered, "
                                       f"{self.config.min_players} needed"}]
                return [self._session_start(s, lateness.due_start(self, s))]
            return []
        if self.state != RUNNING:
            return []
        cur = self._current()
        if cur is None:
            nxt = self._next_session()
            if nxt is None or not self._active():
                return [{"k": "finish"}]
            if nxt.scheduled is not None and now >= nxt.scheduled:
                return [self._session_start(nxt, lateness.due_start(self, nxt))]
            return []
        return self._tables.due(self, cur, now)  # rooms/tournament/due.py: the tables that changed

    def _session_start(self, s: Session, start: float) -> dict:
        """The entry that starts session ``s``: the tables are drawn here (live) and logged."""
        rng = random.Random(int.from_bytes(
            hashlib.sha256(self.secret + b"seating" + s.index.to_bytes(4, "big")).digest()[:8], "big"))
        first = not any(x.state == DONE for x in self.sessions)
        if first:
            ranked = self._active()
        else:
            ranked = [r["player"] for r in self.standings() if not r["suspended"]]
        byes: list[str] = []
        extra = len(ranked) % 4
        if not self.config.fill_bots and extra:
            # R98 第十二条: a bye (轮空) for the players with the fewest byes so far, lowest standing first
            # (a random draw in the first session); they score nothing for this session.
            had = {p: sum(p in x.byes for x in self.sessions) for p in ranked}
            draw = {p: rng.random() for p in ranked}
            pos = {p: i for i, p in enumerate(ranked)}
            order = sorted(ranked, key=lambda p: (had[p], draw[p] if first else -pos[p]))
            byes = order[:extra]
            ranked = [p for p in ranked if p not in byes]
        met = meetings([[t.seats for t in x.tables] for x in self.sessions if x.state == DONE])
        tables = seat_tables(self.config.seating, ranked, rng, first=first, met=met,
                             lookahead=s.index < self.config.sessions, duplicate=self.config.duplicate)
        walls = {"commitment": duplicate.draw(self.secret, s.index)["commitment"]} if self.config.duplicate else {}
        return {"k": "session_start", "session": s.index, "start": start, "tables": tables, "byes": byes, **walls}

    def _system_sanction(self, kind: str, player: str, *, reason: str, points: int = 0, session=None,
                         table=None, hand=None, offence=None, reported=None, evidence=None) -> dict:
        entry = {"k": "sanction", "kind": kind, "player": player, "session": session, "table": table, "hand": hand,
                 "points": points, "reason": reason, "by": SYSTEM, "public": False, "offence": offence,
                 "reported": reported}
        return entry if evidence is None else {**entry, "evidence": evidence}

    # ------------------------------------------------------------------------------------------
    # Questions about the state

    @property
    def over(self) -> bool:
        """Finished or cancelled: nothing more will happen (the server may stop driving it)."""
        return self.state in (FINISHED, CANCELLED)

    def participants(self) -> list[str]:
        """Who takes part: the registered players, the organiser and the referee (a ``"all"`` Notify
        goes to them and to whoever else follows the tournament)."""
        return list(dict.fromkeys(x for x in [*self.players, self.organiser, self.referee] if x is not None))

    def _active(self) -> list[str]:
        """Registered and not suspended, in registration order."""
        return [p for p in self.players if not self.sanctions.suspended(p)]

    def _current(self) -> Session | None:
        return next((s for s in self.sessions if s.state == RUNNING), None)

    def _next_session(self) -> Session | None:
        return next((s for s in self.sessions if s.state == PENDING), None)

    def _present(self, s: Session, pid: str) -> bool:
        return not self.config.checkin_required or pid in s.checkins or competitors.bot_name(pid) is not None

    def _absent(self, t: Table) -> list[int]:
        s = self.sessions[t.session - 1]
        return [i for i, p in enumerate(t.seats) if p is not None and i not in t.subs and not self._present(s, p)]

    def _table_of(self, pid: str) -> Table | None:
        """The player's table in the session being played (None between sessions or on a bye)."""
        cur = self._current()
        if cur is None:
            return None
        return next((t for t in cur.tables if pid in t.seats), None)

    def _audience(self, rec: dict):
        if rec["public"]:
            return "all"
        return list(dict.fromkeys(x for x in (rec["player"], self.referee, self.organiser) if x is not None))

    def _notify(self, to, event: str, **fields) -> Notify:
        return Notify(to, {"t": "tournament_event", "tournament": self.id, "tseq": self.tseq, "event": event, **fields})

    # ------------------------------------------------------------------------------------------
    # Scores and views (rooms/tournament/report.py)

    def results(self) -> dict[str, list[tuple[int, int]]]:
        return report.results(self)

    def standings(self) -> list[dict]:
        """Every player by R98 第十一条 with our tie-breaks. 停赛 (旨在禁止违规者继续参加当前比赛) bars a player
        from continuing only: their finished results stay (they counted for others' 标准分), marked."""
        suspended = {p for p in self.players if self.sanctions.suspended(p)}
        return standings(list(self.players), self.results(), suspended)

    def team_standings(self, rows: list[dict] | None = None) -> list[dict]:  # rows: standings() if known
        return team_standings(rows or self.standings(), {p.id: p.team for p in self.players.values()})

    def view(self, player_id: str | None) -> dict:
        """The whole tournament as ``player_id`` may see it (JSON-able); None: anonymous."""
        return report.view(self, player_id)

    def summary(self) -> dict:
        """One line of a tournament list."""
        return report.summary(self)

    # ------------------------------------------------------------------------------------------
    # Commands: each checks and returns the entries to commit, or raises

    def _open(self) -> None:
        if self.state in (FINISHED, CANCELLED):
            raise TournamentError(E.CLOSED, f"the tournament is {self.state}")

    def _before_start(self, now: float, code: str) -> None:
        self._open()
        s = self.sessions[0]
        if self.state != REGISTERING or (s.scheduled is not None and now >= s.scheduled):
            raise TournamentError(code, "the tournament has started")

    def _organiser(self, pid: str) -> None:
        if pid != self.organiser:
            raise TournamentError(E.NOT_ORGANISER, "only the organiser may do that")

    def _referee(self, pid: str) -> None:
        if pid is None or pid != self.referee:
            raise TournamentError(E.NOT_REFEREE, "only the referee may do that")

    def _registered(self, pid) -> None:
        if not isinstance(pid, str) or pid not in self.players:
            raise TournamentError(E.NOT_REGISTERED, f"{pid!r} is not registered")

    def _cmd_register(self, pid, cmd, now):
        self._before_start(now, E.CLOSED)
        team = _text(cmd, "team", 40, required=False, check=policy.name)
        if pid in self.players:
            raise TournamentError(E.ALREADY_REGISTERED, "already registered")
        if len(self.players) >= self.config.max_players:
            raise TournamentError(E.FULL, f"the tournament is full ({self.config.max_players} players)")
        return [{"k": "register", "player": pid, "team": team}, *referees.on_register(self, pid)]

    def _cmd_unregister(self, pid, cmd, now):
        self._before_start(now, E.STARTED)
        self._registered(pid)
        return [{"k": "unregister", "player": pid}]

    def _cmd_start(self, pid, cmd, now):
        self._organiser(pid)
        self._open()
        if self._current() is not None:
            raise TournamentError(E.SESSION_RUNNING, "a session is being played")
        nxt = self._next_session()
        if nxt is None:
            raise TournamentError(E.NO_SESSION, "every session has been played")
        active = self._active()
        need = self.config.min_players if self.state == REGISTERING else 1
        if len(active) < need:
            raise TournamentError(E.TOO_FEW, f"{len(active)} players, {need} needed")
        return [self._session_start(nxt, lateness.pressed_start(self, nxt, now))]

    def _cmd_cancel(self, pid, cmd, now):
        self._organiser(pid)
        self._before_start(now, E.STARTED)
        reason = _text(cmd, "reason", _MAX_TEXT, required=False) or "cancelled by the organiser"
        return [{"k": "cancel", "by": pid, "reason": reason}]


_COMMANDS = {
    "register": Tournament._cmd_register, "unregister": Tournament._cmd_unregister,
    "checkin": lateness.cmd_checkin, "start": Tournament._cmd_start, "sanction": referees.cmd_sanction,
    "intentional_false_win": referees.cmd_intentional_false_win,
    "cancel_sanction": referees.cmd_cancel_sanction, "referee": referees.cmd_referee,
    "accept_referee": referees.cmd_accept_referee,
    "cancel": Tournament._cmd_cancel, "register_bot": competitors.cmd_register_bot,
    "unregister_bot": competitors.cmd_unregister_bot,
}
# Each command's fields (rooms.fields), checked by the server before the tournament sees the command.
_FIELDS = {
    "register": {"team": opt(TEXT)}, "unregister": {}, "checkin": {}, "start": {},
    "sanction": {"player": opt(TEXT), "kind": req(TEXT), "points": opt(INT), "reason": req(TEXT),
                 "table": opt(TEXT), "hand": opt(INT), "public": opt(BOOL)},
    "cancel_sanction": {"sanction": req(INT), "reason": req(TEXT)}, "referee": {"player": req(TEXT)},
    "accept_referee": {}, "cancel": {"reason": opt(TEXT)}, "register_bot": {"bot": req(TEXT)},
    "unregister_bot": {"bot": req(TEXT)},
    "intentional_false_win": {"sanction": req(INT), "reason": opt(TEXT), "public": opt(BOOL)},
}
COMMAND_FIELDS = _FIELDS
_EVENTS = {
    "hand_result": table_events.hand_result, "match_result": table_events.match_result,
    "offence": table_events.offence, "seats": lateness.seated, "seated": lateness.seated,
}
_APPLY = {
    "create": Tournament._apply_create, "register": Tournament._apply_register,
    "unregister": Tournament._apply_unregister, "checkin": Tournament._apply_checkin,
    "referee": Tournament._apply_referee, "referee_offer": Tournament._apply_referee_offer,
    "cancel": Tournament._apply_cancel,
    "sanction": Tournament._apply_sanction, "cancel_sanction": Tournament._apply_cancel_sanction,
    "session_start": Tournament._apply_session_start, "table_start": Tournament._apply_table_start,
    "substitute": Tournament._apply_substitute, "time_up": Tournament._apply_time_up,
    "hand": Tournament._apply_hand, "seated": lateness.apply_seated, "table_end": Tournament._apply_table_end,
    "session_end": Tournament._apply_session_end, "finish": Tournament._apply_finish, "paused": lateness.apply_paused,
}

__all__ = ["Tournament", "Player", "Table", "Session", "REGISTERING", "RUNNING", "FINISHED", "CANCELLED",
           "BASE", "OFFENCES"]
