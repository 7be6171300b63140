"""One keep-alive HTTP/1.1 connection on the standard library's :mod:`http.client`: the client of
a command that sends a few requests and exits (``storyloom lock``, ``unlock``, ``locks``).

Why not httpx there: httpx with httpcore, h11, idna and what they import costs about ten times a
bare interpreter's start (counted in instructions: ``bench/cli_bench.py --instructions``), more
than all of a lock's other work; :mod:`http.client` costs about three. A long-lived client (the
app, a replication) keeps httpx: its pool, its threads, its transports for tests. This one speaks
the same requests the same way (``Accept: application/json``, Basic auth, no redirect followed,
no compression asked for) and raises the same errors, so :class:`~storyloom.sync.remote.RemoteDatabase`
reads both alike.

It is chosen only where it behaves as httpx would (:func:`suits`): Basic auth or none, no test
transport, and no proxy named in the environment (httpx follows ``HTTP_PROXY`` and its kin; this
client does not).
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import socket
import ssl
import threading
from collections.abc import Callable, Mapping
from typing import Any, Protocol
from urllib.parse import quote, urlencode, urlsplit

from storyloom.sync.errors import NetworkError, RemoteTimeout

#: The environment variables httpx reads for a proxy (in either case); with one set, the
#: pooled httpx client is used, which honours it.
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


class HeaderLookup(Protocol):
    def get(self, key: str, default: Any = None, /) -> Any: ...


class RequestLine(Protocol):
    @property
    def method(self) -> str: ...

    @property
    def url(self) -> object: ...


class Response(Protocol):
    """What :class:`~storyloom.sync.remote.RemoteDatabase` and its callers read of an answer:
    an ``httpx.Response`` or an :class:`Answer` alike."""

    @property
    def status_code(self) -> int: ...

    @property
    def reason_phrase(self) -> str: ...

    @property
    def headers(self) -> HeaderLookup: ...

    @property
    def content(self) -> bytes: ...

    @property
    def request(self) -> RequestLine: ...

    def json(self) -> Any: ...


def suits(*, auth_mode: str, transport: object, environ: Mapping[str, str] | None = None) -> bool:
    """Whether a one-connection client behaves as the httpx client would here."""
    environ = os.environ if environ is None else environ
    if auth_mode != "basic" or transport is not None:
        return False
    return not any(environ.get(name) or environ.get(name.upper()) for name in PROXY_VARIABLES)


def tls_context(verify: bool | str) -> ssl.SSLContext:
    """The TLS context httpx makes for ``verify`` (its rules, without loading it): the
    ``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` the environment names, else certifi's bundle; a
    string names a CA bundle file or a directory; False verifies nothing."""
    if isinstance(verify, str):
        if os.path.isdir(verify):
            return ssl.create_default_context(capath=verify)
        return ssl.create_default_context(cafile=verify)
    if verify is False:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    if os.environ.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    if os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


def basic_authorization(username: str, password: str) -> str:
    """The ``Authorization`` header's value, as httpx's ``BasicAuth`` writes it (UTF-8)."""
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode("ascii")


class Sent:
    """The request an answer belongs to (``response.request.method`` and ``.url``, as httpx has them)."""

    __slots__ = ("method", "url")

    def __init__(self, method: str, url: str) -> None:
        self.method = method
        self.url = url


class Answer:
    """A whole response: what :class:`~storyloom.sync.remote.RemoteDatabase` and its callers
    read of an ``httpx.Response`` (status, reason, headers, body, JSON, the request)."""

    __slots__ = ("content", "headers", "reason_phrase", "request", "status_code")

    def __init__(
        self, status: int, reason: str, headers: http.client.HTTPMessage, content: bytes, request: Sent
    ) -> None:
        self.status_code = status
        self.reason_phrase = reason
        self.headers = headers  # a case-insensitive .get(), as httpx.Headers
        self.content = content
        self.request = request

    def json(self) -> Any:
        return json.loads(self.content)


class OneConnection:
    """Requests to one server over one connection, opened at the first request and kept
    alive between requests. Not shared between threads (a lock serialises them all the same)."""

    def __init__(
        self,
        *,
        headers: Mapping[str, str],
        connect_timeout: float | None,
        read_timeout: float | None,
        tls: Callable[[], ssl.SSLContext],
        on_connect: Callable[[socket.socket], None] = lambda sock: None,
    ) -> None:
        self._headers = dict(headers)
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._tls = tls
        self._on_connect = on_connect
        self._connection: http.client.HTTPConnection | None = None
        self._origin: tuple[str, str] | None = None
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._connection is not None:
            self._connection.close()
        self._connection = None
        self._origin = None

    def _connect(self, scheme: str, netloc: str) -> http.client.HTTPConnection:
        if self._connection is not None and self._origin == (scheme, netloc):
            return self._connection
        self._drop()
        connection: http.client.HTTPConnection
        if scheme == "https":
            connection = http.client.HTTPSConnection(netloc, timeout=self._connect_timeout, context=self._tls())
        else:
            connection = http.client.HTTPConnection(netloc, timeout=self._connect_timeout)
        connection.connect()
        if connection.sock is not None:  # its read timeout is set by each request
            self._on_connect(connection.sock)
        self._connection, self._origin = connection, (scheme, netloc)
        return connection

    def request(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, str] | None,
        content: bytes | None,
        headers: Mapping[str, str],
        read_timeout: float | None = None,
    ) -> Answer:
        """Send one request and read the whole answer. A connection the server closed while
        idle is opened again once (a request that never reached the server); every other
        failure is a :class:`NetworkError` (:class:`RemoteTimeout` for a timeout), as
        :class:`~storyloom.sync.remote.RemoteDatabase` words httpx's."""
        parts = urlsplit(url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        if params:
            target += ("&" if parts.query else "?") + urlencode(params, quote_via=quote)
        sent_headers = {**self._headers, **headers}
        with self._lock:
            for attempt in (1, 2):
                reused = self._connection is not None and self._origin == (parts.scheme, parts.netloc)
                try:
                    connection = self._connect(parts.scheme, parts.netloc)
                    if connection.sock is not None:
                        connection.sock.settimeout(read_timeout if read_timeout is not None else self._read_timeout)
                    connection.request(method, target, body=content, headers=sent_headers)
                    response = connection.getresponse()
                    body = response.read()
                except TimeoutError as exc:
                    self._drop()
                    raise RemoteTimeout(f"{method} {url}: no answer from the server in time ({type(exc).__name__})",
                                        method=method, url=url) from None
                except (OSError, http.client.HTTPException) as exc:
                    self._drop()
                    # RemoteDisconnected is a ConnectionResetError: the server closed the idle connection
                    if reused and attempt == 1 and isinstance(exc, ConnectionResetError | BrokenPipeError):
                        continue  # the request never arrived: once more, on a new connection
                    raise NetworkError(f"cannot reach {parts.scheme}://{parts.netloc}: {exc or type(exc).__name__}",
                                       method=method, url=url) from None
                if response.will_close:
                    self._drop()
                return Answer(response.status, response.reason, response.msg, body, Sent(method, url))
        raise AssertionError("unreachable")  # the loop returns or raises
