"""Tournaments (docs/tournaments.md): pure, deterministic, event-sourced like rooms.room.Room."""

from rooms.tournament.config import TournamentConfig
from rooms.tournament.effects import Notify, OpenTable, TableCommand
from rooms.tournament.errors import TournamentError
from rooms.tournament.series import Instance, Series
from rooms.tournament.tournament import Tournament

__all__ = ["Tournament", "TournamentConfig", "TournamentError", "OpenTable", "TableCommand", "Notify",
           "Series", "Instance"]
