"""Frames on the wire: binary frames are msgpack, text frames are JSON, with the same shapes.

A frame decodes to a plain message: a map with string keys and a string ``t``, whose values are
None, bools, ints in the safe range, finite floats, strings, lists and maps of the same, nested a few levels at
most. Anything else is a ``ProtocolError`` with a documented code (docs/protocol.md) and the frame
changes nothing. Replies are encoded like the frame that asked (``BINARY`` or ``TEXT``).
"""

from __future__ import annotations

import json
import math

import msgpack

from server.errors import BAD_FIELD, BAD_FRAME, BAD_MESSAGE, TOO_LARGE, UNKNOWN_TYPE  # noqa: F401 (codec.X)

BINARY, TEXT = "msgpack", "json"

MAX_FRAME = 4096  # bytes; websockets enforces it too (max_size), this guards direct callers
MAX_DEPTH = 6  # {"t": "act", "action": {...}} needs 2; rules maps need 3
MAX_INT = 2**53 - 1  # safe in JavaScript, msgpack and SQLite alike
MAX_ITEMS = 64  # per list or map
MAX_STR = 1024  # characters per string


class ProtocolError(ValueError):
    def __init__(self, code: str, message: str, re=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.re = re  # the refused message's id, when it had a valid one: the error echoes it


def request_id(msg):
    """The message's ``id`` if it is a valid one (an int within ±MAX_INT or a string of at most 64
    characters), else None."""
    rid = msg.get("id") if type(msg) is dict else None
    if (type(rid) is int and -MAX_INT <= rid <= MAX_INT) or (type(rid) is str and len(rid) <= 64):
        return rid
    return None


def peek_id(frame: bytes | str):
    """The id of a frame that is refused without being decoded (too large, rate-limited), or None."""
    try:
        if isinstance(frame, str):
            msg = json.loads(frame)
        else:
            msg = msgpack.unpackb(bytes(frame), raw=False, strict_map_key=False)
    except Exception:
        return None
    return request_id(msg)


def _reject_constant(name: str):
    raise ValueError(f"{name} is not allowed")


def decode(frame: bytes | str) -> tuple[dict, str]:
    """(message, encoding) of one frame, or ``ProtocolError``."""
    if isinstance(frame, str):
        if len(frame) > MAX_FRAME:
            raise ProtocolError(TOO_LARGE, f"frames are at most {MAX_FRAME} bytes")
        try:
            msg = json.loads(frame, parse_constant=_reject_constant)  # 1e999 (inf): refused by _check
        except (ValueError, RecursionError) as e:  # JSONDecodeError is a ValueError
            raise ProtocolError(BAD_FRAME, f"not JSON: {_short(e)}") from None
        encoding = TEXT
    elif isinstance(frame, (bytes, bytearray, memoryview)):
        if len(frame) > MAX_FRAME:
            raise ProtocolError(TOO_LARGE, f"frames are at most {MAX_FRAME} bytes")
        try:
            # strict_map_key: only str/bytes keys; timestamps stay ext objects and fail validation below.
            msg = msgpack.unpackb(bytes(frame), raw=False, strict_map_key=True, use_list=True)
        except (ValueError, TypeError, RecursionError, msgpack.UnpackException) as e:
            raise ProtocolError(BAD_FRAME, f"not msgpack: {_short(e)}") from None
        encoding = BINARY
    else:  # pragma: no cover - websockets gives str or bytes only
        raise ProtocolError(BAD_FRAME, "unknown frame kind")
    if not isinstance(msg, dict):
        raise ProtocolError(BAD_MESSAGE, "a message is a map")
    try:
        t = msg.get("t")
        if not isinstance(t, str) or not t:
            raise ProtocolError(BAD_MESSAGE, 'a message has a string type "t"')
        _check(msg, 0)
    except ProtocolError as e:
        e.re = request_id(msg)
        raise
    return msg, encoding


def _check(x, depth: int) -> None:
    """Only plain values, bounded in depth, size and range."""
    tx = type(x)
    if tx is dict:  # first: every message is one, and so is an action in it
        if depth >= MAX_DEPTH:
            raise ProtocolError(BAD_MESSAGE, f"messages nest at most {MAX_DEPTH} levels")
        if len(x) > MAX_ITEMS:
            raise ProtocolError(BAD_MESSAGE, f"maps hold at most {MAX_ITEMS} entries")
        try:  # the keys checked at once: str.join refuses any that is not a string
            keys = "".join(x)
        except TypeError:
            raise ProtocolError(BAD_MESSAGE, "map keys are strings") from None
        if not keys.isascii():
            for k in x:
                _unicode(k)
        for v in x.values():
            tv = type(v)
            if not ((tv is str and len(v) <= MAX_STR and v.isascii()) or (tv is int and -MAX_INT <= v <= MAX_INT)):
                _check(v, depth + 1)
        return
    if x is None or x is True or x is False:
        return
    if tx is int:
        if not -MAX_INT <= x <= MAX_INT:
            raise ProtocolError(BAD_MESSAGE, f"integers are within ±{MAX_INT}")
        return
    if tx is str:
        if len(x) > MAX_STR:
            raise ProtocolError(BAD_MESSAGE, f"strings are at most {MAX_STR} characters")
        if not x.isascii():
            _unicode(x)
        return
    if depth >= MAX_DEPTH:
        raise ProtocolError(BAD_MESSAGE, f"messages nest at most {MAX_DEPTH} levels")
    if tx is list:
        if len(x) > MAX_ITEMS:
            raise ProtocolError(BAD_MESSAGE, f"lists hold at most {MAX_ITEMS} items")
        for v in x:
            tv = type(v)  # a short ASCII string or an int in range passes here, without a call
            if not ((tv is str and len(v) <= MAX_STR and v.isascii()) or (tv is int and -MAX_INT <= v <= MAX_INT)):
                _check(v, depth + 1)
        return
    if tx is float:  # seconds (timers) may have fractions, as the server sends them; NaN and ±inf never
        if not math.isfinite(x):
            raise ProtocolError(BAD_MESSAGE, "numbers are finite")
        return
    raise ProtocolError(BAD_MESSAGE, f"values of type {tx.__name__} are not allowed")


def _unicode(x: str) -> None:
    """JSON's ``\\ud800`` escapes decode to lone surrogates, which no reply or push could encode."""
    try:
        x.encode()
    except UnicodeEncodeError:
        raise ProtocolError(BAD_MESSAGE, "strings are valid Unicode (no lone surrogates)") from None


_pack = msgpack.Packer(use_bin_type=True).pack  # packb builds a Packer per call: a third slower


def encode(msg: dict, encoding: str) -> bytes | str:
    if encoding == TEXT:
        return json.dumps(msg, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return _pack(msg)


class Shared:
    """One push for many connections (a tournament's followers): encoded once per encoding, and each
    connection's number ``n`` (Conn.push) added to the bytes. Same bytes as ``encode({**msg, "n": n})``."""

    __slots__ = ("msg", "_heads")

    def __init__(self, msg: dict):
        assert "n" not in msg and msg
        self.msg = msg
        self._heads: dict[str, bytes | str] = {}

    def data(self, encoding: str, n: int) -> bytes | str:
        head = self._heads.get(encoding)
        if head is None:
            body = encode(self.msg, encoding)
            if encoding == TEXT:
                head = body[:-1] + ',"n":'
            else:  # the map's header counts one more entry; "n" and its value go last
                k = len(self.msg)
                head = _map_header(k + 1) + body[len(_map_header(k)):] + _pack("n")
            self._heads[encoding] = head
        return head + str(n) + "}" if encoding == TEXT else head + _pack(n)


_map_header = msgpack.Packer().pack_map_header


def error(code: str, message: str, **extra) -> dict:
    out = {"t": "error", "code": code, "message": message}
    out.update(extra)
    return out


def _short(e: BaseException) -> str:
    s = str(e) or type(e).__name__
    return s if len(s) <= 80 else s[:77] + "..."

