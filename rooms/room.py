"""A room: the lobby, seats, timers, bots and 托管 around a match (docs/rooms.md is the API).

The room's state changes only by committing a log entry (``_commit`` = ``_apply`` + append), and
``_apply`` is deterministic: bots, timeouts and 托管 decide in the live path and the entry records the
action taken, so ``Room.replay(log)`` folds the same entries and reaches the same room without a bot or
a clock. Nothing here does I/O or reads a clock: time arrives as ``now``.

A tournament table (``Room.create_table``) is a room with fixed seats, started and steered by the
server through ``system`` commands (start, 停和, substitutes, time up); docs/rooms.md "Tournament tables".
Each command is checked in rooms/commands.py, which returns the entry this module commits; applying it
returns effects (rooms/effects.py). The calls (``handle``, ``system``, ``connect``, ``disconnect``,
``tick``) return them as ``Applied`` values and build no message: the server makes the entries durable
first, then rooms/messages.py ``render`` builds what members are sent. Members, seats and the lobby's
entries are rooms/membership.py's, timers and 托管 rooms/auto.py's (mixed into ``Room``).
"""

from __future__ import annotations

from typing import Callable, Mapping

from game import match as gm
from game.actions import NoWin, StopWin, TimeUp, from_dict, with_seq
from game.rules import Rules
from game.state import CLAIM as HAND_CLAIM
from rooms import clock, commands, errors as E
from rooms.auto import AUTO_PER_CALL, RoomTimers, load_bot  # noqa: F401 (AUTO_PER_CALL, load_bot: API)
from rooms.botzone_seats import ExternalSeats
from rooms.config import LOBBY, PLAYING, RoomConfig
from rooms.effects import ROOM_CHANGED, Announce, Answered, Applied, Effect, GameEvents, HintAsked, Notice
from rooms.errors import NOT_TABLE, RoomError
from rooms.keys import check_keys, match_seed
from rooms.membership import Member, Membership, Seat
from rooms.messages import Outbound, RoomMessages
from rooms.records import foul_offence, hand_record, match_record, match_summary, void_hand_record

# Game events the room never forwards: a claim answer is acknowledged by the room's own message.
_DROPPED = frozenset(("response",))

_new = tuple.__new__  # effects built per action (their NamedTuple constructors are Python functions)


class Room(Membership, RoomTimers, ExternalSeats, RoomMessages):
    # ------------------------------------------------------------------------------------------
    # Creation, replay

    @classmethod
    def create(cls, room_id: str, config: RoomConfig, host: str, invite: str, secret: bytes, now: float, *,
               players: list[str] | None = None, bots: int = 0,
               bot_policies: Mapping[str, Callable] | None = None) -> Room:
        """A new room with ``host`` in the first seat; a quick-match room seats ``players`` (the first is
        the host) and ``bots`` bots, all ready, and starts at once."""
        if not isinstance(config, RoomConfig):
            raise RoomError(E.BAD_CONFIG, "config must be a RoomConfig")
        if config.table:
            raise RoomError(E.BAD_CONFIG, "a tournament table is made by Room.create_table")
        check_keys(invite, secret)
        quick = players is not None
        players = list(players) if quick else [host]
        if not players or players[0] != host or len(set(players)) != len(players) or len(players) + bots > 4:
            raise ValueError("players: distinct ids starting with the host, at most four with the bots")
        if quick and len(players) + bots != 4:
            raise ValueError("a quick-match room is created full")
        room = cls(bot_policies)
        entry = {"k": "create", "room": room_id, "config": config.to_dict(), "host": host, "invite": invite,
                 "secret": secret.hex(), "players": players, "bots": bots, "quick": quick}
        room._commit(entry, now)
        return room

    @classmethod
    def create_table(cls, room_id: str, config: RoomConfig, players: list[str | None], invite: str, secret: bytes,
                     now: float, *, bot_policies: Mapping[str, Callable] | None = None) -> Room:
        """A tournament table: ``players`` gives the four seats (a player id, or None for a seat that an
        unranked bot that cannot win plays). The seats are fixed; the match starts on the system
        ``start``; the room has no host. ``config.table`` must be true (hands 1..16)."""
        if not isinstance(config, RoomConfig) or not config.table:
            raise RoomError(E.BAD_CONFIG, "a table needs RoomConfig(table=True)")
        check_keys(invite, secret)
        if not isinstance(players, (list, tuple)) or len(players) != 4:
            raise ValueError("players: four entries, a player id or None per seat")
        ids = [p for p in players if p is not None]
        if any(not isinstance(p, str) or not p for p in ids) or len(set(ids)) != len(ids):
            raise ValueError("players: distinct non-empty player ids (or None)")
        room = cls(bot_policies)
        entry = {"k": "create", "room": room_id, "config": config.to_dict(), "host": None, "invite": invite,
                 "secret": secret.hex(), "players": list(players), "bots": 0, "quick": False, "table": True}
        room._commit(entry, now)
        return room

    @classmethod
    def replay(cls, log: list[dict], bot_policies: Mapping[str, Callable] | None = None) -> Room:
        """The room that ``log`` (from its ``create`` entry on) describes. Derived entries are skipped."""
        room = cls(bot_policies)
        for entry in log:
            if entry.get("derived"):
                continue
            room._apply(entry, entry["now"])  # its effects were sent when it was committed: not rendered
            room.rseq = entry["rseq"]
            room.last_now = entry["now"]
        room._log = []  # already persisted
        room.rows = len(log)
        return room

    @classmethod
    def restore(cls, log: list[dict], now: float, bot_policies: Mapping[str, Callable] | None = None) -> Room:
        """After a restart: replay, then everybody is disconnected and the pending decision's clock
        starts again at ``now`` (a logged ``restore`` entry, so a later replay does the same)."""
        room = cls.replay(log, bot_policies)
        room._commit({"k": "restore"}, now)
        return room

    def __init__(self, bot_policies: Mapping[str, Callable] | None = None):
        """An empty room: every attribute is here; the ``create`` entry (``_apply_create``) fills them."""
        self._policies = dict(bot_policies or {})
        self._bots: dict[str, Callable] = {}  # level -> choose, built with the room's rules
        self._given: dict = {}  # player -> an external bot's answer not yet due (rooms/botzone_seats.py)
        self.bot_faults: dict[str, dict[str, int]] = {}  # external bot seat id -> its answers replaced
        self._hint_sent: dict[str, object] = {}  # player -> the hint last sent (sent again only when it changes)
        self._hint_memo: dict[int, tuple] = {}  # seat -> (inputs, hint, shanten floor) of the last _seat_hint
        self._log, self._window_clock = [], None  # the log; the last claim window's clock (rooms.messages)
        self.rseq = 0  # the last entry's number: what every message carries
        self.rows = 0  # rows of the log so far (entries and derived records), the stored ones included
        self.last_now = self.last_activity = float("-inf")
        self._settled: list | None = None  # the first timer's time ([]: none) as _run last left it (None: changed since)
        self._parsed: tuple | None = None  # (an act entry's action dict, the action): parsed once
        # Set by the create entry:
        self.id = self.invite = ""
        self.config: RoomConfig = None  # type: ignore[assignment]
        self.rules: Rules = None  # type: ignore[assignment]
        self.host: str | None = None
        self.secret = b""
        self.created = float("-inf")
        self.quick = self.table = False  # quick match: nobody has power over the others' seats
        self.table_players: list[str | None] = []
        self.seats: list[Seat | None] = [None] * 4
        self.members: dict[str, Member] = {}
        self.banned: set[str] = set()
        self._order = self._bot_names = 0
        self.phase = LOBBY
        self.match: gm.MatchState | None = None
        self.match_no = 0
        self.actions: list = []  # (player, action) stepped in this match, for game.match.replay
        self.turn_started = self.between_started = float("-inf")
        self.turn_first = False
        self.banks = [0.0] * 4
        self.auto: list[str | None] = [None] * 4  # why the seat is in 托管, or None
        self.hands: list[dict] = []
        self.finished: list[dict] = []
        self.stand_in = [False] * 4  # the seat is played by an unranked bot that cannot win (tables)
        self.replaced: list[str | None] = [None] * 4  # the player a stand-in replaced
        self.hand_offences: dict = {}  # (player, kind) -> count in the hand in play (R98 escalation)

    def keep_parsed(self, wire: dict, action) -> None:
        """The action that rooms.commands parsed from ``wire`` (the entry's action), so that applying
        the entry does not parse it again."""
        self._parsed = (wire, action)

    # ------------------------------------------------------------------------------------------
    # The calls

    def handle(self, player_id: str, command: dict, now: float) -> list[Applied]:
        """One command from a player; raises RoomError (and changes nothing) when it is rejected."""
        now = max(now, self.last_now)
        check = E.command_check(command, commands.COMMANDS, commands.FIELDS)
        entry = check(self, player_id, command, now)
        out = self._commit(entry, now)
        return out + self._run(now)

    def system(self, command: dict, now: float) -> list[Applied]:
        """A command from the server itself (a tournament, a referee), never from a player: ``start``,
        ``stop_win``, ``substitute``, ``time_up`` (docs/rooms.md). Raises RoomError and changes nothing
        when it does not apply."""
        now = max(now, self.last_now)
        check = E.command_check(command, commands.SYSTEM, commands.SYSTEM_FIELDS, what="system command")
        if not self.table:
            raise RoomError(NOT_TABLE, "system commands are for tournament tables")
        entry = check(self, command, now)
        out = self._commit(entry, now)
        return out + self._run(now)

    def connect(self, player_id: str, now: float) -> list[Applied]:
        now = max(now, self.last_now)
        m = self.member(player_id)
        m.connected = True
        self._settled = None
        self._hint_sent.pop(player_id, None)  # the snapshot sent on connecting carries the hint
        out: list[Applied] = []
        if m.seat is not None and self.auto[m.seat] == "disconnected":
            out += self._commit({"k": "auto", "player": m.seat, "on": False, "why": "returned"}, now)
        return out + [self._moment([ROOM_CHANGED])] + self._run(now)

    def disconnect(self, player_id: str, now: float) -> list[Applied]:
        now = max(now, self.last_now)
        m = self.member(player_id)
        m.connected, m.since = False, now
        self._settled = None
        return [self._moment([ROOM_CHANGED])] + self._run(now)

    def tick(self, now: float) -> list[Applied]:
        self.last_now = now = max(now, self.last_now)  # the room's time never goes backwards
        return self._run(now)

    def next_deadline(self) -> float | None:
        settled = self._settled
        times = [t[0] for t in self._timers()] if settled is None else list(settled)
        dispose = self._dispose_at()
        if dispose is not None and dispose > self.last_now:
            times.append(dispose)
        return min(times, default=None)

    def take_log(self) -> list[dict]:
        """The rows logged since the last call, for the server to store: they are rows
        ``self.rows - len(log)`` on (the room is the one owner of its log's numbering)."""
        log, self._log = self._log, []
        return log

    def pending_log(self) -> list[dict]:
        """What ``take_log`` would return, left in place (do not change it)."""
        return self._log

    def disposable(self, now: float) -> bool:
        if self.table and not self.finished:
            return False  # a table plays its match out (bots and 托管 play for absent humans)
        if not self.members:
            return True
        at = self._dispose_at()
        return at is not None and now >= at

    def records(self) -> dict:
        return {"matches": list(self.finished), "current": list(self.hands)}

    # ------------------------------------------------------------------------------------------
    # Commit and apply

    def _commit(self, entry: dict, now: float) -> list[Applied]:
        self.rseq += 1
        entry = {**entry, "rseq": self.rseq, "now": now}
        self.last_now = now
        effects = self._apply(entry, now)
        self._log.append(entry)
        self.rows += 1
        return [self._moment(effects)] if effects else []

    def _derive(self, entry: dict) -> None:
        """A record written for the server to keep; replay skips it (it is rebuilt by the same apply)."""
        self._log.append({**entry, "derived": True, "rseq": self.rseq, "now": self.last_now})
        self.rows += 1

    def _apply(self, e: dict, now: float) -> list[Effect]:
        self.last_activity = now
        self._settled = None
        return _APPLY[e["k"]](self, e, now)

    def _apply_create(self, e: dict, now: float) -> list[Effect]:
        self.id = e["room"]
        self.config = RoomConfig.from_dict(e["config"])
        self.rules = self.config.rules()
        self.host, self.invite = e["host"], e["invite"]
        self.secret = bytes.fromhex(e["secret"])
        self.created = self.turn_started = self.between_started = now
        self.banks = [self.config.bank] * 4
        self.table = e.get("table", False)
        self.table_players = list(e["players"]) if self.table else []
        quick = self.quick = e["quick"]
        if self.table:
            # Seated by the tournament; connected only once they connect (an absent player's seat goes
            # to 托管 after the grace period, counted from here).
            for i, pid in enumerate(e["players"]):
                if pid is not None:
                    self._seat_at_table(i, pid, now)  # rooms/botzone_seats.py: a bot competitor too
            return [ROOM_CHANGED]
        for i, pid in enumerate(e["players"]):
            self._add_member(pid, i, now)
            self.seats[i].ready = quick
        for i in range(len(e["players"]), len(e["players"]) + e["bots"]):
            self._add_bot(i, "fan")
        return self._after_lobby(now)

    def _apply_restore(self, e: dict, now: float) -> list[Effect]:
        for m in self.members.values():
            m.connected, m.since = False, now
        self.turn_started = self.between_started = now  # a claim window's clock too
        return []

    # -- the match's start (the lobby's entries: rooms/membership.py) ---------------------------

    def _after_lobby(self, now: float) -> list[Effect]:
        """Room messages; the match starts by itself when four seats are filled and every human is ready."""
        if self.phase == LOBBY and not self.table and all(s is not None and s.ready for s in self.seats):
            return self._start(now)
        return [ROOM_CHANGED]

    def _start(self, now: float) -> list[Effect]:
        if self.table:
            for i, s in enumerate(self.seats):
                if s is None:  # an empty seat at a table: an unranked bot that cannot win (陪打)
                    self._add_bot(i, "fan")
                    self.stand_in[i] = True
        self.match_no += 1
        self.match, events = gm.start_match(self.rules, seed=match_seed(self.secret, self.match_no))
        self.phase = PLAYING
        self.actions, self.hands = [], []
        self.banks = [self.config.bank] * 4  # decisions.md item 14: a time bank per match
        self.auto = [None] * 4
        for p in range(4):
            if self.stand_in[p]:  # in the match's own log, so its record replays it
                action = NoWin(seq=self.match.seq)
                self.match, _ = gm.step(self.match, p, action)
                self.actions.append((p, action))
        for i, s in enumerate(self.seats):
            if s.bot is None:
                s.ready = False  # a rematch asks again
                if s.id not in self.members:  # a table player who left before the start
                    self.auto[i] = "left"
        return [ROOM_CHANGED] + self._release(events, now)

    def _apply_hint(self, e, now):
        m = self.members[e["player"]]
        m.hints = e["on"]
        return [HintAsked(m.id, m.seat, m.hints)]

    def _apply_auto(self, e, now):
        self.auto[e["player"]] = e["why"] if e["on"] else None
        return [ROOM_CHANGED]

    # -- the game ------------------------------------------------------------------------------

    def _apply_act(self, e, now):
        p, by = e["player"], e["by"]
        parsed = self._parsed
        if parsed is not None and parsed[0] is e["action"]:
            action = parsed[1]  # commands.act's (the entry was not serialized in between)
        else:
            action = from_dict(e["action"])
        self._parsed = None
        if by == "player" and self.auto[p] in ("timeout", "requested"):
            self.auto[p] = None  # the player is back: an action of their own ends 托管
        m = self.match
        claim = self.phase == PLAYING and m.phase == gm.PLAYING and m.hand.phase == HAND_CLAIM  # a claim window is open
        if m.phase == gm.PLAYING and not claim:  # a claim window has no bank and no 托管 on timeout
            if by == "timeout":
                # Free time and bank both spent: the seat goes to 托管 (decisions.md item 14).
                self.banks[p], self.auto[p] = 0.0, "timeout"
                if self.seats[p].bot is None:
                    # An offence the server can see (tournament.md "Our decisions": R98's escalation
                    # within a hand applies); the tournament decides the sanction, the room only reports.
                    self._offence(p, "timeout", m.number, 0)
            else:
                self.banks[p] = clock.spend(self.banks[p], self.turn_started,
                                            clock.free_time(self.config, self.turn_first), now)
        action = action if action.seq == m.seq else with_seq(action, m.seq)  # an old log's: the old numbering
        self.match, events = gm.step(m, p, action)
        self.actions.append((p, action))
        if claim and self.match.seq == m.seq:
            # The window waits for other answers: only the answering seat hears (that it answered).
            return [_new(Answered, (p, self.seats[p].id))] if self.seats[p].bot is None else []
        return self._release(events, now)

    def _apply_close(self, e, now):
        """Logs written before claims were the game's: the room's window closed by its timer after the
        last answer (which closes the game's window now), and the next decision's clock started then."""
        self.turn_started = now
        if self.match.phase == gm.BETWEEN:
            self.between_started = now
        return []

    def _release(self, events: list, now: float) -> list[Effect]:
        """Send game events; start the next decision's clock; write the records of a finished hand."""
        events, m = [x for x in events if x["t"] not in _DROPPED], self.match
        kinds = {x["t"] for x in events}  # not any() over generators: a call per event
        for x in events:
            if x["t"] == "hand_start":
                self.hand_offences = {}
            elif x["t"] == "foul":
                # Training mode's 错和/诈和 (R98 第十四条六): the game already charged it in the hand's
                # penalties (points to each other seat), so the record says so.
                p = gm.player_in(x["seat"], x["hand"])
                self._offence(p, "false_win", **foul_offence(m, x))
        self.turn_started = now
        self.turn_first = "hand_start" in kinds
        if m.phase == gm.BETWEEN:
            self.between_started = now
        out: list[Effect] = [_new(GameEvents, (events, None))]
        ids = [s.id for s in self.seats]
        if "scores" in kinds:
            rec = hand_record(m, self.match_no, ids)
            self.hands.append(rec)
            self._derive({"k": "hand_result", "record": rec})
            out.append(Announce({"t": "hand_result", "record": rec}))
        if m.phase == gm.FINISHED:
            rec = match_record(m, self.match_no, ids, self.hands, self.actions)
            if self.table:
                rec["table"] = {"players": list(self.table_players), "substitute": list(self.stand_in),
                                "replaced": list(self.replaced)}
            out[0] = GameEvents(events, (m.seq, self._clock()))  # rendered as the match left them
            self.finished[-1:] = [*map(match_summary, self.finished[-1:]), rec]  # earlier ones: summaries
            self._derive({"k": "match_result", "record": rec})
            self.phase = LOBBY
            self.auto = [None] * 4
            out += [Announce({"t": "match_result", "record": rec}), ROOM_CHANGED]
        return out

    def _offence(self, p: int, kind: str, hand: int, points: int, **more) -> None:
        """A derived ``offence`` entry for the server to pass to the tournament (tables only).
        ``count``: the player's offences of this kind in this hand so far, for R98's escalation."""
        if not self.table:
            return
        n = self.hand_offences[p, kind] = self.hand_offences.get((p, kind), 0) + 1
        self._derive({"k": "offence", "match": self.match_no, "player": p, "kind": kind, "hand": hand,
                      "points": points, "applied": False, "count": n, **more})

    # -- system commands (tables) --------------------------------------------------------------

    def _system_step(self, p: int | None, action, now: float) -> list[Effect]:
        """Step a system action (game.actions.StopWin, NoWin): in an open claim window a seat that lost
        和 is offered only what is left (game.state.block_win); the window waits as before."""
        action = with_seq(action, self.match.seq)
        self.match, _ = gm.step(self.match, p, action)  # no events: 停和 moves nothing on
        self.actions.append((p, action))
        return [GameEvents([])]  # the seat's legal actions changed (no 和 any more)

    def _apply_stop_win(self, e, now):
        return self._system_step(e["player"], StopWin(), now) + [ROOM_CHANGED]

    def _apply_substitute(self, e, now):
        p = e["player"]
        pid = self.seats[p].id
        out = []
        m = self.members.get(pid)
        if m is not None:
            out.append(Notice(pid, {"t": "substituted", "player": p}))
            if self.config.spectators:
                m.seat = None  # they may watch the table on (spectator's view: no concealed tiles)
            else:
                del self.members[pid]
        self._add_bot(p, "fan")
        self.stand_in[p], self.replaced[p], self.auto[p] = True, pid, None
        if self.phase == PLAYING:
            out += self._system_step(p, NoWin(), now)
        return out + [ROOM_CHANGED]

    def _apply_time_up(self, e, now):
        m = self.match
        action = TimeUp(e["finish_hand"], seq=m.seq)
        m, events = gm.step(m, None, action)
        self.match = m
        self.actions.append((None, action))
        if m.phase != gm.FINISHED:
            return [ROOM_CHANGED]  # finish_hand: the hand in progress is the last one
        out: list[Effect] = []
        if m.void:
            # R98 第六条四: the hand in progress is void; its record changes no scores.
            rec = void_hand_record(m, self.match_no, [s.id for s in self.seats])
            self.hands.append(rec)
            self._derive({"k": "hand_result", "record": rec})
            out.append(Announce({"t": "hand_result", "record": rec}))
        return out + self._release(events, now)

    def _dispose_at(self) -> float | None:
        if self.table and not self.finished:
            return None
        if not self.members:
            return self.last_now
        cfg = self.config
        if self.phase == LOBBY:
            return self.last_activity + cfg.idle_after
        members, since = self.members, None  # the last seated human to leave, if all have (asked every action)
        for s in self.seats:
            h = members.get(s.id) if s.bot is None else None
            if h is not None:
                if h.connected:
                    return None
                if since is None or h.since > since:
                    since = h.since
        return None if since is None else since + cfg.abandon_after


_APPLY = {
    "create": Room._apply_create, "restore": Room._apply_restore, "join": Room._apply_join,
    "watch": Room._apply_watch, "sit": Room._apply_sit, "ready": Room._apply_ready, "start": Room._apply_start,
    "add_bot": Room._apply_add_bot, "remove_bot": Room._apply_remove_bot, "host": Room._apply_host,
    "leave": Room._apply_leave, "kick": Room._apply_kick, "auto": Room._apply_auto, "act": Room._apply_act,
    "close": Room._apply_close, "hint": Room._apply_hint, "stop_win": Room._apply_stop_win,
    "substitute": Room._apply_substitute, "time_up": Room._apply_time_up, "paused": Room._apply_paused,
}

__all__ = ["Room", "RoomError", "Outbound", "match_seed", "LOBBY", "PLAYING"]
