"""Project verbs: ``new``, ``list``, ``rename``, ``delete``, ``backup``, ``restore``, ``import``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from storyloom.cli.main import CliError
from storyloom.cli.progress import add_quiet_option, progress_bars
from storyloom.cli.workspace import open_workspace
from storyloom.errors import StoryloomError

if TYPE_CHECKING:
    from storyloom.project import ProjectManager

# The project layer and the Drafft importer are imported in the verbs that use them: `storyloom
# list` loads no importer, `storyloom --help` no project code.


def _manager() -> ProjectManager:
    return open_workspace().manager


def _exit_1_errors() -> tuple[type[StoryloomError], ...]:
    from storyloom.drafft.report import DrafftImportError
    from storyloom.project import DumpError, ProjectError, ValidationError

    return (ProjectError, DumpError, DrafftImportError, ValidationError)


def _run(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Turn the domain's user-facing errors into ``storyloom: error: ...`` (exit code 1)."""

    def wrapper(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except StoryloomError as exc:
            # The classes are imported only once something failed (the importer's are heavy).
            if isinstance(exc, _exit_1_errors()):
                raise CliError(exc, code=1) from None
            raise

    return wrapper


@_run
def _new(args: argparse.Namespace) -> int:
    if args.sample:
        from storyloom.project import create_sample_project

        description = args.description or None  # the sample's own description unless one is given
        with create_sample_project(_manager(), args.name, description=description) as project:
            print(f"Created project {project.name!r} (id {project.id}) in {project.path}, "
                  "holding the sample story The Lighthouse Keeper")
        return 0
    with _manager().create(args.name, args.description) as project:
        print(f"Created project {project.name!r} (id {project.id}) in {project.path}")
    return 0


@_run
def _list(args: argparse.Namespace) -> int:
    from storyloom.project import display_name

    projects = _manager().list()
    if args.json:
        print(json.dumps([{"id": p.id, "name": p.name, "path": str(p.path)} for p in projects], indent=2))
        return 0
    if not projects:
        print("No projects yet: create one with `storyloom new NAME` or `storyloom import FILE`.")
        return 0
    # Names made before the naming rules may hold control characters: shown escaped, never run.
    names = [display_name(p.name) for p in projects]
    width = max(len(name) for name in names)
    for name, p in zip(names, projects, strict=True):
        print(f"{name:<{width}}  {p.id}")
    return 0


@_run
def _rename(args: argparse.Namespace) -> int:
    name = _manager().rename(args.project, args.new_name)
    print(f"Renamed to {name!r}")
    return 0


@_run
def _delete(args: argparse.Namespace) -> int:
    manager = _manager()
    info = manager.find(args.project)
    if not args.yes:
        if not sys.stdin.isatty():
            raise CliError(f"deleting project {info.name!r} ({info.id}) cannot be undone: add --yes to confirm")
        answer = input(f"Delete project {info.name!r} ({info.id})? This cannot be undone. [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing deleted.")
            return 1
    manager.delete(info.id)
    print(f"Deleted project {info.name!r} ({info.id})")
    return 0


@_run
def _backup(args: argparse.Namespace) -> int:
    manager = _manager()
    info = manager.find(args.project)
    # Without -o: the default name in the current folder (a free numbered one when it is taken).
    with progress_bars(args) as progress:
        written = manager.backup(info.id, args.output or os.curdir, progress=progress, force=args.force)
    print(f"Backed up {info.name!r} to {written}")
    return 0


@_run
def _restore(args: argparse.Namespace) -> int:
    warnings: list[str] = []
    with progress_bars(args) as progress:
        project = _manager().restore(args.file, args.name, new_id=args.new_id, progress=progress,
                                     accept_damaged=args.accept_damaged, on_warning=warnings.append)
    for warning in warnings:
        print(f"storyloom: warning: {warning}", file=sys.stderr)
    with project:
        print(f"Restored project {project.name!r} (id {project.id}) from {args.file}")
    return 0


@_run
def _import(args: argparse.Namespace) -> int:
    from storyloom.drafft import import_backup

    with progress_bars(args) as progress:
        project, report = import_backup(_manager(), args.file, args.name, allow_skips=args.allow_skips,
                                        progress=progress, accept_damaged=args.accept_damaged)
    project.close()
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(report.to_text())
    return 0


def _accept_damaged_option(parser: argparse.ArgumentParser, verb: str) -> None:
    parser.add_argument(
        "--accept-damaged",
        action="store_true",
        help=f"{verb} attachments whose bytes do not match the digest recorded with them as they are "
        "(each is listed in a warning); without it such a backup is refused",
    )


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("new", help="create a project")
    p.add_argument("name", help="the project's name (unique on this machine)")
    p.add_argument("--description", default="", help="a short description")
    p.add_argument("--sample", action="store_true",
                   help="fill it with the sample story (The Lighthouse Keeper): an example in every collection")
    p.set_defaults(func=_new)

    p = subparsers.add_parser("list", help="list the projects on this machine")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_list)

    p = subparsers.add_parser("rename", help="rename a project")
    p.add_argument("project", help="the project's name or id")
    p.add_argument("new_name", help="the new name")
    p.set_defaults(func=_rename)

    p = subparsers.add_parser("delete", help="delete a project and all its documents")
    p.add_argument("project", help="the project's name or id")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(func=_delete)

    p = subparsers.add_parser("backup", help="write a project's backup file (an all_docs dump)")
    p.add_argument("project", help="the project's name or id")
    p.add_argument("-o", "--output",
                   help="the file to write, or a folder (an existing one, or ending in /: created) to write "
                   "<name>-<time>.json into (default: <name>-<time>.json here)")
    p.add_argument("--force", action="store_true", help="replace the file named by -o when it exists")
    add_quiet_option(p)
    p.set_defaults(func=_backup)

    p = subparsers.add_parser("restore", help="restore a project from a Storyloom backup file")
    p.add_argument("file", help="the backup file")
    p.add_argument("--name", help="the restored project's name (default: the backup's)")
    p.add_argument("--new-id", action="store_true",
                   help="restore as a copy with a new project id (needed while the original exists here)")
    _accept_damaged_option(p, "restore")
    add_quiet_option(p)
    p.set_defaults(func=_restore)

    p = subparsers.add_parser("import", help="import a Drafft backup (v1 or v2) as a new project")
    p.add_argument("file", help="the Drafft backup file (an allDocs JSON dump)")
    p.add_argument("--name", help="the new project's name (default: the backup's project name)")
    p.add_argument("--json", action="store_true", help="print the import report as JSON")
    p.add_argument(
        "--allow-skips",
        action="store_true",
        help="import even when some documents cannot be (they are left out and listed in the report)",
    )
    _accept_damaged_option(p, "import")
    add_quiet_option(p)
    p.set_defaults(func=_import)
