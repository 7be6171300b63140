"""Remote URLs, database names and the encoding of ids in URL paths (docs/protocol.md 3.1, 3.8)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import quote, unquote, urlsplit

from storyloom.sync.errors import InvalidRemote

DB_NAME_RE = re.compile(r"^[a-z][a-z0-9_$()+/-]*$")
SYSTEM_DBS = frozenset({"_users", "_replicator", "_global_changes"})
DB_NAME_RULE = (
    "a database name must start with a lowercase letter (a-z) and contain only lowercase "
    "letters, digits and the characters _ $ ( ) + - /"
)


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
    if parts.scheme not in ("http", "https"):
        raise InvalidRemote(
            f"invalid remote URL {_redact(url)!r}: it must start with http:// or https://, "
            "e.g. http://localhost:5984/mydb"
        )
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
