-- Guobiao schema 6, PostgreSQL's dialect of ../0006_rating_curve.sql: rated_n and its index.

ALTER TABLE player_matches ADD COLUMN rated_n bigint;
UPDATE player_matches SET rated_n = numbered.n FROM (
    SELECT player_id AS p, match_id AS m, row_number() OVER (
        PARTITION BY player_id, room_type ORDER BY finished_at, match_id) AS n
    FROM player_matches WHERE rating IS NOT NULL) AS numbered
WHERE numbered.p = player_matches.player_id AND numbered.m = player_matches.match_id;
DROP INDEX player_matches_curve;
CREATE UNIQUE INDEX player_matches_rated ON player_matches(player_id, room_type, rated_n) WHERE rated_n IS NOT NULL;
