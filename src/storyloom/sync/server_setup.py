"""Setting up a CouchDB database for a team: easy mode (with admin credentials), invitations,
and advanced mode (a restricted member who may create nothing).

**Easy mode** (:func:`easy_setup`) checks the server (reachable, version, credentials, admin),
creates the database when it is absent, makes it private to its members (``_security``: the
members already listed are kept, the chosen users are added) and installs or upgrades the lock
rules (:data:`LOCK_DESIGN_DOC`). Every step first reads what is there and writes only what
differs, so running it twice changes nothing (not even the database's ``update_seq``).

**Invite** (:func:`invite`) creates a ``_users`` entry with a generated password, adds the user
to the members and returns the one command the teammate runs to join.

**Advanced mode** (:meth:`AdvancedCheck.run`) writes nothing: it finds what is missing (the
database, the membership, the lock rules) and names the requests an admin must run
(:func:`admin_requests`: ``curl`` lines with the names filled in and no password).

The lock rules (``validate_doc_update``, run by the server on every write, replicated ones
included) make the server itself refuse a member's write to a document locked by someone else.
The lock lives in the document (``locked``, ``lockedBy``, ``lockedAt``, ``lockBroken``) because a
validate function sees only the old and new revision of the document being written and the
user (``userCtx``), never another document. Server admins pass. For a member ``u``:

1. the old revision is locked by someone else: allowed only a *break* (the new revision is
   unlocked, ``lockBroken.by`` is ``u``, and nothing else changed: every field equal apart from
   the lock fields, the ``modified``/``modifiedBy`` stamps, ``_rev`` and ``_revisions``, and
   attachments compared by digest), or a conflict-resolution tombstone (``_deleted`` with
   ``supersededBy``); anything else is forbidden, "locked by <holder> since <time>";
2. the new revision is locked in another user's name: forbidden, unless that lock is inherited
   unchanged from the old revision (nobody takes a lock in someone else's name).

For a replicated write (``new_edits=false``) the server passes the new revision's parent as the
old document, so an edit made offline on an unlocked parent still goes through (it becomes a
conflict, which Storyloom lists and merges).
"""

from __future__ import annotations

import json
import secrets
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from storyloom.errors import StoryloomError
from storyloom.sync.errors import RemoteForbidden, RemoteNotFound, RemoteUnauthorized
from storyloom.sync.remote import RemoteDatabase
from storyloom.sync.urls import check_username, encode_db_name
from storyloom.sync.write_probe import replicated_writes_step

LOCK_DESIGN_ID = "_design/storyloom"
#: Raised whenever the rules below change: set-up replaces an older version, keeps a newer one.
LOCK_RULES_VERSION = 1

# ES5 only (CouchDB 2's SpiderMonkey 1.8.5 runs it too), and no single quotes, so the design
# document fits in a single-quoted shell argument (the admin's curl request).
VALIDATE_DOC_UPDATE = """function (newDoc, oldDoc, userCtx, secObj) {
  var roles = (userCtx && userCtx.roles) || [];
  if (roles.indexOf("_admin") !== -1) { return; }
  var user = userCtx ? userCtx.name : null;
  var IGNORED = {_rev: true, _revisions: true, _attachments: true, locked: true, lockedBy: true,
                 lockedAt: true, lockBroken: true, modified: true, modifiedBy: true};
  function canonical(value) {
    if (value === null || typeof value !== "object") { return JSON.stringify(value); }
    if (Array.isArray(value)) {
      var items = [];
      for (var i = 0; i < value.length; i++) { items.push(canonical(value[i])); }
      return "[" + items.join(",") + "]";
    }
    var keys = Object.keys(value).sort();
    var parts = [];
    for (var j = 0; j < keys.length; j++) {
      if (value[keys[j]] !== undefined) { parts.push(JSON.stringify(keys[j]) + ":" + canonical(value[keys[j]])); }
    }
    return "{" + parts.join(",") + "}";
  }
  function digests(doc) {
    var found = {};
    var atts = doc._attachments || {};
    for (var name in atts) {
      if (Object.prototype.hasOwnProperty.call(atts, name)) { found[name] = atts[name].digest || null; }
    }
    return canonical(found);
  }
  function sameApartFromLock(a, b) {
    var keys = {};
    var k;
    for (k in a) { if (Object.prototype.hasOwnProperty.call(a, k)) { keys[k] = true; } }
    for (k in b) { if (Object.prototype.hasOwnProperty.call(b, k)) { keys[k] = true; } }
    for (k in keys) {
      if (!IGNORED[k] && canonical(a[k]) !== canonical(b[k])) { return false; }
    }
    return digests(a) === digests(b);
  }
  function describe(doc) {
    return "locked by " + doc.lockedBy + (doc.lockedAt ? " since " + doc.lockedAt : "");
  }
  var oldLocked = !!(oldDoc && !oldDoc._deleted && oldDoc.locked);
  if (oldLocked && oldDoc.lockedBy !== user) {
    var isBreak = !newDoc._deleted && !newDoc.locked && !!newDoc.lockBroken &&
                  newDoc.lockBroken.by === user && sameApartFromLock(oldDoc, newDoc);
    var isResolution = newDoc._deleted === true && !!newDoc.supersededBy;
    if (!isBreak && !isResolution) {
      throw({forbidden: newDoc._id + " is " + describe(oldDoc) +
             ": only the holder may change it (or break the lock explicitly)"});
    }
  }
  if (newDoc.locked && newDoc.lockedBy !== user) {
    var inherited = oldLocked && oldDoc.lockedBy === newDoc.lockedBy && oldDoc.lockedAt === newDoc.lockedAt;
    if (!inherited) {
      throw({forbidden: user + " cannot lock " + newDoc._id + " in the name of " + newDoc.lockedBy});
    }
  }
}"""

#: The design document easy set-up installs (and an admin installs by hand in advanced mode).
LOCK_DESIGN_DOC: dict[str, Any] = {
    "_id": LOCK_DESIGN_ID,
    "language": "javascript",
    "version": LOCK_RULES_VERSION,
    "comment": "Storyloom lock rules: a member may not change a document locked by someone else "
    "(except to break the lock), nor lock one in the name of someone else.",
    "validate_doc_update": VALIDATE_DOC_UPDATE,
}


class SetupError(StoryloomError):
    """The set-up cannot go on (not an admin in easy mode, credentials refused...); the message
    says why and what to do."""


# -- the server ----------------------------------------------------------------------------------


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
            f"({exc.reason or exc.error}); check both and set them again (storyloom remote set)"
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


# -- easy mode -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SetupStep:
    """One step of a set-up: what it is about, whether it changed the server, and how it went."""

    what: str
    changed: bool
    detail: str


@dataclass
class SetupReport:
    server: ServerInfo
    steps: list[SetupStep] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(step.changed for step in self.steps)

    def to_json(self) -> dict[str, Any]:
        return {
            "server": {"url": self.server.url, "product": self.server.product, "version": self.server.version,
                       "username": self.server.username, "admin": self.server.is_admin},
            "changed": self.changed,
            "steps": [{"what": s.what, "changed": s.changed, "detail": s.detail} for s in self.steps],
        }


def _require_admin(remote: RemoteDatabase, info: ServerInfo, action: str) -> None:
    if info.username is None:
        raise SetupError(
            f"{remote.server_url} did not sign in {remote.username!r} (the server answered as an anonymous "
            f"user): {action} needs a server admin's user name and password"
        )
    if not info.is_admin:
        raise SetupError(
            f"{info.username!r} is not a server admin on {remote.server_url}: {action} needs admin credentials. "
            "Either set the remote with an admin's user name, or use advanced mode (--mode advanced) and ask an "
            "admin to run the requests that `storyloom remote setup` lists"
        )


def ensure_database(remote: RemoteDatabase) -> SetupStep:
    """Create the database when it does not exist (a server admin's client)."""
    if remote.exists():
        return SetupStep("database", False, f"database {remote.db_name!r} exists")
    created = remote.create()
    detail = f"database {remote.db_name!r} created" if created else f"database {remote.db_name!r} exists"
    return SetupStep("database", created, detail)


def _names(section: Any) -> list[str]:
    names = section.get("names") if isinstance(section, dict) else None
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def ensure_members(remote: RemoteDatabase, users: Iterable[str]) -> SetupStep:
    """Add ``users`` to the database's members, keeping every member, role and admin already
    listed. A database with members is private to them (and to admins). Writes only when a user
    is missing."""
    wanted = [check_username(u) for u in users]
    current = remote.security() or {}
    members = dict(current.get("members") or {})
    names = _names(members)
    missing = [u for u in wanted if u not in names]
    if not missing and names:
        listed = ", ".join(repr(n) for n in names)
        return SetupStep("members", False, f"members already: {listed}")
    if not wanted and not names:
        raise SetupError(
            f"the database {remote.db_name!r} has no members, so anyone who can reach the server can read and "
            "write it; name at least one member"
        )
    members["names"] = names + missing
    members.setdefault("roles", [])
    security = dict(current)
    security["members"] = members
    admins = dict(security.get("admins") or {})
    admins.setdefault("names", [])
    admins.setdefault("roles", [])
    security["admins"] = admins
    remote.put_security(security)
    added = ", ".join(repr(u) for u in missing)
    return SetupStep("members", True, f"added {added} to the members (only members and admins may read or write)")


def lock_rules_state(doc: dict[str, Any] | None) -> str:
    """``missing``, ``current``, ``outdated`` (an older version, or the same version edited) or
    ``newer`` (installed by a newer Storyloom: left alone)."""
    if doc is None or doc.get("_deleted"):
        return "missing"
    version = doc.get("version")
    if isinstance(version, int) and version > LOCK_RULES_VERSION:
        return "newer"
    if version == LOCK_RULES_VERSION and doc.get("validate_doc_update") == VALIDATE_DOC_UPDATE:
        return "current"
    return "outdated"


def read_lock_rules(remote: RemoteDatabase) -> dict[str, Any] | None:
    try:
        return remote.get(LOCK_DESIGN_ID)
    except RemoteNotFound:
        return None


def ensure_lock_rules(remote: RemoteDatabase) -> SetupStep:
    """Install the lock rules, or upgrade an older version; a current or newer one is left as is."""
    existing = read_lock_rules(remote)
    state = lock_rules_state(existing)
    if state == "current":
        return SetupStep("lock rules", False, f"lock rules version {LOCK_RULES_VERSION} installed")
    if state == "newer":
        assert existing is not None
        return SetupStep(
            "lock rules", False, f"lock rules version {existing.get('version')} (newer than this Storyloom's) kept"
        )
    doc = dict(LOCK_DESIGN_DOC)
    if existing is not None:
        doc["_rev"] = existing["_rev"]
    remote.put(doc)
    old_version = existing.get("version") if existing is not None else None
    verb = "installed" if state == "missing" else f"upgraded from version {old_version}"
    return SetupStep("lock rules", True, f"lock rules version {LOCK_RULES_VERSION} {verb}")


def easy_setup(remote: RemoteDatabase, members: Iterable[str] | None = None,
               on_step: Callable[[SetupStep], None] | None = None) -> SetupReport:
    """Set up ``remote``'s database with the admin credentials ``remote`` carries: check the
    server, create the database if absent, add ``members`` (default: the signed-in user) to its
    members, install or upgrade the lock rules, probe replicated writes
    (``storyloom.sync.write_probe``). Idempotent. Raises :class:`SetupError` when the
    user is not a server admin (advanced mode is the way then). ``on_step(step)`` is called after
    each step (the app shows them as they happen)."""
    info = server_info(remote)
    _require_admin(remote, info, "easy set-up")
    report = SetupReport(info)

    def done(step: SetupStep) -> None:
        report.steps.append(step)
        if on_step is not None:
            on_step(step)

    done(SetupStep("server", False, f"{info.describe} at {info.url}, signed in as admin {info.username!r}"))
    done(ensure_database(remote))
    chosen = list(members) if members is not None else [info.username or ""]
    done(ensure_members(remote, chosen))
    done(ensure_lock_rules(remote))
    done(replicated_writes_step(remote))  # raises SetupError when the server drops them
    return report


# -- invitations ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Invitation:
    """A teammate invited: ``password`` is the generated one (shown once), or None when the user
    existed already (their password is theirs and was not changed)."""

    username: str
    password: str | None = field(repr=False)
    database_url: str
    join_command: str
    created: bool


def join_command(database_url: str, username: str) -> str:
    """The one command a teammate runs to join (the password is asked for, never in argv)."""
    return f"storyloom clone {shlex.quote(database_url)} --username {shlex.quote(username)}"


def invite(remote: RemoteDatabase, username: str) -> Invitation:
    """Create the server user ``username`` with a generated password (unless it exists) and add
    it to the database's members; needs the admin credentials of easy mode."""
    check_username(username)
    info = server_info(remote)
    _require_admin(remote, info, "inviting a teammate")
    if not remote.exists():
        raise SetupError(
            f"the database {remote.db_name!r} does not exist on {remote.server_url} yet; "
            "run `storyloom remote setup` first"
        )
    user_path = "_users/" + encode_db_name(f"org.couchdb.user:{username}").replace("%3A", ":")
    response = remote.request("GET", user_path, db=False, ok_statuses=(404,))
    password: str | None = None
    if response.status_code == 404:
        password = secrets.token_urlsafe(18)
        doc = {"_id": f"org.couchdb.user:{username}", "name": username, "password": password,
               "roles": [], "type": "user"}
        remote.request("PUT", user_path, db=False, json_body=doc)
    ensure_members(remote, [username])
    return Invitation(
        username=username,
        password=password,
        database_url=remote.db_url,
        join_command=join_command(remote.db_url, username),
        created=password is not None,
    )


# -- advanced mode -------------------------------------------------------------------------------


def _security_body(user: str) -> dict[str, Any]:
    return {"admins": {"names": [], "roles": []}, "members": {"names": [user], "roles": []}}


def _design_body(rev: str | None = None) -> dict[str, Any]:
    body = {k: v for k, v in LOCK_DESIGN_DOC.items() if k != "_id"}
    if rev:
        body["_rev"] = rev
    return body


def _curl(method: str, url: str, body: dict[str, Any] | None = None) -> str:
    parts = ["curl", "-u", "ADMIN", "-X", method, shlex.quote(url)]
    if body is not None:
        parts += ["-H", shlex.quote("Content-Type: application/json"),
                  "-d", shlex.quote(json.dumps(body, separators=(",", ":")))]
    return " ".join(parts)


def admin_requests(server: str, db: str, user: str, *, design_rev: str | None = None) -> list[str]:
    """The three requests of the admin set-up, as ``curl`` lines (``-u ADMIN``: curl asks for the
    admin's password, which never appears): create the database, make ``user`` its member, install
    the lock rules (``design_rev``: the current revision, to upgrade an installed version). The
    ``_security`` request replaces the members list: if the database has members already, list
    them too."""
    db_url = f"{server.rstrip('/')}/{encode_db_name(db)}"
    return [
        _curl("PUT", db_url),
        _curl("PUT", f"{db_url}/_security", _security_body(user)),
        _curl("PUT", f"{db_url}/{LOCK_DESIGN_ID}", _design_body(design_rev)),
    ]


@dataclass
class AdvancedCheck:
    """What a restricted member finds on the server, read-only: whether the database exists,
    whether the user may use it, the lock rules' state, and what an admin must do about it."""

    server: str
    database: str
    username: str
    database_exists: bool | None = None
    member: bool | None = None
    lock_rules: str = "unknown"
    design_rev: str | None = None
    missing: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.missing

    @classmethod
    def run(cls, remote: RemoteDatabase) -> AdvancedCheck:
        """Check ``remote`` as its user; creates and modifies nothing."""
        info = server_info(remote)
        if info.username is None:
            raise SetupError(
                f"{remote.server_url} did not sign in {remote.username!r}: check the user name and password"
            )
        check = cls(remote.server_url, remote.db_name, info.username)
        try:
            remote.info()
            check.database_exists, check.member = True, True
        except RemoteNotFound:
            check.database_exists, check.member = False, False
        except (RemoteUnauthorized, RemoteForbidden):
            # Signed in (checked above) yet refused: the database exists and the user is not a member.
            check.database_exists, check.member = True, False
        if check.member:
            design = read_lock_rules(remote)
            check.lock_rules = lock_rules_state(design)
            check.design_rev = design.get("_rev") if design else None
        elif check.database_exists is False:
            check.lock_rules = "missing"
        check._explain()
        return check

    def _explain(self) -> None:
        requests = admin_requests(self.server, self.database, self.username, design_rev=self.design_rev)
        where = f"{self.database!r} on {self.server}"
        needed: list[int] = []
        if self.database_exists is False:
            self.missing.append(f"the database {where} does not exist (a member cannot create it)")
            needed += [0, 1, 2]
        elif self.member is False:
            self.missing.append(
                f"{self.username!r} is not a member of the database {where} (the server refuses to let them read it)"
            )
            needed += [1]
            self.missing.append("whether the lock rules are installed cannot be seen until then")
            needed += [2]
        elif self.lock_rules == "missing":
            self.missing.append(f"the lock rules ({LOCK_DESIGN_ID}) are not installed in {where}")
            needed += [2]
        elif self.lock_rules == "outdated":
            self.missing.append(
                f"the lock rules in {where} are older than this Storyloom's (version {LOCK_RULES_VERSION})"
            )
            needed += [2]
        self.requests = [requests[i] for i in needed]

    def explain(self) -> str:
        """The whole message for the user: what is missing and the admin's requests."""
        if self.ok:
            return (
                f"{self.database!r} on {self.server} is ready: it exists, {self.username!r} is a member, "
                f"and the lock rules (version {LOCK_RULES_VERSION}) are installed"
            )
        lines = ["Not ready for advanced mode:"]
        lines += [f"  - {m}" for m in self.missing]
        lines.append("Ask a server admin to run (curl asks for the admin's password; in the _security request, keep "
                     "the names of members already listed):")
        lines += [f"  {r}" for r in self.requests]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "server": self.server, "database": self.database, "username": self.username,
            "database_exists": self.database_exists, "member": self.member, "lock_rules": self.lock_rules,
            "ok": self.ok, "missing": list(self.missing), "requests": list(self.requests),
        }


__all__ = [
    "LOCK_DESIGN_DOC",
    "LOCK_DESIGN_ID",
    "LOCK_RULES_VERSION",
    "AdvancedCheck",
    "Invitation",
    "ServerInfo",
    "SetupError",
    "SetupReport",
    "SetupStep",
    "admin_requests",
    "easy_setup",
    "ensure_database",
    "ensure_lock_rules",
    "ensure_members",
    "invite",
    "join_command",
    "lock_rules_state",
    "server_info",
]
