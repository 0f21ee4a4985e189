"""Views and event projection: nobody sees another seat's concealed tiles or the wall."""

import random

import pytest

from game import match as M
from game.actions import ConcealedKong
from game.rules import Rules
from game.simulate import play_match, random_policy, tidy_policy
from game.state import OVER, auto_action, legal_actions, pending, start_hand, step
from game.views import EVENT_FIELDS, project, same_for_every_seat, view

from tests.game.scenario import T, Table, scrambled

ANY = Rules(flowers=False, min_fan=0)

PLAYER_KEYS = {"seat", "wind", "melds", "flowers", "discards", "tiles", "blocked", "declared"}
VIEW_KEYS = {"seq", "phase", "dealer", "prevalent", "turn", "wall", "seat", "players", "fouls", "claim", "result"}
OWN_KEYS = {"hand", "drawn", "legal", "to_act"}

# Independent of game.views: event fields that only the event's own seat may see.
SECRET = {"deal": {"tiles"}, "draw": {"tile"}, "concealed_kong": {"tile"}}
PRIVATE_EVENTS = {"response"}


def check_view_shape(v: dict, seat) -> None:
    allowed = VIEW_KEYS | (OWN_KEYS if seat is not None else set())
    assert set(v) <= allowed, set(v) - allowed
    for p in v["players"]:
        assert set(p) == PLAYER_KEYS  # a count of tiles, never the tiles
        assert isinstance(p["tiles"], int)
    if seat is None:
        assert "hand" not in v and "legal" not in v


def check_projection(event: dict, seat) -> None:
    out = project(event, seat)
    mine = seat is not None and event.get("seat") == seat
    if event["t"] in PRIVATE_EVENTS:
        assert (out is None) != mine
        return
    if not mine:
        assert not SECRET.get(event["t"], set()) & set(out), (event, out)
    assert set(out) <= set(event)  # nothing invented


def test_views_do_not_depend_on_anything_hidden_from_the_seat():
    # Scramble every secret of the others (tiles, wall, drawn tiles, concealed kongs, their claims):
    # the view of the seat and of a spectator must not change.
    rng = random.Random(4)
    for seed in range(6):
        s, _ = start_hand(ANY if seed % 2 else Rules(), seed=seed)
        while s.phase != OVER:
            for seat in (0, 1, 2, 3, None):
                v = view(s, seat)
                check_view_shape(v, seat)
                assert v == view(scrambled(s, seat), seat)
            who = pending(s)
            seat = who[rng.randrange(len(who))]
            action = auto_action(s, seat) if rng.random() < 0.3 else rng.choice(legal_actions(s, seat))
            s, _ = step(s, seat, action)


def test_every_event_is_projected_from_the_allow_list():
    rng = random.Random(1)
    seen = set()

    def on_step(before, player, action, after, events):
        for e in events:
            seen.add(e["t"])
            for seat in (0, 1, 2, 3, None):
                check_projection(e, seat)
            for p in (0, 1, 2, 3, None):
                out = M.project(e, p)
                seat = None if p is None else M.seat_in(p, e["hand"])
                assert out == project(e, seat)
                if same_for_every_seat(e):  # the rooms send one projection to everybody
                    assert out == M.project(e, None)

    play_match(Rules(hands=4, min_fan=0), 3, tidy_policy(rng), rng, on_step=on_step)
    assert {"deal", "draw", "discard", "claim", "response", "hand_end", "scores"} <= seen


def test_unknown_event_types_are_not_shown():
    with pytest.raises(KeyError):
        project({"t": "new_secret_event", "seat": 0, "tile": 5}, 1)
    assert set(EVENT_FIELDS) >= set(SECRET) | PRIVATE_EVENTS


def test_draw_shows_the_tile_only_to_its_drawer():
    e = {"t": "draw", "seat": 2, "tile": T("5p"), "source": "wall"}
    assert project(e, 2) == e
    assert project(e, 1) == {"t": "draw", "seat": 2, "source": "wall"}
    assert project(e, None) == {"t": "draw", "seat": 2, "source": "wall"}


def test_concealed_kong_face_down_to_others_until_the_hand_ends():
    t = Table(["9999s 123m 456m 789m W", "19m 18s 19p NN CCFF P", "", ""], replacements="W", rules=ANY)
    events = t.act(0, ConcealedKong(T("9s")))
    (kong,) = [e for e in events if e["t"] == "concealed_kong"]
    assert project(kong, 1) == {"t": "concealed_kong", "seat": 0}
    assert project(kong, 0)["tile"] == T("9s")
    assert view(t.state, 1)["players"][0]["melds"] == [{"kind": "kong", "concealed": True}]
    assert view(t.state, None)["players"][0]["melds"] == [{"kind": "kong", "concealed": True}]
    assert view(t.state, 0)["players"][0]["melds"][0]["tile"] == T("9s")
    t.win(0)
    assert view(t.state, 1)["players"][0]["melds"][0]["tile"] == T("9s")  # shown at the end
    assert t.events[-1]["kongs"][0] == [T("9s")]


def test_view_of_a_claim_window_does_not_say_who_was_asked():
    t = Table(["147m 258p 369s SSWN E", "EE 19p 19s 19m NN CFP", "", ""], rules=ANY)
    t.discard(0, "E")
    v1, v3 = view(t.state, 1), view(t.state, 3)
    assert v1["claim"] == v3["claim"] == {"kind": "discard", "tile": T("E"), "seat": 0}
    assert v1["to_act"] and v1["legal"] == [{"a": "pung"}, {"a": "pass"}]
    assert v3["legal"] == [] or v3["to_act"]


def test_spectator_sees_no_concealed_tile():
    s, _ = start_hand(Rules(), seed=9)
    v = view(s, None)
    check_view_shape(v, None)
    assert v["seat"] is None and "hand" not in v
    assert [p["tiles"] for p in v["players"]] == [14, 13, 13, 13]


def test_result_shows_the_winning_hand_to_everybody():
    t = Table(["147m 258p 369s SSWN E", "123m 456m 789m 123s E", "", ""], rules=ANY)
    t.discard(0, "E")
    t.win(1)
    t.pass_all()
    r = view(t.state, None)["result"]
    assert r["win"]["seat"] == 1 and r["win"]["tiles"] == sorted(
        [T(x) for x in "1m 2m 3m 4m 5m 6m 7m 8m 9m 1s 2s 3s E".split()])


def test_match_view_maps_players_to_seats():
    m, _ = M.start_match(Rules(hands=16), seed=2)
    for p in range(4):
        v = M.view(m, p)
        assert v["seat"] == M.SEAT_SCHEME[p][0] and v["match"]["seats"][v["seat"]] == p
        check_view_shape({k: x for k, x in v.items() if k != "match"}, v["seat"])
    assert "hand" not in M.view(m, None)


def test_every_hand_is_shown_after_an_exhaustive_draw_and_never_before():
    """R98: at 荒牌 all hands are laid open; before the end no event or view carries them."""
    draws = 0
    for seed in range(4):
        rng = random.Random(seed)

        def on_step(before, player, action, after, events):
            nonlocal draws
            for e in events:
                ended = e["t"] == "hand_end"
                if ended and e["win"] is None:
                    draws += 1
                    assert e["hands"] == [list(c) for c in after.hand.concealed]
                    for p in (0, 1, 2, 3, None):
                        assert M.project(e, p)["hands"] == e["hands"]  # everybody, spectators too
                else:
                    assert "hands" not in e
            for p in (0, 1, 2, 3, None):
                v = M.view(after, p)
                if after.hand.phase == OVER and after.hand.result.win is None:
                    assert v["result"]["hands"] == [list(c) for c in after.hand.concealed]
                else:
                    assert "hands" not in v.get("result", {})
                    assert all("hand" not in x for x in v["players"])

        play_match(Rules(hands=4), seed, random_policy(rng), rng, on_step=on_step)
    assert draws > 0


def test_a_wins_fans_carry_the_sets_that_formed_them():
    t = Table(["147m 258p 369s SSWN E", "123m 456m 789m 123s E", "", ""], rules=ANY)
    t.discard(0, "E")
    t.win(1)
    t.pass_all()
    fans = view(t.state, None)["result"]["win"]["fans"]
    assert fans == t.events[-1]["win"]["fans"]
    by_name = {f[2]: f for f in fans}
    assert all(len(f) == 6 and isinstance(f[5], list) for f in fans)
    assert by_name["Pure Straight"][5] == ["123m", "456m", "789m"]
    assert by_name["Concealed Hand"][5] == []  # a fan of the whole hand


def test_replay_events_show_every_seat_and_the_final_hands():
    """game.match.replay_hands: what a finished match's replay shows, from the allow-list."""
    rng = random.Random(5)
    log: list = []
    raw: list = []
    ends: list = []

    def on_step(before, player, action, after, events):
        raw.extend(events)
        if any(e["t"] == "hand_end" for e in events):
            ends.append([list(c) for c in after.hand.concealed])

    rules = Rules(hands=4, min_fan=0)
    m = play_match(rules, 8, tidy_policy(rng), rng, log, on_step)
    hands = M.replay_hands(rules, log, seed=8)
    assert len(hands) == 4 and [h[0]["t"] for h in hands] == ["hand_start"] * 4
    flat = [e for h in hands for e in h]
    assert not {"response", "claim_window", "ready"} & {e["t"] for e in flat}
    kept = [e for e in raw if e["t"] not in ("response", "claim_window", "ready")]
    assert len(flat) == len(kept)
    for e, out in zip(kept, flat):
        extra = {"hands"} if e["t"] == "hand_end" else set()
        assert {k: v for k, v in out.items() if k not in extra} == project(e, e.get("seat"))
    for h in hands:  # every seat's deal is open, and every hand shown at the end
        assert sorted(e["seat"] for e in h if e["t"] == "deal" and "tiles" in e) == [0, 1, 2, 3]
    assert [e["hands"] for e in flat if e["t"] == "hand_end"] == ends
    assert flat[-1]["t"] == "match_end" and flat[-1]["scores"] == list(m.scores)
