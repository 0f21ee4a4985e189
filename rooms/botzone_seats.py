"""Seats played by external bots (docs/bots.md): the room side. Pure: the server runs the bot, translates
its answer (rooms/botzone.py) and hands it in with ``bot_answer``; the room commits it when due, or a
safe action when the answer is late or unusable. Mixed into ``rooms.room.Room``.

An answer is committed no sooner than a built-in bot's would be (``bot_delay``; in a claim window the
moment every automatic answer comes, docs/rooms.md "Claim windows never tell"). The safe action
(PASS, or discarding the drawn tile; game.state.auto_action without 和) replaces an answer that has
not come ``answer_time`` after the decision started, or that is not one of the seat's legal actions;
it is logged ``by: "bot_late"`` or ``"bot_error"`` and counted in the seat's ``faults``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from game import match as gm
from game.actions import CONTINUE, Action, to_dict as action_dict
from game.state import auto_action
from rooms.config import PLAYING


BOT_PREFIX = "bot:"  # a tournament's bot competitor is ``bot:<name>`` (never a player id: those are alphanumeric)


def bot_name(pid) -> str | None:
    """The external bot a tournament competitor's id names, or None for a player."""
    return pid[len(BOT_PREFIX):] if isinstance(pid, str) and pid.startswith(BOT_PREFIX) else None


@dataclass(frozen=True, slots=True)
class ExternalBot:
    """A registered external bot as rooms see it (the server's ``bot_policies`` value for its name)."""
    name: str
    answer_time: float  # seconds per answer
    free: Callable[[], bool] | None = field(default=None, compare=False)  # the server: may one more seat take it

    def available(self) -> bool:
        return self.free is None or self.free()

    def __call__(self, view: dict):
        """Between hands it only says continue (the room asks the bot nothing then)."""
        return CONTINUE if {"a": "continue"} in view.get("legal", ()) else None


@dataclass(frozen=True, slots=True)
class Given:
    seq: int
    at: float
    action: Action | None  # None: the answer was malformed or illegal, or the bot failed


class ExternalSeats:
    def _seat_at_table(self, seat: int, pid: str, now: float) -> None:
        """A tournament's player (absent until they connect), or an external bot it registered as a
        competitor (``bot:<name>``, rooms/tournament/competitors.py): a bot seat under that id. A bot
        the server no longer registers (bots.toml changed) is played by the built-in ``fan`` bot."""
        name = bot_name(pid)
        if name is None:
            self._add_member(pid, seat, now, connected=False)
            return
        self._add_bot(seat, name if self.external_level(name) else "fan")
        self.seats[seat].id = pid

    def external_bot(self, p: int) -> ExternalBot | None:
        s = self.seats[p]
        if s is None or s.bot is None:
            return None
        policy = self._policies.get(s.bot)
        return policy if isinstance(policy, ExternalBot) else None

    def external_policy(self, level: str) -> ExternalBot:
        return self._policies[level]

    def external_level(self, level: str) -> bool:
        """``level`` names an external bot the server registered."""
        return isinstance(self._policies.get(level), ExternalBot)

    def external_players(self) -> list[int]:
        return [p for p in range(4) if self.external_bot(p) is not None]

    def bot_answer(self, player: int, seq: int, action: Action | None, now: float) -> list:
        """An external bot's answer to the decision at ``seq`` (None: it gave nothing usable). Kept until
        due; an answer to a decision already taken is dropped."""
        now = max(now, self.last_now)
        m = self.match
        if (self.phase == PLAYING and m.phase == gm.PLAYING and seq == m.seq and self.external_bot(player)
                and player in gm.pending(m)):
            self._given[player] = Given(seq, now, action)
            self._settled = None
        return self._run(now)

    def _external_timer(self, p: int, earliest: float, limit: float, order: int) -> tuple:
        """The automatic entry of an external bot's seat: its answer once given and due, else at
        ``answer_time`` (or ``limit``, the room's own timeout, if sooner) the safe action."""
        given = self._given.get(p)
        if given is not None and given.seq == self.match.seq:
            return (max(given.at, earliest), order, self._external_entry, (p, given.action))
        late = min(self.turn_started + self.external_bot(p).answer_time, limit)
        return (late, order, self._replaced, (p, "bot_late"))

    def _external_entry(self, p: int, action: Action | None) -> dict:
        self._given.pop(p, None)
        if action is None or action not in self._legal(p):
            return self._replaced(p, "bot_error")
        return {"k": "act", "player": p, "action": action_dict(action), "by": "bot"}

    def _replaced(self, p: int, why: str) -> dict:
        self._given.pop(p, None)
        m = self.match
        faults = self.bot_faults.setdefault(self.seats[p].id, {})
        key = "late" if why == "bot_late" else "bad"
        faults[key] = faults.get(key, 0) + 1
        return {"k": "act", "player": p, "action": action_dict(auto_action(m.hand, m.seat_of(p), win=False)), "by": why}


__all__ = ["BOT_PREFIX", "ExternalBot", "ExternalSeats", "bot_name"]
