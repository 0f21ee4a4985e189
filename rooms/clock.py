"""The timing rules as pure functions of ``now`` (decisions.md item 14; R98).

- A turn has free time: 30 s for the dealer's first discard of a hand (including 补花), 15 s after.
- After the free time the player's time bank runs (60 s per match); when both are spent the room plays
  ``auto_action`` for the seat (托管).
- A claim window lasts ``claim_time`` (8 s); it has no bank, so using one cannot tell who is thinking.
- A disconnected seat goes to 托管 after ``grace`` (20 s).
The room keeps the numbers; nothing here reads a clock.
"""

from __future__ import annotations

from rooms.config import RoomConfig


def free_time(config: RoomConfig, first: bool) -> float:
    """R98: 30 s for the dealer's first discard, 15 s for every other turn."""
    return config.first_turn_time if first else config.turn_time


def turn_deadline(started: float, free: float, bank: float) -> float:
    """When a turn times out: the free time, then whatever is left of the bank."""
    return started + free + bank


def spend(bank: float, started: float, free: float, now: float) -> float:
    """The bank left after a decision taken at ``now``: only time past the free time is drawn from it."""
    used = now - started - free
    return bank if used <= 0 else max(0.0, bank - used)


def grace_over(disconnected_at: float, grace: float) -> float:
    return disconnected_at + grace


__all__ = ["free_time", "turn_deadline", "spend", "grace_over"]
