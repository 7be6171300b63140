"""``storyloom remote set|show|check|setup|invite|unset``: a project's remote on this machine.

The settings live in the project's ``_local`` document, the password in the OS keyring (or a
0600 file; see ``storyloom.app.secrets``). The password comes from ``STORYLOOM_REMOTE_PASSWORD``
or a prompt, never from the command line (``ps`` shows arguments to every user of the machine),
and is never printed, except the generated password of ``remote invite``, shown once for the
admin to hand over.

Exit codes: 0 done; 1 failed (the message says why and what to do; ``check`` found a failing
line; ``setup`` in advanced mode found something missing); 2 bad usage or input.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from storyloom.app.secrets import ADMIN_PASSWORD_ENV, PASSWORD_ENV
from storyloom.cli.main import CliError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "remote",
        help="a project's remote server on this machine: set, show, check, set up, invite, unset",
        description="Configure where PROJECT syncs (per machine, never replicated), check the server, "
        f"set it up for a team, invite teammates. Passwords come from ${PASSWORD_ENV} or a prompt.",
    )
    verbs = parser.add_subparsers(dest="remote_verb", metavar="ACTION", required=True)

    p = verbs.add_parser("set", help="set the remote server, database and user of PROJECT")
    p.add_argument("project", metavar="PROJECT", help="project name or id")
    p.add_argument("--server", required=True, metavar="URL", help="the server, http(s)://host[:port][/prefix]")
    p.add_argument("--database", metavar="NAME", help="database name (default: app_v2_<project name>)")
    p.add_argument("--username", "-u", required=True, metavar="USER", help="user name on the server")
    p.add_argument("--mode", choices=("easy", "advanced"),
                   help="easy: the user is a server admin who sets the database up; advanced: a member (default: easy)")
    p.add_argument("--interval", type=float, metavar="SECONDS", help="pull every SECONDS (default 30)")
    live = p.add_mutually_exclusive_group()
    live.add_argument("--live", dest="live", action="store_true", default=None,
                      help="follow the server's changes continuously")
    live.add_argument("--no-live", dest="live", action="store_false", help="pull on the interval (default)")
    p.set_defaults(func=_set)

    p = verbs.add_parser("show", help="show PROJECT's remote (never the password)")
    p.add_argument("project", metavar="PROJECT")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_show)

    p = verbs.add_parser("check", help="check the server: reachable, TLS, credentials, database, members, lock rules")
    p.add_argument("project", metavar="PROJECT")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--probe-body-limit", action="store_true",
                   help="measure the largest request the server (or its proxy) accepts: writes and deletes one "
                   "_local document")
    p.set_defaults(func=_check)

    p = verbs.add_parser("setup", help="easy mode: create the database, your owner user, members and lock rules, "
                         "push the project (idempotent); advanced mode: say what an admin must do")
    p.add_argument("project", metavar="PROJECT")
    p.add_argument("--admin", metavar="ADMIN",
                   help=f"a server admin's user name, used for this set-up only (password from ${ADMIN_PASSWORD_ENV} "
                   "or a prompt; never kept)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                   help="also turn CORS on for ORIGIN, with credentials, for browser-based teammates such as "
                   "Drafft (repeatable; needs a server admin; origins already allowed are kept)")
    p.set_defaults(func=_setup)

    p = verbs.add_parser("invite", help="easy mode: create a server user for a teammate and make them a member")
    p.add_argument("project", metavar="PROJECT")
    p.add_argument("invitee", metavar="USERNAME", help="the teammate's user name on the server")
    p.add_argument("--admin", metavar="ADMIN",
                   help=f"a server admin's user name (password from ${ADMIN_PASSWORD_ENV} or a prompt; never kept)")
    p.add_argument("--reset-password", action="store_true",
                   help="give an existing user a new generated password (the old one stops working)")
    p.add_argument("--json", action="store_true",
                   help='print {"username", "password", "server", "database", "join"} as JSON')
    p.add_argument("--for-drafft", action="store_true",
                   help="also print what the teammate enters in Drafft (server, database, user, password, and "
                   "the Drafft user name its locks need)")
    p.set_defaults(func=_invite)

    p = verbs.add_parser("unset", help="forget PROJECT's remote settings and kept password on this machine")
    p.add_argument("project", metavar="PROJECT")
    p.set_defaults(func=_unset)


# -- helpers -------------------------------------------------------------------------------------


def _errors(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Bad input (a URL, a database name, a mode) is exit 2; every other user-facing error exit 1."""

    @functools.wraps(func)
    def wrapper(args: argparse.Namespace) -> int:
        from storyloom.app.terms import InvalidRemote
        from storyloom.cli.explain import say
        from storyloom.errors import StoryloomError
        from storyloom.project import RemoteSettingsError

        try:
            return func(args)
        except CliError:
            raise
        except (InvalidRemote, RemoteSettingsError) as exc:
            raise CliError(say(exc, project=args.project), code=2) from None
        except StoryloomError as exc:
            raise CliError(say(exc, project=args.project), code=1) from None

    return wrapper


def _secret(env: str, prompt: str) -> str | None:
    """``$env`` when set, else what is typed at ``prompt`` on a terminal, else None."""
    secret = os.environ.get(env)
    if secret is not None or not sys.stdin.isatty():
        return secret
    try:
        import getpass

        return getpass.getpass(prompt)
    except (EOFError, KeyboardInterrupt):
        raise CliError("no password given") from None


def read_password(username: str, *, required: bool = True) -> str | None:
    """The password from ``$STORYLOOM_REMOTE_PASSWORD``, else a prompt on a terminal, else None
    (or a usage error when ``required``)."""
    password = _secret(PASSWORD_ENV, f"Password for {username}: ")
    if password is None and required:
        raise CliError(f"no password for {username!r}: set {PASSWORD_ENV} (stdin is not a terminal, cannot prompt)")
    return password


def read_admin(name: str | None) -> Any:
    """The server admin's login for set-up or an invitation (``--admin NAME``; the password from
    ``$STORYLOOM_ADMIN_PASSWORD`` or a prompt), or None without ``--admin``."""
    from storyloom.app.team_setup import AdminLogin
    from storyloom.app.terms import check_username

    if name is None:
        return None
    check_username(name)
    password = _secret(ADMIN_PASSWORD_ENV, f"Password of the server admin {name} (not kept): ")
    if password is None:
        raise CliError(f"no password for the server admin {name!r}: set {ADMIN_PASSWORD_ENV} (stdin is not a "
                       "terminal, cannot prompt)")
    return AdminLogin(name, password)


def _warn(text: str) -> None:
    print(f"storyloom: {text}", file=sys.stderr)


def _show_notes(notes: list[str]) -> None:
    for note in notes:
        if note.startswith("warning: "):
            _warn(note)
        else:
            print(f"note: {note}")


def _access(session: Any) -> Any:
    """The session's :class:`~storyloom.app.remote.RemoteAccess` (settings, password, client)."""
    return session.remote


def _configured(access: Any, project: str) -> Any:
    settings = access.settings
    if settings is None:
        raise CliError(
            f"project {project!r} has no remote on this machine; set one with "
            f"`storyloom remote set {project} --server URL --username USER`", code=1,
        )
    return settings


def _quoted(name: str) -> str:
    import shlex

    return shlex.quote(name)


# -- set / show / unset --------------------------------------------------------------------------


@_errors
def _set(args: argparse.Namespace) -> int:
    from storyloom.app.remote import build_settings
    from storyloom.cli.workspace import project_session
    from storyloom.project import DEFAULT_INTERVAL

    with project_session(args.project) as session:
        access = _access(session)
        previous = access.settings
        # Left out, the database, mode, interval and live setting stay what they were.
        database = args.database if args.database is not None else (previous.database if previous else None)
        if args.interval is not None and args.interval < 1:
            raise CliError("--interval must be at least 1 second")
        interval = args.interval if args.interval is not None else (previous.interval if previous else DEFAULT_INTERVAL)
        settings, notes = build_settings(
            session.project.name,
            server=args.server,
            username=args.username,
            database=database,
            mode=args.mode or (previous.mode if previous is not None else "easy"),
            interval=interval,
            live=args.live if args.live is not None else (previous.live if previous is not None else False),
        )
        key = access.password_key(settings)
        password = read_password(settings.username, required=False)
        if password is None and access.passwords.get(key) is None:
            raise CliError(f"no password for {settings.username!r}: set {PASSWORD_ENV} or run this in a terminal "
                           "to type it")
        access.save(settings, password)
        session.remote_settings_changed()
        where = access.passwords.where(key) or access.passwords.backend_name
        name = session.project.name
    _show_notes(notes)
    timing = "live (continuous)" if settings.live else f"every {settings.interval:g} s"
    print(f"Remote of {name!r}: {settings.database_url} as {settings.username!r}, {settings.mode} mode, pull {timing}")
    print(f"Password {'kept' if password is not None else 'unchanged, kept'} in the {where}")
    if settings.mode == "easy":
        print(f"Next: `storyloom remote setup {_quoted(name)}` (creates the database, members and lock rules), "
              f"then `storyloom sync {_quoted(name)}`")
    else:
        print(f"Next: `storyloom remote check {_quoted(name)}`, then `storyloom sync {_quoted(name)}`")
    return 0


@_errors
def _show(args: argparse.Namespace) -> int:
    from storyloom.cli.workspace import project_session

    with project_session(args.project) as session:
        access = _access(session)
        settings = access.settings
        source = access.password_source()
        name = session.project.name
    if settings is None:
        if args.json:
            print(json.dumps({"project": name, "configured": False}, indent=2))
        else:
            print(f"Project {name!r} has no remote on this machine "
                  f"(set one with `storyloom remote set {_quoted(name)} --server URL --username USER`)")
        return 0
    data = {"project": name, "configured": settings.enabled, **settings.to_json(),
            "database_url": settings.database_url, "password_source": source}
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(f"Remote of {name!r}{'' if settings.enabled else ' (disabled)'}")
    print(f"  server:    {settings.server}")
    print(f"  database:  {settings.database} ({settings.database_url})")
    print(f"  username:  {settings.username}")
    print(f"  mode:      {settings.mode}")
    print(f"  sync:      {'live (continuous)' if settings.live else f'pull every {settings.interval:g} s'}")
    print(f"  password:  {source}")
    return 0


@_errors
def _unset(args: argparse.Namespace) -> int:
    from storyloom.cli.workspace import project_session

    with project_session(args.project) as session:
        removed = _access(session).clear()
        session.remote_settings_changed()
        name = session.project.name
    if removed:
        print(f"Removed the remote of {name!r} on this machine (settings and kept password); the server is untouched")
    else:
        print(f"Project {name!r} had no remote on this machine")
    return 0


# -- check / setup / invite ----------------------------------------------------------------------


@_errors
def _check(args: argparse.Namespace) -> int:
    from storyloom.app.team_setup import check_remote
    from storyloom.cli.explain import fix_words
    from storyloom.cli.workspace import project_session

    with project_session(args.project) as session:
        settings = _configured(_access(session), args.project)
        name = session.project.name
        lines = check_remote(session, probe_body_limit=args.probe_body_limit)
    # The sync layer knows no project names: the command line's words of each fix name this one.
    fixes = [fix_words(line.fix, project=name) if line.fix is not None else "" for line in lines]
    failed = any(line.status == "fail" for line in lines)
    if args.json:
        print(json.dumps({"ok": not failed, "database_url": settings.database_url,
                          "lines": [{**line.to_json(), "fix": fix} for line, fix in zip(lines, fixes, strict=True)]},
                         indent=2))
        return 1 if failed else 0
    print(f"Checking {settings.database_url} as {settings.username!r} ({settings.mode} mode)")
    for line, fix in zip(lines, fixes, strict=True):
        print(f"{line.status:<4}  {line.name}: {line.detail}")
        if fix and line.status != "ok":
            print(f"      fix: {fix}")
    if not args.probe_body_limit:
        print("(the proxy's body limit was not probed: add --probe-body-limit to measure it)")
    return 1 if failed else 0


@_errors
def _setup(args: argparse.Namespace) -> int:
    from storyloom.app.team_setup import advanced_check, setup_team
    from storyloom.cli.explain import say
    from storyloom.cli.workspace import project_session

    with project_session(args.project) as session:
        settings = _configured(_access(session), args.project)
        name = session.project.name
        if settings.mode == "advanced":
            if args.admin is not None:
                raise CliError("--admin goes with easy mode; in advanced mode an admin runs the requests listed "
                               "here", code=2)
            check, cors_help = advanced_check(session, args.cors_origin)
            if args.json:
                print(json.dumps({**check.to_json(), **({"cors_requests": cors_help} if cors_help else {})},
                                 indent=2))
            else:
                print(check.explain())
                if cors_help:
                    print("To turn CORS on for browser-based teammates, ask a server admin to run (keep the origins "
                          "already allowed in the origins request):")
                    print("\n".join(f"  {line}" for line in cors_help))
            return 0 if check.ok else 1

        def show(step: Any) -> None:
            if not args.json:
                print(f"{'changed' if step.changed else 'ok':<8} {step.what}: {step.detail}", flush=True)

        outcome = setup_team(session, read_admin(args.admin), on_step=show, cors_origins=args.cors_origin)
    report = outcome.report
    if args.json:
        print(json.dumps({**report.to_json(), "pushed": outcome.pushed,
                          "notices": [say(notice, project=name) for notice in outcome.notices]}, indent=2))
        return 0
    for notice in outcome.notices:
        _warn(say(notice, project=name))
    admin = f" --admin {_quoted(args.admin)}" if args.admin else ""
    print("Set-up complete" + ("" if report.changed else " (nothing needed changing)") +
          f"; invite teammates with `storyloom remote invite {_quoted(name)} USERNAME{admin}`")
    return 0


@_errors
def _invite(args: argparse.Namespace) -> int:
    from storyloom.app.team_setup import invite_teammate
    from storyloom.cli.explain import command_line, fix_words
    from storyloom.cli.workspace import project_session

    with project_session(args.project) as session:
        settings = _configured(_access(session), args.project)
        if settings.mode != "easy":
            raise CliError("inviting needs easy mode (the project's owner, with a server admin's account for "
                           "invitations); in advanced mode an admin creates the user and adds them to the "
                           "database's members", code=2)
        invitation = invite_teammate(session, args.invitee, read_admin(args.admin),
                                     reset_password=args.reset_password)
    if args.json:
        print(json.dumps({**invitation.to_json(), "join": command_line(invitation.join)}, indent=2))
        return 0
    if invitation.reset:
        print(f"Gave {invitation.username!r} a new password (the old one no longer works); they are a member of "
              f"{settings.database!r}.")
        print(f"Their new password (shown only now; hand it over privately): {invitation.password}")
    elif invitation.password is not None:
        print(f"Created the server user {invitation.username!r} and made them a member of {settings.database!r}.")
        print(f"Their password (shown only now; hand it over privately): {invitation.password}")
    else:
        print(f"{invitation.username!r} already has an account on the server (its password is unchanged; "
              f"--reset-password gives them a new one); made them a member of {settings.database!r}.")
    print(f"They join with: {command_line(invitation.join)}")
    if args.for_drafft:
        from storyloom.app.team_setup import drafft_join

        print(drafft_join(invitation, settings, say=lambda fix: fix_words(fix, project=args.project)))
    return 0
