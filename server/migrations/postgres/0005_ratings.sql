-- Guobiao schema 5, PostgreSQL's dialect of ../0005_ratings.sql: ratings, history and statistics.

ALTER TABLE matches ADD COLUMN counted_at double precision;
CREATE INDEX matches_uncounted ON matches(id) WHERE counted_at IS NULL AND finished_at IS NOT NULL;

CREATE TABLE ratings (
    player_id   text NOT NULL REFERENCES players(id),
    room_type   text NOT NULL,
    mu          double precision NOT NULL,
    sigma       double precision NOT NULL,
    score       double precision NOT NULL,
    matches     bigint NOT NULL,
    updated_at  double precision NOT NULL,
    PRIMARY KEY (player_id, room_type)
);
CREATE INDEX ratings_board ON ratings(room_type, score DESC);

CREATE TABLE player_matches (
    player_id   text NOT NULL REFERENCES players(id),
    match_id    bigint NOT NULL REFERENCES matches(id),
    room_type   text NOT NULL,
    place       bigint NOT NULL,
    points      bigint NOT NULL,
    abandoned   bigint NOT NULL,
    rating      double precision,
    finished_at double precision NOT NULL,
    PRIMARY KEY (player_id, match_id)
);
CREATE INDEX player_matches_recent ON player_matches(player_id, finished_at DESC);
CREATE INDEX player_matches_curve ON player_matches(player_id, room_type, finished_at, rating);

CREATE TABLE player_stats (
    player_id   text PRIMARY KEY REFERENCES players(id),
    matches     bigint NOT NULL DEFAULT 0,
    place_sum   bigint NOT NULL DEFAULT 0,
    hands       bigint NOT NULL DEFAULT 0,
    wins        bigint NOT NULL DEFAULT 0,
    self_drawn  bigint NOT NULL DEFAULT 0,
    deal_ins    bigint NOT NULL DEFAULT 0,
    win_fan     bigint NOT NULL DEFAULT 0
);

CREATE TABLE player_fans (
    player_id   text NOT NULL REFERENCES players(id),
    fan         text NOT NULL,
    name_en     text NOT NULL,
    count       bigint NOT NULL,
    PRIMARY KEY (player_id, fan)
);
