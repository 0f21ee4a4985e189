-- Guobiao schema 3: the action log in append order. Keyed by (room_id, n), every new row went into the
-- middle of the table, at its room's end, and so did its entry in any index by room: under load each
-- commit rewrote a page per room that acted (measured: ~4 times the CPU per logged row of an append).
-- Now rows are appended to a rowid table with no other index. The server checks that a room's rows
-- follow each other (n = 0, 1, 2, ... with no gap or repeat: server/store.py) before writing them, and
-- reads a room's rows (recovery only) from ``rooms.log_from``, a row id at or before its first row.
CREATE TABLE actions_appended (
    id          INTEGER PRIMARY KEY,      -- append order
    room_id     INTEGER NOT NULL REFERENCES rooms(id),
    n           INTEGER NOT NULL,         -- 0, 1, 2, ... per room, in id order
    entry       TEXT NOT NULL,            -- JSON, as the room gave it
    at          REAL NOT NULL
);
INSERT INTO actions_appended (room_id, n, entry, at) SELECT room_id, n, entry, at FROM actions ORDER BY room_id, n;
DROP TABLE actions;
ALTER TABLE actions_appended RENAME TO actions;
ALTER TABLE rooms ADD COLUMN log_from INTEGER NOT NULL DEFAULT 1;  -- no row of the room's log has a smaller id
UPDATE rooms SET log_from = first.id FROM (SELECT room_id, MIN(id) AS id FROM actions GROUP BY room_id) AS first
    WHERE first.room_id = rooms.id;
