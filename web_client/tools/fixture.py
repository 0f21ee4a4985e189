"""Print the real game's projected events and views, for the reducer test.

The client folds projected events into a view (src/game.ts); this records, for a seeded match played
by a simple policy, what each viewer (a player, and a spectator) receives after every action and what
game.match.view says the viewer should see then (game/ is pure Python: any python3 runs it):

    python3 web_client/tools/fixture.py [seed] [hands]          (test/game.test.ts runs it)
    python3 web_client/tools/fixture.py replay [seed] [hands]   (a replay file: test/replay.test.ts)
    python3 web_client/tools/fixture.py hint 123m456m789m11s23sN  (the server's hint: test/hint.test.ts)
    python3 web_client/tools/fixture.py tournament   (tournament deltas and views: test/tournament.test.ts)
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from game import match as gm  # noqa: E402
from game.actions import from_dict, to_dict as action_dict  # noqa: E402
from game.actions import AddedKong, Chow, ConcealedKong, Continue, Discard, Kong, Pass, Pung, Win  # noqa: E402
from game.shanten import shanten  # noqa: E402
from game.rules import Rules  # noqa: E402

VIEWERS = (0, 2, None)  # two players and a spectator


def choose(m, player: int, legal, rng: random.Random):
    """Win when possible, take kongs, sometimes pungs and chows, and discard towards a win (shanten),
    so that the matches have wins, kongs and claims for the reducer to follow."""
    kinds = {type(a) for a in legal}
    for k in (Win, Kong, ConcealedKong, AddedKong, Pung, Chow):
        if k in kinds and (k in (Win, Kong, ConcealedKong, AddedKong) or rng.random() < 0.5):
            return rng.choice([a for a in legal if type(a) is k])
    for k in (Pass, Continue):
        if k in kinds:
            return next(a for a in legal if type(a) is k)
    hand = m.hand
    seat = m.seat_of(player)
    tiles = list(hand.concealed[seat])
    melds = len(hand.melds[seat])

    def after(a):
        rest = list(tiles)
        rest.remove(a.tile)
        return shanten(rest, melds), rng.random()

    discards = [a for a in legal if type(a) is Discard and not a.ready]
    return min(discards, key=after) if discards else rng.choice(list(legal))


def digest(v: dict) -> dict:
    keep = ("seq", "phase", "dealer", "prevalent", "turn", "wall", "seat", "hand")
    out = {k: v.get(k) for k in keep if k in v}
    out["players"] = [
        {k: p[k] for k in ("seat", "wind", "melds", "flowers", "discards", "tiles", "declared", "blocked")}
        for p in v["players"]
    ]
    out["match"] = {k: v["match"][k] for k in ("hand", "round", "seats", "scores", "phase")}
    if "result" in v:
        out["result"] = v["result"]
    return out


def main(seed: int = 11, hands: int = 2) -> None:
    rng = random.Random(seed)
    m, events = gm.start_match(Rules(hands=hands, min_fan=0), seed=seed)
    steps = [{"events": {str(p): [x for x in (gm.project(e, p) for e in events) if x] for p in VIEWERS},
              "views": {str(p): digest(gm.view(m, p)) for p in VIEWERS}}]
    while m.phase != gm.FINISHED:
        player = gm.pending(m)[0]
        action = choose(m, player, gm.legal_actions(m, player), rng)
        m, events = gm.step(m, player, action)
        steps.append({
            "events": {str(p): [x for x in (gm.project(e, p) for e in events) if x] for p in VIEWERS},
            "views": {str(p): digest(gm.view(m, p)) for p in VIEWERS},
        })
    json.dump({"seed": seed, "hands": hands, "viewers": [str(p) for p in VIEWERS], "steps": steps},
              sys.stdout, separators=(",", ":"))


def replay_file(seed: int, hands: int) -> None:
    """A finished match as GET /api/matches/<id> serves it (seed, rules, actions in the room's order,
    hand records with their events from game.match.replay_hands), and the final state of every hand
    (``finals``: what game.match.view shows then) to check the client's replay against."""
    from rooms.records import hand_record

    rng = random.Random(seed)
    rules = Rules(hands=hands, min_fan=0)
    m, events = gm.start_match(rules, seed=seed)
    ids = ["p0", "bot-1", "bot-2", "bot-3"]
    log, records, finals = [], [], []
    while m.phase != gm.FINISHED:
        waiting = gm.pending(m)
        if m.phase == gm.PLAYING and m.hand.claim is not None:
            # The room passes a window's answers counterclockwise from the discarder.
            first = m.hand.claim.seat
            waiting = sorted(waiting, key=lambda p: (m.seat_of(p) - first) % 4)
        player = waiting[0]
        action = choose(m, player, gm.legal_actions(m, player), rng)
        m, events = gm.step(m, player, action)
        log.append([player, action_dict(action)])
        if any(e["t"] == "scores" for e in events):
            records.append(hand_record(m, 1, ids))
            finals.append({**digest(gm.view(m, None)), "hands": [list(c) for c in m.hand.concealed]})
    streams = gm.replay_hands(rules, [(p, from_dict(a)) for p, a in log], seed=seed)
    for rec, events in zip(records, streams):
        rec["events"] = events
    json.dump({"format": "guobiao-match/1", "id": 1, "seed": str(seed), "rules": {"hands": hands, "flowers": True},
               "players": ids, "actions": log, "hands": records, "scores": list(m.scores), "finals": finals},
              sys.stdout, separators=(",", ":"))


def hint(tiles: str) -> None:
    """The hint the room sends a seat holding ``tiles`` (国标馆 rules, East seat, East round)."""
    from game.hand import parse_hand
    from game.hints import hint as hint_of

    hand, _ = parse_hand(tiles)
    json.dump(hint_of(hand.melds, hand.tiles, rules=Rules()), sys.stdout, ensure_ascii=False)


def tournament() -> None:
    """A small tournament (rooms/tournament/) driven through registration, check-in, a session with hand
    results, sanctions and the end; for each change the delta a viewer gets (rooms/tournament/delta.py)
    and the whole view it should have after applying it."""
    from rooms.tournament import Tournament, TournamentConfig
    from rooms.tournament.delta import Deltas, for_viewer

    players = [f"p{i}" for i in range(1, 7)]
    viewers = ("org", "p1", "p6")
    t = Tournament.create("t1", TournamentConfig(name="Fixture Cup", hands=2, seating="swiss"), "org", "org",
                          bytes(range(32)), 0.0)
    t.take_log()
    d = Deltas(t)
    first = {p: {**t.view(p), "tseq": t.tseq} for p in viewers}
    steps = []

    def step(call) -> None:
        before = t.tseq
        call()
        entries = t.take_log()
        delta, personal, _ = d.after(t, entries)
        msg = {"t": "tournament_delta", "tournament": t.id, "from": before, "tseq": t.tseq, **delta}
        steps.append({"deltas": {p: for_viewer(t, msg, personal, p) for p in viewers},
                      "views": {p: {**t.view(p), "tseq": t.tseq} for p in viewers}})

    for i, p in enumerate(players):
        step(lambda: t.handle(p, {"t": "register", "team": "AB"[i % 2]}, 1.0 + i))
    for p in players:
        step(lambda: t.handle(p, {"t": "checkin"}, 10.0))
    step(lambda: t.handle("org", {"t": "start"}, 20.0))
    step(lambda: t.handle("org", {"t": "sanction", "player": "p1", "kind": "points", "points": 10,
                                  "reason": "noise"}, 30.0))
    for x in list(t.sessions[0].tables):
        for h in range(2):
            deltas = [8 * (1 if s == h else -1) if p is not None else 0 for s, p in enumerate(x.seats)]
            rec = {"match": 1, "hand": h, "deltas": deltas, "winner": h, "discarder": None, "self_drawn": True,
                   "total": 8, "fans": []}
            step(lambda: t.table_event(x.key, {"t": "hand_result", "record": rec}, 40.0 + h))
        step(lambda: t.table_event(x.key, {"t": "match_result", "record": {"match": 1, "hands": []}}, 50.0))
    json.dump({"first": first, "steps": steps}, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    if sys.argv[1:2] == ["tournament"]:
        tournament()
        sys.exit()
    if sys.argv[1:2] == ["replay"]:
        replay_file(*(int(a) for a in sys.argv[2:4]))
    elif sys.argv[1:2] == ["hint"]:
        hint(sys.argv[2])
    else:
        main(*(int(a) for a in sys.argv[1:3]))
