-- Guobiao schema 2: tournaments. A tournament is its log (rooms.tournament): registrations, sessions,
-- tables, results and every sanction are entries of it, so nothing is ever updated or deleted.

CREATE TABLE tournaments (
    id          INTEGER PRIMARY KEY,
    code        TEXT NOT NULL UNIQUE,     -- the tournament's public id ("t" + 8 hex digits)
    created_by  TEXT,                     -- the organiser (NULL: a scheduled event the server made)
    created_at  REAL NOT NULL,
    closed_at   REAL                      -- NULL while it is not over: rebuilt after a restart
);
CREATE INDEX tournaments_open ON tournaments(closed_at) WHERE closed_at IS NULL;

CREATE TABLE tournament_log (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    n           INTEGER NOT NULL,         -- 0, 1, 2, ... per tournament: a gap or a repeat cannot be stored
    entry       TEXT NOT NULL,            -- JSON, as rooms.tournament gave it
    at          REAL NOT NULL,
    PRIMARY KEY (tournament_id, n)
) WITHOUT ROWID;

-- Which room plays which table of a tournament (the room's own log says what happened there).
CREATE TABLE tournament_tables (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    table_key   TEXT NOT NULL,
    room        TEXT NOT NULL REFERENCES rooms(code),
    PRIMARY KEY (tournament_id, table_key)
) WITHOUT ROWID;
