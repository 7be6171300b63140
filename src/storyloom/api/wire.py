"""Requests refused before they reach the app: the HTTP layer's 400s, as the API's JSON errors.

uvicorn parses HTTP/1.1 with h11 and answers a request h11 refuses (no ``Host`` in an HTTP/1.1
request, ``Host`` given twice, a request line or header block larger than
:data:`MAX_HEAD_BYTES`, a malformed request line or header) with a plain-text
``Invalid HTTP request received.``. :class:`JsonH11Protocol` is uvicorn's h11 protocol with that
one answer replaced by the documented body ``{"error": "bad_request", "reason": ...}`` naming
the problem; the connection is then closed, as before (the rest of its bytes cannot be trusted).

What the stack does not allow: a request h11 cannot parse never reaches the ASGI app, so its
answer carries none of the app's per-path details (no ``"success": false`` for ``/navigate``).
"""

from __future__ import annotations

import json
import sys
from http import HTTPStatus

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from storyloom.api.errors import BAD_REQUEST, error_body
from storyloom.api.protection import SECURITY_HEADERS

# Request line plus headers; larger is refused by h11 (400). A query string has its own, smaller
# limit (``protection.MAX_QUERY_BYTES``), checked on every request whatever its packets.
MAX_HEAD_BYTES = 64 * 1024

_REASONS = {
    "Missing mandatory Host: header": "no Host header: an HTTP/1.1 request must carry one (Host: 127.0.0.1:<port>)",
    "Found multiple Host: headers": "more than one Host header: send exactly one",
    "Receive buffer too long": (
        f"the request line and headers are larger than {MAX_HEAD_BYTES // 1024} KiB: send a shorter "
        "query string or fewer headers"
    ),
}


def malformed_reason(detail: str) -> str:
    """The ``reason`` of a request h11 refused, from h11's message."""
    known = _REASONS.get(detail)
    if known is not None:
        return f"malformed HTTP request: {known}"
    shown = detail if len(detail) <= 200 else detail[:200] + "..."
    return f"malformed HTTP request ({shown or 'unparsable'}): send a well-formed HTTP/1.1 request"


class JsonH11Protocol(H11Protocol):
    """uvicorn's h11 protocol; a request h11 refuses gets the API's JSON 400 instead of plain text."""

    def send_400_response(self, msg: str) -> None:
        # uvicorn calls this from its ``except h11.RemoteProtocolError`` block: the error in
        # flight says what was wrong.
        exc = sys.exc_info()[1]
        detail = str(exc) if isinstance(exc, h11.ProtocolError) else ""
        payload = json.dumps(error_body(BAD_REQUEST, malformed_reason(detail))).encode("utf-8")
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(payload)).encode()),
            (b"connection", b"close"),
            *SECURITY_HEADERS,
        ]
        for event in (
            h11.Response(status_code=400, headers=headers, reason=HTTPStatus.BAD_REQUEST.phrase.encode()),
            h11.Data(data=payload),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event))
        self.transport.close()
