"""Ratings, history and statistics (docs/ratings.md): the openskill update from a match's ranking,
abandoned = last, bots fixed, statistics from played matches, the profile and leaderboard APIs."""

from __future__ import annotations

import asyncio
import random

import pytest
from openskill.models import PlackettLuce

from rooms.config import RoomConfig
from rooms.errors import RoomError
from server import ratings as R
from server.profiles import PER_PAGE
from server.store_ratings import count_match
from tests.server.client import play
from tests.server.conftest import FAST, start, stop


def record(ids, scores, hands=()):
    return {"ids": ids, "scores": scores, "hands": list(hands)}



@pytest.fixture
async def server(db_url):
    """This module's server tests run on each backend (SQLite, PostgreSQL)."""
    running = await start(db_url)
    yield running
    await stop(running)

def test_ranking_updates_ratings_as_openskill_plackett_luce_does():
    start = ["pa", "pb", "pc", "pd"]
    seats = R.outcome(start, record(start, [10, 40, -20, -30]))
    assert [s.place for s in seats] == [2, 1, 3, 4]
    current = {"pa": (30.0, 5.0)}  # pb, pc, pd are new
    new = R.rate(seats, current)
    model = PlackettLuce(mu=25.0, sigma=25.0 / 3, beta=25.0 / 6, tau=25.0 / 300)
    want = model.rate([[model.rating(mu=30.0, sigma=5.0)]] + [[model.rating()] for _ in range(3)],
                      ranks=[2, 1, 3, 4])
    for pid, team in zip(start, want):
        assert new[pid] == pytest.approx((team[0].mu, team[0].sigma))
    assert new["pb"][0] > 25 > new["pd"][0]


def test_a_player_who_abandoned_is_last_whatever_their_seat_scored():
    start = ["pa", "pb", "pc", "pd"]
    # pa left: a bot played the seat and won the most points.
    seats = R.outcome(start, record(["bot-1", "pb", "pc", "pd"], [90, 10, -40, -60]))
    assert [(s.player, s.place, s.abandoned) for s in seats] == [
        ("pa", 4, True), ("pb", 1, False), ("pc", 2, False), ("pd", 3, False)]
    new = R.rate(seats, {})
    assert new["pa"][0] < 25 < new["pb"][0]


def test_bots_take_part_at_a_fixed_rating_and_are_not_rated():
    start = ["pa", "bot-1", "bot-2", "bot-3"]
    seats = R.outcome(start, record(start, [30, 0, -10, -20]))
    new = R.rate(seats, {})
    assert list(new) == ["pa"] and new["pa"][0] > 25  # beating three bots raises a human
    worse = R.rate(R.outcome(start, record(start, [-30, 0, 10, 20])), {})
    assert worse["pa"][0] < 25
    assert R.rate(R.outcome(["bot-1"] * 4, record(["bot-1"] * 4, [0] * 4)), {}) == {}


def test_hand_statistics_count_wins_self_draws_deal_ins_and_fans():
    ids = ["pa", "pb", "bot-1", "pc"]
    fan = lambda name: [1, name, name + " en", 2, 1, []]  # noqa: E731
    hands = [
        {"ids": ids, "winner": 0, "discarder": 1, "self_drawn": False, "total": 10, "fans": [fan("平和"), fan("门前清")]},
        {"ids": ids, "winner": 0, "discarder": None, "self_drawn": True, "total": 8, "fans": [fan("平和")]},
        {"ids": ids, "winner": 2, "discarder": 3, "self_drawn": False, "total": 8, "fans": [fan("碰碰和")]},
        {"ids": ids, "winner": None, "discarder": None, "self_drawn": False, "total": 0, "fans": [], "void": True},
    ]
    st = R.hand_stats(record(ids, [0] * 4, hands))
    assert set(st) == {"pa", "pb", "pc"}
    a = st["pa"]
    assert (a.hands, a.wins, a.self_drawn, a.deal_ins, a.win_fan) == (3, 2, 1, 0, 18)
    assert a.fans == {("平和", "平和 en"): 2, ("门前清", "门前清 en"): 1}
    assert (st["pb"].deal_ins, st["pc"].deal_ins, st["pc"].wins) == (1, 1, 0)


def test_tournament_tables_cannot_be_ranked_and_rooms_default_to_unranked():
    assert RoomConfig().ranked is False
    with pytest.raises(RoomError):
        RoomConfig(table=True, hands=4, ranked=True)


async def test_a_quick_match_rates_the_player_and_fills_history_and_statistics(server):
    a = await server.client("json", name="Ann")
    r = await a.request({"t": "quick", "type": "guobiao", "wait": 0})
    assert r["t"] == "queued", r
    await play(a, random.Random(5), lambda m: m.get("t") == "match_result", timeout=60)
    reveal = await a.wait_for(lambda m: m.get("t") == "reveal")
    await server.app.ratings.settle()
    status, p = await server.app.api(f"/api/players/{a.player}")
    assert status == 200
    rating = p["ratings"]["guobiao"]
    assert rating["matches"] == 1 and rating["rating"] != 0  # a new player is at 0 (mu - 3 sigma)
    (m,) = p["matches"]["items"]
    assert m["id"] == reveal["id"] and m["replay"] == f"/api/matches/{reveal['id']}" and m["rating"] == rating["rating"]
    status, replay = await server.app.api(m["replay"])
    assert status == 200 and a.player in replay["players"]
    st = p["stats"]
    assert st["matches"] == 1 and st["hands"] == 4 and st["average_place"] == m["place"]
    # The statistics are those of the match's own hands.
    mine = replay["players"].index(a.player)
    wins = [h for h in replay["hands"] if h["winner"] == mine]
    assert st["wins"] == len(wins)
    assert st["deal_in_rate"] == round(sum(h["discarder"] == mine for h in replay["hands"]) / 4, 3)
    assert p["curves"]["guobiao"][-1][1] == rating["rating"]
    assert sum(f["count"] for f in p["fans"]) >= (1 if wins else 0)
    # The leaderboard lists the player, with their own position.
    status, board = await server.app.api("/api/leaderboard/guobiao", query=f"player={a.player}")
    assert status == 200 and board["entries"][0]["player"] == a.player
    assert board["you"] == {"rank": 1, "player": a.player, "rating": rating["rating"], "matches": 1}
    # Taken in once: doing it again changes nothing.
    async with server.app.store.transaction() as db:
        assert not await count_match(db, reveal["id"], "guobiao", True, None)


async def test_two_transactions_taking_a_match_in_at_once_count_it_once(server):
    """On PostgreSQL two transactions run at once (one per pooled connection): both read the match as
    not yet counted; only the first one's update may count it."""
    a = await server.client("json", name="Ann")
    assert (await a.request({"t": "quick", "type": "guobiao", "wait": 0}))["t"] == "queued"
    await play(a, random.Random(5), lambda m: m.get("t") == "match_result", timeout=60)
    reveal = await a.wait_for(lambda m: m.get("t") == "reveal")
    await server.app.ratings.settle()
    store = server.app.store
    async with store.transaction() as db:  # as if it had never been taken in
        for table in ("ratings", "player_matches", "player_stats", "player_fans"):
            await db.execute_fetchall(f"DELETE FROM {table}")
        await db.execute_fetchall("UPDATE matches SET counted_at = NULL")
    jobs = [server.app.ratings._count(reveal["id"], "guobiao", True, None) for _ in range(3)]
    await asyncio.gather(*jobs)
    (n,) = await store.fetchone("SELECT matches FROM player_stats WHERE player_id = ?", (a.player,))
    (rated,) = await store.fetchone("SELECT matches FROM ratings WHERE player_id = ?", (a.player,))
    assert (n, rated) == (1, 1)


@pytest.mark.parametrize("ranked", [False, True])
async def test_a_private_room_is_rated_only_when_the_host_chose_ranked(server, ranked):
    a = await server.client("json", name="Ann")
    config = {**FAST, "ranked": True} if ranked else FAST  # absent: not ranked
    assert (await a.request({"t": "create", "config": config}))["t"] == "snapshot"
    for _ in range(3):
        assert (await a.request({"t": "add_bot", "level": "random"}))["t"] == "ok"
    assert (await a.request({"t": "ready"}))["t"] == "ok"
    await play(a, random.Random(2), lambda m: m.get("t") == "match_result", timeout=60)
    await server.app.ratings.settle()
    _, p = await server.app.api(f"/api/players/{a.player}")
    assert p["stats"]["matches"] == 1 and p["stats"]["hands"] == 4
    assert list(p["ratings"]) == (["guobiao"] if ranked else [])
    assert (p["matches"]["items"][0]["rating"] is not None) == ranked


async def test_a_hidden_history_shows_no_statistics(server):
    a = await server.client("json", name="Ann")
    assert (await a.request({"t": "privacy", "hide_history": True}))["hide_history"] is True
    _, p = await server.app.api(f"/api/players/{a.player}")
    assert "stats" not in p and "matches" not in p


async def test_leaderboard_is_ordered_and_paged_and_own_position_is_found(server):
    store = server.app.store
    import time
    async with store.transaction() as db:
        await db.executemany("INSERT INTO players (id, token_hash, name, created_at, last_seen) VALUES (?, ?, ?, 0, 0)",
                             [(f"p{i:04d}", f"unused:p{i:04d}", f"P{i}") for i in range(130)])
        await db.executemany("INSERT INTO ratings VALUES (?, 'guobiao', ?, 1, ?, 1, ?)",
                             [(f"p{i:04d}", i, i - 3, time.time()) for i in range(130)])
    status, b0 = await server.app.api("/api/leaderboard/guobiao", query="player=p0003")
    assert status == 200 and b0["total"] == 100 and len(b0["entries"]) == PER_PAGE
    assert [e["player"] for e in b0["entries"][:2]] == ["p0129", "p0128"] and b0["entries"][0]["rank"] == 1
    _, b4 = await server.app.api("/api/leaderboard/guobiao", query="page=4")
    assert b4["entries"][-1]["rank"] == 100 and b4["entries"][-1]["player"] == "p0030"
    assert b0["you"]["rank"] == 127 and b0["you"]["rating"] == 0  # beyond the top 100: still told
    assert (await server.app.api("/api/leaderboard/guobiao", query="page=9"))[1]["entries"] == []
    assert (await server.app.api("/api/leaderboard/nope"))[0] == 404


async def test_a_finished_match_not_taken_in_is_counted_at_the_next_start(tmp_path):
    """The server stopped between the result's commit and the update (or the match predates the
    ratings tables): the next start takes it in, once."""
    from tests.server.conftest import start, stop

    s = await start(str(tmp_path / "g.db"))
    try:
        a = await s.client("json", name="Ann")
        assert (await a.request({"t": "quick", "type": "wufan", "wait": 0}))["t"] == "queued"
        await play(a, random.Random(9), lambda m: m.get("t") == "match_result", timeout=60)
        await s.app.ratings.settle()

        async with s.app.store.transaction() as db:  # as if the update had never run
            for table in ("ratings", "player_matches", "player_stats", "player_fans"):
                await db.execute_fetchall(f"DELETE FROM {table}")
            await db.execute_fetchall("UPDATE matches SET counted_at = NULL")
        player = a.player
    finally:
        await stop(s)
    s = await start(str(tmp_path / "g.db"))
    try:
        for _ in range(100):
            _, p = await s.app.api(f"/api/players/{player}")
            if p["ratings"]:
                break
            await asyncio.sleep(0.05)
        assert p["ratings"]["wufan"]["matches"] == 1 and p["stats"]["matches"] == 1
        assert await s.app.ratings.catch_up() == 0  # nothing left to take in
    finally:
        await stop(s)


async def test_a_player_who_leaves_a_ranked_match_is_rated_last(server):
    """Two humans and two bots in a ranked private room; one leaves during the first hand (a bot
    plays the seat on): the leaver is placed 4th and loses rating, the one who stayed is not last."""
    a = await server.client("json", name="Ann")
    b = await server.client("json", name="Bo")
    snap = await a.request({"t": "create", "config": {**FAST, "ranked": True}})
    code = snap["info"]["invite"]
    assert (await b.request({"t": "join", "code": code}))["t"] == "ok"
    for _ in range(2):
        assert (await a.request({"t": "add_bot", "level": "random"}))["t"] == "ok"
    assert (await b.request({"t": "ready"}))["t"] == "ok"
    assert (await a.request({"t": "ready"}))["t"] == "ok"
    await b.wait_for(lambda m: m.get("t") == "game")
    assert (await b.request({"t": "leave"}))["t"] == "ok"
    await play(a, random.Random(4), lambda m: m.get("t") == "match_result", timeout=60)
    await server.app.ratings.settle()
    _, pb = await server.app.api(f"/api/players/{b.player}")
    _, pa = await server.app.api(f"/api/players/{a.player}")
    (mb,) = pb["matches"]["items"]
    assert mb["abandoned"] is True and mb["place"] == 4
    assert pb["ratings"]["guobiao"]["matches"] == 1 and pb["ratings"]["guobiao"]["rating"] < 0
    assert pa["matches"]["items"][0]["place"] < 4 and pa["matches"]["items"][0]["abandoned"] is False
    assert pb["stats"]["hands"] <= 1  # the hands after leaving were the bot's


async def test_a_long_history_is_numbered_by_the_migration_and_its_curve_is_thinned(tmp_path):
    """Rows written before migration 6 get their rated match numbers; a 450-match curve keeps every
    third match and the last one, in order."""
    import sqlite3

    from server import store as S
    from server.store_ratings import CURVE_POINTS, profile

    path = tmp_path / "old.db"
    raw = sqlite3.connect(path, isolation_level=None)
    for number, p in S.migrations()[:5]:
        raw.executescript(f"BEGIN;\n{p.read_text(encoding='utf-8')}\nPRAGMA user_version={number};\nCOMMIT;")
    raw.execute("INSERT INTO players (id, token_hash, name, created_at, last_seen) VALUES ('p1', 'unused:p1', 'Ann', 0, 0)")
    raw.execute("INSERT INTO rooms (code, config, created_at, log_from) VALUES ('r1', '{}', 0, 1)")
    raw.execute("BEGIN")
    for i in range(451):
        raw.execute("INSERT INTO matches (id, room_id, number, rules, seed, salt, commitment, players, started_at,"
                    " finished_at, counted_at) VALUES (?, 1, ?, '{}', '1', 's', 'c', '[]', 0, ?, ?)", (i + 1, i, i, i))
        rating = None if i == 7 else float(i)  # one unrated match among them
        raw.execute("INSERT INTO player_matches VALUES ('p1', ?, 'guobiao', 1, 0, 0, ?, ?)", (i + 1, rating, 1000.0 + i))
    raw.execute("INSERT INTO ratings VALUES ('p1', 'guobiao', 30, 1, 27, 450, 0)")
    raw.execute("COMMIT")
    raw.close()
    store = await S.Store.open(path)
    try:
        numbered = await store.fetchall("SELECT rated_n FROM player_matches ORDER BY finished_at")
        assert [r[0] for r in numbered] == list(range(1, 8)) + [None] + list(range(8, 451))
        async with store.connection() as db:
            p = await profile(db, "p1", 0, 20)
        curve = p["curves"]["guobiao"]
        assert len(curve) <= CURVE_POINTS + 1 and curve[-1][1] == 450.0
        assert [x for _, x in curve[:3]] == [2.0, 5.0, 9.0]  # rated matches 3, 6, 9 (the 8th match was unrated)
        assert [t for t, _ in curve] == sorted(t for t, _ in curve)
    finally:
        await store.close()


async def test_a_ranked_quick_match_changes_both_players_ratings(server):
    a = await server.client("json", name="Ann")
    b = await server.client("json", name="Bo")
    for c in (a, b):  # both accept bots after half a second: seated together, two bots
        assert (await c.request({"t": "quick", "type": "dazhong", "wait": 0.5}))["t"] == "queued"
    rng = random.Random(6)
    done = await asyncio.gather(*(play(c, rng, lambda m: m.get("t") == "match_result", timeout=60) for c in (a, b)))
    assert done[0]["record"]["ids"] == done[1]["record"]["ids"]  # the same match
    await server.app.ratings.settle()
    for c in (a, b):
        _, p = await server.app.api(f"/api/players/{c.player}")
        assert p["ratings"]["dazhong"]["matches"] == 1 and p["ratings"]["dazhong"]["rating"] != 0
    _, board = await server.app.api("/api/leaderboard/dazhong")
    assert {e["player"] for e in board["entries"]} == {a.player, b.player}
    assert board["entries"][0]["rating"] >= board["entries"][1]["rating"]
