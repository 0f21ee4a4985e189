"""The public lists (``rooms``, ``tournaments``, GET /api/rooms and /api/tournaments): ranked so that
junk cannot hide what people look for, paged, and searchable by name or code.

Rooms: the more humans seated and online the higher (a room with none, only bots, spectators or
players who went away, is last), then the more humans seated; among equals a lobby one can join before
a match in play, then the most watched. Tournaments: the server's
scheduled events first (pinned), then those still open before finished or cancelled ones, the more
players the higher. docs/protocol.md "Lobby".
"""

from __future__ import annotations

from rooms.invite import normalize
from rooms.tournament.states import CANCELLED, FINISHED
from server.codec import BAD_FIELD, ProtocolError
from server.events import SERVER

PAGE = 50  # entries per page
MAX_QUERY = 40  # characters


def _room_key(summary: dict, online) -> tuple:
    humans = [s["id"] for s in summary["seats"] if s is not None and s["bot"] is None]
    live = sum(1 for pid in humans if pid in online)
    free = any(s is None for s in summary["seats"])
    return (live == 0, -live, -len(humans), not (summary["phase"] == "lobby" and free), -summary.get("spectators", 0))


def _tournament_key(summary: dict) -> tuple:
    over = summary["state"] in (FINISHED, CANCELLED)
    return (summary.get("organiser") != SERVER, over, -summary.get("players", 0), summary.get("next_start") or 0)


def _query(q) -> str | None:
    if q is None:
        return None
    if not isinstance(q, str) or len(q) > MAX_QUERY:
        raise ProtocolError(BAD_FIELD, f"q: at most {MAX_QUERY} characters")
    q = q.strip().casefold()
    return q or None


def _page(page) -> int:
    if page is None:
        return 0
    if type(page) is not int or page < 0:
        raise ProtocolError(BAD_FIELD, "page: an integer from 0")
    return page


def _paged(items: list, page: int) -> dict:
    pages = max(1, -(-len(items) // PAGE))
    return {"page": page, "pages": pages, "total": len(items), "items": items[page * PAGE:(page + 1) * PAGE]}


def rooms(tasks, online=(), q=None, page=None) -> dict:
    """Public rooms (RoomTask.summary), ranked; ``online``: the players connected now; ``q`` matches a
    room's id, its invite code or a seated player's name (case-insensitive)."""
    q, page = _query(q), _page(page)
    code = normalize(q) if q else None
    listed = []
    for task in tasks:
        s = task.summary
        if s is None:
            continue
        if q is not None and not (q in s["room"].casefold() or (code and code == task.invite)
                                  or any(q in name.casefold() for name in s.get("names", {}).values())):
            continue
        listed.append(s)
    listed.sort(key=lambda s: _room_key(s, online))
    out = _paged(listed, page)
    out["rooms"] = out.pop("items")
    return out


def tournaments(tasks, q=None, page=None) -> dict:
    """Tournaments (TournamentTask.summary), ranked; ``q`` matches the id or the name."""
    q, page = _query(q), _page(page)
    listed = [t.summary for t in tasks
              if q is None or q in t.summary["id"].casefold() or q in t.summary["name"].casefold()]
    listed.sort(key=_tournament_key)
    out = _paged(listed, page)
    out["tournaments"] = out.pop("items")
    return out
