-- Guobiao schema 4: accounts a player can sign in to from any device, and revocable sessions.
-- A player is still first a guest (players); claiming adds a login name and a password (logins). Every
-- sign-in token is a session row (only its SHA-256 is stored), so each can be listed and revoked.
-- Other tables (ratings, history) hang off players(id), which never changes, even when an account is
-- deleted: the row stays, anonymised, so replays and standings that name the id still load.

CREATE TABLE sessions (
    token_hash  TEXT PRIMARY KEY,         -- SHA-256 hex of the token: a leaked database leaks no tokens
    id          TEXT NOT NULL UNIQUE,     -- the session's public id (listed, revoked by it)
    player_id   TEXT NOT NULL REFERENCES players(id),
    created_at  REAL NOT NULL,
    last_seen   REAL NOT NULL,
    user_agent  TEXT,                     -- of the connection that signed in, when known
    address     TEXT
) WITHOUT ROWID;
CREATE INDEX sessions_player ON sessions(player_id);

CREATE TABLE logins (
    player_id   TEXT PRIMARY KEY REFERENCES players(id),
    login       TEXT NOT NULL UNIQUE,     -- NFKC and case-folded (server/accounts.py clean_login)
    password    TEXT NOT NULL,            -- argon2id hash (PHC string, parameters included); never the password
    created_at  REAL NOT NULL,
    changed_at  REAL NOT NULL             -- when the password was last set
) WITHOUT ROWID;

ALTER TABLE players ADD COLUMN hide_history INTEGER NOT NULL DEFAULT 0;  -- the profile shows no history
ALTER TABLE players ADD COLUMN deleted_at REAL;  -- set when the account was deleted (name anonymised)

-- Each guest's token becomes its first session. players.token_hash is no longer read (SQLite cannot
-- drop a UNIQUE column): it holds 'unused:' and the id, which no SHA-256 hex equals.
INSERT INTO sessions (token_hash, id, player_id, created_at, last_seen)
    SELECT token_hash, 's' || lower(hex(randomblob(8))), id, created_at, last_seen FROM players;
UPDATE players SET token_hash = 'unused:' || id;
