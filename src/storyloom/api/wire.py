"""The connection layer: what is answered before a request reaches the app, and the limits on
connections.

uvicorn parses HTTP/1.1 with h11. :class:`JsonH11Protocol` is uvicorn's h11 protocol with:

- **JSON refusals.** A request h11 refuses (no ``Host`` in an HTTP/1.1 request, ``Host`` given
  twice, a request line or header block larger than :data:`MAX_HEAD_BYTES`, a malformed request
  line, header or chunked body) gets the documented body ``{"error": "bad_request", "reason":
  ...}`` naming the problem instead of uvicorn's plain text, and the connection is closed (the
  rest of its bytes cannot be trusted). When the request's head was already handed to the app
  (a malformed chunked body comes after it), the app's answer is dropped quietly: one answer,
  the 400, and no traceback in the log.
- **A head deadline.** A connection must deliver a complete request head within
  ``head_timeout`` seconds of connecting, or of the first byte after a keep-alive wait (a total,
  not per byte: trickling one byte at a time does not extend it). A partial head is then
  answered 408 ``request_timeout``; a connection that sent nothing is closed silently.
- **An idle keep-alive timeout** (uvicorn's ``timeout_keep_alive``, set from the limits).
- **A cap on open connections.** Past ``max_connections``, a new connection is answered 503
  ``too_many_connections`` at once and closed; the connections already open go on. One log line
  says so (at most once a minute), not one per connection.

What the stack does not allow: a request h11 cannot parse never reaches the ASGI app, so its
answer carries none of the app's per-path details (no ``"success": false`` for ``/navigate``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from http import HTTPStatus
from typing import Any

import h11
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from storyloom.api.errors import BAD_REQUEST, REQUEST_TIMEOUT, TOO_MANY_CONNECTIONS, error_body
from storyloom.api.limits import MAX_HEAD_BYTES, ConnectionLimits
from storyloom.api.protection import SECURITY_HEADERS

log = logging.getLogger(__name__)

# Request line plus headers; larger is refused by h11 (400). A query string has its own, smaller
# limit (``protection.MAX_QUERY_BYTES``), checked on every request whatever its packets.
# A connection answered with a refusal (a 400 of the HTTP layer, a 503) is kept this long to read
# and drop what its client still sends: closing a socket with unread bytes resets it, and the
# reset destroys the answer before the client reads it (a lingering close, as nginx's).
REFUSED_LINGER = 1.0

_REASONS = {
    "Missing mandatory Host: header": "no Host header: an HTTP/1.1 request must carry one (Host: 127.0.0.1:<port>)",
    "Found multiple Host: headers": "more than one Host header: send exactly one",
    "Receive buffer too long": (
        f"the request line and headers are larger than {MAX_HEAD_BYTES // 1024} KiB: send a shorter "
        "query string or fewer headers"
    ),
}
# h11 messages that go on with the bytes received (shown as their meaning, not their bytes).
_REASON_PREFIXES = {
    "illegal chunk header": (
        "a chunk-size line of the chunked body is not a hexadecimal size: send a valid "
        "Transfer-Encoding: chunked body (no endpoint reads a body: sending none is simplest)"
    ),
    "malformed chunk footer": (
        "a chunk of the chunked body does not end where its size says: send a valid "
        "Transfer-Encoding: chunked body (no endpoint reads a body: sending none is simplest)"
    ),
}


def malformed_reason(detail: str) -> str:
    """The ``reason`` of a request h11 refused, from h11's message."""
    known = _REASONS.get(detail)
    if known is None:
        known = next((text for prefix, text in _REASON_PREFIXES.items() if detail.startswith(prefix)), None)
    if known is not None:
        return f"malformed HTTP request: {known}"
    shown = detail if len(detail) <= 200 else detail[:200] + "..."
    return f"malformed HTTP request ({shown or 'unparsable'}): send a well-formed HTTP/1.1 request"


def error_answer(status: int, code: str, reason: str) -> bytes:
    """A whole ``Connection: close`` answer with the API's JSON error body, as bytes (written
    without h11: it also answers connections that sent no request)."""
    payload = json.dumps(error_body(code, reason)).encode("utf-8")
    head = [
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}".encode(),
        b"content-type: application/json",
        b"content-length: " + str(len(payload)).encode(),
        b"connection: close",
        *(name + b": " + value for name, value in SECURITY_HEADERS),
    ]
    return b"\r\n".join(head) + b"\r\n\r\n" + payload


class JsonH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with JSON refusals, a head deadline and the connection cap (see
    the module's description). ``limits`` are the server's; uvicorn passes the rest."""

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None, *,
                 limits: ConnectionLimits | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.limits = limits if limits is not None else ConnectionLimits()
        # uvicorn types it int; its timer (loop.call_later) takes the float
        self.timeout_keep_alive = self.limits.keep_alive_timeout  # type: ignore[assignment]
        self._head_timer: asyncio.TimerHandle | None = None
        #: Answered and half-closed: what the client still sends is read and dropped.
        self._draining = False

    # -- connections -----------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        limits = self.limits
        if len(limits.served) >= limits.max_connections:
            self._refuse()
            return
        limits.served.add(self)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self.limits.served.discard(self)
        self.limits.refused.discard(self)
        self._cancel_head_timer()
        super().connection_lost(exc)

    def _refuse(self) -> None:
        limits = self.limits
        limits.over_cap_log.report(
            "the API holds %d connections, its limit: new connections are answered 503 "
            "too_many_connections until some close", limits.max_connections)
        self.transport.write(error_answer(
            503, TOO_MANY_CONNECTIONS,
            f"the server has {limits.max_connections} connections open, its limit: close idle "
            "connections or retry in a moment",
        ))
        if len(limits.refused) >= limits.max_connections:
            # Refusals come faster than they close: stop reading, free the socket now.
            self.transport.close()
            return
        limits.refused.add(self)
        self._close_lingering()

    def _close_lingering(self) -> None:
        """Close after an answer that ends the connection: half-close now (the client reads the
        answer, then end of file) and read for up to :data:`REFUSED_LINGER` seconds before the
        socket closes, so bytes still in flight do not reset it."""
        self._draining = True
        if not self.transport.can_write_eof():
            self.transport.close()
            return
        self.transport.write_eof()
        self.loop.call_later(REFUSED_LINGER, self.transport.close)

    # -- the head deadline -----------------------------------------------------------------

    def _arm_head_timer(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.limits.head_timeout, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _waiting_for_head(self) -> bool:
        """True while no request of this connection is being answered, so the client owes bytes."""
        return self.cycle is None or self.cycle.response_complete

    def data_received(self, data: bytes) -> None:
        if self._draining:
            return  # read and dropped: the connection was answered and closes
        cycle = self.cycle
        super().data_received(data)
        if self.transport.is_closing():
            self._cancel_head_timer()
        elif self.cycle is not cycle and not self._waiting_for_head():
            self._cancel_head_timer()  # a whole head arrived: the app answers it
        elif self._waiting_for_head() and self.timeout_keep_alive_task is None:
            self._arm_head_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.cycle is not None and not self.cycle.response_complete:
            self._cancel_head_timer()  # a pipelined request started

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or not self._waiting_for_head():
            return
        pending, _closed = self.conn.trailing_data
        if self.conn.their_state is h11.IDLE and pending:
            self.transport.write(error_answer(
                408, REQUEST_TIMEOUT,
                f"the request line and headers did not all arrive within {self.limits.head_timeout:g} s: "
                "send the whole request head at once",
            ))
        self.transport.close()

    # -- the HTTP layer's 400s -------------------------------------------------------------

    def send_400_response(self, msg: str) -> None:
        # uvicorn calls this from its ``except h11.RemoteProtocolError`` block: the error in
        # flight says what was wrong.
        exc = sys.exc_info()[1]
        detail = str(exc) if isinstance(exc, h11.ProtocolError) else ""
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            # The head reached the app before the body went wrong: its answer must not follow
            # the 400 (h11 would refuse it, with a traceback); to the app, the client left.
            cycle.disconnected = True
            cycle.message_event.set()
        self._cancel_head_timer()
        if self.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
            self.transport.write(error_answer(400, BAD_REQUEST, malformed_reason(detail)))
            self._close_lingering()
        else:
            # An answer is already (partly) out: closing is all that is left to say.
            self.transport.close()
