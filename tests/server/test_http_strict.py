"""HTTP on the websocket port: ids are parsed strictly, and no request makes the server answer 5xx."""

import asyncio
import socket
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.http import parse_id


def raw_get(port: int, target: bytes) -> int:
    """The status of ``GET <target>``, sent as raw bytes (no client-side quoting or checks)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        data = b""
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    assert data.startswith(b"HTTP/1.1 "), data[:80]
    return int(data.split(b" ", 2)[1])


def test_http_ids_parsed_strictly():
    assert parse_id("0") == 0 and parse_id("123") == 123
    # str.isdigit accepts superscripts, circled and other scripts' digits; int() then fails or reads them.
    for bad in ("²", "①", "١٢", "１２", "", "-1", "+1", " 1", "1 ", "1_000", "0x10", "1" * 12):
        assert parse_id(bad) is None, bad


async def test_http_ids_parsed_strictly_superscript_digit_is_404_not_500(server):
    for path in (b"/api/matches/%C2%B2", b"/api/matches/%E2%91%A0", b"/api/matches/%D9%A1",
                 b"/api/matches/1%00", b"/api/tournaments/%00", b"//[x", b"//[::1/api/health"):
        status = await asyncio.to_thread(raw_get, server.port, path)
        assert status in (400, 404), (path, status)


ROUTES = ["/", "//", "//[", "/index.html", "/ws", "/api/", "/api/health", "/api/rooms", "/api/tournaments",
          "/api/tournaments/", "/api/matches/", "/api/matches/1", "/assets/", "/../"]
# Bytes a request target may carry as they are, and others that must be percent-encoded.
SAFE = string.ascii_letters + string.digits + "-._~!$&'()*+,;=:@/?#%"
def pct(text: str) -> bytes:
    return "".join(f"%{b:02X}" for b in text.encode()).encode()


suffix = st.one_of(
    st.text(st.characters(categories=["Nd", "No", "Nl"]), min_size=1, max_size=4).map(pct),  # digits of any kind
    st.text(alphabet=SAFE, max_size=40).map(str.encode),
    st.text(max_size=20).map(pct),
    st.binary(max_size=12).map(lambda b: "".join(f"%{x:02X}" for x in b).encode()),
    st.binary(max_size=12),  # raw bytes: websockets refuses what is not a valid request (4xx)
)


async def test_http_fuzz_every_route_no_5xx(server):
    statuses = []

    @settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(route=st.sampled_from(ROUTES), tail=suffix)
    def probe(route, tail):
        target = route.encode() + tail
        if b" " in target or b"\r" in target or b"\n" in target:
            target = target.replace(b" ", b"%20").replace(b"\r", b"%0D").replace(b"\n", b"%0A")
        try:
            status = raw_get(server.port, target)
        except (ConnectionError, AssertionError):
            return  # refused before any status line: not a 5xx
        statuses.append(status)
        assert status < 500, (target, status)

    await asyncio.to_thread(probe)
    assert len(statuses) > 300 and any(s == 200 for s in statuses) and any(s == 404 for s in statuses)


def raw_request(port: int, data: bytes) -> int | None:
    """The status the server answers ``data`` with, or None if it closed without one."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(data)
        out = b""
        while b"\r\n" not in out:
            chunk = s.recv(4096)
            if not chunk:
                return None
            out += chunk
    return int(out.split(b" ", 2)[1])


header_bytes = st.binary(max_size=30).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))


async def test_http_fuzz_methods_and_headers_no_5xx(server):
    statuses = []

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(method=st.sampled_from([b"GET", b"POST", b"HEAD", b"PUT", b"OPTIONS", b"G\xc3\xa9T"]),
           route=st.sampled_from([r.encode() for r in ROUTES]), host=header_bytes,
           extra=st.lists(st.tuples(st.text(string.ascii_letters + "-", min_size=1, max_size=12).map(str.encode),
                                    header_bytes), max_size=3))
    def probe(method, route, host, extra):
        head = b"".join(k + b": " + v + b"\r\n" for k, v in extra)
        status = raw_request(server.port, method + b" " + route + b" HTTP/1.1\r\nHost: " + host + b"\r\n" + head + b"\r\n")
        if status is not None:
            statuses.append(status)
            assert status < 500, (method, route, host, extra, status)

    await asyncio.to_thread(probe)
    assert len(statuses) > 30  # the rest: refused by the HTTP parser without a status
