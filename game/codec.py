"""A canonical, complete serialisation of hand and match states (for replay checks and logs).

Two states are the same exactly when their ``canonical`` bytes are equal. This is the full server
state, secrets included: never send it to a client (``game.views`` builds what clients see).
"""

from __future__ import annotations

from dataclasses import asdict

from game.actions import to_dict as action_dict
from game.records import HandResult, WinRecord, fan_lists


def _win(w: WinRecord | None):
    if w is None:
        return None
    return {
        "winner": w.winner, "payer": w.payer, "tile": w.tile, "robbed": w.robbed,
        "melds": [[m.kind, m.tile, m.concealed] for m in w.hand.melds], "tiles": list(w.hand.tiles),
        "ctx": asdict(w.ctx), "fans": fan_lists(w.fans), "total": w.total,
    }


def result_dict(r: HandResult | None):
    if r is None:
        return None
    return {"win": _win(r.win), "payments": list(r.payments), "penalties": list(r.penalties)}


def hand_dict(s) -> dict:
    claim = None
    if s.claim is not None:
        w = s.claim
        claim = {
            "kind": w.kind, "tile": w.tile, "seat": w.seat,
            "options": [[action_dict(a) for a in opts] for opts in w.options],
            "responses": [None if a is None else action_dict(a) for a in w.responses],
        }
    return {
        "rules": asdict(s.rules), "seq": s.seq, "dealer": s.dealer, "prevalent": s.prevalent,
        "wall": list(s.wall), "head": s.head, "tail": s.tail,
        "concealed": [list(c) for c in s.concealed],
        "melds": [[m.to_dict() for m in ms] for ms in s.melds],
        "flowers": [list(f) for f in s.flowers],
        "ponds": [[[t, c] for t, c in p] for p in s.ponds],
        "blocked": list(s.blocked), "declared": list(s.declared),
        "phase": s.phase, "turn": s.turn, "drawn": s.drawn, "kong_draw": s.kong_draw,
        "claim": claim, "result": result_dict(s.result), "fouls": [list(f) for f in s.fouls],
    }


def canonical(state) -> bytes:
    """Canonical bytes of a HandState or MatchState: compact JSON with sorted keys (written here, as
    game/ imports no serialisation library)."""
    out: list[str] = []
    _encode(state.to_dict() if hasattr(state, "to_dict") else hand_dict(state), out)
    return "".join(out).encode()


def _encode(x, out: list) -> None:
    if x is None:
        out.append("null")
    elif x is True or x is False:
        out.append("true" if x else "false")
    elif type(x) is int:
        out.append(str(x))
    elif type(x) is str:
        out.append('"' + x.replace("\\", "\\\\").replace('"', '\\"') + '"')
    elif type(x) in (list, tuple):
        out.append("[")
        for i, v in enumerate(x):
            if i:
                out.append(",")
            _encode(v, out)
        out.append("]")
    elif type(x) is dict:
        out.append("{")
        for i, k in enumerate(sorted(x)):
            if i:
                out.append(",")
            _encode(str(k), out)
            out.append(":")
            _encode(x[k], out)
        out.append("}")
    else:
        raise TypeError(f"cannot encode {x!r}")
