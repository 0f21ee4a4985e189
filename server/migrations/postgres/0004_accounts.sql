-- Guobiao schema 4, PostgreSQL's dialect of ../0004_accounts.sql: sessions and logins.

CREATE TABLE sessions (
    token_hash  text PRIMARY KEY,
    id          text NOT NULL UNIQUE,
    player_id   text NOT NULL REFERENCES players(id),
    created_at  double precision NOT NULL,
    last_seen   double precision NOT NULL,
    user_agent  text,
    address     text
);
CREATE INDEX sessions_player ON sessions(player_id);

CREATE TABLE logins (
    player_id   text PRIMARY KEY REFERENCES players(id),
    login       text NOT NULL UNIQUE,
    password    text NOT NULL,
    created_at  double precision NOT NULL,
    changed_at  double precision NOT NULL
);

ALTER TABLE players ADD COLUMN hide_history bigint NOT NULL DEFAULT 0;
ALTER TABLE players ADD COLUMN deleted_at double precision;

INSERT INTO sessions (token_hash, id, player_id, created_at, last_seen)
    SELECT token_hash, 's' || left(md5(random()::text || id), 16), id, created_at, last_seen FROM players;
UPDATE players SET token_hash = 'unused:' || id;
