"""What a CouchDB server is and says, as set-up, the server check, CORS and the write probe
share it: :class:`ServerInfo` (``GET /`` and ``GET /_session``), a set-up's :class:`SetupStep`,
a check's :class:`CheckLine` and the :class:`SetupError` that stops a set-up."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from storyloom.errors import Fix, StoryloomError
from storyloom.sync.errors import RemoteUnauthorized
from storyloom.sync.remote import RemoteDatabase

Status = Literal["ok", "warn", "fail"]


class SetupError(StoryloomError):
    """The set-up cannot go on (not an admin in easy mode, credentials refused...); ``cause``
    says why, ``fix`` what to do."""

    code = "setup_refused"
    fixes = ("retype_credentials", "admin_or_advanced", "set_password", "reset_owner_password", "run_setup",
             "upgrade_server", "admin_requests", "advice", "sync_again")


@dataclass(frozen=True)
class ServerInfo:
    """What ``GET /`` and ``GET /_session`` say: the product and version, who we are signed in as."""

    url: str
    product: str
    version: str
    username: str | None
    roles: tuple[str, ...] = ()

    @property
    def is_admin(self) -> bool:
        return "_admin" in self.roles

    @property
    def describe(self) -> str:
        return f"{self.product} {self.version}".strip()


def _product(welcome: dict[str, Any]) -> tuple[str, str]:
    version = str(welcome.get("version") or "")
    if "couchdb" in welcome:
        return "CouchDB", version
    if "express-pouchdb" in welcome:
        return "pouchdb-server", version
    vendor = welcome.get("vendor")
    name = vendor.get("name") if isinstance(vendor, dict) else None
    return str(name or "a CouchDB-compatible server"), version


def server_info(remote: RemoteDatabase) -> ServerInfo:
    """Who and where: the server's product and version, and the signed-in user. Raises
    :class:`SetupError` when the credentials are refused; network errors are raised as they are."""
    try:
        welcome = remote.server_info(refresh=True)
        session = remote.session()
    except RemoteUnauthorized as exc:
        raise SetupError(
            f"{remote.server_url} refuses the user name {remote.username!r} with this password "
            f"({exc.reason or exc.error})", fix=Fix("retype_credentials", username=remote.username, ask="both")
        ) from None
    product, version = _product(welcome if isinstance(welcome, dict) else {})
    ctx = session.get("userCtx") or {}
    return ServerInfo(
        url=remote.server_url,
        product=product,
        version=version,
        username=ctx.get("name"),
        roles=tuple(ctx.get("roles") or ()),
    )


@dataclass(frozen=True)
class SetupStep:
    """One step of a set-up: what it is about, whether it changed the server, and how it went."""

    what: str
    changed: bool
    detail: str



@dataclass(frozen=True)
class CheckLine:
    """One line of the report: ``fix`` is what to do when ``status`` is not ``ok`` (a value each
    front end says in its words), or None."""

    name: str
    status: Status
    detail: str
    fix: Fix | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "detail": self.detail,
                "fix": None if self.fix is None else self.fix.to_json()}
