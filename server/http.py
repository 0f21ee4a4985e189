"""Plain HTTP on the websocket port, through websockets' ``process_request`` hook.

``/ws`` goes on to the websocket handshake; ``/api/...`` answers JSON; ``/metrics`` is for Prometheus
(server.metrics); anything else is a file of the browser client's build (``web_client/dist`` of the
checkout or its copy in an installed package, or ``guobiao serve --client DIR``) or, until that exists,
a page saying how to connect.
"""

from __future__ import annotations

import email.utils
import html
import mimetypes
from http import HTTPStatus
from pathlib import Path
from urllib.parse import unquote

import orjson
from websockets.datastructures import Headers
from websockets.http11 import Response

from server.quotas import address_of

ROOT = Path(__file__).resolve().parents[1]
PACKAGED = Path(__file__).resolve().parent / "client"  # a wheel's copy of the build (setup.py)


def default_client(packaged: Path = PACKAGED, checkout: Path = ROOT / "web_client" / "dist") -> Path:
    """The client build ``guobiao serve`` serves without --client: the installed package's copy (a wheel
    built where the client was built), else the checkout's."""
    return packaged if (packaged / "index.html").is_file() else checkout


STATIC = default_client()
WS_PATH = "/ws"
METRICS_PATH = "/metrics"
MAX_STATIC = 8 * 2**20

PLACEHOLDER = """<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Guobiao</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em}
code,pre{background:#f4f4f4;padding:.1em .3em}</style>
<h1>Guobiao 国标麻将</h1>
<p>The server is running. The browser client is not built yet; you can play from a terminal with
<a href="https://github.com/vi/websocat">websocat</a>:</p>
<pre>websocat WS_URL
{"t":"guest","name":"Ann"}
{"t":"quick","wait":0}</pre>
<p>Every message is described in <code>docs/protocol.md</code>.</p>
</html>
"""


def response(status: int, body: bytes, content_type: str, extra: dict | None = None) -> Response:
    s = HTTPStatus(status)
    headers = Headers([
        ("Date", email.utils.formatdate(usegmt=True)),
        ("Connection", "close"),
        ("Content-Length", str(len(body))),
        ("Content-Type", content_type),
        ("X-Content-Type-Options", "nosniff"),
        ("Cache-Control", "no-store"),
    ])
    for k, v in (extra or {}).items():
        headers[k] = v
    return Response(s.value, s.phrase, headers, body)


def json_response(status: int, obj) -> Response:
    # orjson: a 16-hand replay file (~0.5 MB) took the loop ~12 ms with json.dumps, ~1 ms here.
    body = orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS)
    return response(status, body, "application/json; charset=utf-8")


def parse_id(text: str) -> int | None:
    """A numeric id in a path: 1 to 11 ASCII digits, else None (``str.isdigit`` also accepts ``²``,
    ``①`` and other scripts' digits, which ``int`` then refuses or reads)."""
    if 0 < len(text) < 12 and text.isascii() and text.isdigit():
        return int(text)
    return None


def not_found() -> Response:
    return json_response(404, {"error": "not_found"})


def client_missing(root: Path) -> str | None:
    """What ``guobiao serve`` says when ``root`` holds no browser client build (None: it does)."""
    if (root / "index.html").is_file():
        return None
    return (f"serve: no browser client in {root} (no index.html): GET / shows a page saying how to connect. "
            "Build it in a checkout (cd web_client && npm ci && npm run build) and serve from there (or build "
            "the package after it), or pass --client DIR, DIR a copy of that web_client/dist "
            "(docs/deploy.md \"Installing\")")


def static_file(path: str, root: Path = STATIC) -> Response | None:
    """A file under ``root`` (the client's build), never outside it (``..`` and symlinks out are refused)."""
    if not root.is_dir():
        return None
    rel = path.lstrip("/") or "index.html"
    try:
        target = (root / rel).resolve()
        target.relative_to(root.resolve())
    except (ValueError, OSError):
        return not_found()
    if target.is_dir():
        target = target / "index.html"
    if not target.is_file() or target.stat().st_size > MAX_STATIC:
        return not_found()
    ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    if ctype.startswith("text/") or ctype in ("application/javascript", "application/json"):
        ctype += "; charset=utf-8"
    return response(200, target.read_bytes(), ctype)


def make_process_request(app):
    """The hook for ``serve``: ``app`` answers ``api(path) -> (status, obj)``."""

    async def process_request(connection, request):
        try:
            r = await answer(connection, request)
        except Exception:
            app.metrics.http_answer(500)  # websockets answers 500
            raise
        if r is None:
            app.metrics.handshakes += 1
        else:
            app.metrics.http_answer(r.status_code)
        return r

    async def answer(connection, request):
        # The target's path: urlsplit would read "//[x" as a network location and raise.
        path = unquote(request.path.partition("?")[0].partition("#")[0])
        if path == WS_PATH:
            if not app.admit_address(connection):
                return response(429, b"too many connections from your address\n", "text/plain; charset=utf-8")
            return None  # the websocket handshake goes on
        refused = app.admit_http(connection)
        if refused is not None:  # too many from this address (docs/protocol.md "Limits and quotas")
            r = json_response(429, {"error": refused})
            r.headers["Retry-After"] = "1"
            return r
        if path == METRICS_PATH and app.settings.metrics:
            body, content_type = app.metrics.render(request.headers.get("Accept"))
            return response(200, body, content_type)
        if path.startswith("/api/"):
            ra = connection.remote_address
            query = request.path.partition("?")[2].partition("#")[0]
            status, obj = await app.api(path, address_of(ra[0]) if ra else None, query)
            return json_response(status, obj)
        r = static_file(path, app.settings.client or STATIC)
        if r is not None:
            return r
        if path in ("/", "/index.html"):
            host = request.headers.get("Host", "127.0.0.1")
            page = PLACEHOLDER.replace("WS_URL", html.escape(f"ws://{host}{WS_PATH}"))  # Host is client input
            return response(200, page.encode(), "text/html; charset=utf-8")
        return not_found()

    return process_request
