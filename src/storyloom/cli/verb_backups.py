"""``storyloom backups PROJECT``: the automatic backups the app took of a project.

``storyloom backups PROJECT [--json]`` lists them, the newest first: a number (1 is the newest),
the local time, the size and the file. ``--json`` prints an array of ``{"time", "size",
"path"}`` (``time`` in ISO 8601 with this machine's offset, ``size`` in bytes).
``storyloom backups PROJECT --restore N|latest [--name NAME]`` restores one as a new project
beside the original (a new id), named ``<name> (backup <time>)`` unless ``--name`` says
otherwise; ``storyloom restore FILE --new-id --name NAME`` does the same with a listed file.
A project that does not exist exits 2, as the verbs that open a project do.
"""

from __future__ import annotations

import argparse
import json
import shlex
from typing import TYPE_CHECKING

from storyloom.cli.main import CliError
from storyloom.cli.progress import add_quiet_option, progress_bars
from storyloom.cli.workspace import open_workspace

if TYPE_CHECKING:
    from storyloom.app.auto_backups import AutoBackup
    from storyloom.project import ProjectInfo, ProjectManager

LATEST = "latest"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "backups",
        help="list (or restore) the automatic backups the app took of a project",
        description=(
            "List a project's automatic backups, the newest first (the app takes one when it opens "
            "the project and after each hour of edits, and keeps the last `backups.keep`, see "
            "`storyloom options`). Any listed file restores with `storyloom restore FILE --new-id`."
        ),
    )
    parser.add_argument("project", help="the project's name or id")
    parser.add_argument("--json", action="store_true",
                        help='print a JSON array of {"time" (ISO 8601 with offset), "size" (bytes), "path"}')
    parser.add_argument("--restore", metavar="N|latest",
                        help="restore backup N of the list (1 is the newest) or the latest as a new project")
    parser.add_argument("--name", help="the restored project's name (default: '<name> (backup <time>)')")
    add_quiet_option(parser)
    parser.set_defaults(func=run)


def _choose(backups: list[AutoBackup], which: str, project: str) -> AutoBackup:
    if not backups:
        raise CliError(f"project {project!r} has no automatic backups to restore")
    if which.strip().lower() == LATEST:
        return backups[0]
    try:
        number = int(which)
    except ValueError:
        number = 0
    if not 1 <= number <= len(backups):
        raise CliError(f"--restore: expected {LATEST!r} or a number from 1 to {len(backups)} "
                       f"(1 is the newest), got {which!r}")
    return backups[number - 1]


def run(args: argparse.Namespace) -> int:
    if args.name is not None and args.restore is None:
        raise CliError("--name goes with --restore N|latest")
    from storyloom.app.auto_backups import list_backups
    from storyloom.project import ProjectError, display_name

    workspace = open_workspace()
    try:
        info = workspace.manager.find(args.project)
    except ProjectError as exc:
        raise CliError(exc) from None
    backups = list_backups(info.id)
    if args.restore is not None:
        return _restore(args, workspace.manager, info, _choose(backups, args.restore, info.name))
    if args.json:
        print(json.dumps([backup.to_json() for backup in backups], indent=2, ensure_ascii=False))
        return 0
    keep = workspace.options.auto_backups_keep
    name = display_name(info.name)
    policy = (f"the app keeps the last {keep}" if keep else
              "automatic backups are off: `storyloom options set backups.keep 10` turns them on")
    if not backups:
        print(f"No automatic backups of {name!r} yet ({policy}; the app takes one when it opens the project).")
        return 0
    print(f"Automatic backups of {name!r}, the newest first ({policy}):")
    sizes = [backup.size_text() for backup in backups]
    width = max(len(size) for size in sizes)
    for number, (backup, size) in enumerate(zip(backups, sizes, strict=True), start=1):
        print(f"{number:>3}  {backup.local_time()}  {size:>{width}}  {backup.path}")
    print(f"Restore one as a new project: storyloom backups {shlex.quote(args.project)} --restore N")
    return 0


def _restore(args: argparse.Namespace, manager: ProjectManager, info: ProjectInfo, backup: AutoBackup) -> int:
    from storyloom.app.auto_backups import restore_backup, restored_name
    from storyloom.project import DumpError, ProjectError, ValidationError

    name = args.name if args.name is not None else restored_name(manager, info.name, backup)
    try:
        with progress_bars(args) as progress:
            project = restore_backup(manager, backup, name, progress=progress)
    except (ProjectError, DumpError, ValidationError) as exc:
        raise CliError(exc, code=1) from None
    with project:
        if args.json:
            print(json.dumps({"id": project.id, "name": project.name, "backup": backup.to_json()}, indent=2,
                             ensure_ascii=False))
        else:
            print(f"Restored the backup of {backup.local_time()} as project {project.name!r} (id {project.id})")
    return 0
