"""What each recipient may see: ``view(state, seat)`` and per-recipient event projection.

Both are built from allow-lists (fields copied in by name), never by deleting secrets from a full
copy, so a field added to the state or to an event stays private until it is listed here. Another
seat's concealed tiles and the wall never appear; concealed kongs are face down to others until the
hand ends (procedure.md §4.6). ``seat=None`` is a spectator, who sees no concealed tile at all.
Once a hand is over, the winner's hand is public, and after an exhaustive draw (荒牌) every hand.
"""

from __future__ import annotations

from game.actions import to_dict as action_dict
from game.records import fan_lists
from game.state import CLAIM, OVER, TURN, HandState, legal_actions, pending

# Event type -> (fields everybody sees, fields only the event's own seat sees). A type listed with
# public=None is shown to its own seat only. Unknown types raise: a new event is private until listed.
EVENT_FIELDS: dict[str, tuple[tuple[str, ...] | None, tuple[str, ...]]] = {
    "start": (("dealer", "prevalent", "wall", "seq"), ()),
    "deal": (("seat", "count"), ("tiles",)),
    "flower": (("seat", "tile", "source"), ()),
    "draw": (("seat", "source"), ("tile",)),
    "turn": (("seat", "seq"), ()),
    "discard": (("seat", "tile", "ready"), ()),
    "claim_window": (("kind", "tile", "seat", "seq"), ()),
    "response": (None, ("seat", "action")),  # who passed or claimed stays private until resolved
    "claim": (("seat", "kind", "tile", "from", "meld"), ()),
    "concealed_kong": (("seat",), ("tile",)),
    "added_kong": (("seat", "tile"), ()),
    "foul": (("seat", "kind", "points"), ()),
    # "hands": every seat's concealed tiles, which game.state puts only into the end of a 荒牌.
    "hand_end": (("seq", "kongs", "payments", "penalties", "win", "hands"), ()),
    # match events (game.match): public
    "hand_start": (("hand", "round", "seats", "scores", "seq"), ()),
    "scores": (("hand", "scores", "deltas"), ()),
    "ready": (("player",), ()),
    "match_end": (("scores",), ()),
}


def same_for_every_seat(event: dict) -> bool:
    """Whether ``project(event, seat)`` is the same for every seat and for a spectator: the event is
    public and has no field for its own seat only (one projection can then go to everybody)."""
    public, own = EVENT_FIELDS[event["t"]]
    return public is not None and not own


def project(event: dict, seat: int | None) -> dict | None:
    """The event as ``seat`` may see it (None: a spectator), or None when it is not theirs to see."""
    public, own = EVENT_FIELDS[event["t"]]
    mine = seat is not None and event.get("seat") == seat
    if public is None and not mine:
        return None
    out = {"t": event["t"]}
    for f in public or ():
        if f in event:
            out[f] = event[f]
    if mine:
        for f in own:
            if f in event:
                out[f] = event[f]
    if "hand" in event:  # match events tag hand events with the hand number
        out["hand"] = event["hand"]
    return out


# Never in a replay: claim answers, and the claim windows (one after every discard and added kong,
# so they add nothing to a replay).
_NOT_REPLAYED = frozenset(("response", "claim_window"))


def project_open(event: dict) -> dict | None:
    """The event for the replay of a finished match, whose seed is public: everything its own seat
    sees (the allow-list above), claim answers and the game's claim windows left out."""
    if event["t"] in _NOT_REPLAYED:
        return None
    return project(event, event.get("seat"))


def _player(state: HandState, p: int, seat: int | None) -> dict:
    over = state.phase == OVER
    return {
        "seat": p,
        "wind": (p - state.dealer) % 4,
        "melds": [m.to_dict(hidden=m.concealed and p != seat and not over) for m in state.melds[p]],
        "flowers": list(state.flowers[p]),
        "discards": [[t, claimed] for t, claimed in state.ponds[p]],
        "tiles": len(state.concealed[p]),
        "blocked": state.blocked[p],
        "declared": state.declared[p],
    }


def view(state: HandState, seat: int | None) -> dict:
    """A snapshot for a seat (its own tiles and legal actions) or for a spectator (``None``).

    Deadlines are the room's to add. During a claim window everybody sees that a window is open
    (as at a real table), but not who was asked or who answered.
    """
    v: dict = {
        "seq": state.seq,
        "phase": state.phase,
        "dealer": state.dealer,
        "prevalent": state.prevalent,
        "turn": state.turn,
        "wall": state.tail - state.head,
        "seat": seat,
        "players": [_player(state, p, seat) for p in range(4)],
        "fouls": [list(f) for f in state.fouls],
    }
    if state.phase == CLAIM:
        w = state.claim
        v["claim"] = {"kind": w.kind, "tile": w.tile, "seat": w.seat}
    if seat is not None:
        v["hand"] = list(state.concealed[seat])
        v["drawn"] = state.drawn if state.phase == TURN and state.turn == seat else None
        v["legal"] = [action_dict(a) for a in legal_actions(state, seat)]
        v["to_act"] = seat in pending(state)
    if state.phase == OVER:
        r = state.result
        v["result"] = {"payments": list(r.payments), "penalties": list(r.penalties), "win": None}
        if r.win is None:
            v["result"]["hands"] = [list(c) for c in state.concealed]  # 荒牌: every hand is shown
        else:
            w = r.win
            # The winner lays the hand open (R98 第八条); it is public from here on.
            v["result"]["win"] = {
                "seat": w.winner, "from": w.payer, "tile": w.tile, "robbed": w.robbed,
                "self_drawn": w.self_drawn, "tiles": list(w.hand.tiles),
                "fans": fan_lists(w.fans), "total": w.total,
            }
    return v
