"""One policy for every string a user types that other players see: player names, chat lines,
tournament and team names, sanction and cancellation reasons (docs/protocol.md "Text").

A text is NFC-normalised, then refused (``ValueError`` saying why) if it holds
- a control character (NUL, ESC, DEL, C1 controls, line breaks: every text is one line),
- a bidirectional control (U+202A-202E embeddings and overrides, U+2066-2069 isolates, U+200E/U+200F/
  U+061C marks): one reverses the text around it on screen, a neighbouring name included,
- another invisible format character (U+200B zero-width space, U+2060, U+FEFF, U+00AD, tags...) or a
  line/paragraph separator; U+200C/U+200D (ZWNJ, ZWJ) stay, scripts and emoji sequences need them,
- more than ``MAX_MARKS`` combining marks on one character (a tower of marks spills over other lines),
- nothing visible: only spaces, marks and blank-looking characters such as U+3164 HANGUL FILLER.
Names (``name``) also refuse a blank-looking character anywhere, so "Ann" + U+3164 cannot pass for "Ann".

Two players may still choose the same name (or one that looks the same: ``Ann`` / ``ＡＮＮ``): where
names are shown together the server numbers the later ones (``disambiguate``).
"""

from __future__ import annotations

import unicodedata

MAX_MARKS = 4  # combining marks on one character: Vietnamese uses 2, Thai 3; "zalgo" text dozens

BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
JOINERS = frozenset("\u200c\u200d")  # format characters that scripts and emoji sequences need
# Letters and symbols that draw nothing (their categories say Lo or So, so they pass as letters).
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5\u180e\u034f\u3000")


def clean(text, limit: int, what: str = "a text") -> str:
    """``text`` as stored (NFC), or ``ValueError``: see the module's docstring. ``limit`` counts
    characters after normalisation."""
    if not isinstance(text, str):
        raise ValueError(f"{what} is a string")
    text = unicodedata.normalize("NFC", text)
    if not 1 <= len(text) <= limit:
        raise ValueError(f"{what} has 1 to {limit} characters")
    marks = 0
    visible = False
    for ch in text:
        cat = unicodedata.category(ch)
        if cat in ("Mn", "Me"):
            marks += 1
            if marks > MAX_MARKS:
                raise ValueError(f"{what} may have at most {MAX_MARKS} combining marks on a character")
            continue
        marks = 0
        if ch in BIDI:
            raise ValueError(f"{what} may not hold text-direction controls (U+{ord(ch):04X})")
        if cat == "Cc":
            raise ValueError(f"{what} may not hold control characters (U+{ord(ch):04X})")
        if (cat == "Cf" and ch not in JOINERS) or cat in ("Zl", "Zp", "Cs"):
            raise ValueError(f"{what} may not hold invisible characters (U+{ord(ch):04X})")
        if not visible and cat[0] not in "ZC" and ch not in BLANKS:
            visible = True
    if not visible:
        raise ValueError(f"{what} shows nothing: it needs a visible character")
    return text


def name(text, limit: int, what: str = "a name") -> str:
    """A name (of a player, a tournament, a team): ``clean`` on one line, and no blank-looking
    character anywhere."""
    text = clean(text, limit, what)
    for ch in text:
        if ch in BLANKS or unicodedata.category(ch) == "Zs" and ch != " ":
            raise ValueError(f"{what} may not hold blank-looking characters (U+{ord(ch):04X})")
    return text


def look(text: str) -> str:
    """What two names are compared by: compatibility-folded and case-folded (``ＡＮＮ`` looks like ``ann``)."""
    return unicodedata.normalize("NFKC", text).casefold()


def disambiguate(names: dict[str, str]) -> dict[str, str]:
    """``{id: name}`` with every name that looks like an earlier one (in ``names``' order) numbered:
    ``Ann``, ``Ann #2``, ``ann #3``. Names that are all different come back as they are."""
    seen: dict[str, int] = {}
    out = {}
    for pid, shown in names.items():
        key = look(shown)
        n = seen.get(key, 0) + 1
        seen[key] = n
        out[pid] = shown if n == 1 else f"{shown} #{n}"
    return out
