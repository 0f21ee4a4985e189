"""External bots as competitors (docs/tournaments.md "Bots as competitors"): the organiser registers a
bot the server registered (bots.toml, docs/bots.md) by its name, and may take it out again before the
start; it plays under the id ``bot:<name>``, seated like a player, always present (it needs no check-in), and ranked in the standings. The server
checks the name against its registry and the bot's ``seats`` before the tournament sees the command.
"""

from __future__ import annotations

import re

from rooms.botzone_seats import BOT_PREFIX, bot_name
from rooms.tournament import errors as E
from rooms.tournament.errors import TournamentError

NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")  # a bot's name in bots.toml (server.botzone)


def bot_id(name: str) -> str:
    return BOT_PREFIX + name


def cmd_register_bot(tour, pid, cmd, now):
    """``{"t": "register_bot", "bot": name}``, by the organiser before the start."""
    tour._organiser(pid)
    tour._before_start(now, E.CLOSED)
    name = cmd.get("bot")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise TournamentError(E.BAD_COMMAND, "bot: the name of a registered external bot")
    if bot_id(name) in tour.players:
        raise TournamentError(E.ALREADY_REGISTERED, f"bot {name!r} is already registered")
    if len(tour.players) >= tour.config.max_players:
        raise TournamentError(E.FULL, f"the tournament is full ({tour.config.max_players} players)")
    return [{"k": "register", "player": bot_id(name), "team": None}]


def cmd_unregister_bot(tour, pid, cmd, now):
    """``{"t": "unregister_bot", "bot": name}``, by the organiser before the start, as ``unregister``
    for a player. The name is not checked against bots.toml: a bot the server no longer registers can
    still be taken out."""
    tour._organiser(pid)
    tour._before_start(now, E.STARTED)
    name = cmd.get("bot")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise TournamentError(E.BAD_COMMAND, "bot: the name of a registered external bot")
    if bot_id(name) not in tour.players:
        raise TournamentError(E.NOT_REGISTERED, f"bot {name!r} is not registered")
    return [{"k": "unregister", "player": bot_id(name)}]


__all__ = ["bot_id", "bot_name", "cmd_register_bot", "cmd_unregister_bot"]
