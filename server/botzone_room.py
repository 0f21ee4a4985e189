"""A room's external bots (docs/bots.md): after each commit ``sync`` turns the room's new match actions
into Botzone requests (rooms.botzone ``MatchFeed``) and queues them to each bot seat; a seat's task
asks its subprocess (server.botzone) in order and hands the answer to a decision back to the room's
queue as a ``BotAnswer`` (the room commits it when due, or its safe action: rooms/botzone_seats.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, deque
from dataclasses import dataclass
from typing import Callable

from game import match as gm
from game.actions import DISCARDS
from game.state import TURN
from rooms.botzone import END, MatchFeed, Request, parse_answer
from server.botzone import BotFault, BotProcess, BotSpec

log = logging.getLogger("guobiao.bots")


PRESTART = object()  # start the next hand's process ahead of its first request


@dataclass(slots=True)
class BotAnswer:
    """A queue item of the room's task: an external bot's action (None: nothing usable) for ``seq``."""
    player: int
    seq: int
    action: object


@dataclass(slots=True)
class Asked:
    request: Request
    legal: tuple = ()  # the seat's legal actions when the request asks for a decision
    turn: bool = False


class BotSeat:
    """One seat's bot: its requests in order, one subprocess per hand, restarted with the history."""

    def __init__(self, spec: BotSpec, player: int, deliver: Callable[[BotAnswer], None], faults: Counter):
        self.spec, self.player, self.deliver, self.faults = spec, player, deliver, faults
        self.proc = BotProcess(spec)
        self.pending: deque = deque()  # requests (Asked) and END, in order
        self.wake = asyncio.Event()
        self._hand: list | None = None  # the requests of the hand its process was last given
        self.then: tuple[int, int] | None = None  # (hand, tile): the discard that goes with a granted pung/chow
        self.task = asyncio.get_running_loop().create_task(self.run(), name=f"bot {spec.name} seat {player}")

    def put(self, item) -> None:
        self.pending.append(item)
        self.wake.set()

    async def _next(self):
        """The next request; with no process running the newest queued in the same hand will do, as
        the history it starts the bot with holds the ones before (which the room has moved past)."""
        while not self.pending:
            self.wake.clear()
            await self.wake.wait()
        item = self.pending.popleft()
        while not self.proc.running and item is not END and self.pending:
            item = self.pending.popleft()
        return item

    async def run(self) -> None:
        while True:
            item = await self._next()
            if item is END:
                self.proc.kill()  # the hand is over: one Botzone game
                continue
            if item is PRESTART:
                await self._start()  # the next hand's process loads while the players continue
                continue
            text = await self.ask(item)
            if item.request.seq is None:
                continue  # its answer must be PASS; anything else is ignored
            if text is None:
                self.deliver(BotAnswer(self.player, item.request.seq, None))
                continue
            got = parse_answer(text, item.legal, item.turn)
            if got.fault is not None:
                self.faults[got.fault] += 1
                log.info("bot %s (seat %d): %s answer %.40r", self.spec.name, self.player, got.fault, text)
            self.then = None if got.then is None else (item.request.seq, got.then)
            self.deliver(BotAnswer(self.player, item.request.seq, got.action))

    async def ask(self, item: Asked) -> str | None:
        """The bot's answer to ``item``, or None (late, exited, garbled: the process is gone)."""
        if not self.proc.running:
            if item.request.hand[0] is self._hand:
                self.faults["restarts"] += 1  # its process for this hand failed
            if not await self._start():
                return None
        self._hand = item.request.hand[0]
        timeout = self.spec.answer_time
        if self.proc.fresh:  # its first input: the hand so far, and time to load
            text, timeout = item.request.history(), timeout + self.spec.start_time
            if item.request.index > 0:
                self.faults["replayed"] += 1  # started with a history (after a failure or a server restart)
        else:
            text = item.request.line + "\n"
        try:
            return await self.proc.ask(text, timeout)
        except BotFault as e:
            self.faults[e.kind] += 1
            log.info("bot %s (seat %d): %s", self.spec.name, self.player, e)
        return None

    async def _start(self) -> bool:
        if self.proc.running:
            return True
        self.faults["started"] += 1
        try:
            await self.proc.start()
            return True
        except OSError as e:  # the program could not be started
            self.faults["start_failed"] += 1
            log.warning("bot %s could not start: %s", self.spec.name, e)
            return False

    def close(self) -> None:
        self.task.cancel()
        self.proc.kill()


class RoomBots:
    """The external bots of one room's match; ``sync`` after every commit, ``close`` when the room ends."""

    def __init__(self, specs: dict[str, BotSpec], deliver: Callable[[BotAnswer], None]):
        self.specs = specs
        self.deliver = deliver
        self.feed: MatchFeed | None = None
        self.seats: dict[int, BotSeat] = {}
        self.faults: dict[int, Counter] = {}  # per player, what the server saw (kept across matches)
        self.match_no = 0
        self.ending: list[asyncio.Task] = []  # the reaping of the processes of closed seats

    def sync(self, room) -> None:
        if room.match is None:
            return
        if room.match_no != self.match_no:  # a new match: its seats may hold other bots
            self.close()
            self.match_no = room.match_no
            players = {p: self.specs[room.seats[p].bot] for p in room.external_players()
                       if room.seats[p].bot in self.specs}
            self.feed = MatchFeed(players)
            for p, spec in players.items():
                self.seats[p] = BotSeat(spec, p, self.deliver, self.faults.setdefault(p, Counter()))
        feed = self.feed
        if feed is None or not self.seats:
            return
        for p, r in feed.sync(room.match_no, room.match, room.actions):
            seat = self.seats[p]
            if r is END:
                seat.put(END)
                if feed.m.phase != gm.FINISHED:
                    seat.put(PRESTART)
                continue
            asked = Asked(r)
            if r.seq is not None:
                if r.seq == feed.m.seq:
                    asked.legal, asked.turn = feed.legal(p), feed.turn(p)
                else:  # overtaken in the same sync: no longer a decision
                    asked.request = Request(r.line, None, r.index, r.hand)
            seat.put(asked)
        self._follow_up(feed)

    def _follow_up(self, feed: MatchFeed) -> None:
        """A granted pung or chow: play the discard its answer named."""
        m = feed.m
        if m is None or m.phase != gm.PLAYING or m.hand.phase != TURN or m.hand.drawn is not None:
            return
        p = m.player_at(m.hand.turn)
        seat = self.seats.get(p)
        if seat is None or seat.then is None:
            return
        _, tile = seat.then
        seat.then = None
        action = DISCARDS[tile]
        self.deliver(BotAnswer(p, m.seq, action if action in feed.legal(p) else None))

    def close(self) -> None:
        self.ending = [t for t in self.ending if not t.done()]
        for seat in self.seats.values():
            seat.close()
            if seat.proc.ending is not None:
                self.ending.append(seat.proc.ending)
        self.seats = {}
        self.feed = None

    async def reaped(self) -> None:
        """Wait until the processes of the closed seats are gone (killed by ``close``)."""
        ending, self.ending = self.ending, []
        if ending:
            await asyncio.wait(ending)


__all__ = ["RoomBots", "BotAnswer", "BotSeat"]
