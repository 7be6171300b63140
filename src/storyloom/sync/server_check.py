"""``check_server``: one report on a team database's server, each line ok / warn / fail with the fix.

Writes only probes. The "replicated writes" line writes a ``storyloom-probe-`` document as
replication does and removes it (``storyloom.sync.write_probe``). The other write is the optional body-limit probe
(``probe_body_limit=True``), which sends one ``_local`` document of growing size (64 KB, 256 KB,
1 MB, 4 MB), stops at the first 413 and deletes it. A ``_local`` document is never replicated
and is not checked by the lock rules, so no teammate ever sees the probe, while a proxy's or
the server's request-size limit applies to it like to any request.

The lines, in order: ``reachable``, ``tls``, ``credentials``, ``admin`` (advanced mode),
``database``, ``member``, ``owner`` (easy mode: whether the user is recorded as the project's
owner), ``lock rules``, ``replicated writes`` (a probe: whether the server keeps a replicated
write), ``max_document_size``, ``max_http_request_size`` (on CouchDB, its defaults when the
configuration does not set them or cannot be read), ``body limit`` (only when probed),
``require_valid_user``, ``cors`` (for browser-based teammates such as Drafft:
:mod:`storyloom.sync.cors`). When the server cannot be reached or refuses the
credentials, the lines that depend on it are left out.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from storyloom.errors import Fix, advice
from storyloom.sync.errors import (
    NetworkError,
    RemoteError,
    RemoteForbidden,
    RemoteNotFound,
    RemoteUnauthorized,
    RequestTooLarge,
    SyncError,
)
from storyloom.sync.lock_rules import DEFAULT_STALE_LOCK_MINUTES, installed_stale_minutes
from storyloom.sync.remote import RemoteDatabase
from storyloom.sync.server_setup import (
    LOCK_DESIGN_ID,
    LOCK_RULES_VERSION,
    admin_requests,
    lock_rules_state,
    member_add_requests,
    project_owners,
    read_lock_rules,
)
from storyloom.sync.server_terms import CheckLine, ServerInfo, SetupError, Status, server_info
from storyloom.sync.urls import RemoteURL, is_loopback_host
from storyloom.sync.write_probe import replicated_writes_line

PROBE_SIZES: tuple[int, ...] = (64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024)
# Below this a document of ordinary size (a long script) may not fit.
SMALL_LIMIT = 1024 * 1024
CHECK_TIMEOUT = 15.0


#: How set-up fixes a database line, given the admin's request that would: set-up itself (easy
#: mode, or a server admin) or the request for an admin to run (advanced mode).
SetupFix = Callable[[str], Fix]


def _size(n: int) -> str:
    if n >= 1024 * 1024 and n % (1024 * 1024) == 0:
        return f"{n // (1024 * 1024)} MB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024} KB"
    return f"{n} bytes"


def _host(server: str) -> str:
    rest = server.split("://", 1)[-1]
    host = rest.split("/", 1)[0]
    if host.startswith("["):
        return host[1 : host.index("]")]
    return host.rsplit(":", 1)[0]


def _anonymous(remote: RemoteDatabase) -> RemoteDatabase:
    return RemoteDatabase(RemoteURL(remote.server_url, remote.db_name), timeout=CHECK_TIMEOUT)


def _tls_line(remote: RemoteDatabase) -> CheckLine:
    server = remote.server_url
    if server.startswith("https://"):
        return CheckLine("tls", "ok", "HTTPS: the password and the project are encrypted on the way")
    if is_loopback_host(_host(server)):
        return CheckLine("tls", "ok", "plain HTTP, to this machine only")
    return CheckLine(
        "tls", "warn", "plain HTTP to another machine: the password and the project travel unencrypted",
        advice("serve CouchDB through HTTPS (a reverse proxy with a certificate) and use an https:// server URL"),
    )


def _config_value(remote: RemoteDatabase, section: str, key: str, fallbacks: tuple[tuple[str, str], ...] = ()) -> Any:
    """A server setting, read as an admin: CouchDB 2+'s ``/_node/_local/_config``, then the older
    ``/_config`` (CouchDB 1, pouchdb-server). None when the server does not have it."""
    for path in (f"_node/_local/_config/{section}/{key}", f"_config/{section}/{key}",
                 *(f"_config/{s}/{k}" for s, k in fallbacks)):
        try:
            return remote.get_json(path, db=False)
        except RemoteNotFound:
            continue
    return None


#: CouchDB 3's defaults, in force when the configuration does not set them (its config API then
#: answers 404 for the key).
COUCHDB_DEFAULTS: dict[str, int] = {"max_document_size": 8_000_000, "max_http_request_size": 4_294_967_296}


def _bytes(n: int) -> str:
    return f"{n:,} bytes" + (f" ({_size(n)})" if n >= 1024 else "")


def _limit_line(remote: RemoteDatabase, admin: bool, name: str, section: str,
                fallbacks: tuple[tuple[str, str], ...] = (), *, couchdb: bool = False) -> CheckLine:
    how = f"curl -u ADMIN {remote.server_url}/_node/_local/_config/{section}/{name}"
    default = COUCHDB_DEFAULTS.get(name) if couchdb else None
    if not admin:
        if default is not None:
            return CheckLine(
                name, "ok", f"{_bytes(default)} unless changed: CouchDB's default (only a server admin can read the "
                "configuration, so a changed value cannot be seen from here)",
                advice(f"ask an admin to read it ({how})", otherwise=Fix("measure_body_limit")),
            )
        return CheckLine(name, "warn", "unknown: only a server admin can read the server's configuration",
                         advice(f"ask an admin to read it ({how})"))
    try:
        value = _config_value(remote, section, name, fallbacks)
    except RemoteError as exc:
        return CheckLine(name, "warn", f"unknown: the server refused to show it ({exc.status} {exc.error})",
                         advice(f"read it on the server ({how})"))
    if value is None and default is not None:
        return CheckLine(name, "ok", f"{_bytes(default)}: CouchDB's default (not set in the server's configuration)")
    if value is None:
        return CheckLine(
            name, "warn", "unknown: this server does not report it",
            advice(f"check the server's own configuration ([{section}] {name}) and any reverse proxy's body limit "
                   "(nginx: client_max_body_size)", otherwise=Fix("measure_body_limit")),
        )
    try:
        size = int(str(value).strip().strip('"'))
    except ValueError:
        return CheckLine(name, "warn", f"set to {value!r}, which is not a number of bytes",
                         advice(f"fix [{section}] {name}"))
    if size < SMALL_LIMIT:
        return CheckLine(name, "warn", f"{_size(size)}: large documents (long scripts, images) will be refused",
                         advice(f"raise [{section}] {name} to at least {_size(SMALL_LIMIT * 8)}"))
    return CheckLine(name, "ok", _size(size))


def measure_body_limit(remote: RemoteDatabase) -> CheckLine:
    """Send one ``_local`` document of growing size until a 413, then delete it (see the module)."""
    doc_id = f"_local/storyloom-body-probe-{uuid.uuid4().hex[:12]}"
    largest_ok = 0
    rev: str | None = None
    try:
        for size in PROBE_SIZES:
            body: dict[str, Any] = {"_id": doc_id, "pad": "x" * size}
            if rev is not None:
                body["_rev"] = rev
            try:
                rev = remote.put(body)["rev"]
            except RequestTooLarge as exc:
                status: Status = "fail" if size <= PROBE_SIZES[0] else "warn"
                accepted = f"the largest accepted was {_size(largest_ok)}" if largest_ok else "nothing got through"
                return CheckLine(
                    "body limit", status,
                    f"a request of about {_size(size)} was refused (413: {exc.reason or exc.error}); "
                    f"{accepted}",
                    advice("raise the proxy's request body limit (nginx: client_max_body_size) and the server's "
                           "[chttpd] max_http_request_size / [couchdb] max_document_size; until then documents "
                           f"larger than {_size(largest_ok or size // 2)} stay on this machine, listed by sync"),
                )
            largest_ok = size
    except SyncError as exc:
        return CheckLine("body limit", "warn", f"could not probe: {exc}",
                         advice("the probe needs write access to the database (a member or an admin)"))
    finally:
        if rev is not None:
            try:
                remote.remove_local(doc_id, rev)
            except SyncError:
                pass  # a _local probe left behind is never replicated; nothing else depends on it
    return CheckLine("body limit", "ok", f"requests of {_size(PROBE_SIZES[-1])} get through")


def check_server(
    remote: RemoteDatabase, *, mode: str | None = None, probe_body_limit: bool = False,
    stale_minutes: int = DEFAULT_STALE_LOCK_MINUTES,
) -> list[CheckLine]:
    """The report on ``remote``'s server and database, as ``remote``'s user. ``mode`` (``easy`` or
    ``advanced``) decides whether a user who is not an admin is a failure; ``stale_minutes`` is the
    project's stale-lock time (lock rules made for another are outdated). Reads only, except the
    body-limit probe when asked."""
    lines: list[CheckLine] = []
    try:
        welcome: Any = remote.server_info(refresh=True)
    except RemoteUnauthorized:
        welcome = None  # it answered: the credentials are judged below
    except (NetworkError, RemoteError) as exc:
        lines.append(CheckLine("reachable", "fail", str(exc),
                               advice("check the server URL (scheme, host, port), that the server runs, and the "
                                      "network")))
        lines.append(_tls_line(remote))
        return lines
    try:
        info = server_info(remote)
    except SyncError as exc:
        lines.append(CheckLine("reachable", "fail", str(exc), advice("check the server URL")))
        return lines
    except SetupError as exc:  # the credentials were refused
        lines.append(CheckLine("reachable", "ok", f"{remote.server_url} answers ({_describe(welcome)})"))
        lines.append(_tls_line(remote))
        # In easy mode the owner's own user is created by set-up.
        fix = Fix("retype_credentials", username=remote.username, setup_creates=mode == "easy")
        lines.append(CheckLine("credentials", "fail", exc.cause, fix))
        return lines
    lines.append(CheckLine("reachable", "ok", f"{info.describe} at {info.url}"))
    lines.append(_tls_line(remote))
    if info.username is None:
        lines.append(CheckLine("credentials", "fail", f"the server did not sign in {remote.username!r}",
                               Fix("retype_credentials", ask="check")))
        return lines
    lines.append(CheckLine("credentials", "ok", f"signed in as {info.username!r}"))
    requests = admin_requests(remote.server_url, remote.db_name, info.username, stale_minutes=stale_minutes)
    if mode != "easy":
        lines.append(CheckLine("admin", "ok", "a server admin" if info.is_admin
                               else "not a server admin (a member, as advanced mode expects)"))
    setup_fix = _setup_fix(mode, info.is_admin)
    member_fix = _member_fix(remote, info, mode, setup_fix)
    database_lines = _database_lines(remote, info.is_admin, setup_fix, requests, member_fix, stale_minutes)
    lines.extend(database_lines)
    if mode == "easy":
        member = next((line for line in database_lines if line.name == "member"), None)
        if member is not None and member.status == "ok":
            lines.insert(lines.index(member) + 1, _owner_line(remote, info))
    lines.append(replicated_writes_line(remote, lines))
    couchdb = info.product == "CouchDB"
    lines.append(_limit_line(remote, info.is_admin, "max_document_size", "couchdb", couchdb=couchdb))
    lines.append(_limit_line(remote, info.is_admin, "max_http_request_size", "chttpd",
                             (("httpd", "max_http_request_size"),), couchdb=couchdb))
    if probe_body_limit:
        lines.append(_body_limit_line(remote, lines))
    lines.append(_require_valid_user_line(remote, setup_fix, requests))
    from storyloom.sync.cors import cors_line  # cors imports this module's CheckLine

    lines.append(cors_line(remote, admin=info.is_admin, info=info))
    return lines


def _setup_fix(mode: str | None, admin: bool) -> SetupFix:
    """Easy mode: set-up (with a server admin's account when the user is not one); advanced mode:
    set-up for a server admin, else the request an admin runs."""
    if admin:
        return lambda _request: Fix("run_setup")
    if mode == "easy":
        return lambda _request: Fix("run_setup", admin=True)
    return lambda request: Fix("admin_requests", requests=(request,))


def _member_fix(remote: RemoteDatabase, info: ServerInfo, mode: str | None, setup_fix: SetupFix) -> Fix:
    """How the user becomes a member of an existing database without anyone else losing it."""
    user = info.username or "USER"
    if mode == "easy" and not info.is_admin:
        return Fix("ask_owner_invite", username=user)
    if info.is_admin:
        return setup_fix("")
    steps = tuple(member_add_requests(remote.server_url, remote.db_name, user))
    return Fix("admin_requests", requests=steps, purpose="add_member")


def _owner_line(remote: RemoteDatabase, info: ServerInfo) -> CheckLine:
    """Easy mode: whether the user is recorded as the project's owner (among the database's admins)."""
    user = info.username
    if info.is_admin:
        return CheckLine(
            "owner", "warn",
            f"you sync as the server admin {user!r}: the lock rules treat you as the user {user!r}, teammates see "
            f"'locked by {user}', and the admin's password is kept on this machine",
            Fix("use_owner_user", admin_user=user),
        )
    owners = project_owners(remote)
    if owners is None:
        return CheckLine("owner", "warn", "unknown: this server does not let you read the database's _security",
                         Fix("run_setup", admin=True, effect="record_owner"))
    if user in owners:
        return CheckLine("owner", "ok", f"{user!r} is the project's owner (a database admin): may break any lock")
    listed = ", ".join(repr(o) for o in owners) or "nobody"
    return CheckLine("owner", "warn", f"{user!r} is a member but not recorded as the project's owner (owners: "
                     f"{listed})", Fix("run_setup", admin=True, effect="record_owner"))


def _body_limit_line(remote: RemoteDatabase, lines: list[CheckLine]) -> CheckLine:
    member = next((line for line in lines if line.name == "member"), None)
    if member is not None and member.status != "ok":
        return CheckLine("body limit", "warn", "not probed: the user cannot write to the database",
                         advice("fix the membership first"))
    return measure_body_limit(remote)


def _describe(welcome: Any) -> str:
    if isinstance(welcome, dict):
        return f"version {welcome.get('version', '?')}"
    return "it refuses these credentials"


def _database_lines(remote: RemoteDatabase, admin: bool, setup_fix: SetupFix, requests: list[str],
                    member_fix: Fix, stale_minutes: int = DEFAULT_STALE_LOCK_MINUTES) -> list[CheckLine]:
    lines: list[CheckLine] = []
    where = f"{remote.db_name!r}"
    try:
        remote.info()
        lines.append(CheckLine("database", "ok", f"{where} exists"))
        access = "a server admin: full access" if admin else "a member: may read and write"
        lines.append(CheckLine("member", "ok", access))
    except RemoteNotFound:
        lines.append(CheckLine("database", "fail", f"{where} does not exist", setup_fix(requests[0])))
        lines.append(CheckLine("member", "fail", "no database to be a member of", setup_fix(requests[1])))
        lines.append(CheckLine("lock rules", "fail", "no database yet", setup_fix(requests[2])))
        return lines
    except (RemoteUnauthorized, RemoteForbidden) as exc:
        lines.append(CheckLine("database", "ok", f"{where} exists"))
        lines.append(CheckLine("member", "fail", f"not a member: the server refuses access ({exc.status} {exc.reason})",
                               member_fix))
        lines.append(CheckLine("lock rules", "warn", "unknown: only members can read them",
                               advice("check again once the user is a member")))
        return lines
    design = read_lock_rules(remote)
    state = lock_rules_state(design, stale_minutes)
    if state == "current":
        lines.append(CheckLine("lock rules", "ok", f"{LOCK_DESIGN_ID} version {LOCK_RULES_VERSION} installed: the "
                                                   "server refuses edits to documents locked by someone else; "
                                                   f"members may break a lock idle longer than {stale_minutes} "
                                                   "minutes"))
    elif state == "newer":
        version = design.get("version") if design else "?"
        lines.append(CheckLine("lock rules", "ok", f"{LOCK_DESIGN_ID} version {version} (newer than this Storyloom's)"))
    elif state == "missing":
        lines.append(CheckLine("lock rules", "fail",
                               "not installed: the server accepts edits to documents locked by someone else",
                               setup_fix(requests[2])))
    else:
        rev = design.get("_rev") if design else None
        upgrade = admin_requests(remote.server_url, remote.db_name, "USER", design_rev=rev,
                                 stale_minutes=stale_minutes)[2]
        installed = installed_stale_minutes(design)
        if design is not None and design.get("version") == LOCK_RULES_VERSION and installed != stale_minutes:
            made_for = f"{installed} minutes" if installed is not None else "another stale-lock time"
            detail = (f"installed for a stale-lock time of {made_for}; the project's is {stale_minutes} minutes "
                      "(the server enforces the installed one)")
        else:
            detail = f"an older version is installed (this Storyloom's is {LOCK_RULES_VERSION})"
        lines.append(CheckLine("lock rules", "warn", detail, setup_fix(upgrade)))
    return lines


def _require_valid_user_line(remote: RemoteDatabase, setup_fix: SetupFix, requests: list[str]) -> CheckLine:
    anonymous = _anonymous(remote)
    try:
        try:
            anonymous.server_info(refresh=True)
        except (RemoteUnauthorized, RemoteForbidden):
            return CheckLine("require_valid_user", "ok", "on: the server refuses anonymous requests")
        try:
            anonymous.info()
        except (RemoteUnauthorized, RemoteForbidden):
            return CheckLine("require_valid_user", "ok",
                             "off, but the database refuses anonymous requests (members only)")
        except RemoteNotFound:
            return CheckLine("require_valid_user", "ok", "off; the database does not exist yet")
        return CheckLine(
            "require_valid_user", "fail", "off, and anyone who reaches the server can read and write the database "
            "(a database with members is private to them)", setup_fix(requests[1]),
        )
    except SyncError as exc:
        return CheckLine("require_valid_user", "warn", f"unknown: {exc}", advice("check again"))
    finally:
        anonymous.close()


__all__ = ["CheckLine", "check_server", "measure_body_limit"]
