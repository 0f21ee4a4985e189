"""CLI subcommands for the fan engine: ``guobiao score`` and ``guobiao waits``."""

from __future__ import annotations

import json
import sys

from game.fans.context import HandError, WinContext
from game.hand import format_hand, parse_hand
from game.scoring import Score, score
from game.tiles import NotationError, chinese_name, parse_tile, tile_name
from game.waits import wait_scores

WINDS = "ESWN"


def register(sub) -> None:
    p = sub.add_parser("score", help="score a winning hand by the GB fans")
    p.add_argument("hand", nargs="?", help='hand notation, e.g. "[EEE] [SSSS] 55pWWWNN" (docs/notation.md)')
    p.add_argument("--win", help="the winning tile, e.g. 5p (or end the hand with +5p)")
    p.add_argument("--self-drawn", action="store_true", help="自摸")
    p.add_argument("--fourth-tile", action="store_true", help="和绝张: the other three copies are visible")
    p.add_argument("--kong", action="store_true", help="杠上开花 when self-drawn, 抢杠和 otherwise")
    p.add_argument("--last-tile", action="store_true", help="妙手回春 when self-drawn, 海底捞月 otherwise")
    p.add_argument("--seat", default="E", choices=list(WINDS), help="seat wind (门风)")
    p.add_argument("--round", default="E", choices=list(WINDS), help="prevalent wind (圈风)")
    p.add_argument("--flowers", type=int, default=0, help="number of flowers, 0..8")
    p.add_argument("--json", action="store_true", help="print the score as JSON")
    p.add_argument("--jsonl", action="store_true",
                   help="read JSON lines in the reference calculator's argument format from stdin")
    p.set_defaults(run=_run_score)

    w = sub.add_parser("waits", help="the waits of a 13-tile hand and what each would score")
    w.add_argument("hand", help='hand notation without the winning tile, e.g. "[123m] 456p789s11EE"')
    w.add_argument("--self-drawn", action="store_true", help="score each wait as a self-draw")
    w.add_argument("--seat", default="E", choices=list(WINDS))
    w.add_argument("--round", default="E", choices=list(WINDS))
    w.add_argument("--json", action="store_true")
    w.set_defaults(run=_run_waits)


def score_json(s: Score, with_sets: bool = True) -> dict:
    fans = []
    for f in s.fans:
        entry = {"id": f.id, "name": f.name, "name_en": f.name_en, "points": f.points, "count": f.count}
        if with_sets:
            entry["sets"] = list(f.sets)
        fans.append(entry)
    return {"total": s.total, "fans": fans}


def _error(code: str, message: str) -> dict:
    return {"error": {"code": code, "message": message}}


def _run_score(args) -> int:
    if args.jsonl:
        for line in sys.stdin:
            if line.strip():
                print(json.dumps(score_reference_line(line), ensure_ascii=False), flush=True)
        return 0
    if not args.hand:
        print("guobiao score: give a hand, or --jsonl", file=sys.stderr)
        return 2
    try:
        hand, win = parse_hand(args.hand)
        if args.win is not None:
            win = parse_tile(args.win)
        if win is None:
            raise NotationError("notation/no_winning_tile", "give the winning tile with --win or +tile")
        ctx = WinContext(win, args.self_drawn, args.fourth_tile, args.kong, args.last_tile,
                         WINDS.index(args.seat), WINDS.index(args.round), args.flowers)
        s = score(hand, ctx)
    except (NotationError, HandError) as e:
        if args.json:
            print(json.dumps(_error(e.code, e.message), ensure_ascii=False))
        else:
            print(f"error {e.code}: {e.message}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(score_json(s), ensure_ascii=False))
    else:
        print(format_hand(hand, win))
        print(render(s))
    return 0


def render(s: Score) -> str:
    lines = []
    for f in s.fans:
        times = f" ×{f.count}" if f.count > 1 else ""
        sets = f"  {' '.join(f.sets)}" if f.sets else ""
        lines.append(f"{f.points * f.count:>4}  {f.name}{times} ({f.name_en}){sets}")
    lines.append(f"{s.total:>4}  total ({s.total_without_flowers} without flowers)")
    return "\n".join(lines)


_FIELDS = ("pack", "hand", "winTile", "flowerCount", "isSelfDrawn", "is4thTile", "isAboutKong",
           "isWallLast", "seatWind", "prevalentWind")


def score_reference_line(line: str) -> dict:
    """One JSON object in the reference's argument format -> our answer (never raises)."""
    from game.hand import CHOW, KONG, PUNG, Hand, Meld
    from game.tiles import from_reference

    try:
        data = json.loads(line)
    except ValueError as e:
        return _error("input/bad_json", f"not JSON: {e}")
    if not isinstance(data, dict):
        return _error("input/bad_json", "each line must be a JSON object")
    missing = [k for k in _FIELDS if k not in data]
    if missing:
        return _error("input/missing_field", f"missing {', '.join(missing)}")
    try:
        melds = []
        if not isinstance(data["pack"], list) or not isinstance(data["hand"], list):
            return _error("input/bad_field", "pack and hand must be lists")
        if len(data["pack"]) > 4:
            return _error("hand/too_many_melds", f"a hand has at most 4 melds, got {len(data['pack'])}")
        for pack in data["pack"]:
            if not (isinstance(pack, list) and len(pack) == 3):
                return _error("input/bad_pack", f"a pack is [type, tile, offer]: {pack!r}")
            kind, code, offer = pack
            if kind not in ("CHI", "PENG", "GANG") or not isinstance(offer, int) or not 0 <= offer <= 3:
                return _error("input/bad_pack", f"bad pack {pack!r}")
            if kind != "GANG" and offer == 0:
                return _error("input/bad_pack", f"a claimed {kind} needs an offer 1..3: {pack!r}")
            tile = from_reference(code)
            if kind == "CHI":
                if tile >= 27 or tile % 9 in (0, 8):
                    return _error("hand/bad_chow", f"no chow is centred on {code}")
                melds.append(Meld(CHOW, tile - 1))
            else:
                melds.append(Meld(PUNG if kind == "PENG" else KONG, tile, concealed=(offer == 0)))
        tiles = tuple(sorted(from_reference(c) for c in data["hand"]))
        win = from_reference(data["winTile"])
        for key in ("flowerCount", "seatWind", "prevalentWind"):
            if not isinstance(data[key], int) or isinstance(data[key], bool):
                return _error("input/bad_field", f"{key} must be an integer, got {data[key]!r}")
        flags = [data[k] for k in ("isSelfDrawn", "is4thTile", "isAboutKong", "isWallLast")]
        if not all(isinstance(f, bool) for f in flags):
            return _error("input/bad_field", "the four flags must be true or false")
        ctx = WinContext(win, *flags, data["seatWind"], data["prevalentWind"], data["flowerCount"])
        return score_json(score(Hand(tuple(melds), tiles), ctx), with_sets=False)
    except (NotationError, HandError) as e:
        return _error(e.code, e.message)
    except (TypeError, ValueError) as e:
        return _error("input/bad_field", str(e))


def _run_waits(args) -> int:
    try:
        hand, win = parse_hand(args.hand)
        if win is not None:
            raise NotationError("notation/unexpected_win", "waits takes the hand without a winning tile")
    except NotationError as e:
        print(f"error {e.code}: {e.message}", file=sys.stderr)
        return 1
    if len(hand.tiles) != 13 - 3 * len(hand.melds):
        print(f"error hand/tile_count: with {len(hand.melds)} melds a waiting hand stands "
              f"{13 - 3 * len(hand.melds)} tiles, got {len(hand.tiles)}", file=sys.stderr)
        return 1
    ctx = WinContext(0, self_drawn=args.self_drawn, seat_wind=WINDS.index(args.seat),
                     prevalent_wind=WINDS.index(args.round))
    result = wait_scores(hand, ctx)
    if args.json:
        print(json.dumps({tile_name(t): (score_json(s) if s else None) for t, s in result.items()},
                         ensure_ascii=False))
        return 0
    if not result:
        print("not ready (no waits)")
        return 0
    for t, s in result.items():
        head = f"{tile_name(t):>3} {chinese_name(t)}"
        if s is None:
            print(f"{head}: cannot win on it")
        else:
            fans = ", ".join(f"{f.name}{'×' + str(f.count) if f.count > 1 else ''}" for f in s.fans)
            print(f"{head}: {s.total:>3}  {fans}")
    return 0
