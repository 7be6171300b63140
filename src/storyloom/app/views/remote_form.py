"""Project Settings > Remote Replication, without Qt: the form's fields, checks, saving, and the
server's answers (check, set-up, invitation, joining) in the app's words.

The page in ``storyloom.gui.remote_settings_page`` shows what this module computes. Every rule is
the domain's, reached through the functions ``storyloom remote`` and ``storyloom clone`` call:

- :func:`check_values` checks what was typed field by field as it is typed, with
  ``storyloom.sync.urls`` (the server URL's scheme, the database name's characters with their
  position and the lowercase conversion, the user name), and makes the settings with
  :func:`storyloom.app.remote.build_settings`;
- :func:`save_values` keeps them with :meth:`RemoteAccess.save` (the password in the
  :class:`~storyloom.app.secrets.PasswordStore`), then calls ``session.remote_settings_changed()``
  and starts the sync service when the remote is enabled;
- :func:`run_check` is :func:`storyloom.app.team_setup.check_remote` (``storyloom remote
  check``) plus one line saying whether the database holds this project
  (``check_remote_identity``);
- :func:`run_setup` is :func:`storyloom.app.team_setup.setup_team` (easy mode) or
  :func:`~storyloom.app.team_setup.advanced_check` (advanced mode), as ``storyloom remote
  setup``; :func:`invite_teammate` is :func:`~storyloom.app.team_setup.invite_teammate`;
- a failure, a report line's fix and a notice are said by the app's one explainer,
  :mod:`storyloom.app.views.explain` (``on_page``: the fields are "above").
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from storyloom.app.remote import RemoteNotConfigured, build_settings
from storyloom.app.secrets import PASSWORD_ENV, password_key
from storyloom.app.sync_once import PROJECT_IDENTITY
from storyloom.app.team_setup import AdminLogin, AdminNeeded, advanced_check, check_remote, setup_team
from storyloom.app.team_setup import invite_teammate as team_invite
from storyloom.app.views.explain import Explanation, explain, fix_words, join_command, say, sentence
from storyloom.errors import Fix, StoryloomError, advice
from storyloom.project import DEFAULT_INTERVAL, RemoteSettings, default_database_name
from storyloom.sync import InvalidRemote, ProjectMismatch, SyncError
from storyloom.sync.cors import normalize_origin
from storyloom.sync.identity import check_remote_identity
from storyloom.sync.server_setup import AdvancedCheck, Invitation, SetupReport
from storyloom.sync.server_terms import CheckLine, SetupStep
from storyloom.sync.urls import check_server_url, check_username, normalize_database_name, parse_remote_url

if TYPE_CHECKING:
    from storyloom.app.session import ProjectSession

MIN_INTERVAL = 1.0
Level = Literal["error", "warning", "note", "required"]

#: One sentence on what each mode does, shown beside the choice.
MODE_TEXT: dict[str, str] = {
    "easy": "Easy: you own the project and sync as a user of your own. Set up and Invite teammate… ask for a "
            "server admin's account, used for that only and never kept: Set up creates your user, the database "
            "(private to its members) and the lock rules, and sends the project; Invite teammate… creates an "
            "account for each teammate.",
    "advanced": "Advanced: you sign in as a member of a database an admin prepared. Storyloom creates "
                "nothing on the server; Set up lists what is missing and the exact requests for the admin.",
}
MODE_LABELS: dict[str, str] = {"easy": "Easy (I own the project; a server admin's account sets it up)",
                               "advanced": "Advanced (an admin prepares the database)"}

#: The server report's lines, named for people (the report's own names are the CLI's).
LINE_TITLES: dict[str, str] = {
    "reachable": "Server", "tls": "Encryption", "credentials": "Sign-in", "admin": "Server admin",
    "database": "Database", "member": "Membership", "owner": "Owner", "project": "Project",
    "lock rules": "Lock rules",
    "max_document_size": "Largest document", "max_http_request_size": "Largest request",
    "body limit": "Measured body limit", "require_valid_user": "Anonymous access",
    "cors": "Browser-based clients (CORS)", "replicated writes": "Replicated writes",
}
STEP_TITLES: dict[str, str] = {"server": "Server", "database": "Database", "owner": "Your user", "cors": "CORS",
                               "owners": "Owners", "members": "Members", "lock rules": "Lock rules",
                               "replicated writes": "Replicated writes", "project": "Project"}

# -- the fields ----------------------------------------------------------------------------------


@dataclass
class RemoteValues:
    """What the form shows, as typed. ``password`` is empty unless one was typed: a kept password
    is never shown."""

    enabled: bool = True
    server: str = ""
    database: str = ""
    username: str = ""
    password: str = ""
    mode: str = "easy"
    interval: float = DEFAULT_INTERVAL
    live: bool = False


def values_of(settings: RemoteSettings | None) -> RemoteValues:
    """The form's values for the kept settings (a new form when there are none)."""
    if settings is None:
        return RemoteValues()
    return RemoteValues(enabled=settings.enabled, server=settings.server, database=settings.database,
                        username=settings.username, mode=settings.mode, interval=settings.interval,
                        live=settings.live)


@dataclass(frozen=True)
class FieldMessage:
    """What to show under a field. ``required`` is an empty field: shown only when saving."""

    level: Level
    text: str


@dataclass
class FormCheck:
    """The result of checking the form: a message per field (``server``, ``database``,
    ``username``, ``password``, ``interval``) and, when nothing is wrong, the settings."""

    messages: dict[str, FieldMessage] = field(default_factory=dict)
    settings: RemoteSettings | None = None

    @property
    def ok(self) -> bool:
        return self.settings is not None

    def blocking(self) -> dict[str, FieldMessage]:
        return {k: m for k, m in self.messages.items() if m.level in ("error", "required")}


#: ``kept(server, username)``: whether a password is kept (or set in the environment) for them.
PasswordKept = Callable[[str, str], bool]


def password_kept(session: ProjectSession) -> PasswordKept:
    """Whether a password is kept for a server and user of ``session``'s project. Each answer is
    remembered (the form asks at every key typed; the OS keyring is slow to ask)."""
    access = session.remote
    answers: dict[tuple[str, str], bool] = {}

    def kept(server: str, username: str) -> bool:
        if os.environ.get(PASSWORD_ENV) is not None:
            return True
        if (server, username) not in answers:
            try:
                found = access.passwords.get(password_key(session.id, server, username)) is not None
            except StoryloomError:
                found = False
            answers[server, username] = found
        return answers[server, username]

    return kept


def password_note(session: ProjectSession) -> str:
    """Where the kept password comes from, for the Password field (never the password)."""
    access = session.remote
    if access.settings is None:
        return ""
    if os.environ.get(PASSWORD_ENV) is not None:
        return f"The password comes from {PASSWORD_ENV}, which wins over one typed here."
    key = access.password_key()
    try:
        where = access.passwords.where(key) if key is not None else None
    except StoryloomError:
        where = None
    if where is None:
        return ""
    return f"A password is kept in the {where.split(' (', 1)[0]}; type a new one only to replace it."


def check_values(project_name: str, values: RemoteValues, kept: PasswordKept | None = None) -> FormCheck:
    """Check each field as the domain does and, when all pass, make the settings."""
    check = FormCheck()
    messages = check.messages
    server = values.server.strip()
    if not server:
        messages["server"] = FieldMessage("required", "Type the server's address, e.g. https://couch.example.com.")
    else:
        try:
            server, warnings = check_server_url(server)
        except InvalidRemote as exc:
            messages["server"] = FieldMessage("error", sentence(say(exc, on_page=True)))
        else:
            if warnings:
                messages["server"] = FieldMessage("warning", sentence(warnings[0]))
    database = values.database.strip()
    if not database:
        default = default_database_name(project_name)
        messages["database"] = FieldMessage("note", f"Left empty: {default!r}, from the project's name.")
    else:
        try:
            _name, notes = normalize_database_name(database)
        except InvalidRemote as exc:
            messages["database"] = FieldMessage("error", sentence(say(exc, on_page=True)))
        else:
            if notes:
                messages["database"] = FieldMessage("note", sentence(notes[0]))
    username = values.username
    if not username:
        messages["username"] = FieldMessage("required", "Type your user name on the server.")
    else:
        try:
            check_username(username)
        except InvalidRemote as exc:
            messages["username"] = FieldMessage("error", sentence(say(exc, on_page=True)))
    blocked = "server" in check.blocking() or "username" in check.blocking()
    if not values.password and not blocked and (kept is None or not kept(server, username)):
        messages["password"] = FieldMessage("required", f"Type the password of {username!r} on the server.")
    if not values.live and values.interval < MIN_INTERVAL:
        messages["interval"] = FieldMessage("error", f"The interval must be at least {MIN_INTERVAL:g} second.")
    if check.blocking():
        return check
    try:
        settings, _notes = build_settings(project_name, server=server, username=username, database=database or None,
                                          mode=values.mode, interval=values.interval, live=values.live)
    except StoryloomError as exc:  # a rule of the settings themselves (the mode)
        messages["mode"] = FieldMessage("error", sentence(say(exc, on_page=True)))
        return check
    check.settings = settings if values.enabled else dataclasses.replace(settings, enabled=False)
    return check


def save_values(session: ProjectSession, values: RemoteValues) -> FormCheck:
    """Keep the settings (and the password when one was typed) as ``storyloom remote set`` does,
    tell the session (its lock policy and sync service follow), and start syncing when the
    remote is enabled. Returns the check: nothing is kept when it is not ``ok``."""
    check = check_values(session.name, values, password_kept(session))
    if check.settings is None:
        return check
    session.remote.save(check.settings, values.password or None)
    session.remote_settings_changed()
    if check.settings.enabled:
        session.start_sync()
    return check


# -- the server ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportLine:
    """One line of a report, for people: ``status`` ``ok``, ``warn`` or ``fail``; ``fix`` says
    what to do (in the app's words) when it is not ok."""

    name: str
    title: str
    status: str
    detail: str
    fix: str = ""

    def to_text(self) -> str:
        text = f"{self.status:<4}  {self.title}: {self.detail}"
        return text + (f"\n      fix: {self.fix}" if self.fix and self.status != "ok" else "")


def report_line(line: CheckLine, project: str = "") -> ReportLine:
    fix = "" if line.fix is None else sentence(fix_words(line.fix, project=project, on_page=True))
    return ReportLine(line.name, LINE_TITLES.get(line.name, line.name.capitalize()), line.status,
                      sentence(line.detail), fix)


def report_text(database_url: str, lines: list[ReportLine]) -> str:
    """The report as plain text (Copy report)."""
    return "\n".join([f"Server check of {database_url}", *(line.to_text() for line in lines)])


def _identity_line(session: ProjectSession, remote: Any) -> CheckLine:
    try:
        theirs = check_remote_identity(session.project.store, remote, PROJECT_IDENTITY)
    except ProjectMismatch as exc:
        other = exc.remote_name or "another project"
        return CheckLine("project", "fail", f"the database holds another project, {other!r}: syncing would "
                         "merge the two, so nothing is sent or received",
                         Fix("use_other_database", project=session.name, other=other))
    except SyncError as exc:
        return CheckLine("project", "warn", f"unknown: {exc}", advice("check again"))
    if theirs is None:
        return CheckLine("project", "ok", "no project in the database yet: the first sync sends this one")
    return CheckLine("project", "ok", f"the database holds this project ({theirs.name or session.name!r})")


def run_check(session: ProjectSession, *, probe_body_limit: bool = False) -> list[ReportLine]:
    """The server report of the saved settings (``storyloom remote check``), plus whether the
    database holds this project. Raises :class:`RemoteNotConfigured` without settings."""
    access = session.remote
    settings = access.settings
    if settings is None or not settings.enabled:
        raise RemoteNotConfigured("the remote is not set: fill in the fields above and Save")
    lines = check_remote(session, probe_body_limit=probe_body_limit,
                         also=lambda remote: _identity_line(session, remote))
    return [report_line(line, session.name) for line in lines]


@dataclass
class SetupOutcome:
    """What Set up did: the easy mode's report, or the advanced mode's findings."""

    mode: str
    report: SetupReport | None = None
    advanced: AdvancedCheck | None = None
    notices: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.report is not None or (self.advanced is not None and self.advanced.ok)


def step_line(step: SetupStep) -> ReportLine:
    """A set-up step as a report line (``changed`` steps say so)."""
    detail = sentence(step.detail)
    return ReportLine(step.what, STEP_TITLES.get(step.what, step.what.capitalize()), "ok",
                      detail if not step.changed else f"{detail} (changed now)")


def check_origins(text: str) -> tuple[list[str], str]:
    """The origins typed for browser-based teammates (Drafft), comma- or space-separated, as
    ``scheme://host[:port]``; and what is wrong ("" when nothing)."""
    origins: list[str] = []
    for part in text.replace(",", " ").split():
        try:
            origin = normalize_origin(part)
        except InvalidRemote as exc:
            return [], sentence(str(exc))
        if origin not in origins:
            origins.append(origin)
    return origins, ""


def run_setup(session: ProjectSession, on_step: Callable[[ReportLine], None] | None = None,
              admin: AdminLogin | None = None, cors_origins: Sequence[str] = ()) -> SetupOutcome:
    """``storyloom remote setup``: in easy mode create what is missing with ``admin``'s account
    (``on_step`` hears each step as it is done; :class:`AdminNeeded` when an admin's account is
    needed and none was given), turn CORS on for ``cors_origins`` (browser-based teammates such as
    Drafft), push the project into an empty database, then sync at once; in advanced mode find
    what is missing, changing nothing."""
    access = session.remote
    settings = access.settings
    if settings is None or not settings.enabled:
        raise RemoteNotConfigured("the remote is not set: fill in the fields above and Save")
    if settings.mode == "advanced":
        return SetupOutcome("advanced", advanced=advanced_check(session)[0])

    def step(done: SetupStep) -> None:
        if on_step is not None:
            on_step(step_line(done))

    outcome = setup_team(session, admin, on_step=step, cors_origins=cors_origins)
    # A sync started before the database existed stopped on that error: it goes now.
    session.sync.sync_now()
    return SetupOutcome("easy", report=outcome.report,
                        notices=[sentence(say(n, project=session.name, on_page=True)) for n in outcome.notices])


def check_invitee(username: str) -> str:
    """Why ``username`` cannot be invited ("" when it can)."""
    if not username:
        return "Type the teammate's user name on the server."
    try:
        check_username(username)
    except InvalidRemote as exc:
        return sentence(say(exc, on_page=True))
    return ""


def invite_teammate(session: ProjectSession, username: str, admin: AdminLogin | None = None, *,
                    reset_password: bool = False) -> Invitation:
    """``storyloom remote invite``: a server account for ``username`` (with a generated password,
    unless the account exists; ``reset_password`` gives it a new one) and membership of the
    database, made with ``admin``'s account. Easy mode only."""
    settings = session.remote.settings
    if settings is None or not settings.enabled:
        raise RemoteNotConfigured("the remote is not set: fill in the fields above and Save")
    if settings.mode != "easy":
        raise RemoteFormError("inviting needs easy mode (you own the project and have a server admin's account); "
                              "in advanced mode an admin creates the account and adds it to the database's members")
    return team_invite(session, username, admin, reset_password=reset_password)


def join_instructions(invitation: Invitation, project: str) -> str:
    """What to send the teammate: where and how to join, with the password when it was made now."""
    password = invitation.password if invitation.password is not None else "(the one you already use on this server)"
    return "\n".join([
        f"You are invited to the Storyloom project “{project}”.",
        "",
        "In Storyloom: Projects › Join a project from a server…",
        f"  Database URL:  {invitation.database_url}",
        f"  User name:     {invitation.username}",
        f"  Password:      {password}",
        "",
        "Or in a terminal (it asks for the password):",
        f"  {join_command(invitation.join)}",
    ])


class RemoteFormError(StoryloomError):
    """Something the page cannot do with these settings; the message says why."""

    code = "remote_form_refused"


# -- joining -------------------------------------------------------------------------------------


def check_join_url(url: str) -> str:
    """Why ``url`` cannot be joined ("" when it can): it must name the server and the database."""
    if not url.strip():
        return "Type the database's URL, e.g. https://couch.example.com/app_v2_story."
    try:
        parsed = parse_remote_url(url.strip())
    except InvalidRemote as exc:
        return sentence(say(exc, on_page=True))
    if parsed.password is not None:
        return "Remove the password from the URL and type it in the Password field."
    return ""


def check_join_fields(url: str, username: str, password: str) -> dict[str, str]:
    """Join a project from a server: what is wrong with each field (``url``, ``username``,
    ``password``), as typed; an empty dict when the join can start."""
    problems = {"url": check_join_url(url)}
    if not username:
        problems["username"] = "Type your user name on the server (the invitation has it)."
    else:
        try:
            check_username(username)
        except InvalidRemote as exc:
            problems["username"] = sentence(say(exc, on_page=True))
    if not password:
        problems["password"] = "Type your password on the server (the invitation has it)."
    return {key: text for key, text in problems.items() if text}


__all__ = [
    "MODE_TEXT",
    "AdminLogin",
    "AdminNeeded",
    "Explanation",
    "FieldMessage",
    "FormCheck",
    "RemoteFormError",
    "RemoteValues",
    "ReportLine",
    "SetupOutcome",
    "check_invitee",
    "check_join_fields",
    "check_join_url",
    "check_origins",
    "check_values",
    "explain",
    "invite_teammate",
    "join_instructions",
    "report_text",
    "run_check",
    "run_setup",
    "save_values",
    "say",
    "sentence",
    "values_of",
]
