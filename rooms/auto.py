"""What a room does by itself: the pending timers (bots, 托管, timeouts, the disconnect grace) and the
entry each one commits when it is due. Mixed into ``rooms.room.Room``; the entry records the action
taken, so a replay folds it without a bot or a clock.
"""

from __future__ import annotations

import functools
from typing import Callable

from game import match as gm
from game.actions import CONTINUE, from_dict, to_dict as action_dict, with_seq
from game.rules import Rules
from game.state import CLAIM as HAND_CLAIM, auto_action
from rooms import bot, bot_random, clock
from rooms.config import BOT_LEVELS, PLAYING
from rooms.effects import Applied

AUTO = "auto"  # the 托管 policy as a seat occupant: a seat left during a match when bots are off
AUTO_PER_CALL = 4  # automatic entries per call; more wait for the next tick (zero timers never hold the caller)


def load_bot(level: str, rules: Rules | None = None) -> Callable[[dict], object]:
    """The ``choose(view)`` of a bot level. The fan bot is told the room's rules: the view does not
    carry them."""
    if level == "fan" and rules is not None:
        return functools.partial(bot.choose, min_fan=rules.min_fan, check_wins=rules.false_win_penalty)
    return {"fan": bot.choose, "random": bot_random.choose}[level]  # rooms.config.BOT_LEVELS


def _gone(seat: int) -> dict:
    return {"k": "auto", "player": seat, "on": True, "why": "disconnected"}


class RoomTimers:
    def _timers(self) -> list[tuple]:
        """(when, order, make_entry, args) for pending automatic entries: the entry is
        ``make_entry(*args)``. Of several at the same moment only the first by order is listed (the
        others never come first: the state changes when it is taken, and this is asked again)."""
        out: list = []
        if self.phase != PLAYING:
            return out
        cfg = self.config
        m = self.match
        entry = self._auto_entry
        if m.phase == gm.PLAYING and m.hand.phase == HAND_CLAIM:  # a claim window is open (self.phase: above)
            # docs/rooms.md "Claim windows never tell": every automatic answer comes at the same moment,
            # whatever the seat could claim; the window closes on the last answer.
            auto = cfg.claim_time if not cfg.claim_early_close else max(cfg.bot_delay, cfg.claim_min)
            seats, started, timeout = gm.seat_players(m), self.turn_started, self.turn_started + cfg.claim_time
            first_auto = first_timeout = 4
            w = m.hand.claim
            occupants, autos, responses, discarder = self.seats, self.auto, w.responses, w.seat
            for s in range(4):  # the window's waiting seats (``w.waiting``), without building the tuple
                if s == discarder or responses[s] is not None:
                    continue
                p = seats[s]
                if occupants[p].bot is not None:
                    if self.external_bot(p) is not None:
                        out.append(self._external_timer(p, started + auto, timeout, p))
                    elif p < first_auto:  # _automatic: a bot
                        first_auto = p
                elif p < first_auto and autos[p] is not None:  # _automatic: 托管
                    first_auto = p
                if p < first_timeout:
                    first_timeout = p
            if first_auto < 4:
                out.append((started + auto, first_auto, entry, (first_auto,)))
            if first_timeout < 4:
                out.append((timeout, 4 + first_timeout, entry, (first_timeout, "timeout")))
        elif m.phase == gm.PLAYING:
            (p,) = gm.pending(m)
            free = clock.free_time(cfg, self.turn_first)
            deadline = clock.turn_deadline(self.turn_started, free, self.banks[p])
            if (bot := self.seats[p].bot) is not None and self.external_bot(p) is not None:  # a human: no calls
                out.append(self._external_timer(p, self.turn_started + cfg.bot_delay, deadline, 0))
            elif bot is not None or self.auto[p] is not None:  # _automatic
                out.append((self.turn_started + cfg.bot_delay, 0, entry, (p,)))
            out.append((deadline, 1, entry, (p, "timeout")))
        elif m.phase == gm.BETWEEN:
            waiting = gm.pending(m)  # in player order
            if waiting:
                automatic = [p for p in waiting if self._automatic(p)]
                if automatic:
                    out.append((self.between_started + cfg.bot_delay, automatic[0], entry, (automatic[0],)))
                out.append((self.between_started + cfg.between_time, 4 + waiting[0], entry, (waiting[0], "timeout")))
        members = self.members
        for m in members.values():
            if not m.connected:  # a disconnected seat goes to 托管 after the grace (most often all are here)
                for seat, s in enumerate(self.seats):
                    mem = members.get(s.id) if s.bot is None else None
                    if mem is not None and not mem.connected and self.auto[seat] is None:
                        out.append((clock.grace_over(mem.since, cfg.grace), 20 + seat, _gone, (seat,)))
                break
        return out

    def paused(self, seconds: float, now: float) -> list[Applied]:
        """The server could not save anything for ``seconds`` (a storage fault paused the room, which
        was called with the time it paused meanwhile): the decision being timed and the disconnect
        graces get that time back. Logged, so a replay's clocks agree."""
        now = max(now, self.last_now)
        if self.phase != PLAYING or not seconds > 0:
            return []
        return self._commit({"k": "paused", "seconds": seconds}, now) + self._run(now)

    def _apply_paused(self, e: dict, now: float) -> list:
        self.turn_started += e["seconds"]
        self.between_started += e["seconds"]
        for m in self.members.values():
            if not m.connected:
                m.since += e["seconds"]
        return []

    def _automatic(self, p: int) -> bool:
        return self.seats[p].bot is not None or self.auto[p] is not None

    def _auto_entry(self, p: int, why: str | None = None) -> dict:
        """The action a bot, 托管 or a timeout takes for player ``p`` (decided here, logged as taken)."""
        s = self.seats[p]
        if why is None:
            why = "bot" if s.bot not in (None, AUTO) else "auto"
        action = None
        if why == "bot":
            action = self._bot_action(p)
            if action is None:
                why = "bot_error"
        if action is None:
            action = self._takeover(p)
        return {"k": "act", "player": p, "action": action_dict(action), "by": why}

    def _takeover(self, p: int):
        """decisions.md item 14: win if it can (not at a table, tournament.md §4.3), else discard, pass."""
        m = self.match
        if m.phase == gm.BETWEEN:
            return CONTINUE
        return auto_action(m.hand, m.seat_of(p), win=not self.table)  # a table's 托管 never wins

    def _bot_action(self, p: int):
        """The bot's choice from its own view only, or None if it chose nothing legal (or failed)."""
        level = self.seats[p].bot
        choose = self._policies.get(level) or self._bot(level)
        if choose is None:
            return None
        view = self._view(p)
        try:
            a = choose(view)
            action = from_dict(a) if isinstance(a, dict) else a
            action = with_seq(action, view["match"]["seq"])
        except Exception:  # a broken bot must not stop the table: 托管 plays, and the log says bot_error
            return None
        return action if action in self._legal(p) else None

    def bot_level_available(self, level: str) -> bool:
        """A bot of ``level`` can play here: a policy the server gave, or one of the rooms' bots."""
        return level in self._policies or self._bot(level) is not None

    def _bot(self, level: str) -> Callable | None:
        """None for a level this server does not have (an external bot no longer registered after a
        restart: its seat gets the safe action, logged ``bot_error``)."""
        if level not in self._bots:
            self._bots[level] = load_bot(level, self.rules) if level in BOT_LEVELS else None
        return self._bots[level]

    def _run(self, now: float) -> list[Applied]:
        out: list[Applied] = []
        for _ in range(AUTO_PER_CALL):
            # The first in time, ties broken by order (orders are unique: the makers are never compared).
            first = min(self._timers(), default=None)
            if first is None or first[0] > now:
                self._settled = [first[0]] if first else []  # next_deadline's, until the state changes
                return out
            out += self._commit(first[2](*first[3]), now)
        return out  # more may be due: next_deadline says so (<= now)
