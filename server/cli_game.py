"""CLI subcommands for whole games: simulate and replay.

``guobiao simulate --hands N --seed S [--dump FILE]`` plays matches of random legal players and prints
a summary; ``--dump`` writes them as JSON lines (a ``match`` header with rules and seed, one ``action``
line per (player, action), an ``end`` line with the final scores and the SHA-256 of the canonical final
state). ``guobiao replay FILE`` re-runs such a file and checks every match ends in the same state. It also
takes a finished match served by ``GET /api/matches/<id>`` (one JSON object, ``"format":
"guobiao-match/1"``): it checks the fairness commitment (SHA-256 of seed and salt), rebuilds every
hand's wall from the seed, and checks every hand's result and the final scores.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections import Counter
from dataclasses import asdict, fields

from game import match as M
from game.actions import ActionError, from_dict, to_dict
from game.codec import canonical
from game.rules import Rules
from game.simulate import play_match, random_policy, tidy_policy


def register(sub) -> None:
    p = sub.add_parser("simulate", help="play random legal games and summarise them")
    p.add_argument("--hands", type=int, default=16, help="number of hands (matches of up to 16)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dump", metavar="FILE", help="write the match logs as JSON lines")
    p.add_argument("--min-fan", type=int, default=None, help="minimum fans to win (default 8)")
    p.add_argument("--no-flowers", action="store_true", help="136 tiles, no flowers")
    p.add_argument("--policy", choices=("random", "tidy"), default="random",
                   help="random: uniform over the legal actions (wins taken); tidy: keeps connected tiles")
    p.set_defaults(run=simulate)
    r = sub.add_parser("replay", help="re-run a simulate dump or a served match file and check it")
    r.add_argument("file", help="a `simulate --dump` file, or a match from GET /api/matches/<id>")
    r.add_argument("--walls", action="store_true", help="match files: print every hand's wall")
    r.set_defaults(run=replay)


def _digest(state) -> str:
    return hashlib.sha256(canonical(state)).hexdigest()


class Summary:
    def __init__(self) -> None:
        self.hands = self.draws = self.self_drawn = self.robbed = self.fan_total = 0
        self.wins = 0
        self.fans: Counter = Counter()

    def add(self, m: M.MatchState) -> None:
        for r in m.history:
            self.hands += 1
            if r.win is None:
                self.draws += 1
                continue
            self.wins += 1
            self.self_drawn += r.win.self_drawn
            self.robbed += r.win.robbed
            self.fan_total += r.win.total
            for fan in r.win.fans:
                self.fans[fan.name] += 1

    def print(self, out) -> None:
        print(f"hands: {self.hands}  wins: {self.wins} (self-drawn {self.self_drawn}, "
              f"robbed kongs {self.robbed})  draws (荒牌): {self.draws}", file=out)
        if self.wins:
            print(f"average fans per win: {self.fan_total / self.wins:.1f}", file=out)
            print("wins by fan:", file=out)
            for name, n in self.fans.most_common():
                print(f"  {name}\t{n}", file=out)


def simulate(args) -> int:
    if args.hands < 1:
        print("--hands must be at least 1", file=sys.stderr)
        return 2
    kw = {}
    if args.min_fan is not None:
        kw["min_fan"] = args.min_fan
    if args.no_flowers:
        kw["flowers"] = False
    summary = Summary()
    dump = open(args.dump, "w", encoding="utf-8") if args.dump else None
    try:
        left, k = args.hands, 0
        while left > 0:
            rules = Rules(hands=min(16, left), **kw)
            seed = args.seed + k
            rng = random.Random(seed)
            log: list = []
            policy = tidy_policy(rng) if args.policy == "tidy" else random_policy(rng)
            m = play_match(rules, seed, policy, rng, log)
            summary.add(m)
            if dump is not None:
                _write(dump, {"type": "match", "rules": asdict(rules), "seed": seed})
                for player, action in log:
                    _write(dump, {"type": "action", "player": player, "action": to_dict(action)})
                _write(dump, {"type": "end", "scores": list(m.scores), "digest": _digest(m)})
            left -= rules.hands
            k += 1
    finally:
        if dump is not None:
            dump.close()
    summary.print(sys.stdout)
    return 0


def _write(f, obj) -> None:
    f.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")


def _rules(d) -> Rules:
    names = {f.name for f in fields(Rules)}
    if not isinstance(d, dict) or set(d) - names:
        raise ValueError(f"bad rules: {d!r}")
    return Rules(**d)


def replay(args) -> int:
    try:
        with open(args.file, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print(f"replay: {e}", file=sys.stderr)
        return 2
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None  # JSON lines
    if isinstance(whole, dict) and str(whole.get("format", "")).startswith("guobiao-match/"):
        return replay_match(whole, args)
    return replay_lines(args)


def replay_match(rec: dict, args) -> int:
    """Re-run a served match: commitment, walls, every hand's result, the final scores."""
    import rooms.types  # noqa: F401  registers the room types' settlements by name
    from game.tiles import format_tiles
    from server import fair

    try:
        seed, salt, announced = rec["seed"], rec["salt"], rec["commitment"]
        if type(seed) is str and seed.isdigit():
            seed = int(seed)  # seeds beyond 2^53 are sent as strings (JavaScript reads them inexactly)
        if type(seed) is not int or not isinstance(salt, str) or not isinstance(announced, str):
            raise ValueError("seed, salt and commitment: an int (or its digits) and two strings")
        if not fair.check(seed, salt, announced):
            print(f"replay: the commitment {announced} is not SHA-256 of seed and salt: the wall was not the"
                  " one announced", file=sys.stderr)
            return 1
        print(f"commitment {announced} = SHA-256(\"{seed}:{salt}\"): ok")
        rules = _rules(rec["rules"])
        m, events = M.start_match(rules, seed=seed)
        walls, results = [m.hand.wall], []
        log_format = rec.get("log_format", 1)  # files served before claims were the game's: format 1
        for player, action in rec["actions"]:
            m, events = M.replay_step(m, player, from_dict(action), log_format)
            for e in events:
                if e["t"] == "hand_start":
                    walls.append(m.hand.wall)
                elif e["t"] == "scores":
                    results.append((e["hand"], e["deltas"], e["scores"]))
    except (KeyError, TypeError, ValueError, ActionError) as e:
        print(f"replay: {e}", file=sys.stderr)
        return 2
    bad = 0
    hands = {h["hand"]: h for h in rec.get("hands", ())}
    for i, (hand, deltas, scores) in enumerate(results):
        want = hands.get(hand)
        ok = want is not None and want["deltas"] == deltas and want["scores"] == scores
        bad += not ok
        print(f"hand {hand + 1}: deltas {deltas} scores {scores} {'ok' if ok else 'DIFFERENT from the record'}")
        if args.walls:
            print(f"  wall {format_tiles(walls[i])}")
    if len(results) != len(hands):
        bad += 1
        print(f"the record lists {len(hands)} hands, the replay played {len(results)}", file=sys.stderr)
    if list(m.scores) != rec.get("scores"):
        bad += 1
        print(f"final scores {list(m.scores)} differ from the record's {rec.get('scores')}", file=sys.stderr)
    print(f"final scores {list(m.scores)}: {'ok' if not bad else 'MISMATCH'}")
    return 1 if bad else 0


def replay_lines(args) -> int:
    summary = Summary()
    matches = bad = 0
    m = None
    try:
        with open(args.file, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                rec = json.loads(line)
                kind = rec.get("type")
                if kind == "match":
                    m, _ = M.start_match(_rules(rec["rules"]), seed=rec["seed"])
                elif kind == "action":
                    if m is None:
                        raise ValueError("an action before any match header")
                    m, _ = M.step(m, rec["player"], from_dict(rec["action"]))
                elif kind == "end":
                    if m is None:
                        raise ValueError("an end line before any match header")
                    matches += 1
                    summary.add(m)
                    if _digest(m) != rec.get("digest") or list(m.scores) != rec.get("scores"):
                        bad += 1
                        print(f"line {lineno}: match {matches} ends in a different state", file=sys.stderr)
                    m = None
                else:
                    raise ValueError(f"unknown record type {kind!r}")
    except (OSError, ValueError, KeyError, TypeError, ActionError) as e:
        where = f"line {lineno}: " if "lineno" in locals() else ""
        print(f"replay: {where}{e}", file=sys.stderr)
        return 2
    summary.print(sys.stdout)
    print(f"matches replayed: {matches}, identical: {matches - bad}")
    return 1 if bad else 0
