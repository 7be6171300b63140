"""``storyloom lock``, ``unlock`` and ``locks``: document locks of a team project.

- ``storyloom lock PROJECT DOC_ID``: take the lock. When the project's remote answers, a
  compare-and-swap on the server copy (two users can never both hold it); offline, a
  provisional lock, confirmed on the next sync (the line says "provisional").
- ``storyloom unlock PROJECT DOC_ID``: release your lock (on the server too when it answers);
  ``--break`` breaks another user's stale lock, recorded in the document (who, whose, when) and
  shown to the holder by ``locks`` and, once per machine, by the holder's next ``sync``, ``lock``
  or ``doc set`` (a line on stderr). The server decides: a project owner breaks any lock, a member
  only one idle longer than the project's ``staleLockMinutes`` (240 by default); a refusal exits
  3 with who holds it, since when it is idle and from when a member may break it.
  ``storyloom unlock PROJECT --all-mine`` releases all yours.
- ``storyloom locks PROJECT [--json]``: every lock in the project (yours and others', since
  when, provisional ones marked) and every recorded break. Provisional locks are settled first
  when the server answers (confirmed, or lost with who holds the lock and where your edits are).

The lock holder is the remote user name when a remote is configured (``storyloom remote set``),
else the workspace user. Exit codes: 0 done (a provisional lock too); 1 failed; 2 bad usage or
input (an unknown document, breaking your own lock); 3 refused: another user holds the lock (or
the server refuses to break it yet).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from storyloom.cli.main import CliError

if TYPE_CHECKING:
    from datetime import datetime, tzinfo

    from storyloom.app import ProjectSession
    from storyloom.app.locks import LockService
    from storyloom.project import BrokenLock

EXIT_REFUSED = 3


def register(subparsers: Any) -> None:
    lock = subparsers.add_parser(
        "lock", help="take the lock of a document (compare-and-swap on the server when it answers)",
        description="Take the lock of DOC_ID in PROJECT. Online, the server decides (two users can never "
        "both hold a lock); offline the lock is provisional until the next sync confirms it. Exit 3 "
        "when another user holds it.")
    lock.add_argument("project", metavar="PROJECT", help="project name or id")
    lock.add_argument("doc_id", metavar="DOC_ID", help="the document's id")
    lock.set_defaults(func=run_lock)

    unlock = subparsers.add_parser(
        "unlock", help="release your lock of a document, break another's (--break), or release all yours",
        description="Release your lock of DOC_ID (on the server too when it answers). --break breaks "
        "another user's lock (recorded in the document and shown to them): a project owner may break any "
        "lock, a member only one idle longer than the project's stale-lock time (staleLockMinutes, 240 "
        "minutes by default); --all-mine releases every lock you hold in PROJECT.")
    unlock.add_argument("project", metavar="PROJECT", help="project name or id")
    unlock.add_argument("doc_id", metavar="DOC_ID", nargs="?", help="the document's id")
    unlock.add_argument("--break", dest="break_lock", action="store_true",
                        help="break another user's lock (owners: any; members: a stale one; it is recorded "
                        "who broke whose lock, and when)")
    unlock.add_argument("--all-mine", action="store_true", help="release every lock you hold in the project")
    unlock.set_defaults(func=run_unlock)

    locks = subparsers.add_parser(
        "locks", help="list the locks of a project (yours and others', since when) and recorded breaks",
        description="List every lock in PROJECT: holder, since when, provisional ones marked; and every "
        "recorded break (who broke whose lock, when).")
    locks.add_argument("project", metavar="PROJECT", help="project name or id")
    locks.add_argument("--json", action="store_true", help="print the locks as JSON")
    locks.set_defaults(func=run_locks)


# ------------------------------------------------------------------ shared with ``doc``
def lock_service(session: ProjectSession) -> LockService:
    """The session's lock service (the one the session owns when it has one), and the
    session's editor guarded by the team lock rules."""
    from storyloom.app.locks import LockService, lock_holder
    from storyloom.project import NoLocks

    service = getattr(session, "locks", None)
    if not isinstance(service, LockService):
        remote = getattr(session, "remote", None)
        if remote is None:
            from storyloom.app.remote import RemoteAccess

            remote = RemoteAccess(session.project)
        workspace = session.workspace
        service = LockService(session.project, remote, lock_holder(remote, lambda: workspace.user))
    if isinstance(session.editor.lock_policy, NoLocks):
        session.editor.lock_policy = service.team_policy()
    tell_broken_locks(session)
    return service


def tell_broken_locks(session: ProjectSession) -> None:
    """Print on stderr each break of this machine's lock the verb sees first (a pull, a server
    copy read by a lock call or by ``doc set``'s read-back): once per machine, with who broke it
    and when. Once per session, however many verbs ask."""
    if getattr(session, "_cli_tells_breaks", False) or not hasattr(session, "on_lock_broken"):
        return

    def tell(record: BrokenLock) -> None:
        name = getattr(session.index.get(record.doc_id), "name", "") or ""
        print(f"storyloom: {broken_line(record, name)}", file=sys.stderr, flush=True)

    session.on_lock_broken(tell)
    session._cli_tells_breaks = True  # type: ignore[attr-defined]


def _name_part(record: BrokenLock, name: str) -> str:
    return f"{name!r} ({record.doc_id})" if name else repr(record.doc_id)


def broken_line(record: BrokenLock, name: str = "", *, now: datetime | None = None, tz: tzinfo | None = None) -> str:
    """``your lock on 'Prologue' (<id>) was broken by bea at 14:02 (held since 13:40)``: the CLI's
    words for a break of this machine's lock."""
    from storyloom.app.views.lock_view import when_text

    at = when_text(record.at, now=now, tz=tz)
    since = when_text(record.since, now=now, tz=tz)
    return (f"your lock on {_name_part(record, name)} was broken by {record.by}"
            f"{' at ' + at if at else ''}{' (held since ' + since + ')' if since else ''}")


@contextmanager
def lock_errors() -> Iterator[None]:
    """The lock layer's refusals as the CLI's exit codes: 3 when another user holds the lock,
    2 for a misuse or an unknown document."""
    from storyloom.app.terms import NotFound
    from storyloom.project import LockRefused, LockStateError, ValidationError

    try:
        yield
    except LockRefused as exc:
        raise CliError(exc, EXIT_REFUSED) from None
    except LockStateError as exc:
        raise CliError(exc, 2) from None
    except ValidationError as exc:
        raise CliError(exc, 2) from None
    except NotFound as exc:
        raise CliError(f"no such document in the project ({exc.reason}); `storyloom locks` and "
                       "`storyloom export` show the ids", 2) from None


def document_name(session: ProjectSession, doc_id: str) -> str:
    summary = session.index.get(doc_id)
    name = getattr(summary, "name", None)
    return f"{name!r} ({doc_id})" if name else repr(doc_id)


@contextmanager
def open_project(project: str) -> Iterator[ProjectSession]:
    """The project's session for a verb that sends the server a request or two and exits: its
    clients keep one connection and load no httpx (docs/sync.md, "Clients")."""
    from storyloom.cli.workspace import project_session

    with project_session(project, remote_options={"connection": "one"}) as session:
        yield session


# ------------------------------------------------------------------ verbs
def run_lock(args: argparse.Namespace) -> int:
    with open_project(args.project) as session, lock_errors():
        service = lock_service(session)
        info = service.lock(args.doc_id)
        name = document_name(session, args.doc_id)
        if info.provisional:
            print(f"locked {name} for {info.holder}, provisionally: the server cannot be reached; the next "
                  "sync confirms it (or tells you who was first)")
        else:
            print(f"locked {name} for {info.holder} since {info.since}")
    return 0


def run_unlock(args: argparse.Namespace) -> int:
    if args.all_mine == bool(args.doc_id):
        raise CliError("give either DOC_ID or --all-mine (not both)" if args.all_mine
                       else "give the DOC_ID to unlock, or --all-mine")
    if args.all_mine and args.break_lock:
        raise CliError("--break breaks one document's lock: give its DOC_ID instead of --all-mine")
    with open_project(args.project) as session, lock_errors():
        service = lock_service(session)
        if args.all_mine:
            released = service.unlock_all_mine()
            for doc_id in released:
                print(f"unlocked {document_name(session, doc_id)}")
            if not released:
                print(f"{service.holder()} holds no lock in this project")
            return 0
        from storyloom.project import lock_info

        before = lock_info(session.db.get(args.doc_id))
        broken = service.unlock(args.doc_id, break_lock=args.break_lock)
        name = document_name(session, args.doc_id)
        if args.break_lock:
            if broken is None:
                print(f"{name} is not locked any more: nothing to break")
            else:
                print(f"broke {broken.holder}'s lock of {name}; the break is recorded and shown to them")
        elif before is None:
            print(f"{name} was not locked")
        else:
            print(f"unlocked {name}")
    return 0


def run_locks(args: argparse.Namespace) -> int:
    with open_project(args.project) as session:
        service = lock_service(session)
        me = service.holder()
        notices = service.confirm_provisional()  # settled now when the server answers
        held = service.locks()
        broken = service.broken_locks()
        names: Callable[[str], str] = lambda doc_id: getattr(session.index.get(doc_id), "name", "") or ""  # noqa: E731
        if args.json:
            print(json.dumps({
                "holder": me,
                "locks": [info.to_json() | {"name": names(info.doc_id), "mine": info.holder == me} for info in held],
                "broken": [record.to_json() | {"name": names(record.doc_id), "mine": record.holder == me}
                           for record in broken],
                "settled": [notice.to_json() for notice in notices],
            }, indent=2, ensure_ascii=False))
            return 0
        for notice in notices:
            print(notice.message)
        if not held:
            print("no document is locked")
        for info in held:
            tags = " (yours)" if info.holder == me else ""
            tags += " provisional: not yet confirmed by the server" if info.provisional else ""
            print(f"{info.doc_id}  {names(info.doc_id)!r}  locked by {info.holder} since {info.since}{tags}")
        for record in broken:
            whose = "your" if record.holder == me else f"{record.holder}'s"
            print(f"{record.doc_id}  {names(record.doc_id)!r}  {whose} lock"
                  f"{' (held since ' + record.since + ')' if record.since else ''} broken by {record.by} "
                  f"at {record.at}")
    return 0
