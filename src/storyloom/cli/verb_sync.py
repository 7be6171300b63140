"""``storyloom sync PROJECT [--remote URL]``: replicate a project with a CouchDB database.

Runs one push and then one pull (or only one direction with ``--direction``; or keeps
following both with ``--live`` until Ctrl-C) and prints a summary (``--json`` for machines).
On a terminal a one-shot sync draws a progress bar per direction on stderr (documents done of
the total the server gives); with ``--quiet``, or when stderr is not a terminal, only the result.

Without ``--remote`` the project's stored remote settings are used (``storyloom remote set``:
server, database, user, the password kept for them): after the pull, what a team project needs
runs too (provisional locks are settled with the server, and whatever that writes is pushed).
With ``--live`` and no ``--remote``, the project's sync service runs until Ctrl-C and prints
each state it goes through (``--json``: one JSON object per line).

``PROJECT`` is a project name or id, or the path of a store file: an argument is a path only
if it ends in ``.sqlite``, ``.sqlite3`` or ``.db`` or contains a path separator (so a file in
the working directory never shadows a project name), and the file must be an existing
Storyloom store. The password comes from the environment variable
``STORYLOOM_REMOTE_PASSWORD`` or a prompt, never from the command line (``ps`` would show it
to every user of the machine); without a user name there is no password to send, and a set
``STORYLOOM_REMOTE_PASSWORD`` is reported as ignored (a warning on stderr).

A remote database that holds another project (another ``projectId`` in its ProjectSettings)
is refused before anything is written either way: syncing would merge the two projects.

Exit codes: 0 everything synced; 1 the sync failed (the reason is printed); 2 bad usage;
3 the sync completed but some documents were refused or too large (listed).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from storyloom.cli.main import CliError
from storyloom.cli.progress import add_quiet_option, progress_bars
from storyloom.words import counted

PASSWORD_ENV = "STORYLOOM_REMOTE_PASSWORD"
EXIT_FAILED = 1
EXIT_PARTIAL = 3
STORE_SUFFIXES = (".sqlite", ".sqlite3", ".db")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sync",
        help="replicate a project with a CouchDB database (push, then pull)",
        description="Replicate PROJECT with a remote CouchDB (or compatible) database: one push, "
        f"then one pull. The password comes from ${PASSWORD_ENV} or a prompt.",
    )
    parser.add_argument(
        "project",
        metavar="PROJECT",
        help="project name or id, or a store file (ends in .sqlite/.sqlite3/.db or contains a path separator)",
    )
    parser.add_argument(
        "--remote",
        metavar="URL",
        help="the remote database, http(s)://host:port/dbname (default: the project's stored remote settings)",
    )
    parser.add_argument("--username", "-u", metavar="USER", help="user name on the remote server")
    parser.add_argument(
        "--auth",
        choices=("basic", "cookie"),
        default="basic",
        help="send the credentials with every request (basic, default) or log in once (cookie session)",
    )
    parser.add_argument(
        "--direction", choices=("both", "push", "pull"), default="both", help="what to replicate (default: both)"
    )
    parser.add_argument("--live", action="store_true", help="keep syncing changes until interrupted (Ctrl-C)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--batch-size", type=int, metavar="N",
                        help="changes per page (default: 500; a first pull's pages of documents hold about 4 MB)")
    parser.add_argument(
        "--max-request-bytes",
        type=int,
        default=1_000_000,
        metavar="N",
        help="largest request body to send (default 1000000; keep it below the proxy's limit)",
    )
    parser.add_argument(
        "--retries",
        type=int,
        default=3,
        metavar="N",
        help="retries after network errors, with backoff (default 3; unlimited with --live)",
    )
    parser.add_argument("--verbose", "-v", action="store_true", help="print progress events to stderr")
    add_quiet_option(parser)
    parser.set_defaults(func=run_sync)


def is_store_path(project: str) -> bool:
    """Whether PROJECT names a store file rather than a project: it ends in a store suffix or
    contains a path separator. Whether such a file exists is not considered, so a file in
    the working directory can never shadow a project of the same name."""
    separators = {"/", os.sep} | ({os.altsep} if os.altsep else set())
    return project.lower().endswith(STORE_SUFFIXES) or any(sep in project for sep in separators)


@contextlib.contextmanager
def _open_store(project: str) -> Iterator[Any]:
    """The project's store, or a store file given by path (see :func:`is_store_path`)."""
    if is_store_path(project):
        path = Path(project)
        if path.exists() and not path.is_file():
            raise CliError(f"{path} is not a file (expected a Storyloom store, *.sqlite)")
        from storyloom.app.sync_once import open_store_file
        from storyloom.app.terms import StoreError

        try:
            db = open_store_file(path)
        except StoreError as exc:
            raise CliError(exc) from None
        try:
            yield db
        finally:
            db.close()
        return
    from storyloom.cli.workspace import open_workspace
    from storyloom.errors import StoryloomError

    try:
        opened = open_workspace().open_session(project)
    except StoryloomError as exc:
        from storyloom.cli.explain import say

        raise CliError(f"cannot open project {project!r}: {say(exc, project=project)}") from None
    try:
        yield opened.project.store  # replication writes revisions as they are, past the gate
    finally:
        opened.close()


def _password(username: str | None, from_url: str | None) -> str | None:
    if from_url is not None:
        raise CliError(
            "do not put the password in the --remote URL (other users can see command lines); "
            f"set {PASSWORD_ENV} or type it at the prompt"
        )
    if username is None:
        if os.environ.get(PASSWORD_ENV) is not None:
            print(
                f"storyloom: warning: {PASSWORD_ENV} is set but no --username was given: the "
                "password is ignored and the sync runs without credentials",
                file=sys.stderr,
            )
        return None
    password = os.environ.get(PASSWORD_ENV)
    if password is not None:
        return password
    if not sys.stdin.isatty():
        raise CliError(f"no password for {username!r}: set {PASSWORD_ENV} (stdin is not a terminal, cannot prompt)")
    try:
        import getpass

        return getpass.getpass(f"Password for {username}: ")
    except (EOFError, KeyboardInterrupt):
        raise CliError("no password given") from None


def run_sync(args: argparse.Namespace) -> int:
    from storyloom.app.sync_once import sync_store
    from storyloom.app.terms import InvalidRemote, parse_remote_url

    if args.batch_size is not None and args.batch_size < 1:
        raise CliError("--batch-size must be at least 1")
    if args.max_request_bytes < 1024:
        raise CliError("--max-request-bytes must be at least 1024")
    if args.remote is None:
        return _run_stored(args)
    try:
        url = parse_remote_url(args.remote)
    except InvalidRemote as exc:
        raise CliError(exc) from None
    username = args.username if args.username is not None else url.username
    password = _password(username, url.password)

    with _open_store(args.project) as db, progress_bars(_QUIET if args.live else args) as progress, \
            _interrupted() as cancel:
        outcome = sync_store(db, url, _request(args), username=username, password=password,
                             on_event=_event_printer(args.verbose), progress=progress, cancel=cancel)
    return _report(outcome, args.json)


#: What ``progress_bars`` is given for ``--live``: a replication that never ends draws no bar.
_QUIET = argparse.Namespace(quiet=True)


def _request(args: argparse.Namespace) -> Any:
    from storyloom.app.sync_once import SyncRequest

    return SyncRequest(direction=args.direction, batch_size=args.batch_size, max_request_bytes=args.max_request_bytes,
                       retries=args.retries, live=args.live, auth=args.auth)


def _event_printer(verbose: bool) -> Any:
    def on_event(event: Any) -> None:
        if not verbose:
            return
        st = event.status
        line = f"[{event.direction}] {event.type}: read {st.docs_read}, written {st.docs_written}"
        if st.doc_write_failures:
            line += f", failed {st.doc_write_failures}"
        if event.error is not None:
            line += f" ({event.error.message})"
        print(line, file=sys.stderr, flush=True)

    return on_event


def _run_stored(args: argparse.Namespace) -> int:
    """``storyloom sync PROJECT`` without ``--remote``: the project's stored remote settings."""
    from storyloom.app.team_setup import admin_user_notice
    from storyloom.cli.explain import say
    from storyloom.cli.verb_locks import tell_broken_locks
    from storyloom.cli.workspace import project_session

    if is_store_path(args.project):
        raise CliError(
            f"{args.project} is a store file, which has no stored remote settings: give --remote URL, "
            "or sync a project by name"
        )
    if args.username is not None:
        raise CliError(
            "--username goes with --remote; without it the stored settings name the user "
            f"(change them with `storyloom remote set {args.project} --username USER`)"
        )
    with project_session(args.project) as session:
        tell_broken_locks(session)  # a pull that brings a break of our lock says so, once
        if args.live:
            if args.direction != "both":
                raise CliError("--live without --remote runs the project's sync service, which syncs both ways")
            return _run_service(session, args.json)
        with progress_bars(args) as progress, _interrupted() as cancel:
            outcome = session.sync_once(_request(args), on_event=_event_printer(args.verbose), progress=progress,
                                        cancel=cancel)
        for warning in outcome.warnings:
            print(f"storyloom: warning: {warning}", file=sys.stderr)
        code = _report(outcome, args.json, project=session.project.name, username=session.remote.username)
        # Once per machine: a project that still syncs as the server admin is told how to move
        # to an owner user of its own.
        notice = admin_user_notice(session)
        if notice:
            print(f"storyloom: note: {say(notice)}", file=sys.stderr)
        return code


def state_line(state: Any) -> str:
    """One line per sync state for ``sync --live``: offline says why, an error what to do."""
    line = f"sync: {state.kind}: {state.detail}"
    if state.kind == "offline" and state.cause and state.cause not in line:
        line += f" ({state.cause})"
    if state.fix and state.kind == "error":
        from storyloom.cli.explain import fix_words

        line += f" (fix: {fix_words(state.fix)})"
    return line


def state_json(state: Any) -> dict[str, Any]:
    """A sync state as ``sync --live --json`` prints it: its fix as the command line says it."""
    from storyloom.cli.explain import fix_words

    return {**state.to_json(), "fix": fix_words(state.fix) if state.fix is not None else None}


def _run_service(session: Any, as_json: bool) -> int:
    """``--live`` with the stored settings: the project's sync, followed until Ctrl-C."""

    def on_state(state: Any) -> None:
        print(json.dumps(state_json(state)) if as_json else state_line(state), flush=True)

    with _interrupted() as stop:
        final = session.sync_live(on_state, stop)
    return EXIT_FAILED if final is not None and final.kind == "error" else 0


@contextlib.contextmanager
def _interrupted() -> Iterator[threading.Event]:
    """An event that Ctrl-C (SIGINT) sets while the block runs, so that a sync stops cleanly
    instead of being killed mid-write."""
    event = threading.Event()
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, lambda *_: event.set())
    try:
        yield event
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _report(outcome: Any, as_json: bool, *, project: str | None = None, username: str | None = None) -> int:
    from storyloom.app.terms import ProjectMismatch
    from storyloom.cli.explain import say

    def said(st: Any) -> str:
        """A direction's error in the command line's words (its fix as the command to run)."""
        return say(st.last_error, project=project) if st.last_error is not None else \
            (st.last_error_message or "unknown error")

    parts = outcome.parts
    fatal = outcome.errors
    code = EXIT_FAILED if outcome.failed else (EXIT_PARTIAL if outcome.partial else 0)
    where = outcome.remote
    after = outcome.after_pull
    if as_json:
        data: dict[str, Any] = {"ok": code == 0, "remote": where, "exit_code": code}
        for name, st in parts:
            data[name] = st.to_json()
        if fatal:
            data["error"] = said(fatal[0][1])
        if after is not None:
            data["after_pull"] = after
        print(json.dumps(data, indent=2, default=str))
        return code
    for name, st in parts:
        if st.state == "idle":
            print(f"{name}: not run")
            continue
        elapsed = st.elapsed or 0.0
        line = f"{name}: {st.docs_read} read, {st.docs_written} written"
        if st.doc_write_failures:
            line += f", {st.doc_write_failures} failed ({st.denied} denied)"
        line += f" in {elapsed:.2f}s"
        if st.state not in ("complete",):
            line += f" [{st.state}]"
        print(line)
        for failure in st.failures:
            print(f"  failed: {failure.message}")
        for warning in st.warnings:
            print(f"  warning: {warning}")
    if after is not None:
        merge = after.get("merge") or {}
        if merge.get("merged"):
            print(f"merged: {counted(len(merge['merged']), 'conflicted document')} merged automatically")
        if merge.get("conflicts"):
            print(f"conflicts: {counted(len(merge['conflicts']), 'document')} need a decision "
                  f"(`storyloom conflicts {shlex.quote(project) if project else 'PROJECT'}`)")
        for notice in after.get("locks") or []:
            print(f"lock: {notice['message']}")
    seen: set[str] = set()
    for name, st in fatal:
        message = said(st)
        if message in seen:
            continue
        seen.add(message)
        print(f"storyloom: error: {name} failed: {message}", file=sys.stderr)
        if isinstance(st.last_error, ProjectMismatch):
            # The other way out: join the project that database holds, as a project of its own.
            print(f"storyloom: to join {st.last_error.remote_name or 'that project'!r} on this machine: "
                  f"storyloom clone {where} --username {shlex.quote(username) if username else 'USER'}",
                  file=sys.stderr)
    if outcome.cancelled and not fatal and not outcome.live:
        print("storyloom: sync cancelled", file=sys.stderr)
    return code
