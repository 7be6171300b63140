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
included) live in :mod:`storyloom.sync.lock_rules`; their names are imported here too.
"""

from __future__ import annotations

import json
import secrets
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from storyloom.errors import Fix
from storyloom.sync.errors import RemoteForbidden, RemoteNotFound, RemoteUnauthorized
from storyloom.sync.lock_rules import (
    DEFAULT_STALE_LOCK_MINUTES,
    LOCK_DESIGN_DOC,
    LOCK_DESIGN_ID,
    LOCK_RULES_VERSION,
    VALIDATE_DOC_UPDATE,
    lock_design_doc,
    lock_rules_state,
)
from storyloom.sync.remote import RemoteDatabase
from storyloom.sync.server_terms import ServerInfo, SetupError, SetupStep, server_info
from storyloom.sync.urls import check_username, encode_db_name
from storyloom.sync.write_probe import replicated_writes_step

# -- easy mode -----------------------------------------------------------------------------------


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
            f"{info.username!r} is not a server admin on {remote.server_url}: {action} needs admin credentials",
            fix=Fix("admin_or_advanced"),
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


def _security_with_sections(remote: RemoteDatabase) -> dict[str, Any]:
    current = remote.security() or {}
    security = dict(current)
    for section in ("admins", "members"):
        part = dict(security.get(section) or {})
        part["names"] = _names(part)
        roles = part.get("roles")
        part["roles"] = [r for r in roles if isinstance(r, str)] if isinstance(roles, list) else []
        security[section] = part
    return security


def ensure_members(remote: RemoteDatabase, users: Iterable[str]) -> SetupStep:
    """Add ``users`` to the database's members, keeping every member, role and admin already
    listed. A database with members is private to them (and to admins). Writes only when a user
    is missing."""
    wanted = [check_username(u) for u in users]
    security = _security_with_sections(remote)
    names = security["members"]["names"]
    missing = [u for u in wanted if u not in names]
    if not missing and names:
        listed = ", ".join(repr(n) for n in names)
        return SetupStep("members", False, f"members already: {listed}")
    if not wanted and not names:
        raise SetupError(
            f"the database {remote.db_name!r} has no members, so anyone who can reach the server can read and "
            "write it; name at least one member"
        )
    security["members"]["names"] = names + missing
    remote.put_security(security)
    added = ", ".join(repr(u) for u in missing)
    return SetupStep("members", True, f"added {added} to the members (only members and admins may read or write)")


def ensure_owners(remote: RemoteDatabase, owners: Iterable[str]) -> SetupStep:
    """Record ``owners`` as the project's owners: the database's admins in ``_security`` (the lock
    rules let them break any lock; they may also update the lock rules and the members). Every
    admin name and role already listed is kept. Writes only when an owner is missing."""
    wanted = [check_username(u) for u in owners]
    security = _security_with_sections(remote)
    names = security["admins"]["names"]
    missing = [u for u in wanted if u not in names]
    if not missing:
        listed = ", ".join(repr(n) for n in names) or "none"
        return SetupStep("owners", False, f"owners already: {listed}")
    security["admins"]["names"] = names + missing
    remote.put_security(security)
    added = ", ".join(repr(u) for u in missing)
    return SetupStep("owners", True, f"recorded {added} as the project's owner (a database admin: may break any lock)")


def project_owners(remote: RemoteDatabase) -> list[str] | None:
    """The project's owners (the database admins' names in ``_security``), or None when this user
    may not read ``_security``."""
    try:
        security = remote.security() or {}
    except (RemoteForbidden, RemoteUnauthorized):
        return None
    return _names(security.get("admins"))


def _user_path(username: str) -> str:
    return "_users/" + encode_db_name(f"org.couchdb.user:{username}").replace("%3A", ":")


def read_user(remote: RemoteDatabase, username: str) -> dict[str, Any] | None:
    """The ``_users`` document of ``username`` (a server admin's client), or None when absent."""
    response = remote.request("GET", _user_path(username), db=False, ok_statuses=(404,))
    if response.status_code == 404:
        return None
    user: dict[str, Any] = response.json()  # a _users document
    return user


def put_user(remote: RemoteDatabase, username: str, password: str, *, existing: dict[str, Any] | None = None) -> None:
    """Create ``username``'s server account with ``password``, or give an existing one (its
    ``_users`` document, ``existing``) a new password; the server keeps only a hash, and the old
    password stops working at once."""
    if existing is not None:
        doc = {k: v for k, v in existing.items() if k not in ("derived_key", "salt", "iterations",
                                                             "password_scheme", "pbkdf2_prf")}
        doc["password"] = password
    else:
        doc = {"_id": f"org.couchdb.user:{username}", "name": username, "password": password,
               "roles": [], "type": "user"}
    remote.request("PUT", _user_path(username), db=False, json_body=doc)


def signs_in(remote: RemoteDatabase, username: str, password: str) -> bool:
    """Whether the server signs ``username`` in with ``password`` (``remote`` gives the server)."""
    probe = remote.as_user(username, password)
    try:
        ctx = probe.session().get("userCtx") or {}
    except RemoteUnauthorized:
        return False
    finally:
        probe.close()
    return ctx.get("name") == username


def ensure_owner_user(remote: RemoteDatabase, owner: str, password: str | None) -> SetupStep:
    """Make sure the owner's own sync user exists on the server and signs in with the password kept
    on this machine: create it when absent (``password`` required then); an existing account is
    never changed here. Raises :class:`SetupError` when the account exists with another password."""
    check_username(owner)
    existing = read_user(remote, owner)
    if existing is None:
        if password is None:
            raise SetupError(
                f"the server has no user {owner!r} yet, and no password for it is kept on this machine",
                fix=Fix("set_password", username=owner),
            )
        put_user(remote, owner, password)
        return SetupStep("owner", True, f"created the server user {owner!r}, who syncs this project as its owner")
    if password is not None and not signs_in(remote, owner, password):
        raise SetupError(
            f"the server user {owner!r} exists, but the password kept on this machine does not sign it in",
            fix=Fix("reset_owner_password", username=owner),
        )
    return SetupStep("owner", False, f"the server user {owner!r} exists")


def read_lock_rules(remote: RemoteDatabase) -> dict[str, Any] | None:
    try:
        return remote.get(LOCK_DESIGN_ID)
    except RemoteNotFound:
        return None


def ensure_lock_rules(remote: RemoteDatabase, stale_minutes: int = DEFAULT_STALE_LOCK_MINUTES) -> SetupStep:
    """Install the lock rules made for the project's stale-lock time, or upgrade an older version
    or rules made for another stale time; current or newer rules are left as they are."""
    existing = read_lock_rules(remote)
    state = lock_rules_state(existing, stale_minutes)
    if state == "current":
        return SetupStep("lock rules", False, f"lock rules version {LOCK_RULES_VERSION} installed "
                                              f"(locks stale after {stale_minutes} idle minutes)")
    if state == "newer":
        assert existing is not None
        return SetupStep(
            "lock rules", False, f"lock rules version {existing.get('version')} (newer than this Storyloom's) kept"
        )
    doc = lock_design_doc(stale_minutes)
    if existing is not None:
        doc["_rev"] = existing["_rev"]
    remote.put(doc)
    old_version = existing.get("version") if existing is not None else None
    if state == "missing":
        verb = "installed"
    elif old_version == LOCK_RULES_VERSION:
        verb = "installed again for the project's stale-lock time"
    else:
        verb = f"upgraded from version {old_version}"
    return SetupStep("lock rules", True, f"lock rules version {LOCK_RULES_VERSION} {verb} "
                                         f"(locks stale after {stale_minutes} idle minutes)")


def easy_setup(remote: RemoteDatabase, members: Iterable[str] | None = None,
               on_step: Callable[[SetupStep], None] | None = None, *, owner: str | None = None,
               owner_password: str | None = None, stale_minutes: int = DEFAULT_STALE_LOCK_MINUTES) -> SetupReport:
    """Set up ``remote``'s database with the server admin's credentials ``remote`` carries: check
    the server, create the database if absent, make sure the ``owner``'s own sync user exists
    (created with ``owner_password`` when absent, see :func:`ensure_owner_user`), record the owner
    among the database's admins (the project's owners), add ``members`` (default: the owner, or
    the signed-in admin when there is no owner) to its members, install or upgrade the lock rules
    (``stale_minutes``: the project's stale-lock time, written into them), probe replicated writes
    (``storyloom.sync.write_probe``). Idempotent. Raises
    :class:`SetupError` when the user is not a server admin (advanced mode is the way then).
    ``on_step(step)`` is called after each step (the app shows them as they happen).

    Without an ``owner`` (or with the admin's own name) the admin is the project's user, as easy
    mode worked before owners: the lock rules then treat the admin as a user like any other."""
    info = server_info(remote)
    _require_admin(remote, info, "easy set-up")
    report = SetupReport(info)

    def done(step: SetupStep) -> None:
        report.steps.append(step)
        if on_step is not None:
            on_step(step)

    done(SetupStep("server", False, f"{info.describe} at {info.url}, signed in as admin {info.username!r}"))
    done(ensure_database(remote))
    separate_owner = owner if owner is not None and owner != info.username else None
    if separate_owner is not None:
        done(ensure_owner_user(remote, separate_owner, owner_password))
        done(ensure_owners(remote, [separate_owner]))
    default_member = separate_owner if separate_owner is not None else info.username
    chosen = list(members) if members is not None else [default_member or ""]
    if separate_owner is not None and separate_owner not in chosen:
        chosen.insert(0, separate_owner)
    done(ensure_members(remote, chosen))
    done(ensure_lock_rules(remote, stale_minutes))
    done(replicated_writes_step(remote))  # raises SetupError when the server drops them
    return report


# -- invitations ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Invitation:
    """A teammate invited: ``password`` is the generated one (shown once), or None when the user
    existed already and kept their password. ``reset`` says an existing user was given a new
    password (the old one no longer works)."""

    username: str
    password: str | None = field(repr=False)
    database_url: str
    created: bool
    server: str = ""
    database: str = ""
    reset: bool = False

    @property
    def join(self) -> Fix:
        """How the teammate joins (the password is asked for, never in a command line): each
        front end says it, the CLI as the one command to run."""
        return Fix("join_project", url=self.database_url, username=self.username)

    def to_json(self) -> dict[str, Any]:
        """What a script needs to hand the invitation over (the password included, once); a
        front end adds how to join, in its words."""
        return {"username": self.username, "password": self.password, "server": self.server,
                "database": self.database}


def new_password() -> str:
    """A generated password: 24 URL-safe characters (144 random bits)."""
    return secrets.token_urlsafe(18)


def invite(remote: RemoteDatabase, username: str, *, reset_password: bool = False) -> Invitation:
    """Create the server user ``username`` with a generated password (unless it exists) and add
    it to the database's members; needs a server admin's credentials. ``reset_password`` gives an
    existing user a new generated password (a lost invitation): the old one stops working."""
    check_username(username)
    info = server_info(remote)
    _require_admin(remote, info, "inviting a teammate")
    if not remote.exists():
        raise SetupError(
            f"the database {remote.db_name!r} does not exist on {remote.server_url} yet",
            fix=Fix("run_setup"),
        )
    existing = read_user(remote, username)
    password: str | None = None
    if existing is None or reset_password:
        password = new_password()
        put_user(remote, username, password, existing=existing)
    ensure_members(remote, [username])
    return Invitation(
        username=username,
        password=password,
        database_url=remote.db_url,
        created=existing is None,
        server=remote.server_url,
        database=remote.db_name,
        reset=existing is not None and reset_password,
    )


# -- advanced mode -------------------------------------------------------------------------------


def _security_body(user: str) -> dict[str, Any]:
    return {"admins": {"names": [], "roles": []}, "members": {"names": [user], "roles": []}}


def _design_body(rev: str | None = None, stale_minutes: int = DEFAULT_STALE_LOCK_MINUTES) -> dict[str, Any]:
    body = {k: v for k, v in lock_design_doc(stale_minutes).items() if k != "_id"}
    if rev:
        body["_rev"] = rev
    return body


def _curl(method: str, url: str, body: dict[str, Any] | None = None) -> str:
    parts = ["curl", "-u", "ADMIN", "-X", method, shlex.quote(url)]
    if body is not None:
        parts += ["-H", shlex.quote("Content-Type: application/json"),
                  "-d", shlex.quote(json.dumps(body, separators=(",", ":")))]
    return " ".join(parts)


def admin_requests(server: str, db: str, user: str, *, design_rev: str | None = None,
                   stale_minutes: int = DEFAULT_STALE_LOCK_MINUTES) -> list[str]:
    """The three requests of the admin set-up, as ``curl`` lines (``-u ADMIN``: curl asks for the
    admin's password, which never appears): create the database, make ``user`` its member, install
    the lock rules made for the project's stale-lock time ``stale_minutes`` (``design_rev``: the
    current revision, to upgrade an installed version). The
    ``_security`` request replaces the members list: if the database has members already, list
    them too."""
    db_url = f"{server.rstrip('/')}/{encode_db_name(db)}"
    return [
        _curl("PUT", db_url),
        _curl("PUT", f"{db_url}/_security", _security_body(user)),
        _curl("PUT", f"{db_url}/{LOCK_DESIGN_ID}", _design_body(design_rev, stale_minutes)),
    ]


def member_add_requests(server: str, db: str, user: str) -> list[str]:
    """The admin's requests that add ``user`` to an existing database's members and remove
    nobody: read ``_security`` into a file, add the name (a Python one-liner: no jq needed), write
    it back. Each ``curl -u ADMIN`` asks for the admin's password; none is printed."""
    db_url = f"{server.rstrip('/')}/{encode_db_name(db)}"
    edit = (
        "import json; f = 'security.json'; s = json.load(open(f)) or {}; "
        "m = s.setdefault('members', {}); m.setdefault('roles', []); n = m.setdefault('names', []); "
        f"n.count({json.dumps(user)}) or n.append({json.dumps(user)}); "
        "s.setdefault('admins', {'names': [], 'roles': []}); json.dump(s, open(f, 'w'))"
    )
    return [
        f"curl -u ADMIN {shlex.quote(db_url + '/_security')} -o security.json",
        f"python3 -c {shlex.quote(edit)}",
        " ".join(["curl", "-u", "ADMIN", "-X", "PUT", shlex.quote(db_url + "/_security"),
                  "-H", shlex.quote("Content-Type: application/json"), "-d", "@security.json"]),
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
    stale_minutes: int = DEFAULT_STALE_LOCK_MINUTES
    missing: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.missing

    @classmethod
    def run(cls, remote: RemoteDatabase, stale_minutes: int = DEFAULT_STALE_LOCK_MINUTES) -> AdvancedCheck:
        """Check ``remote`` as its user; creates and modifies nothing. ``stale_minutes``: the
        project's stale-lock time (lock rules made for another one are outdated)."""
        info = server_info(remote)
        if info.username is None:
            raise SetupError(
                f"{remote.server_url} did not sign in {remote.username!r}: check the user name and password"
            )
        check = cls(remote.server_url, remote.db_name, info.username, stale_minutes=stale_minutes)
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
            check.lock_rules = lock_rules_state(design, stale_minutes)
            check.design_rev = design.get("_rev") if design else None
        elif check.database_exists is False:
            check.lock_rules = "missing"
        check._explain()
        return check

    def _explain(self) -> None:
        requests = admin_requests(self.server, self.database, self.username, design_rev=self.design_rev,
                                  stale_minutes=self.stale_minutes)
        where = f"{self.database!r} on {self.server}"
        needed: list[int] = []
        if self.database_exists is False:
            self.missing.append(f"the database {where} does not exist (a member cannot create it)")
            needed += [0, 1, 2]
        elif self.member is False:
            self.missing.append(
                f"{self.username!r} is not a member of the database {where} (the server refuses to let them read it)"
            )
            self.missing.append("whether the lock rules are installed cannot be seen until then")
            # The database has members already: add this one without removing anybody.
            self.requests = [*member_add_requests(self.server, self.database, self.username), requests[2]]
            return
        elif self.lock_rules == "missing":
            self.missing.append(f"the lock rules ({LOCK_DESIGN_ID}) are not installed in {where}")
            needed += [2]
        elif self.lock_rules == "outdated":
            self.missing.append(
                f"the lock rules in {where} are older than this Storyloom's (version {LOCK_RULES_VERSION}) or were "
                f"made for another stale-lock time than the project's {self.stale_minutes} minutes"
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
        lines.append("Ask a server admin to run (curl asks for the admin's password; nothing secret is printed):")
        lines += [f"  {r}" for r in self.requests]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "server": self.server, "database": self.database, "username": self.username,
            "database_exists": self.database_exists, "member": self.member, "lock_rules": self.lock_rules,
            "ok": self.ok, "missing": list(self.missing), "requests": list(self.requests),
        }


__all__ = [
    "DEFAULT_STALE_LOCK_MINUTES",
    "LOCK_DESIGN_DOC",
    "LOCK_DESIGN_ID",
    "LOCK_RULES_VERSION",
    "VALIDATE_DOC_UPDATE",
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
    "ensure_owner_user",
    "ensure_owners",
    "invite",
    "lock_design_doc",
    "lock_rules_state",
    "member_add_requests",
    "new_password",
    "project_owners",
    "put_user",
    "read_user",
    "server_info",
    "signs_in",
]
