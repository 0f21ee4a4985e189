"""The rating and statistics tables (migration 5), on the store's connection: each function is
given it by the store's ``transaction`` (writes) or ``connection`` (reads), alone on it meanwhile.

A finished match is taken in once (``matches.counted_at``), in one transaction: its players' ratings,
their rows of history and their running totals. Reads are a few indexed rows, whatever the number of
matches a player has played.
"""

from __future__ import annotations

import json
import time


from server import ratings as R
from server.store_sql import one, run

CURVE_POINTS = 200  # the rating curve of a room type: at most about this many points (every n-th match)


async def count_match(db, match_id: int, room_type: str, rated: bool,
                      record: dict | None = None) -> bool:
    """Take a finished match in (False if it was already, or has no result yet), inside the caller's
    transaction. The Python work is per match (a few players, their fans), never per stored row."""
    now = time.time()
    row = await one(db, "SELECT m.players, m.finished_at, m.counted_at, mr.record FROM matches m"
                    " JOIN match_results mr ON mr.match_id = m.id WHERE m.id = ?"
                    if record is None else
                    "SELECT players, finished_at, counted_at, NULL FROM matches WHERE id = ?",
                    (match_id,))
    if row is None or row[2] is not None or row[1] is None:
        return False
    start_ids = json.loads(row[0])
    if record is None:
        record = json.loads(row[3])
    finished = row[1]
    # Only the first of two transactions counting the same match at once changes the row (PostgreSQL's
    # second one waits for the first's commit, then finds counted_at set).
    if not await run(db, "UPDATE matches SET counted_at = ? WHERE id = ? AND counted_at IS NULL", (now, match_id)):
        return False
    seats = R.outcome(start_ids, record)
    humans = [s.player for s in seats if s.player is not None]
    new: dict = {}
    rated_n: dict = {}
    if rated and humans:
        q = ",".join("?" * len(humans))
        rows = await db.execute_fetchall(
            f"SELECT player_id, mu, sigma, matches FROM ratings WHERE room_type = ? AND player_id IN ({q})",
            [room_type, *humans])
        current = {r[0]: (r[1], r[2]) for r in rows}
        rated_n = {r[0]: r[3] + 1 for r in rows}
        new = R.rate(seats, current)
        await db.executemany(
            "INSERT INTO ratings (player_id, room_type, mu, sigma, score, matches, updated_at)"
            " VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT (player_id, room_type) DO UPDATE SET"
            " mu = excluded.mu, sigma = excluded.sigma, score = excluded.score,"
            " matches = ratings.matches + 1, updated_at = excluded.updated_at",
            [(pid, room_type, mu, sigma, R.score_of(mu, sigma), now) for pid, (mu, sigma) in new.items()])
    # One statement per table (each statement is a trip to the connection's thread and back).
    played = []
    for s in seats:
        if s.player is None:
            continue
        rating = R.score_of(*new[s.player]) if s.player in new else None
        n = rated_n.get(s.player, 1) if rating is not None else None  # the player's rated match number
        played.append((s.player, match_id, room_type, s.place, s.points, int(s.abandoned), rating, finished, n))
    await db.executemany("INSERT INTO player_matches (player_id, match_id, room_type, place, points, abandoned,"
                         " rating, finished_at, rated_n) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                         played)
    await _add_totals(db, seats, humans, R.hand_stats(record))
    return True


async def _add_totals(db, seats: list, humans: list, hands: dict) -> None:
    """Add a match's places and hands to its humans' running totals and fan counts."""
    totals, fans = [], []
    for pid in set(humans) | hands.keys():
        h = hands.get(pid) or R.HandStats()
        seat = next((s for s in seats if s.player == pid), None)
        totals.append((pid, int(seat is not None), seat.place if seat else 0, h.hands, h.wins, h.self_drawn,
                       h.deal_ins, h.win_fan))
        fans += [(pid, name, name_en, n) for (name, name_en), n in h.fans.items()]
    await db.executemany(
        "INSERT INTO player_stats (player_id, matches, place_sum, hands, wins, self_drawn, deal_ins, win_fan)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (player_id) DO UPDATE SET"
        " matches = player_stats.matches + excluded.matches, place_sum = player_stats.place_sum + excluded.place_sum,"
        " hands = player_stats.hands + excluded.hands, wins = player_stats.wins + excluded.wins,"
        " self_drawn = player_stats.self_drawn + excluded.self_drawn, deal_ins = player_stats.deal_ins + excluded.deal_ins,"
        " win_fan = player_stats.win_fan + excluded.win_fan", totals)
    await db.executemany(
        "INSERT INTO player_fans (player_id, fan, name_en, count) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (player_id, fan) DO UPDATE SET count = player_fans.count + excluded.count", fans)


async def uncounted(db, limit: int) -> list[tuple[int, str]]:
    """Finished matches not taken in yet (the room's config JSON with each), oldest first."""
    return await db.execute_fetchall(
        "SELECT m.id, r.config FROM matches m JOIN rooms r ON r.id = m.room_id"
        " WHERE m.counted_at IS NULL AND m.finished_at IS NOT NULL ORDER BY m.id LIMIT ?", (limit,))


async def profile(db, pid: str, page: int, per_page: int) -> dict:
    """A player's ratings, statistics, most scored fans, one page of matches and rating curves."""
    ratings = {r[0]: {"rating": round(r[1], 2), "mu": round(r[2], 3), "sigma": round(r[3], 3), "matches": r[4]}
               for r in await db.execute_fetchall(
                   "SELECT room_type, score, mu, sigma, matches FROM ratings WHERE player_id = ?", (pid,))}
    st = await one(db, "SELECT matches, place_sum, hands, wins, self_drawn, deal_ins, win_fan FROM player_stats"
                   " WHERE player_id = ?", (pid,)) or (0,) * 7
    matches, place_sum, hands, wins, self_drawn, deal_ins, win_fan = st

    def ratio(a, b, digits=3):
        return round(a / b, digits) if b else None

    stats = {"matches": matches, "hands": hands, "wins": wins, "win_rate": ratio(wins, hands),
             "deal_in_rate": ratio(deal_ins, hands), "self_drawn_share": ratio(self_drawn, wins),
             "average_fan": ratio(win_fan, wins, 2), "average_place": ratio(place_sum, matches, 2)}
    fans = [{"fan": r[0], "name_en": r[1], "count": r[2]} for r in await db.execute_fetchall(
        "SELECT fan, name_en, count FROM player_fans WHERE player_id = ? ORDER BY count DESC, fan LIMIT 10", (pid,))]
    rows = await db.execute_fetchall(
        "SELECT match_id, room_type, place, points, abandoned, rating, finished_at FROM player_matches"
        " WHERE player_id = ? ORDER BY finished_at DESC, match_id DESC LIMIT ? OFFSET ?",
        (pid, per_page, page * per_page))
    listed = [{"id": r[0], "type": r[1], "place": r[2], "points": r[3], "abandoned": bool(r[4]),
               "rating": None if r[5] is None else round(r[5], 2), "finished_at": r[6],
               "replay": f"/api/matches/{r[0]}"} for r in rows]
    curves: dict[str, list] = {}
    for room_type, r in ratings.items():
        # Every step-th rated match and the last one: index seeks by rated_n (migration 6).
        total = r["matches"]
        step = max(1, -(-total // CURVE_POINTS))
        wanted = sorted({*range(step, total + 1, step), total})
        pts = await db.execute_fetchall(
            f"SELECT finished_at, rating FROM player_matches INDEXED BY player_matches_rated WHERE player_id = ?"
            f" AND room_type = ? AND rated_n IN ({','.join('?' * len(wanted))}) ORDER BY rated_n",
            (pid, room_type, *wanted))
        curves[room_type] = [[round(t, 1), round(x, 2)] for t, x in pts]
    return {"ratings": ratings, "stats": stats, "fans": fans, "curves": curves,
            "matches": {"page": page, "per_page": per_page, "total": matches, "items": listed}}


async def leaderboard(db, room_type: str, top: int) -> list[dict]:
    """The ``top`` best rated players of a room type (deleted accounts left out)."""
    rows = await db.execute_fetchall(
        "SELECT r.player_id, p.name, r.score, r.matches FROM ratings r INDEXED BY ratings_board"
        " JOIN players p ON p.id = r.player_id WHERE r.room_type = ? AND p.deleted_at IS NULL"
        " ORDER BY r.score DESC, r.player_id LIMIT ?", (room_type, top))
    return [{"rank": i + 1, "player": r[0], "name": r[1], "rating": round(r[2], 2), "matches": r[3]}
            for i, r in enumerate(rows)]


async def position(db, room_type: str, pid: str) -> dict | None:
    """A player's own place on a room type's board (counted through the index), or None if unrated."""
    row = await one(db, "SELECT score, matches FROM ratings WHERE player_id = ? AND room_type = ?", (pid, room_type))
    if row is None:
        return None
    (ahead,) = await one(db, 
        "SELECT COUNT(*) FROM ratings r JOIN players p ON p.id = r.player_id WHERE r.room_type = ?"
        " AND p.deleted_at IS NULL AND (r.score > ? OR (r.score = ? AND r.player_id < ?))",
        (room_type, row[0], row[0], pid))
    return {"rank": ahead + 1, "player": pid, "rating": round(row[0], 2), "matches": row[1]}
