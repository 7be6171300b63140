"""HTTP client for one remote CouchDB (or compatible) database, on ``httpx`` (pooled), or on one
connection of the standard library's ``http.client`` for a command that sends a few requests and
exits (:mod:`storyloom.sync.one_connection`).

- ``Accept: application/json`` on every request (CouchDB would otherwise answer
  ``open_revs`` with multipart).
- Basic auth, or cookie auth through ``POST /_session`` with one fresh login and one retry
  when a request gets 401 (session cookies expire after 10 minutes by default).
- Document ids, attachment names and the database name are percent-encoded as in
  docs/protocol.md 3.8.
- Errors become :mod:`storyloom.sync.errors` exceptions that keep the server's ``error``
  and ``reason``, also when the body is not JSON (an nginx 413 page).
- Redirects are not followed: a 3xx (typically a proxy sending ``http://`` to ``https://``)
  is a :class:`~storyloom.sync.errors.Redirected` error naming the ``Location`` to use.
- Every transport failure becomes a typed error: timeouts :class:`RemoteTimeout`, transport
  and decoding failures :class:`NetworkError`.
- :meth:`RemoteDatabase.abort` shuts down the client's sockets from another thread, so a
  blocked read (a longpoll between heartbeats) returns at once.
"""

from __future__ import annotations

import functools
import json
import re
import socket
import ssl
import sys
import threading
import weakref
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urljoin

import lazy_loader
import orjson

import storyloom
from storyloom.store.codec import may_hold_long_integer, stdlib_text
from storyloom.sync import one_connection
from storyloom.sync.errors import (
    STATUS_ERROR_NAMES,
    Cancelled,
    NetworkError,
    Redirected,
    RemoteError,
    RemoteNotFound,
    RemoteTimeout,
    RemoteUnauthorized,
    error_class_for,
)
from storyloom.sync.urls import (
    RemoteURL,
    encode_attachment_name,
    encode_doc_id,
    parse_remote_url,
)

if TYPE_CHECKING:
    import httpx
else:
    # Imported at the first request: a session that never talks to a server (a CLI verb on a
    # project without a remote) does not load the HTTP client. httpx's own command line
    # (httpx._main), which its package imports when it can, brings click, pygments and rich:
    # about 100 modules Storyloom never uses, at every start of a verb that talks to a server.
    # A None in sys.modules makes that import fail at once, as it does where rich is not installed.
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]  # None: "not importable", by design
    httpx = lazy_loader.load("httpx")

AuthMode = Literal["basic", "cookie"]
#: How a client talks to its server: ``"pooled"``, httpx's connection pool (the app, a
#: replication: many requests, from several threads); ``"one"``, one keep-alive connection on
#: ``http.client`` (a CLI verb's few requests: no httpx to import), where it behaves as httpx
#: would (:func:`storyloom.sync.one_connection.suits`), else pooled.
ConnectionMode = Literal["pooled", "one"]

#: Seconds, as ``httpx.Timeout`` takes them: the default of :class:`RemoteDatabase`.
DEFAULT_TIMEOUTS = {"connect": 10.0, "read": 120.0, "write": 120.0, "pool": 30.0}
USER_AGENT = f"Storyloom/{storyloom.__version__} (replicator)"
_TITLE_RE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_TAG_RE = re.compile(r"<[^>]+>")


def dumps(obj: Any) -> bytes:
    """Compact JSON as UTF-8 bytes, the way every request body is serialized.

    orjson writes the same JSON as ``json.dumps(separators=(",", ":"), ensure_ascii=False)`` for
    every document value, several times faster (bench/sync_bench.py); what it refuses (an integer
    beyond 64 bits, a lone surrogate) goes through ``json``, which keeps it exact (a lone
    surrogate as its ``\\u`` escape, which UTF-8 cannot hold otherwise)."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # orjson.JSONEncodeError
        return stdlib_text(obj).encode("utf-8")


def loads(content: bytes) -> Any:
    """Parse a JSON answer. orjson where it is exact; ``json`` for a body that may hold an
    integer beyond 64 bits (orjson would turn it into a float) or that orjson refuses."""
    if not may_hold_long_integer(content):
        try:
            return orjson.loads(content)
        except ValueError:  # orjson.JSONDecodeError: let json decide (and word the error)
            pass
    return json.loads(content)


@functools.lru_cache(maxsize=8)
def _ssl_context(verify: bool | str) -> ssl.SSLContext:
    """One TLS context per ``verify`` setting for the whole process. httpx builds one for
    every client, loading the certificate bundle each time (about 17 ms): that was the largest
    cost of starting a replication, and the sync service starts one per pull. A context is safe
    to share between clients and threads. A ``verify`` string names a CA bundle file or a
    directory of certificates."""
    return one_connection.tls_context(verify)


@functools.lru_cache(maxsize=1)
def _no_tls_context() -> ssl.SSLContext:
    """The context of a client of a plain-HTTP server: it speaks no TLS (no redirect is followed,
    every request goes to the server's own http URL), so the certificate bundle is not loaded, a
    cost paid at every start of a CLI verb. Should a TLS connection ever be made with it, it
    verifies as every context does, against no trusted certificate, and fails."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def _connect_and_read(timeout: Any) -> tuple[float | None, float | None]:
    """The connect and read timeouts of a ``timeout`` as :class:`RemoteDatabase` takes it (None:
    the defaults; seconds for both; an ``httpx.Timeout``), for the one-connection client."""
    if timeout is None:
        return DEFAULT_TIMEOUTS["connect"], DEFAULT_TIMEOUTS["read"]
    if isinstance(timeout, (int, float)):
        return float(timeout), float(timeout)
    return timeout.connect, timeout.read


def _query_value(value: Any) -> str:
    """CouchDB query parameters: booleans as ``true``/``false``, strings and integers as
    they are (opaque seqs go back exactly as received), everything else as JSON."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _encode_params(params: Mapping[str, Any] | None) -> dict[str, str] | None:
    if not params:
        return None
    return {k: _query_value(v) for k, v in params.items() if v is not None}


def error_from_response(response: one_connection.Response, method: str, url: str) -> RemoteError:
    """Build the typed error for an HTTP error response, JSON body or not."""
    status = response.status_code
    error = ""
    reason = ""
    content = response.content or b""
    data: Any = None
    if content:
        try:
            data = json.loads(content)
        except (ValueError, UnicodeDecodeError):
            data = None
    if isinstance(data, dict):
        error = str(data.get("error") or "")
        reason_value = data.get("reason")
        reason = "" if reason_value is None else str(reason_value)
    elif content:
        import html  # here: only an error page that is not JSON needs it

        text = content.decode("utf-8", "replace")
        match = _TITLE_RE.search(text)
        if match:
            reason = html.unescape(match.group(1)).strip()
        else:
            reason = " ".join(html.unescape(_TAG_RE.sub(" ", text)).split())[:300]
    if not error:
        error = STATUS_ERROR_NAMES.get(status, f"http_{status}")
    if not reason:
        reason = response.reason_phrase or ""
    cls = error_class_for(status)
    return cls(status, error, reason, method=method, url=url)


def redirect_error(
    response: one_connection.Response, method: str, url: str, server_url: str, db_url: str
) -> Redirected:
    """The error for a 3xx answer: names the ``Location`` and the remote URL to use instead.

    When the ``Location`` keeps the request's path, the suggestion is the database URL at the
    new place (``http://host/db/_changes`` → ``https://host/db/_changes`` suggests
    ``https://host/db``); otherwise it is the ``Location`` itself.
    """
    status = response.status_code
    location = response.headers.get("location")
    error = STATUS_ERROR_NAMES.get(status, "redirect")
    if not location:
        reason = (
            f"the server answered {status} {response.reason_phrase or 'redirect'} without a Location; "
            "check the remote URL (http:// or https://, host, port and path)"
        )
        return Redirected(status, error, reason, method=method, url=url)
    try:
        resolved = urljoin(url, location)
    except ValueError:
        resolved = location
    target = resolved.split("#", 1)[0].split("?", 1)[0]
    relative = url[len(server_url) :] if url.startswith(server_url) else ""
    if relative and target.endswith(relative):
        suggested = target[: len(target) - len(relative)] + db_url[len(server_url) :]
    else:
        suggested = target.rstrip("/") or target
    reason = (
        f"the server redirects to {resolved}; redirects are not followed: use {suggested} as the "
        "remote URL"
    )
    return Redirected(status, error, reason, method=method, url=url, location=resolved, suggested_url=suggested)


@functools.cache
def _shared_transport_class() -> type[httpx.BaseTransport]:
    """:class:`_SharedTransport`, defined at first use (it subclasses httpx's transport)."""

    class _SharedTransport(httpx.BaseTransport):
        """A caller's transport lent to a clone: the clone's ``close()`` must not close it (the
        connections belong to the caller's client and to the other clones)."""

        def __init__(self, transport: httpx.BaseTransport) -> None:
            self.transport = transport

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            return self.transport.handle_request(request)

        def close(self) -> None:
            pass

    return _SharedTransport


def _shared(transport: httpx.BaseTransport) -> httpx.BaseTransport:
    return _shared_transport_class()(transport)  # type: ignore[call-arg]  # its own __init__ takes it


class RemoteDatabase:
    """One database on a CouchDB-compatible server.

    ``url`` is ``http(s)://host:port[/prefix]/dbname``; credentials come from ``username``
    and ``password`` (or the URL's user-info). ``auth`` is ``"basic"`` (a header on every
    request) or ``"cookie"`` (log in through ``/_session``). ``transport`` lets tests plug in
    an ``httpx.MockTransport``.
    """

    def __init__(
        self,
        url: str | RemoteURL,
        *,
        username: str | None = None,
        password: str | None = None,
        auth: AuthMode = "basic",
        timeout: httpx.Timeout | float | None = None,
        transport: httpx.BaseTransport | None = None,
        verify: bool | str = True,
        connection: ConnectionMode = "pooled",
    ) -> None:
        self.url = url if isinstance(url, RemoteURL) else parse_remote_url(url)
        self.username = username if username is not None else self.url.username
        self._password = password if password is not None else self.url.password
        if auth not in ("basic", "cookie"):
            raise ValueError(f"auth must be 'basic' or 'cookie', not {auth!r}")
        self.auth_mode: AuthMode = auth
        self._timeout_given = timeout
        self._verify = verify
        self._sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()
        self._sockets_lock = threading.Lock()
        self._aborted = False
        self._logged_in = False
        self._login_lock = threading.Lock()
        self._server_info: dict[str, Any] | None = None
        #: Does this client's server answer ``_bulk_get``? None until the first try; False
        #: after a 404/405/501 (then ``open_revs`` is used). Per client, copied by clone().
        self.bulk_get_supported: bool | None = None
        self.connection: ConnectionMode = connection
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        self._one: one_connection.OneConnection | None = None
        self._shared_transport: httpx.BaseTransport | None = None
        if connection == "one" and one_connection.suits(auth_mode=self.auth_mode, transport=transport):
            if self.username is not None:
                headers["Authorization"] = one_connection.basic_authorization(self.username, self._password or "")
            connect, read = _connect_and_read(timeout)
            self._one = one_connection.OneConnection(headers=headers, connect_timeout=connect, read_timeout=read,
                                                     tls=lambda: _ssl_context(verify), on_connect=self._track)
            return
        basic = None
        if self.auth_mode == "basic" and self.username is not None:
            basic = httpx.BasicAuth(self.username, self._password or "")
        self._client = httpx.Client(
            auth=basic,
            headers=headers,
            timeout=self._timeout,
            transport=transport,
            verify=_no_tls_context() if self.url.server.lower().startswith("http:") else _ssl_context(verify),
            follow_redirects=False,
        )
        #: The caller's transport, shared by every clone but closed only by this client.
        lent = isinstance(transport, _shared_transport_class())
        self._shared_transport = getattr(transport, "transport") if lent else transport  # noqa: B009

    @functools.cached_property
    def _timeout(self) -> httpx.Timeout:
        """The pooled client's timeouts (made at first use: httpx is not loaded for one connection)."""
        timeout = self._timeout_given
        if timeout is None:
            return httpx.Timeout(**DEFAULT_TIMEOUTS)
        return timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)

    # -- identity ------------------------------------------------------------------------------

    @property
    def db_name(self) -> str:
        return self.url.db_name

    @property
    def server_url(self) -> str:
        return self.url.server

    @property
    def db_url(self) -> str:
        return self.url.db_url

    @property
    def has_credentials(self) -> bool:
        return self.username is not None

    def __repr__(self) -> str:
        user = f" as {self.username!r}" if self.username else ""
        return f"RemoteDatabase({self.db_url!r}{user})"

    def clone(self) -> RemoteDatabase:
        """A new client for the same database and credentials (its own connections; with a
        caller's ``transport``, that transport, which only the original client closes)."""
        clone = RemoteDatabase(
            self.url,
            username=self.username,
            password=self._password,
            auth=self.auth_mode,
            timeout=self._timeout_given,
            transport=None if self._shared_transport is None else _shared(self._shared_transport),
            verify=self._verify,
            connection=self.connection,
        )
        clone.bulk_get_supported = self.bulk_get_supported
        return clone

    def as_user(self, username: str, password: str) -> RemoteDatabase:
        """A new client for the same database signed in as another user (a server admin for set-up,
        a user whose password is being checked): same timeout, TLS verification and transport."""
        return RemoteDatabase(
            RemoteURL(self.url.server, self.url.db_name),
            username=username,
            password=password,
            auth=self.auth_mode,
            timeout=self._timeout_given,
            transport=None if self._shared_transport is None else _shared(self._shared_transport),
            verify=self._verify,
            connection=self.connection,
        )

    def anonymous(self) -> RemoteDatabase:
        """A client for the same database without credentials (what a browser's CORS preflight
        or an anonymous visitor sends), sharing a caller's ``transport`` as :meth:`clone` does."""
        return RemoteDatabase(
            RemoteURL(self.url.server, self.url.db_name),
            timeout=self._timeout_given,
            transport=None if self._shared_transport is None else _shared(self._shared_transport),
            verify=self._verify,
            connection=self.connection,
        )

    # -- life cycle ----------------------------------------------------------------------------

    def close(self) -> None:
        if self._one is not None:
            self._one.close()
        else:
            self._client.close()

    def __enter__(self) -> RemoteDatabase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def abort(self) -> None:
        """Make the in-flight and every later request fail with :class:`Cancelled`.

        Safe to call from any thread: shuts the client's sockets down, which wakes a read
        blocked in another thread at once.
        """
        self._aborted = True
        with self._sockets_lock:
            sockets = list(self._sockets)
            self._sockets.clear()
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    @property
    def aborted(self) -> bool:
        return self._aborted

    def _trace(self, event: str, info: dict[str, Any]) -> None:
        if event == "connection.connect_tcp.complete":
            stream = info.get("return_value")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if sock is not None:
                self._track(sock)

    def _track(self, sock: socket.socket) -> None:
        """Keep a new connection's socket, for :meth:`abort` to shut down."""
        with self._sockets_lock:
            self._sockets.add(sock)
        if self._aborted:
            self.abort()

    # -- requests ------------------------------------------------------------------------------

    def _url(self, path: str, db: bool) -> str:
        base = self.db_url if db else self.server_url
        return f"{base}/{path}" if path else (base + "/" if not db else base)

    def request(
        self,
        method: str,
        path: str = "",
        *,
        db: bool = True,
        params: Mapping[str, Any] | None = None,
        json_body: Any = None,
        content: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        read_timeout: float | None = None,
        ok_statuses: Iterable[int] = (),
    ) -> one_connection.Response:
        """Send one request and return the response; raise a typed error for an error status
        (except those listed in ``ok_statuses``). ``path`` is already encoded; ``db`` says
        whether it is relative to the database or to the server root."""
        url = self._url(path, db)
        body = content
        hdrs = dict(headers or {})
        if json_body is not None:
            body = dumps(json_body)
        if body is not None:
            hdrs.setdefault("Content-Type", "application/json")
        if self.auth_mode == "cookie" and self.username is not None and not self._logged_in:
            self.login()
        response = self._send(method, url, params, body, hdrs, read_timeout)
        if (
            response.status_code == 401
            and self.auth_mode == "cookie"
            and self.username is not None
            and not (not db and path == "_session")
        ):
            # The session cookie may have expired: log in again and retry once.
            self._logged_in = False
            self.login()
            response = self._send(method, url, params, body, hdrs, read_timeout)
        self._check_status(response, method, url, ok_statuses)
        return response

    def _check_status(
        self, response: one_connection.Response, method: str, url: str, ok_statuses: Iterable[int] = ()
    ) -> None:
        status = response.status_code
        if status in ok_statuses:
            return
        if 300 <= status < 400:
            raise redirect_error(response, method, url, self.server_url, self.db_url)
        if status >= 400:
            raise error_from_response(response, method, url)

    def _send(
        self,
        method: str,
        url: str,
        params: Mapping[str, Any] | None,
        body: bytes | None,
        headers: dict[str, str],
        read_timeout: float | None,
    ) -> one_connection.Response:
        if self._aborted:
            raise Cancelled("the request was cancelled")
        if self._one is not None:
            try:
                return self._one.request(method, url, params=_encode_params(params), content=body, headers=headers,
                                         read_timeout=read_timeout)
            except NetworkError:
                if self._aborted:
                    raise Cancelled("the request was cancelled") from None
                raise
        timeout = self._timeout
        if read_timeout is not None:
            timeout = httpx.Timeout(connect=timeout.connect, read=read_timeout, write=timeout.write, pool=timeout.pool)
        try:
            return self._client.request(
                method,
                url,
                params=_encode_params(params),
                content=body,
                headers=headers,
                timeout=timeout,
                extensions={"trace": self._trace},
            )
        except Exception as exc:
            # After abort() anything may surface (a shut-down socket, the client closed from
            # another thread: RuntimeError): it is the cancellation.
            if self._aborted:
                raise Cancelled("the request was cancelled") from None
            if isinstance(exc, httpx.TimeoutException):
                raise RemoteTimeout(
                    f"{method} {url}: no answer from the server in time ({type(exc).__name__})",
                    method=method,
                    url=url,
                ) from None
            if isinstance(exc, httpx.DecodingError):
                # A body whose Content-Encoding cannot be decoded: cut short, or a broken proxy.
                raise NetworkError(
                    f"{method} {url}: the server sent a body that cannot be decoded ({exc or 'DecodingError'})",
                    method=method,
                    url=url,
                ) from None
            if isinstance(exc, httpx.HTTPError):
                detail = str(exc) or type(exc).__name__
                raise NetworkError(f"cannot reach {self.server_url}: {detail}", method=method, url=url) from None
            raise

    def _json(self, response: one_connection.Response) -> Any:
        if self._aborted:
            raise Cancelled("the request was cancelled")
        try:
            return loads(response.content)
        except ValueError:
            # A body cut short by a dropped connection, or an HTML page with status 200.
            raise NetworkError(
                f"{response.request.method} {response.request.url}: the server sent an invalid "
                f"JSON body ({len(response.content)} bytes)",
                method=response.request.method,
                url=str(response.request.url),
            ) from None

    def get_json(self, path: str = "", *, db: bool = True, **params: Any) -> Any:
        return self._json(self.request("GET", path, db=db, params=params))

    # Where the remote's untyped JSON meets the typed API: the shape CouchDB documents for the
    # answer, taken on trust as before (a server that answers otherwise fails where it is read).

    def _object(self, response: one_connection.Response) -> dict[str, Any]:
        """``_json`` of an answer that is a JSON object."""
        answer: dict[str, Any] = self._json(response)
        return answer

    def _objects(self, response: one_connection.Response) -> list[dict[str, Any]]:
        """``_json`` of an answer that is an array of objects (``_bulk_docs``, ``open_revs``)."""
        answer: list[dict[str, Any]] = self._json(response)
        return answer

    def get_object(self, path: str = "", *, db: bool = True, **params: Any) -> dict[str, Any]:
        """``get_json`` of an answer that is a JSON object."""
        return self._object(self.request("GET", path, db=db, params=params))

    # -- server --------------------------------------------------------------------------------

    def login(self) -> dict[str, Any]:
        """``POST /_session`` with the name and password (cookie auth)."""
        with self._login_lock:
            if self.username is None:
                raise RemoteUnauthorized(401, "unauthorized", "no user name to log in with")
            url = self._url("_session", db=False)
            response = self._send(
                "POST",
                url,
                None,
                dumps({"name": self.username, "password": self._password or ""}),
                {"Content-Type": "application/json"},
                None,
            )
            self._check_status(response, "POST", url)
            self._logged_in = True
            return self._object(response)

    def server_info(self, refresh: bool = False) -> dict[str, Any]:
        """``GET /`` (cached): the welcome object with the server ``uuid``."""
        if self._server_info is None or refresh:
            self._server_info = self.get_object("", db=False)
        return self._server_info

    def session(self) -> dict[str, Any]:
        """``GET /_session``: ``{"ok", "userCtx": {"name", "roles"}, ...}``."""
        return self.get_object("_session", db=False)

    # -- database ------------------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        return self.get_object("")

    def exists(self) -> bool:
        try:
            self.info()
        except RemoteNotFound:
            return False
        return True

    def create(self) -> bool:
        """``PUT /db``; False when it already existed (412)."""
        response = self.request("PUT", "", ok_statuses=(412,))
        return response.status_code != 412

    def delete(self) -> None:
        self.request("DELETE", "")

    def get(self, doc_id: str, **params: Any) -> dict[str, Any]:
        return self.get_object(encode_doc_id(doc_id), **params)

    def put(self, doc: Mapping[str, Any], **params: Any) -> dict[str, Any]:
        return self._object(self.request("PUT", encode_doc_id(doc["_id"]), params=params, json_body=doc))

    def put_status(self, doc: Mapping[str, Any], **params: Any) -> tuple[dict[str, Any], int]:
        """:meth:`put`, and the answer's status: 201 Created, or 202 Accepted when a CouchDB
        cluster stored the revision on fewer nodes than its write quorum (another write on the
        same revision may then have been accepted too: docs/sync.md, "A cluster as the server")."""
        response = self.request("PUT", encode_doc_id(doc["_id"]), params=params, json_body=doc)
        return self._object(response), response.status_code

    def remove(self, doc_id: str, rev: str) -> dict[str, Any]:
        return self._object(self.request("DELETE", encode_doc_id(doc_id), params={"rev": rev}))

    def get_open_revs(
        self,
        doc_id: str,
        open_revs: list[str] | Literal["all"],
        *,
        revs: bool = True,
        latest: bool = True,
        attachments: bool = True,
        replicas: int | None = None,
    ) -> list[dict[str, Any]]:
        """``GET /db/id?open_revs=[...]`` with JSON Accept: ``[{"ok": doc} | {"missing": rev}]``;
        with ``replicas``, a CouchDB cluster answers once that many copies did (``r``)."""
        params: dict[str, Any] = {
            "open_revs": open_revs if open_revs == "all" else list(open_revs),
            "revs": revs,
            "latest": latest,
            "attachments": attachments,
        }
        if replicas is not None:
            params["r"] = replicas
        return self._objects(self.request("GET", encode_doc_id(doc_id), params=params))

    def get_attachment(self, doc_id: str, name: str, rev: str | None = None) -> bytes:
        path = f"{encode_doc_id(doc_id)}/{encode_attachment_name(name)}"
        response = self.request("GET", path, params={"rev": rev})
        return response.content

    def all_docs(self, **params: Any) -> dict[str, Any]:
        keys = params.pop("keys", None)
        if keys is not None:
            return self._object(self.request("POST", "_all_docs", params=params, json_body={"keys": keys}))
        return self.get_object("_all_docs", **params)

    def changes(self, since: Any = 0, **options: Any) -> dict[str, Any]:
        """``_changes``, with the options of :meth:`changes_sized`."""
        return self.changes_sized(since, **options)[0]

    def changes_sized(
        self,
        since: Any = 0,
        *,
        limit: int | None = None,
        style: str = "all_docs",
        doc_ids: list[str] | None = None,
        feed: str = "normal",
        heartbeat: int | None = None,
        read_timeout: float | None = None,
        **params: Any,
    ) -> tuple[dict[str, Any], int]:
        """``_changes`` and the size of its answer's body in bytes (the replicator sizes its pages
        of documents by it). With ``doc_ids`` it posts ``filter=_doc_ids``. For ``feed=longpoll``
        set ``heartbeat`` (ms) and a ``read_timeout`` above it."""
        query: dict[str, Any] = {"style": style, "since": since, "limit": limit, "feed": feed}
        if feed == "normal":
            del query["feed"]
        if heartbeat is not None:
            query["heartbeat"] = heartbeat
        query.update(params)
        if doc_ids is not None:
            query["filter"] = "_doc_ids"
            response = self.request(
                "POST", "_changes", params=query, json_body={"doc_ids": list(doc_ids)}, read_timeout=read_timeout
            )
        else:
            response = self.request("GET", "_changes", params=query, read_timeout=read_timeout)
        return self._object(response), len(response.content)

    def revs_diff(self, revs: Mapping[str, list[str]]) -> dict[str, Any]:
        return self._object(self.request("POST", "_revs_diff", json_body=revs))

    def bulk_get(
        self,
        docs: list[dict[str, Any]],
        *,
        revs: bool = True,
        latest: bool = True,
        attachments: bool = True,
    ) -> dict[str, Any]:
        params = {"revs": revs, "latest": latest, "attachments": attachments}
        return self._object(self.request("POST", "_bulk_get", params=params, json_body={"docs": docs}))

    def bulk_docs(self, docs: list[dict[str, Any]], *, new_edits: bool = True) -> list[dict[str, Any]]:
        body = {"docs": docs} if new_edits else {"docs": docs, "new_edits": False}
        return self._objects(self.request("POST", "_bulk_docs", json_body=body))

    def bulk_docs_serialized(self, docs: list[bytes], *, new_edits: bool = False) -> list[dict[str, Any]]:
        """``_bulk_docs`` from documents already serialized with :func:`dumps`."""
        head = b'{"new_edits":false,"docs":[' if not new_edits else b'{"docs":['
        body = head + b",".join(docs) + b"]}"
        return self._objects(self.request("POST", "_bulk_docs", content=body))

    def get_local(self, local_id: str) -> dict[str, Any] | None:
        """A ``_local`` document, or None when it does not exist."""
        if not local_id.startswith("_local/"):
            local_id = "_local/" + local_id
        response = self.request("GET", encode_doc_id(local_id), ok_statuses=(404,))
        if response.status_code == 404:
            return None
        return self._object(response)

    def put_local(self, doc: Mapping[str, Any]) -> dict[str, Any]:
        local_id = doc["_id"]
        if not local_id.startswith("_local/"):
            local_id = "_local/" + local_id
            doc = {**doc, "_id": local_id}
        return self._object(self.request("PUT", encode_doc_id(local_id), json_body=doc))

    def remove_local(self, local_id: str, rev: str) -> None:
        if not local_id.startswith("_local/"):
            local_id = "_local/" + local_id
        self.request("DELETE", encode_doc_id(local_id), params={"rev": rev})

    def security(self) -> dict[str, Any]:
        return self.get_object("_security")

    def put_security(self, security: Mapping[str, Any]) -> None:
        self.request("PUT", "_security", json_body=security)


__all__ = [
    "DEFAULT_TIMEOUTS",
    "RemoteDatabase",
    "RemoteError",
    "dumps",
    "error_from_response",
    "loads",
    "redirect_error",
]
