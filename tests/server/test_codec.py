"""Frames: any bytes decode to a message or raise a documented ProtocolError; encode/decode round-trip."""

import json

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server import codec
from server.accounts import clean_name, new_room_code, new_token, valid_token
from server.codec import BINARY, TEXT, ProtocolError

CODES = {codec.BAD_FRAME, codec.TOO_LARGE, codec.BAD_MESSAGE}

plain = st.recursive(
    st.none() | st.booleans() | st.integers(-codec.MAX_INT, codec.MAX_INT) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)
messages = st.builds(lambda t, rest: {**rest, "t": t}, st.text(min_size=1, max_size=8),
                     st.dictionaries(st.text(max_size=5), plain, max_size=4))


@given(messages)
@settings(max_examples=300, deadline=None)
def test_round_trip(msg):
    for enc in (BINARY, TEXT):
        data = codec.encode(msg, enc)
        if len(data) <= codec.MAX_FRAME:
            assert codec.decode(data) == (msg, enc)


@given(st.binary(max_size=200))
@settings(max_examples=500, deadline=None)
def test_any_bytes_decode_or_fail_with_a_code(data):
    try:
        msg, enc = codec.decode(data)
    except ProtocolError as e:
        assert e.code in CODES
    else:
        assert isinstance(msg["t"], str) and enc == BINARY


@given(st.text(max_size=200))
@settings(max_examples=500, deadline=None)
def test_any_text_decodes_or_fails_with_a_code(text):
    try:
        codec.decode(text)
    except ProtocolError as e:
        assert e.code in CODES


@pytest.mark.parametrize("data,code", [
    (msgpack.packb({"t": "x", "v": float("nan")}), codec.BAD_MESSAGE),
    (msgpack.packb({"t": "x", "v": float("-inf")}), codec.BAD_MESSAGE),
    (msgpack.packb({"t": "x", "v": b"bin"}, use_bin_type=True), codec.BAD_MESSAGE),
    (msgpack.packb({"t": "x", "v": 2**64 - 1}), codec.BAD_MESSAGE),
    (msgpack.packb({"t": "x", "v": msgpack.ExtType(5, b"e")}), codec.BAD_MESSAGE),
    (msgpack.packb({1: "x"}), codec.BAD_FRAME),
    (msgpack.packb({"t": "x"}) + b"\x00", codec.BAD_FRAME),
    (msgpack.packb(["t", "x"]), codec.BAD_MESSAGE),
    (msgpack.packb({"t": 5}), codec.BAD_MESSAGE),
    (msgpack.packb({"t": ""}), codec.BAD_MESSAGE),
    (msgpack.packb({"t": "x", "v": [[[[[[[1]]]]]]]}), codec.BAD_MESSAGE),
    (msgpack.packb({"t": "x", "v": list(range(65))}), codec.BAD_MESSAGE),
    (b"\xc1", codec.BAD_FRAME),
    (b"x" * 4097, codec.TOO_LARGE),
    ('{"t": "x", "v": NaN}', codec.BAD_FRAME),
    ('{"t": "x", "v": 1e999}', codec.BAD_MESSAGE),
    ('{"t": "x", "v": 100000000000000000000}', codec.BAD_MESSAGE),
    ("[" * 5000, codec.TOO_LARGE),
    ("[" * 4000, codec.BAD_FRAME),
    ('{"t": "x"} x', codec.BAD_FRAME),
], ids=lambda v: repr(v)[:30])
def test_bad_frames(data, code):
    with pytest.raises(ProtocolError) as e:
        codec.decode(data)
    assert e.value.code == code


def test_text_and_binary_have_the_same_shapes():
    msg = {"t": "act", "action": {"a": "discard", "tile": 5, "seq": 12}, "id": "q1"}
    assert codec.decode(json.dumps(msg))[0] == codec.decode(msgpack.packb(msg))[0] == msg


@pytest.mark.parametrize("name", ["Ann", "张三", "O'Brien", "Jean-Luc", "a.b_c", "Zoë", "玩家 2"])
def test_good_names(name):
    assert clean_name(name) == name


@pytest.mark.parametrize("name", ["", " Ann", "Ann ", "A  B", "x" * 21, "a\u202eb", "a\nb", "<b>", "...", 5, None,
                                  "a\u200bb", "🀄"])
def test_bad_names(name):
    with pytest.raises(ValueError):
        clean_name(name)


def test_tokens_and_codes():
    tokens = {new_token() for _ in range(100)}
    assert len(tokens) == 100 and all(valid_token(t) and len(t) == 32 for t in tokens)
    assert not valid_token("A" * 32) and not valid_token(5)
    assert len(new_room_code()) == 6


def test_timers_accept_fractions_of_a_second():
    """Seconds travel as floats both ways: what the server sends (a config's 7.5 s) it takes back."""
    msg = {"t": "create", "config": {"turn_time": 7.5, "claim_min": 0.25}}
    assert codec.decode(json.dumps(msg))[0] == codec.decode(msgpack.packb(msg))[0] == msg
    assert codec.decode('{"t": "x", "v": 1e5}')[0]["v"] == 100000.0


def test_a_shared_push_is_the_bytes_of_the_numbered_message():
    """codec.Shared (one tournament delta for every follower) encodes once and adds each connection's
    "n": the result is what encoding the numbered message gives, small maps and big ones alike."""
    import json

    import msgpack

    from server.codec import Shared, encode

    for msg in ({"t": "tournament_delta"}, {"t": "x", "a": [1, {"b": "中"}], "c": None},
                {"t": "big", **{f"k{i}": i for i in range(20)}}):
        shared = Shared(msg)
        for n in (1, 127, 128, 70000):
            for enc in ("msgpack", "json"):
                assert shared.data(enc, n) == encode({**msg, "n": n}, enc)
            assert msgpack.unpackb(shared.data("msgpack", n)) == json.loads(shared.data("json", n))


def test_map_keys_are_checked_all_at_once_as_before():
    """Map keys, now checked in one pass: a key that is not a string (msgpack bytes) or not valid Unicode
    (JSON's lone surrogate) is refused, at any depth; other non-ASCII keys pass."""
    from server.codec import BAD_MESSAGE, decode

    for frame in (msgpack.packb({"t": "x", b"k": 1}, use_bin_type=True),
                  msgpack.packb({"t": "x", "a": {b"k": 1}}, use_bin_type=True),
                  '{"t": "x", "\\ud800": 1}', '{"t": "x", "a": {"\\udfff": 1}}'):
        with pytest.raises(ProtocolError) as e:
            decode(frame)
        assert e.value.code == BAD_MESSAGE
    assert decode('{"t": "x", "é": {"ключ": 1}}')[0] == {"t": "x", "é": {"ключ": 1}}


def test_maps_nest_as_deep_as_lists():
    """A map is checked before any other kind (every message is one): its depth still counts."""
    from server.codec import BAD_MESSAGE, MAX_DEPTH, decode

    def nested(levels):
        v = 1
        for _ in range(levels):
            v = {"v": v}
        return {"t": "x", "v": v}

    assert decode(msgpack.packb(nested(MAX_DEPTH - 1)))[0] == nested(MAX_DEPTH - 1)
    with pytest.raises(ProtocolError) as e:
        decode(msgpack.packb(nested(MAX_DEPTH)))
    assert e.value.code == BAD_MESSAGE and "nest" in e.value.message
    assert decode(msgpack.packb({"t": "x", "v": [None, True, False, 1.5, "s", {"k": None}]}))[0]["v"][5] == {"k": None}
