"""The automatic entries' index (rooms/tournament/due.py): the deadlines as tables start, pause and
finish, and what a pass looks at: the tables that changed, not every table of the session. (The
conftest checks every pass here against a walk of every table.)"""

import math

from rooms.tournament import due
from rooms.tournament.lateness import paused
from rooms.tournament.states import DONE, FINISHED

from .support import commands, make, play, register

START = 36_000.0
EIGHT = [f"p{i}" for i in range(1, 9)]


def test_the_deadline_follows_the_tables_as_they_start_pause_and_finish():
    t = make(sessions=1, hands=2, time_limit=30, starts=(START,))
    register(t, EIGHT)
    for p in EIGHT[:-1]:
        t.handle(p, {"t": "checkin"}, START - 60)
    assert t.next_deadline() == START
    out = t.tick(START)
    waits = t._table_of("p8")
    plays = next(x for x in t.tables.values() if x is not waits)
    assert commands(out, plays.key) == [{"t": "start"}] and commands(out, waits.key) == []
    assert t.next_deadline() == math.nextafter(START + 900, math.inf)  # p8's table: absent until 15:00
    out = t.handle("p8", {"t": "checkin"}, START + 300)  # late: the table starts now
    assert commands(out, waits.key) == [{"t": "start"}]
    assert t.next_deadline() == START + 1800  # the first table's time limit, then the other's
    paused(t, START + 600, START + 660, START + 660)  # both tables' clocks stood still a minute
    assert t.next_deadline() == START + 1860
    play(t, plays.key, [{}, {}], START + 1000)
    assert t.next_deadline() == START + 300 + 60 + 1800  # the finished table has no time left
    out = t.tick(START + 2159)
    assert commands(out) == []
    out = t.tick(START + 2160)
    assert commands(out, waits.key) == [{"t": "time_up", "finish_hand": False}]
    assert t.next_deadline() is None
    play(t, waits.key, [{}], START + 2200)
    assert t.sessions[0].state == DONE and t.state == FINISHED


def counting(monkeypatch) -> list:
    """The tables a pass of the index looks at (the conftest's walk is not counted)."""
    seen = []
    look = due.table_due

    def table_due(tour, cur, table, barred, now):
        seen.append(table.key)
        return look(tour, cur, table, barred, now)

    monkeypatch.setattr(due, "table_due", table_due)
    return seen


def test_a_session_of_256_tables_looks_at_a_table_when_it_changes_not_at_every_table(monkeypatch):
    """1,024 players: the session start's 256 table starts looked at every table before each (a walk:
    about 33,000 looks); now each table about twice. A hand result looks at its table only."""
    players = [f"p{i:04}" for i in range(1024)]
    t = make(sessions=1, hands=4, max_players=1024, checkin_required=False, starts=(START,))
    register(t, players)
    seen = counting(monkeypatch)
    out = t.tick(START)
    assert len(commands(out)) == 256  # every table started
    assert len(seen) <= 2 * 256 + 1, len(seen)
    seen.clear()
    key = "1-17"
    t.table_event(key, {"t": "seats", "taken": [0, 1, 2, 3]}, START + 5)
    assert seen == [key]
    seen.clear()
    play(t, key, [{}], START + 60)
    assert seen == [key, key]  # its hand, its end
    assert t.next_deadline() is None
