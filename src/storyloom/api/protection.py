"""The gate in front of every route: Host check, Origin check (and CORS), API key.

Order, for each HTTP request:

0. A query string longer than :data:`MAX_QUERY_BYTES` is 400 ``bad_request`` (requests the HTTP
   layer cannot parse never get here: :mod:`storyloom.api.wire` answers them).
1. ``Host`` must be a loopback name (``localhost``, ``127.0.0.1``, ``[::1]``), the bind address
   when it is a specific one, or an explicitly allowed host, *with the server's port*; otherwise
   403 ``forbidden_host``. This defeats DNS rebinding: a web page whose name was re-pointed at
   127.0.0.1 still sends its own name as ``Host``.
2. An ``Origin`` header, when present, must be on the allowlist (empty by default: no CORS);
   otherwise 403 ``forbidden_origin``. Allowed origins get ``Access-Control-Allow-Origin`` and
   their preflight ``OPTIONS`` requests are answered here (browsers send them without the key).
3. ``x-api-key`` must be sent once (twice is 400 ``bad_request``, whether the values agree or
   not: a proxy or a client may read either one) and equal the key (compared in constant time
   on SHA-256 digests, so neither the content nor the length leaks); a missing and a wrong key
   get the same 401. Only ``/openapi.json`` is public (a doubled key is refused there too).

Refusals are JSON error bodies like every other error (with ``"success": false`` on
``/navigate``, see :mod:`storyloom.api.errors`). ``Cache-Control: no-store`` and
``X-Content-Type-Options: nosniff`` are added to every answer that does not set them itself
(``/attachments`` answers ``Cache-Control: no-cache`` with an ``ETag``).

Written as a plain ASGI middleware (no per-request objects beyond header lookups) because it
runs on every request.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from storyloom.api.errors import (
    BAD_REQUEST,
    FORBIDDEN_HOST,
    FORBIDDEN_ORIGIN,
    REASON_TWO_KEYS,
    REASON_UNAUTHORIZED,
    UNAUTHORIZED,
    error_body,
)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

API_KEY_HEADER = "x-api-key"
API_KEY_HEADER_BYTES = API_KEY_HEADER.encode()
PUBLIC_PATHS = frozenset({"/openapi.json"})
# Longer query strings are refused (400) before any other check, whatever packets they came in.
MAX_QUERY_BYTES = 16 * 1024
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_HOSTS = frozenset({"", "0.0.0.0", "::"})
# Allowed Host header values remembered between requests (the loopback names with the port).
KEPT_HOSTS = 16

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"cache-control", b"no-store"),
    (b"x-content-type-options", b"nosniff"),
)


def _digest(value: bytes) -> bytes:
    return hashlib.sha256(value).digest()


def normalize_origin(origin: str) -> str:
    return origin.strip().rstrip("/").lower()


def split_host_header(value: str) -> tuple[str, int | None] | None:
    """``"localhost:9001"`` → ``("localhost", 9001)``; ``"[::1]:80"`` → ``("::1", 80)``; None if malformed."""
    value = value.strip().lower()
    if not value:
        return None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        host, rest = value[1:end], value[end + 1 :]
        if rest == "":
            return host, None
        if not rest.startswith(":"):
            return None
        port_text = rest[1:]
    elif value.count(":") == 1:
        host, port_text = value.split(":")
    elif ":" in value:
        return None  # a bare IPv6 address must be bracketed in Host
    else:
        return value, None
    if not port_text.isdigit() or len(port_text) > 5:
        return None
    return host, int(port_text)


@dataclass
class ProtectionSettings:
    """Mutable so the server can fill in the port once the socket is bound."""

    api_key: str
    port: int = 0
    bind_host: str = "127.0.0.1"
    allowed_hosts: frozenset[str] = field(default_factory=frozenset)
    allowed_origins: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        self.allowed_hosts = frozenset(h.strip().lower().strip("[]") for h in self.allowed_hosts)
        self.allowed_origins = frozenset(normalize_origin(o) for o in self.allowed_origins)
        self._key_digest = _digest(self.api_key.encode("utf-8"))

    @property
    def host_names(self) -> frozenset[str]:
        # Asked on every request: kept until the bind host or the allowed hosts change.
        key = (self.bind_host, self.allowed_hosts)
        cached = self.__dict__.get("_host_names")
        if cached is not None and cached[0] == key:
            return cached[1]
        names = set(LOOPBACK_HOSTS) | set(self.allowed_hosts)
        bind = self.bind_host.strip().lower().strip("[]")
        if bind not in WILDCARD_HOSTS:
            names.add(bind)
        self._host_names = (key, frozenset(names))
        return self._host_names[1]

    def host_allowed(self, header: str | None) -> bool:
        if header is None:
            return False
        parsed = split_host_header(header)
        if parsed is None:
            return False
        host, port = parsed
        if host not in self.host_names:
            return False
        return port == self.port or (port is None and self.port == 80)

    def host_header_allowed(self, raw: bytes | None) -> bool:
        """:meth:`host_allowed` of a raw ``Host`` header. Every request asks, with one of a few
        values: the values found allowed are kept (at most :data:`KEPT_HOSTS`, for the settings
        they were checked under), so the usual one is a set lookup; others are checked in full."""
        settings_key = (self.port, self.bind_host, self.allowed_hosts)
        kept: tuple[tuple[Any, ...], set[bytes | None]] | None = self.__dict__.get("_allowed_raw")
        if kept is None or kept[0] != settings_key:
            kept = (settings_key, set())
            self._allowed_raw = kept
        if raw in kept[1]:
            return True
        allowed = self.host_allowed(None if raw is None else raw.decode("latin-1"))
        if allowed and raw is not None and len(kept[1]) < KEPT_HOSTS:
            kept[1].add(raw)
        return allowed

    def origin_allowed(self, origin: str) -> bool:
        return normalize_origin(origin) in self.allowed_origins

    def key_matches(self, given: bytes | None) -> bool:
        candidate = _digest(given or b"")
        # Evaluate the comparison before the emptiness check so both paths take the same time.
        same = hmac.compare_digest(candidate, self._key_digest)
        return same and bool(given) and bool(self.api_key)


def _header_bytes(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value
    return None


def _api_keys(scope: Scope) -> list[bytes]:
    """Every ``x-api-key`` value of the request, in order."""
    return [value for key, value in scope.get("headers", ()) if key == API_KEY_HEADER_BYTES]


def _header(scope: Scope, name: bytes) -> str | None:
    value = _header_bytes(scope, name)
    return None if value is None else value.decode("latin-1")


async def send_json(send: Send, status: int, body: dict[str, Any],
                    headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    payload = json.dumps(body).encode("utf-8")
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(payload)).encode()),
            *SECURITY_HEADERS,
            *headers,
        ],
    })
    await send({"type": "http.response.body", "body": payload})


class ProtectionMiddleware:
    def __init__(self, app: ASGIApp, settings: ProtectionSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        settings = self.settings
        path = scope.get("path")
        if len(scope.get("query_string") or b"") > MAX_QUERY_BYTES:
            await send_json(send, 400, error_body(
                BAD_REQUEST,
                f"the query string is longer than {MAX_QUERY_BYTES // 1024} KiB: no parameter of this API "
                "needs that much (a long /db-dump `keys` list can be split over several requests)",
                path,
            ))
            return
        if not settings.host_header_allowed(_header_bytes(scope, b"host")):
            host = _header(scope, b"host")
            shown = f"Host {host!r} is not allowed" if host is not None else "The request has no Host header"
            await send_json(send, 403, error_body(
                FORBIDDEN_HOST,
                f"{shown}: use http://127.0.0.1:{settings.port} "
                f"or http://localhost:{settings.port} (requests for other host names are refused "
                "to protect against DNS rebinding)",
                path,
            ))
            return
        extra_headers: list[tuple[bytes, bytes]] = [(b"vary", b"Origin")] if settings.allowed_origins else []
        origin = _header(scope, b"origin")
        if origin is not None:
            if not settings.origin_allowed(origin):
                await send_json(send, 403, error_body(
                    FORBIDDEN_ORIGIN,
                    f"Origin {origin!r} is not allowed: browsers may only call this API from origins "
                    "the user allowed explicitly (none by default)",
                    path,
                ), extra_headers)
                return
            extra_headers.append((b"access-control-allow-origin", origin.encode("latin-1")))
            if scope["method"] == "OPTIONS" and _header(scope, b"access-control-request-method"):
                await send({
                    "type": "http.response.start",
                    "status": 204,
                    "headers": [
                        *extra_headers,
                        (b"access-control-allow-methods", b"GET, HEAD"),
                        (b"access-control-allow-headers", API_KEY_HEADER.encode()),
                        (b"access-control-max-age", b"600"),
                        *SECURITY_HEADERS,
                    ],
                })
                await send({"type": "http.response.body", "body": b""})
                return
        keys = _api_keys(scope)
        if len(keys) > 1:
            await send_json(send, 400, error_body(BAD_REQUEST, REASON_TWO_KEYS, path), extra_headers)
            return
        if scope["path"] not in PUBLIC_PATHS and not settings.key_matches(keys[0] if keys else None):
            await send_json(send, 401, error_body(UNAUTHORIZED, REASON_UNAUTHORIZED, path), extra_headers)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = [name.lower() for name, _ in headers]
                for header in SECURITY_HEADERS:
                    if header[0] not in present:
                        headers.append(header)
                headers.extend(extra_headers)
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)
