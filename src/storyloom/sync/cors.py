"""CORS on the team's server: checking it and turning it on for browser-based teammates (Drafft).

Storyloom talks to CouchDB directly and needs no CORS. A client that runs in a browser engine
(Drafft is an Electron app whose PouchDB runs in its renderer) is allowed to read the server's
answers only when the server says so: CORS has to be on, the client's origin listed, and
credentials allowed (PouchDB sends every request with ``credentials: "include"``, so an answer
without ``Access-Control-Allow-Credentials: true`` is thrown away by the browser engine).

Where the settings live (docs/protocol.md 6.1):

- **CouchDB 3.2 and later**: ``[chttpd] enable_cors`` (read with a fall-back to ``[httpd]``)
  and the ``[cors]`` section (``origins``, ``credentials``, ``methods``, ``headers``), under
  ``/_node/{node}/_config``; each node of a cluster has its own. Stock CouchDB has CORS off
  and no origin; a key left at its default is absent from the section (and ``GET`` of the key
  answers 404). Unset ``methods`` and ``headers`` mean CouchDB's built-in lists, which hold
  everything PouchDB sends. The settings apply to the next request, without a restart.
- **CouchDB 2 to 3.1**: the same, with ``[httpd] enable_cors``.
- **pouchdb-server 4.2** (and CouchDB 1): ``/_config`` (``/_node/_local/_config`` answers 404);
  only ``[httpd] enable_cors`` counts; CORS is on by default for every origin (``*``) with
  credentials; ``origins`` is split at ``", "`` exactly, so lists are written that way.

Reading the configuration needs a server admin. A member learns what the server does from a
preflight request (``OPTIONS`` with ``Origin`` and ``Access-Control-Request-Method``, no
credentials, as a browser sends it), which CouchDB answers before it checks who is asking.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from storyloom.errors import Fix, advice
from storyloom.sync.errors import InvalidRemote, RemoteError, RemoteNotFound, SyncError
from storyloom.sync.remote import RemoteDatabase
from storyloom.sync.server_terms import ServerInfo, SetupError, SetupStep, server_info

if TYPE_CHECKING:
    from storyloom.sync.server_terms import CheckLine

#: The origin the docs use as the example for Drafft. Drafft's public docs show the CORS step
#: only as a screenshot of Fauxton and never name an origin; an Electron renderer loaded from
#: files sends ``Origin: file://``, which no web site can send (browsers send ``null`` for local
#: files), so allowing it opens the server to no web page. See docs/sync.md for how to find the
#: origin a given Drafft build sends.
DRAFFT_EXAMPLE_ORIGIN = "file://"
#: What a preflight asks for: a PUT with the headers PouchDB adds that are not CORS-safelisted.
PREFLIGHT_METHOD = "PUT"
PREFLIGHT_HEADERS = "authorization, content-type"
#: The methods and request headers a PouchDB client uses; set-up adds any the server's explicit
#: lists lack (an unset list is the server's built-in one, which has them all).
POUCHDB_METHODS: tuple[str, ...] = ("GET", "PUT", "POST", "HEAD", "DELETE")
POUCHDB_HEADERS: tuple[str, ...] = ("accept", "authorization", "content-type", "origin", "referer")

_ORIGIN_RE = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://([^/?#\s,]*)/?")
_NODE_CONFIG = "_node/_local/_config"
_OLD_CONFIG = "_config"


class InvalidOrigin(InvalidRemote):
    """A ``--cors-origin`` that is not an origin, or one too wide to allow with credentials."""

    code = "invalid_origin"


def normalize_origin(text: str) -> str:
    """``scheme://host[:port]`` as a browser sends it in ``Origin`` (scheme and host in lower
    case, no path, no trailing slash). Refuses ``*`` and ``null``: with credentials on, either
    would let web pages a member opens use the member's signed-in session."""
    value = str(text).strip()
    if value == "*":
        raise InvalidOrigin(
            "'*' would allow every web site, with the signed-in member's credentials; name the origins "
            f"your browser-based clients send (Drafft: see docs/sync.md, e.g. {DRAFFT_EXAMPLE_ORIGIN})"
        )
    if value.lower() == "null":
        raise InvalidOrigin(
            "'null' is the origin of sandboxed frames and redirected requests on any web site; allowing it "
            "with credentials opens the server to them. Name the origin your client sends instead"
        )
    match = _ORIGIN_RE.fullmatch(value)
    if match is None:
        raise InvalidOrigin(
            f"{text!r} is not an origin: write scheme://host[:port] with no path, for example "
            f"{DRAFFT_EXAMPLE_ORIGIN}, app://drafft or https://tools.example.com"
        )
    scheme, host = match.group(1).lower(), match.group(2).lower()
    if not host and scheme != "file":
        raise InvalidOrigin(f"{text!r} has no host: write {scheme}://HOST[:PORT]")
    return f"{scheme}://{host}"


def _split(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    return tuple(part.strip() for part in str(value).split(",") if part.strip())


def _is_true(value: Any) -> bool:
    return str(value).strip().strip('"').lower() == "true"


def _version(info: ServerInfo) -> tuple[int, ...]:
    numbers = re.findall(r"\d+", info.version)[:3]
    return tuple(int(n) for n in numbers)


def enable_section(info: ServerInfo) -> str:
    """The section whose ``enable_cors`` the server reads first: ``chttpd`` on CouchDB 3.2 and
    later (which falls back to ``httpd``), ``httpd`` on older CouchDB and pouchdb-server."""
    return "chttpd" if info.product == "CouchDB" and _version(info) >= (3, 2) else "httpd"


def config_base(info: ServerInfo) -> str:
    """Where the configuration API is: ``/_node/_local/_config`` on CouchDB 2 and later,
    ``/_config`` elsewhere (CouchDB 1, pouchdb-server)."""
    return _NODE_CONFIG if info.product == "CouchDB" and _version(info) >= (2,) else _OLD_CONFIG


@dataclass(frozen=True)
class CorsConfig:
    """The CORS settings of one node, as read from its configuration. ``methods`` and
    ``headers`` are None while unset (the server's built-in lists)."""

    base: str
    section: str
    enabled: bool
    origins: tuple[str, ...]
    credentials: bool
    methods: tuple[str, ...] | None
    headers: tuple[str, ...] | None

    def allows(self, origin: str) -> bool:
        return "*" in self.origins or origin in self.origins

    def describe(self) -> str:
        if not self.enabled:
            return "off"
        listed = ", ".join(self.origins) if self.origins else "no origin"
        return f"on for {listed} (credentials {'on' if self.credentials else 'off'})"

    def changes(self, origins: Iterable[str]) -> list[tuple[str, str, str]]:
        """The ``(section, key, value)`` writes that turn CORS on for ``origins`` with
        credentials, keeping every origin, method and header already listed."""
        writes: list[tuple[str, str, str]] = []
        if not self.enabled:
            writes.append((self.section, "enable_cors", "true"))
        missing = [o for o in origins if o not in self.origins]
        if missing:
            writes.append(("cors", "origins", ", ".join([*self.origins, *missing])))
        if not self.credentials:
            writes.append(("cors", "credentials", "true"))
        if self.methods is not None:
            have = {m.upper() for m in self.methods}
            extra = [m for m in POUCHDB_METHODS if m not in have]
            if extra:
                writes.append(("cors", "methods", ", ".join([*self.methods, *extra])))
        if self.headers is not None:
            have = {h.lower() for h in self.headers}
            extra = [h for h in POUCHDB_HEADERS if h not in have]
            if extra:
                writes.append(("cors", "headers", ", ".join([*self.headers, *extra])))
        return writes


def _section(remote: RemoteDatabase, base: str, name: str) -> dict[str, Any]:
    value = remote.get_json(f"{base}/{name}", db=False)
    return value if isinstance(value, dict) else {}


def read_cors_config(remote: RemoteDatabase, info: ServerInfo, base: str | None = None) -> CorsConfig | None:
    """The CORS settings of the node ``remote`` reaches (or of the node at ``base``), read as a
    server admin; None when the server has no configuration API. Other refusals are raised."""
    bases = [base] if base else [config_base(info), _OLD_CONFIG, _NODE_CONFIG]
    for candidate in dict.fromkeys(bases):
        try:
            cors = _section(remote, candidate, "cors")
        except RemoteNotFound:
            continue
        section = enable_section(info)
        enabled_value = _section(remote, candidate, section).get("enable_cors")
        if enabled_value is None and section == "chttpd":
            enabled_value = _section(remote, candidate, "httpd").get("enable_cors")
        return CorsConfig(
            base=candidate,
            section=section,
            enabled=_is_true(enabled_value),
            origins=_split(cors.get("origins")),
            credentials=_is_true(cors.get("credentials")),
            methods=_split(cors["methods"]) if cors.get("methods") else None,
            headers=_split(cors["headers"]) if cors.get("headers") else None,
        )
    return None


# -- the preflight --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Preflight:
    """What the server answered to a browser's preflight from ``origin``."""

    origin: str
    status: int
    allowed: bool
    credentials: bool
    methods: str

    def describe(self) -> str:
        if not self.allowed:
            return f"a preflight request from {self.origin} was refused ({self.status}, no CORS headers)"
        creds = "with credentials" if self.credentials else "without credentials"
        return f"a preflight request from {self.origin} is allowed {creds}"


def probe_preflight(remote: RemoteDatabase, origin: str) -> Preflight:
    """Send the preflight a browser engine sends before PouchDB's first write: ``OPTIONS`` on
    the database with ``Origin``, ``Access-Control-Request-Method: PUT`` and the request
    headers, without credentials. Network failures are raised."""
    with remote.anonymous() as anonymous:
        response = anonymous.request(
            "OPTIONS",
            headers={"Origin": origin, "Access-Control-Request-Method": PREFLIGHT_METHOD,
                     "Access-Control-Request-Headers": PREFLIGHT_HEADERS},
            ok_statuses=range(200, 600),
        )
    allow_origin = response.headers.get("access-control-allow-origin")
    allowed = 200 <= response.status_code < 300 and allow_origin in (origin, "*")
    return Preflight(
        origin=origin,
        status=response.status_code,
        allowed=allowed,
        credentials=allowed and _is_true(response.headers.get("access-control-allow-credentials")),
        methods=response.headers.get("access-control-allow-methods", ""),
    )


# -- what an admin runs by hand ------------------------------------------------------------------


def admin_requests(server: str, info: ServerInfo, origins: Iterable[str]) -> list[str]:
    """The ``curl`` lines that turn CORS on for ``origins`` with credentials (``-u ADMIN``: curl
    asks for the admin's password). The origins request replaces the list: keep the origins
    already listed in it."""
    base = f"{server.rstrip('/')}/{config_base(info)}"
    values = [
        (enable_section(info), "enable_cors", "true"),
        ("cors", "origins", ", ".join(origins)),
        ("cors", "credentials", "true"),
    ]
    return [f"curl -u ADMIN -X PUT {shlex.quote(f'{base}/{section}/{key}')} -d {shlex.quote(json.dumps(value))}"
            for section, key, value in values]


def cors_admin_help(remote: RemoteDatabase, origins: Iterable[str]) -> list[str]:
    """:func:`admin_requests` for ``remote``'s server (advanced mode: a member cannot change the
    configuration); raises :class:`InvalidOrigin` for an origin that is not one."""
    wanted = list(dict.fromkeys(normalize_origin(o) for o in origins))
    return admin_requests(remote.server_url, server_info(remote), wanted)


# -- set-up --------------------------------------------------------------------------------------


def _node_bases(remote: RemoteDatabase, base: str) -> list[str]:
    """Every node's configuration base: a CouchDB cluster keeps a configuration per node."""
    if base != _NODE_CONFIG:
        return [base]
    try:
        membership = remote.get_json("_membership", db=False)
    except RemoteError:
        return [base]
    nodes = membership.get("cluster_nodes") if isinstance(membership, dict) else None
    if not isinstance(nodes, list) or len(nodes) < 2:
        return [base]
    return [f"_node/{quote(str(node), safe='@')}/_config" for node in nodes]


def configure_cors(admin_remote: RemoteDatabase, origins: Iterable[str]) -> SetupStep:
    """Turn CORS on for ``origins`` with credentials on every node of ``admin_remote``'s server,
    keeping the origins, methods and headers already listed and adding what PouchDB needs.
    Idempotent: writes only what differs. Needs a server admin; raises :class:`SetupError`
    otherwise, and :class:`InvalidOrigin` for an origin that is not one."""
    wanted = list(dict.fromkeys(normalize_origin(o) for o in origins))
    if not wanted:
        raise InvalidOrigin(f"no origin given: name one (Drafft's: e.g. {DRAFFT_EXAMPLE_ORIGIN})")
    info = server_info(admin_remote)
    if not info.is_admin:
        who = repr(info.username) if info.username else "an anonymous user"
        raise SetupError(
            f"{who} is not a server admin on {admin_remote.server_url}: turning CORS on changes the server's "
            "configuration, which only a server admin may do",
            fix=Fix("admin_requests", requests=tuple(admin_requests(admin_remote.server_url, info, wanted)),
                    purpose="cors"),
        )
    config = read_cors_config(admin_remote, info)
    if config is None:
        raise SetupError(
            f"{admin_remote.server_url} ({info.describe}) has no configuration API (neither /{_NODE_CONFIG} nor "
            f"/{_OLD_CONFIG})",
            fix=advice(f"turn CORS on in its own configuration for {', '.join(wanted)}, with credentials"),
        )
    bases = _node_bases(admin_remote, config.base)
    written = 0
    for base in bases:
        node = config if base == config.base else read_cors_config(admin_remote, info, base)
        if node is None:
            raise SetupError(f"{admin_remote.server_url}: the configuration of {base} cannot be read")
        for section, key, value in node.changes(wanted):
            admin_remote.request("PUT", f"{base}/{section}/{key}", db=False, json_body=value)
            written += 1
    after = read_cors_config(admin_remote, info, config.base) or config
    where = f" on {len(bases)} nodes" if len(bases) > 1 else ""
    detail = f"CORS {after.describe()}{where}" if written else f"CORS already {after.describe()}{where}"
    refused = []
    for origin in wanted:
        try:
            preflight = probe_preflight(admin_remote, origin)
        except SyncError as exc:
            refused.append(f"{origin} (not probed: {exc})")
            continue
        if not preflight.allowed or not preflight.credentials:
            refused.append(preflight.describe())
    if refused:
        detail += ("; yet " + "; ".join(refused) + ": a reverse proxy in front of the server may answer OPTIONS "
                   "itself or drop the Origin header")
    return SetupStep("cors", written > 0, detail)


# -- the check -----------------------------------------------------------------------------------


def _setup_fix(origins: Iterable[str]) -> Fix:
    return Fix("allow_origins", origins=tuple(origins), admin=True)


def cors_line(remote: RemoteDatabase, *, admin: bool, info: ServerInfo,
              origin: str = DRAFFT_EXAMPLE_ORIGIN) -> CheckLine:
    """The ``cors`` line of ``remote check``: a server admin reads the configuration (and a
    preflight confirms what it says); a member sends a preflight from ``origin``. Never a
    failure: Storyloom itself needs no CORS, only browser-based teammates do."""
    from storyloom.sync.server_terms import CheckLine

    config: CorsConfig | None = None
    unreadable = ""
    if admin:
        try:
            config = read_cors_config(remote, info)
        except RemoteError as exc:
            unreadable = f" (the configuration is not readable: {exc.status} {exc.error})"
    if config is not None:
        return _config_line(remote, config)
    try:
        preflight = probe_preflight(remote, origin)
    except SyncError as exc:
        return CheckLine("cors", "warn", f"unknown: the preflight request failed ({exc})", advice("check again"))
    who = "" if admin else " (only a server admin can read the configuration)"
    if preflight.allowed and preflight.credentials:
        return CheckLine("cors", "ok", f"{preflight.describe()}{who}{unreadable}")
    fix = Fix("allow_origins", origins=(origin,), admin=admin,
              requests=tuple(admin_requests(remote.server_url, info, [origin])))
    if preflight.allowed:
        return CheckLine("cors", "warn", f"{preflight.describe()}: PouchDB clients (Drafft) that sign in are "
                                         f"refused{who}{unreadable}", fix)
    return CheckLine(
        "cors", "warn",
        f"{preflight.describe()}: CORS is off or that origin is not allowed, so Drafft (or any browser-based "
        f"client) sending it cannot sync; Storyloom does not need CORS{who}{unreadable}", fix,
    )


def _config_line(remote: RemoteDatabase, config: CorsConfig) -> CheckLine:
    from storyloom.sync.server_terms import CheckLine

    example = [DRAFFT_EXAMPLE_ORIGIN]
    if not config.enabled:
        return CheckLine("cors", "warn", "off (stock CouchDB's default): Drafft and other browser-based clients "
                                         "cannot sync; Storyloom does not need it", _setup_fix(example))
    if not config.origins:
        return CheckLine("cors", "warn", "on, but no origin is allowed: browser-based clients are still refused",
                         _setup_fix(example))
    if not config.credentials:
        return CheckLine("cors", "warn", f"{config.describe()}: PouchDB clients (Drafft) sign in, which needs "
                                         "credentials on", _setup_fix(example))
    if "*" in config.origins:
        url = f"{remote.server_url}/{config.base}/cors/origins"
        return CheckLine(
            "cors", "warn",
            f"{config.describe()}: every web site a member opens may use the member's signed-in session",
            advice(f"list the origins your clients send instead of '*': curl -u ADMIN -X PUT {shlex.quote(url)} "
                   f"-d {shlex.quote(json.dumps(', '.join(example)))}"),
        )
    try:
        preflight = probe_preflight(remote, config.origins[0])
    except SyncError as exc:
        return CheckLine("cors", "ok", f"{config.describe()} (the preflight check failed: {exc})")
    if not (preflight.allowed and preflight.credentials):
        return CheckLine(
            "cors", "warn", f"{config.describe()} in the configuration, yet {preflight.describe()}",
            advice("let the reverse proxy in front of the server pass OPTIONS requests and the Origin header to "
                   "CouchDB"),
        )
    return CheckLine("cors", "ok", config.describe())


__all__ = [
    "DRAFFT_EXAMPLE_ORIGIN",
    "CorsConfig",
    "InvalidOrigin",
    "Preflight",
    "admin_requests",
    "configure_cors",
    "cors_admin_help",
    "cors_line",
    "normalize_origin",
    "probe_preflight",
    "read_cors_config",
]
