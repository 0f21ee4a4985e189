-- Guobiao schema 6: the rating curve is read by seeks, not by a scan of the player's history.
-- rated_n numbers a player's rated matches of a room type 1, 2, 3, ... (ratings.matches after the
-- match), so every n-th point of a 10,000-match curve is ~200 index lookups (server/store_ratings.py).

ALTER TABLE player_matches ADD COLUMN rated_n INTEGER;
UPDATE player_matches SET rated_n = (
    SELECT n FROM (SELECT player_id AS p, match_id AS m, row_number() OVER (
        PARTITION BY player_id, room_type ORDER BY finished_at, match_id) AS n
        FROM player_matches WHERE rating IS NOT NULL)
    WHERE p = player_matches.player_id AND m = player_matches.match_id)
WHERE rating IS NOT NULL;
DROP INDEX player_matches_curve;
CREATE UNIQUE INDEX player_matches_rated ON player_matches(player_id, room_type, rated_n) WHERE rated_n IS NOT NULL;
