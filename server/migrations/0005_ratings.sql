-- Guobiao schema 5: ratings, per-player match history and statistics (docs/ratings.md).
-- All of it is derived from finished matches, incrementally, as each one ends (server/ratings.py):
-- a page view reads these rows and never the logs.

-- When ratings and statistics took a finished match in; NULL: not yet (done again after a restart).
ALTER TABLE matches ADD COLUMN counted_at REAL;
CREATE INDEX matches_uncounted ON matches(id) WHERE counted_at IS NULL AND finished_at IS NOT NULL;

CREATE TABLE ratings (
    player_id   TEXT NOT NULL REFERENCES players(id),
    room_type   TEXT NOT NULL,            -- rooms.types.ROOM_TYPES
    mu          REAL NOT NULL,            -- openskill Plackett-Luce
    sigma       REAL NOT NULL,
    score       REAL NOT NULL,            -- the rating shown and ranked: mu - 3 sigma
    matches     INTEGER NOT NULL,         -- rated matches
    updated_at  REAL NOT NULL,
    PRIMARY KEY (player_id, room_type)
) WITHOUT ROWID;
CREATE INDEX ratings_board ON ratings(room_type, score DESC);

-- One row per human seat of a finished match: the profile's match list and rating curve.
CREATE TABLE player_matches (
    player_id   TEXT NOT NULL REFERENCES players(id),
    match_id    INTEGER NOT NULL REFERENCES matches(id),
    room_type   TEXT NOT NULL,
    place       INTEGER NOT NULL,         -- 1..4; a player who left the match is last (4)
    points      INTEGER NOT NULL,         -- the seat's final score
    abandoned   INTEGER NOT NULL,         -- 1: left during the match
    rating      REAL,                     -- the score after this match; NULL: the match was not rated
    finished_at REAL NOT NULL,
    PRIMARY KEY (player_id, match_id)
) WITHOUT ROWID;
CREATE INDEX player_matches_recent ON player_matches(player_id, finished_at DESC);
-- The rating curve, read from the index alone (a player with 10,000 matches: no table lookups).
CREATE INDEX player_matches_curve ON player_matches(player_id, room_type, finished_at, rating);

-- Running totals (all room types): the statistics are ratios of these.
CREATE TABLE player_stats (
    player_id   TEXT PRIMARY KEY REFERENCES players(id),
    matches     INTEGER NOT NULL DEFAULT 0,
    place_sum   INTEGER NOT NULL DEFAULT 0,
    hands       INTEGER NOT NULL DEFAULT 0,  -- hands played in a seat (not those after leaving)
    wins        INTEGER NOT NULL DEFAULT 0,
    self_drawn  INTEGER NOT NULL DEFAULT 0,
    deal_ins    INTEGER NOT NULL DEFAULT 0,  -- 点炮: discarded (or had robbed) the winning tile
    win_fan     INTEGER NOT NULL DEFAULT 0   -- sum of the fan totals of the wins
) WITHOUT ROWID;

CREATE TABLE player_fans (
    player_id   TEXT NOT NULL REFERENCES players(id),
    fan         TEXT NOT NULL,            -- the fan's Chinese name (game.fans)
    name_en     TEXT NOT NULL,
    count       INTEGER NOT NULL,         -- wins that scored it
    PRIMARY KEY (player_id, fan)
) WITHOUT ROWID;

-- Matches finished before this schema are history too: taken in at the next start.
