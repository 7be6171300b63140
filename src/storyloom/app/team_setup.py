"""Setting a team server up and inviting teammates, with a server admin's account that is used
for that and never kept: one workflow under ``storyloom remote check|setup|invite`` and the
app's Remote Replication page.

- :func:`check_remote`: the server report (``storyloom remote check``, the page's Check).
- :func:`setup_team` (easy mode, CORS for browser-based teammates included) and
  :func:`advanced_check` (advanced mode: what an admin must do, changing nothing).
- :func:`invite_teammate`, and :func:`drafft_join` (what a Drafft teammate types).

Easy mode's user is the project's **owner**: a user of their own on the server (created by
set-up when absent, with the password kept on this machine), recorded among the database's
admins, who syncs like any teammate and whose locks the server enforces like anyone's. The
server admin's name and password are asked for by set-up and invitations only
(:class:`AdminLogin`: ``--admin NAME`` with ``STORYLOOM_ADMIN_PASSWORD`` or a prompt on the
command line, a dialog in the app) and are never stored.

A project set up before owners existed syncs as the server admin itself. It keeps working (the
admin's stored credentials still set up and invite), and :func:`admin_user_notice` says once per
machine how to move to an owner user.

After set-up, :func:`setup_team` pushes the project when the database holds none yet, so a
teammate can clone it straight after the invitation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from storyloom.app.locks import project_stale_minutes
from storyloom.app.remote import RemoteNotConfigured
from storyloom.app.secrets import ADMIN_PASSWORD_ENV
from storyloom.app.sync_once import PROJECT_IDENTITY
from storyloom.errors import Fix, Notice, StoryloomError
from storyloom.sync import ReplicationOptions, push
from storyloom.sync.cors import configure_cors, cors_admin_help
from storyloom.sync.drafft_join import drafft_instructions
from storyloom.sync.identity import check_remote_identity
from storyloom.sync.remote import RemoteDatabase
from storyloom.sync.server_check import check_server
from storyloom.sync.server_setup import AdvancedCheck, Invitation, SetupReport, easy_setup, invite
from storyloom.sync.server_terms import CheckLine, SetupError, SetupStep, server_info
from storyloom.words import counted

if TYPE_CHECKING:
    from storyloom.app.session import ProjectSession
    from storyloom.project import RemoteSettings

CHECK_TIMEOUT = 15.0
#: The ``_local`` document that remembers the notices shown once per machine.
NOTICES_ID = "_local/storyloom-remote-notices"


class TeamSetupError(StoryloomError):
    """Set-up or an invitation cannot go on as asked (not easy mode); the message says why."""

    code = "team_setup_refused"
    fixes = ("give_admin",)


class AdminNeeded(TeamSetupError):
    """Set-up or an invitation needs a server admin's account, and none was given (the project's
    own user is not a server admin); the app asks for one, the CLI says ``--admin ADMIN``."""

    code = "admin_needed"


@dataclass(frozen=True)
class AdminLogin:
    """A server admin's name and password, for one set-up or invitation; never stored."""

    username: str
    password: str = field(repr=False)


@dataclass
class TeamSetup:
    """What :func:`setup_team` did: the set-up's steps (the push of the project among them) and
    the notices to show (the admin-as-user notice)."""

    report: SetupReport
    pushed: int | None = None
    notices: list[Notice] = field(default_factory=list)


def _easy_settings(session: ProjectSession, action: str) -> Any:
    settings = session.remote.settings
    if settings is None or not settings.enabled:
        raise RemoteNotConfigured(f"project {session.name!r} has no remote on this machine",
                                  fix=Fix("set_remote", project=session.name))
    if settings.mode != "easy":
        raise TeamSetupError(
            f"{action} needs easy mode (you own the project and have a server admin's account for set-up); in "
            "advanced mode an admin creates the accounts and adds them to the database's members"
        )
    return settings


def _admin_client(user_remote: RemoteDatabase, admin: AdminLogin | None, action: str) -> tuple[RemoteDatabase, bool]:
    """A client signed in as the server admin, and whether it is the project's own stored user
    (a project set up before owners existed, whose user is the server admin)."""
    if admin is not None:
        return user_remote.as_user(admin.username, admin.password), False
    try:
        info = server_info(user_remote)
    except SetupError as exc:
        raise AdminNeeded(
            f"{action} needs a server admin's account, used for this only and never kept. The server does not "
            f"sign in {user_remote.username!r} yet ({exc.cause})", fix=Fix("give_admin", creates_user=True),
        ) from None
    if info.is_admin:
        return user_remote, True
    raise AdminNeeded(
        f"{action} needs a server admin's account, used for this only and never kept: "
        f"{info.username or user_remote.username!r} is the project's owner on the server, not a server admin",
        fix=Fix("give_admin"),
    )


def check_remote(session: ProjectSession, *, probe_body_limit: bool = False,
                 also: Callable[[RemoteDatabase], CheckLine] | None = None) -> list[CheckLine]:
    """The server report of ``session``'s remote (``storyloom remote check``, the app's Check):
    reachable, TLS, credentials, database, members, lock rules (for the project's stale-lock
    time), with ``probe_body_limit`` the largest request the server accepts. ``also(remote)``
    makes one more line with the same client, put after the member line when that is ok (the
    app's: whether the database holds this project). Raises
    :class:`~storyloom.app.remote.RemoteNotConfigured` without an enabled remote."""
    access = session.remote
    with access.open(timeout=CHECK_TIMEOUT) as remote:
        settings = access.settings
        assert settings is not None  # (open() raised otherwise)
        lines = check_server(remote, mode=settings.mode, probe_body_limit=probe_body_limit,
                             stale_minutes=project_stale_minutes(session.project))
        member = next((line for line in lines if line.name == "member"), None)
        if also is not None and member is not None and member.status == "ok":
            lines.insert(lines.index(member) + 1, also(remote))
    return lines


def advanced_check(session: ProjectSession, cors_origins: Sequence[str] = ()) -> tuple[AdvancedCheck, list[str]]:
    """Advanced mode's set-up: what the server lacks for this project, found as the project's
    user, changing nothing; and the requests a server admin runs to turn CORS on for
    ``cors_origins`` (none without origins)."""
    with session.remote.open(timeout=CHECK_TIMEOUT) as remote:
        check = AdvancedCheck.run(remote, project_stale_minutes(session.project))
        return check, cors_admin_help(remote, cors_origins) if cors_origins else []


def setup_team(
    session: ProjectSession,
    admin: AdminLogin | None,
    *,
    on_step: Callable[[SetupStep], None] | None = None,
    extra_steps: Iterable[Callable[[RemoteDatabase], SetupStep]] = (),
    cors_origins: Sequence[str] = (),
) -> TeamSetup:
    """Easy set-up of ``session``'s remote with ``admin``'s account (see the module): the
    database, the owner's user and ownership, the members, the lock rules, CORS for
    ``cors_origins`` (browser-based teammates such as Drafft; the origins already allowed are
    kept), then each of ``extra_steps`` (given the admin's client), then a push of the project
    when the database holds none. Raises :class:`TeamSetupError`, :class:`SetupError` or a sync
    error, with what to do."""
    settings = _easy_settings(session, "easy set-up")
    origins = list(cors_origins)
    if origins:
        extra_steps = [lambda admin_remote: configure_cors(admin_remote, origins), *extra_steps]
    access = session.remote
    done: list[SetupStep] = []

    def step(item: SetupStep) -> None:
        done.append(item)
        if on_step is not None:
            on_step(item)

    with access.open(timeout=CHECK_TIMEOUT) as user_remote:
        admin_remote, legacy = _admin_client(user_remote, admin, "easy set-up")
        try:
            owner = None if legacy else settings.username
            report = easy_setup(admin_remote, on_step=step, owner=owner, owner_password=access.password(),
                                stale_minutes=project_stale_minutes(session.project))
            for extra in extra_steps:
                item = extra(admin_remote)
                report.steps.append(item)
                step(item)
        finally:
            if admin_remote is not user_remote:
                admin_remote.close()
        outcome = TeamSetup(report)
        item, outcome.pushed = _push_when_empty(session, user_remote)
        report.steps.append(item)
        step(item)
    if legacy:
        notice = admin_user_notice(session, signed_in_as_admin=True)
        if notice:
            outcome.notices.append(notice)
    return outcome


def _push_when_empty(session: ProjectSession, remote: RemoteDatabase) -> tuple[SetupStep, int | None]:
    """Push the project, as its owner, when the database holds no project yet; a database holding
    this project is left to the sync, one holding another project refuses (ProjectMismatch)."""
    store = session.project.store
    theirs = check_remote_identity(store, remote, PROJECT_IDENTITY)
    if theirs is not None:
        return SetupStep("project", False, f"the database holds this project ({theirs.name or session.name!r})"), None
    options = ReplicationOptions(identity=PROJECT_IDENTITY, retry=True, max_retries=3)
    status = push(store, remote, options)
    if status.state != "complete":
        raise SetupError(
            f"the set-up is done, but pushing the project failed: {status.last_error_message}",
            fix=Fix("sync_again", project=session.name),
        )
    pushed = counted(status.docs_written, "document")
    return (SetupStep("project", True, f"pushed the project ({pushed}): teammates can join now"),
            status.docs_written)


def invite_teammate(session: ProjectSession, username: str, admin: AdminLogin | None, *,
                    reset_password: bool = False) -> Invitation:
    """A server account for ``username`` with a generated password (``reset_password``: a new one
    for an existing account, the old one stops working) and membership of the database, made with
    ``admin``'s account. Easy mode only."""
    _easy_settings(session, "inviting a teammate")
    with session.remote.open(timeout=CHECK_TIMEOUT) as user_remote:
        admin_remote, _legacy = _admin_client(user_remote, admin, "inviting a teammate")
        try:
            return invite(admin_remote, username, reset_password=reset_password)
        finally:
            if admin_remote is not user_remote:
                admin_remote.close()


def drafft_join(invitation: Invitation, settings: RemoteSettings, say: Callable[[Fix], str] = Fix.words) -> str:
    """What an invited teammate who works in Drafft types there to join (the server, the
    database, their user and password, and the Drafft user name its locks need); ``say`` words
    its CORS step, which the owner reads (the front end's explainer)."""
    return drafft_instructions(invitation, server=settings.server, database=settings.database, say=say)


def admin_user_notice(session: ProjectSession, *, force: bool = False,
                      signed_in_as_admin: bool | None = None) -> Notice | None:
    """The notice for a project whose stored user is the server admin (set up before owners):
    how to move to an owner user. Said once per machine and project: None once it was shown
    (unless ``force``), or when the user is not a server admin. ``signed_in_as_admin`` says what
    the caller already knows; None asks the server (one ``_session`` request)."""
    settings = session.remote.settings
    if settings is None or not settings.enabled or settings.mode != "easy":
        return None
    store = session.project.store
    notices = _read_notices(store)
    # Each user name is asked about once: the server is not asked again at every sync.
    checked = notices.get("admin_user_checked") == settings.username
    if (notices.get("admin_user") == settings.username and not force) or (checked and signed_in_as_admin is None):
        return None
    if signed_in_as_admin is None:
        try:
            with session.remote.open(timeout=CHECK_TIMEOUT) as remote:
                signed_in_as_admin = server_info(remote).is_admin
        except StoryloomError:
            return None
        notices["admin_user_checked"] = settings.username
        _write_notices(store, notices)
    if not signed_in_as_admin:
        return None
    notices["admin_user"] = settings.username
    _write_notices(store, notices)
    name = session.name
    return Notice(
        f"{name!r} syncs as the server admin {settings.username!r}: teammates see your locks as "
        f"'locked by {settings.username}', and the admin's password is kept on this machine",
        Fix("use_owner_user", project=name, server=settings.server, admin_user=settings.username),
    )


def _read_notices(store: Any) -> dict[str, Any]:
    from storyloom.store import NotFound

    try:
        return dict(store.get_local(NOTICES_ID))
    except NotFound:
        return {"_id": NOTICES_ID}


def _write_notices(store: Any, doc: dict[str, Any]) -> None:
    doc["_rev"] = store.put_local(doc)["rev"]


__all__ = [
    "ADMIN_PASSWORD_ENV",
    "AdminLogin",
    "AdminNeeded",
    "TeamSetup",
    "TeamSetupError",
    "admin_user_notice",
    "advanced_check",
    "check_remote",
    "drafft_join",
    "invite_teammate",
    "setup_team",
]
