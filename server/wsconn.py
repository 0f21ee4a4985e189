"""websockets' server connection, with a callback for when the connection is lost.

Messages are read with websockets' public API (``async for message in ws``, ``read``);
websockets parses every frame and enforces its limits: ``max_size`` over a whole message, at most
``websockets.asyncio.messages.MAX_FRAGMENTS`` frames to one message (close code 1009), UTF-8 in text
messages (1007), pings, pongs and the closing handshake.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from server import gctune

log = logging.getLogger("guobiao.conn")


class MessageConnection(ServerConnection):
    """``on_lost`` is called once, when the transport is lost: also for a connection whose handshake
    never completed, which ``handler`` (and its ``finally``) never sees."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.on_lost: Callable[[], None] | None = None
        self.lost = False
        self.born = gctune.freezes  # its cycles are young until the next freeze

    def when_lost(self, callback: Callable[[], None]) -> None:
        """``callback()`` once the transport is lost: at once if it already is (a request can be
        handled after its client has gone)."""
        if self.lost:
            callback()
        else:
            self.on_lost = callback

    def connection_lost(self, exc: Exception | None) -> None:  # asyncio.Protocol's callback
        super().connection_lost(exc)
        self.lost = True
        gctune.connection_ended(self.born)  # what it leaves in cycles is collected young if it lived briefly
        on_lost, self.on_lost = self.on_lost, None
        if on_lost is not None:
            on_lost()


async def read(ws, on_message: Callable[[bytes | str], None]) -> None:
    """Hand every message of ``ws`` to ``on_message`` as it is read, until the connection closes.
    An exception in ``on_message`` is a bug: it is logged and the connection goes on."""
    try:
        async for message in ws:
            try:
                on_message(message)
            except Exception:
                log.exception("handling a message from %r", ws.remote_address)
    except ConnectionClosed:  # not cleanly (a clean close ends the loop)
        pass
