-- Guobiao schema 1. Times are Unix seconds (REAL). JSON columns hold compact JSON text.

CREATE TABLE players (
    id          TEXT PRIMARY KEY,         -- public id, shown to other players
    token_hash  TEXT NOT NULL UNIQUE,     -- SHA-256 of the sign-in token: a leaked database leaks no tokens
    name        TEXT NOT NULL,
    created_at  REAL NOT NULL,
    last_seen   REAL NOT NULL
);

CREATE TABLE rooms (
    id          INTEGER PRIMARY KEY,
    code        TEXT NOT NULL UNIQUE,     -- the room's public id (rooms.room.Room.id)
    config      TEXT NOT NULL,            -- JSON: what the room is rebuilt from, with its log
    created_by  TEXT REFERENCES players(id),
    created_at  REAL NOT NULL,
    closed_at   REAL                      -- NULL while the room lives: rebuilt after a restart
);
CREATE INDEX rooms_open ON rooms(closed_at) WHERE closed_at IS NULL;

-- The append-only log of every accepted room command, automatic ones included (timeouts, bots).
-- A room is its config plus this log; rows are written before anything is sent.
CREATE TABLE actions (
    room_id     INTEGER NOT NULL REFERENCES rooms(id),
    n           INTEGER NOT NULL,         -- 0, 1, 2, ... per room: a gap or a repeat cannot be stored
    entry       TEXT NOT NULL,            -- JSON, as the room gave it
    at          REAL NOT NULL,
    PRIMARY KEY (room_id, n)
) WITHOUT ROWID;

CREATE TABLE matches (
    id          INTEGER PRIMARY KEY,
    room_id     INTEGER NOT NULL REFERENCES rooms(id),
    number      INTEGER NOT NULL,         -- the room's first match is 0
    rules       TEXT NOT NULL,            -- JSON of game.rules.Rules
    seed        TEXT NOT NULL,            -- decimal (64 bits overflow INTEGER); secret until the match ends
    salt        TEXT NOT NULL,            -- secret until the match ends
    commitment  TEXT NOT NULL,            -- SHA-256 hex of "<seed>:<salt>", announced at the start
    players     TEXT NOT NULL,            -- JSON: player ids by first-round seat (null: a bot)
    started_at  REAL NOT NULL,
    finished_at REAL,
    UNIQUE (room_id, number)
);

CREATE TABLE hand_results (
    match_id    INTEGER NOT NULL REFERENCES matches(id),
    hand        INTEGER NOT NULL,
    record      TEXT NOT NULL,            -- JSON: rooms.records.hand_record (winner, fans, deltas, scores)
    PRIMARY KEY (match_id, hand)
) WITHOUT ROWID;

CREATE TABLE match_results (
    match_id    INTEGER PRIMARY KEY REFERENCES matches(id),
    record      TEXT NOT NULL,            -- JSON: rooms.records.match_record (ranking, actions, seed, rules)
    finished_at REAL NOT NULL
);
