"""GET /api/invite/<code>: what somebody holding an invite link sees before they sign in (the room's
type, length, host and how many seats are taken), so the first screen can say which room they join.
Only what the room's own members see of it in the lobby; nothing of a hand in play.
"""

from __future__ import annotations

from rooms.invite import LENGTH, display, normalize


def parse_code(text: str) -> str | None:
    """An invite code in a path: the 8 symbols, upper or lower case, with at most one dash between the
    halves (``ABCD-EFGH``); anything else (other separators, other scripts: ``"ß".upper()`` is ``SS``)
    is None."""
    if not text.isascii() or len(text) not in (LENGTH, LENGTH + 1):
        return None
    if len(text) == LENGTH + 1 and text[LENGTH // 2] != "-":
        return None
    return normalize(text.replace("-", "", 1))


async def invite_view(app, text: str) -> dict | None:
    """The public face of the open room ``text`` names, or None (no such code, or the room closed)."""
    code = parse_code(text)
    task = app.by_invite.get(code) if code else None
    if task is None or task.closed:
        return None
    info = task.room.info(False)
    host = info["host"]
    names = await app.display_names({host}) if host else {}
    return {
        "code": display(code), "type": info["type"], "hands": info["config"]["hands"],
        "host": names.get(host), "phase": info["phase"],
        "seated": sum(s is not None for s in info["seats"]), "seats": len(info["seats"]),
        "spectators": bool(info["config"]["spectators"]), "quick": info["quick"], "table": bool(info["table"]),
    }
