"""Remote URLs, database names and the encoding of ids in URL paths (docs/protocol.md 3.1, 3.8)."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from urllib.parse import quote, unquote, urlsplit

from storyloom.errors import Fix
from storyloom.sync.errors import InvalidRemote

DB_NAME_RE = re.compile(r"^[a-z][a-z0-9_$()+/-]*$")
SYSTEM_DBS = frozenset({"_users", "_replicator", "_global_changes"})
DB_NAME_RULE = (
    "a database name must start with a lowercase letter (a-z) and contain only lowercase "
    "letters, digits and the characters _ $ ( ) + - /"
)


DB_NAME_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz")
DB_NAME_CHARS = DB_NAME_FIRST | frozenset("0123456789_$()+-/")
LOOPBACK_HOSTS = frozenset({"localhost", "::1"})


def validate_db_name(name: str) -> str:
    """Return ``name`` if CouchDB accepts it as a database name, else raise InvalidRemote."""
    if name in SYSTEM_DBS:
        return name
    if not name:
        raise InvalidRemote("the database name is empty; " + DB_NAME_RULE)
    if not DB_NAME_RE.match(name):
        hint = ""
        if DB_NAME_RE.match(name.lower()):
            hint = f" (did you mean {name.lower()!r}?)"
        raise InvalidRemote(f"invalid database name {name!r}: {DB_NAME_RULE}{hint}")
    return name


def _describe_char(ch: str) -> str:
    if ch == " ":
        return "a space"
    if ch.isprintable():
        return repr(ch)
    return f"the character U+{ord(ch):04X}"


def normalize_database_name(name: str) -> tuple[str, list[str]]:
    """The database name a user typed, made valid where that is safe, with notes saying what changed.

    Uppercase letters are converted to lowercase (noted); any other character outside the rule
    (a space, ``@``, ``!``, ``é``...) is refused with :class:`InvalidRemote` naming the character
    and its position (counted from 1), because guessing a replacement could point two people at
    two different databases. CouchDB's system databases (``_users``...) are refused too: a
    project never lives in one.
    """
    if not isinstance(name, str) or not name:
        raise InvalidRemote("the database name is empty; " + DB_NAME_RULE)
    notes: list[str] = []
    chars: list[str] = []
    for position, ch in enumerate(name, start=1):
        lowered = ch.lower() if ch.isupper() else ch
        allowed = DB_NAME_FIRST if position == 1 else DB_NAME_CHARS
        if lowered in allowed:
            chars.append(lowered)
            continue
        if position == 1 and lowered in DB_NAME_CHARS:
            raise InvalidRemote(
                f"invalid database name {name!r}: it starts with {_describe_char(ch)} (position 1); "
                + DB_NAME_RULE
            )
        raise InvalidRemote(
            f"invalid database name {name!r}: {_describe_char(ch)} at position {position} is not allowed; "
            + DB_NAME_RULE
        )
    normalized = "".join(chars)
    if normalized != name:
        notes.append(f"the database name was converted to lowercase: {name!r} becomes {normalized!r}")
    return normalized, notes


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` names this machine (``localhost``, ``127.x.x.x``, ``::1``)."""
    host = host.strip("[]").lower()
    if host in LOOPBACK_HOSTS or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def insecure_http_warning(url: str) -> str | None:
    """A warning for a plain ``http://`` URL whose host is not this machine, else None: the
    password (sent with every request) and the project would cross the network unencrypted."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if parts.scheme.lower() != "http" or not parts.hostname or is_loopback_host(parts.hostname):
        return None
    return (
        f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]} is plain HTTP to another machine: the password "
        "and the project travel unencrypted and can be read on the way; use https:// (a reverse "
        "proxy with a TLS certificate in front of CouchDB)"
    )


def _scheme_problem(url: str, what: str, example: str) -> str | None:
    """Why ``url`` does not start with ``http://`` or ``https://``, or None when it does."""
    shown = _redact(url)
    if "://" not in url:
        return f"the {what} {shown!r} has no scheme: it must start with http:// or https://, e.g. {example}"
    scheme = url.split("://", 1)[0]
    if scheme.lower() not in ("http", "https"):
        return (
            f"the {what} {shown!r} uses the scheme {scheme + '://'!r}: it must start with http:// or https://, "
            f"e.g. {example}"
        )
    return None


def check_server_url(url: str) -> tuple[str, list[str]]:
    """Validate a server URL (``http(s)://host[:port][/prefix]``, no database name): return it
    normalized (lowercase scheme and host, no trailing slash) and the warnings to show (plain
    HTTP to another machine). Raises :class:`InvalidRemote` saying what is wrong: another
    scheme (named), no host, credentials in the URL, a query string."""
    if not isinstance(url, str) or not url.strip():
        raise InvalidRemote("the server URL is empty; expected http(s)://host[:port], e.g. https://couch.example.com")
    url = url.strip()
    problem = _scheme_problem(url, "server URL", "https://couch.example.com")
    if problem:
        raise InvalidRemote(problem)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise InvalidRemote(f"invalid server URL {_redact(url)!r}: {exc}") from None
    if not parts.hostname:
        raise InvalidRemote(f"invalid server URL {_redact(url)!r}: no host name")
    if parts.username is not None or parts.password is not None:
        raise InvalidRemote(f"invalid server URL {_redact(url)!r}: it holds a user name or password",
                            fix=Fix("credentials_apart"))
    if parts.query or parts.fragment:
        raise InvalidRemote(f"invalid server URL {_redact(url)!r}: remove the query string or fragment")
    host = parts.hostname
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host if port is None else f"{host}:{port}"
    prefix = "".join("/" + s for s in parts.path.split("/") if s)
    normalized = f"{parts.scheme.lower()}://{netloc}{prefix}"
    warning = insecure_http_warning(normalized)
    return normalized, [warning] if warning else []


def check_username(username: str) -> str:
    """A remote user name as CouchDB and HTTP Basic auth accept it: not empty, no ``:`` (Basic auth
    splits there), no leading ``_`` (reserved by CouchDB), no control characters or surrounding spaces."""
    if not isinstance(username, str) or not username:
        raise InvalidRemote("the user name is empty", fix=Fix("give_username"))
    if username != username.strip():
        raise InvalidRemote(f"the user name {username!r} starts or ends with a space; remove it")
    if username.startswith("_"):
        raise InvalidRemote(f"the user name {username!r} starts with '_', which CouchDB reserves for itself")
    for position, ch in enumerate(username, start=1):
        if ch == ":":
            raise InvalidRemote(
                f"the user name {username!r} has ':' at position {position}: HTTP sign-in cannot carry it"
            )
        if ord(ch) < 32 or ord(ch) == 127:
            raise InvalidRemote(f"the user name {username!r} has a control character at position {position}")
    return username


def encode_db_name(name: str) -> str:
    """Percent-encode a database name for a URL path: ``a/b`` becomes ``a%2Fb``."""
    return quote(name, safe="")


def encode_doc_id(doc_id: str) -> str:
    """Encode a document id for a URL path.

    ``_design/`` and ``_local/`` keep their literal slash; everything else is encoded,
    including ``/``, ``+`` (CouchDB would read ``+`` as a space) and non-ASCII bytes.
    """
    for prefix in ("_design/", "_local/"):
        if doc_id.startswith(prefix) and len(doc_id) > len(prefix):
            return prefix + quote(doc_id[len(prefix) :], safe="")
    return quote(doc_id, safe="")


def encode_attachment_name(name: str) -> str:
    """Encode an attachment name per ``/`` segment (``a/b.txt`` stays ``a/b.txt``)."""
    return "/".join(quote(part, safe="") for part in name.split("/"))


@dataclass(frozen=True)
class RemoteURL:
    """A parsed remote database URL. ``server`` has no credentials and no trailing slash."""

    server: str
    db_name: str
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def db_url(self) -> str:
        return f"{self.server}/{encode_db_name(self.db_name)}"

    def __str__(self) -> str:
        return self.db_url


def parse_remote_url(url: str) -> RemoteURL:
    """Parse ``http(s)://[user[:password]@]host[:port][/prefix]/dbname``.

    The last path segment is the database name (percent-decoded, so ``a%2Fb`` names the
    database ``a/b``); any segments before it are the server's path prefix (a CouchDB
    behind a reverse proxy at ``/couch/``). Raises :class:`InvalidRemote` with a message
    that says what is wrong.
    """
    if not isinstance(url, str) or not url.strip():
        raise InvalidRemote("the remote URL is empty; expected http(s)://host:port/dbname")
    url = url.strip()
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise InvalidRemote(f"invalid remote URL {url!r}: {exc}") from None
    problem = _scheme_problem(url, "remote URL", "https://couch.example.com/mydb")
    if problem:
        raise InvalidRemote(problem)
    if not parts.hostname:
        raise InvalidRemote(f"invalid remote URL {_redact(url)!r}: no host name")
    if parts.query or parts.fragment:
        raise InvalidRemote(
            f"invalid remote URL {_redact(url)!r}: remove the query string or fragment; "
            "the URL must end with the database name"
        )
    segments = [s for s in parts.path.split("/") if s]
    if not segments:
        raise InvalidRemote(
            f"invalid remote URL {_redact(url)!r}: it must end with the database name, "
            "e.g. http://localhost:5984/mydb"
        )
    db_name = validate_db_name(unquote(segments[-1]))
    prefix = "".join("/" + s for s in segments[:-1])
    host = parts.hostname
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host if port is None else f"{host}:{port}"
    server = f"{parts.scheme}://{netloc}{prefix}"
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    return RemoteURL(server=server, db_name=db_name, username=username, password=password)


def _redact(url: str) -> str:
    """The URL with any password replaced by ``***``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return parts._replace(netloc=f"{user}:***@{netloc}").geturl()


def redact_url(url: str) -> str:
    """Public helper: the URL with its password hidden, for messages and logs."""
    return _redact(url)
