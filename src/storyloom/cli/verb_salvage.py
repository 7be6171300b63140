"""``storyloom salvage PROJECT NEWNAME``: every readable document of a damaged project, copied
into a new project (:mod:`storyloom.project.salvage`); what could not be read is listed.

Exit status 0 when everything was copied, 1 when something was left out (listed), 2 when the
project is unknown or the new name cannot be used. The damaged project is left as it is.
"""

from __future__ import annotations

import argparse
from typing import Any

from storyloom.cli.main import CliError
from storyloom.cli.progress import add_quiet_option, progress_bars
from storyloom.words import counted


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "salvage",
        help="copy every readable document of a damaged project into a new project",
        description="Copy every document and attachment of PROJECT that still reads into a new project "
        "NEWNAME, keeping revision histories, and list what could not be read. The damaged project is left "
        "as it is. A project that syncs can also be cloned again from its server (storyloom clone).",
    )
    p.add_argument("project", metavar="PROJECT", help="the damaged project's name or id")
    p.add_argument("new_name", metavar="NEWNAME", help="the new project's name")
    add_quiet_option(p)
    p.set_defaults(func=run_salvage)


def run_salvage(args: argparse.Namespace) -> int:
    from storyloom.project import ProjectError, ProjectManager, salvage_project

    manager = ProjectManager()
    try:
        with progress_bars(args) as progress:
            project, report = salvage_project(manager, args.project, args.new_name, progress=progress)
    except ProjectError as exc:
        raise CliError(exc) from None
    name = project.name
    project.close()
    for line in report.lost:
        print(f"not readable: {line}")
    for line in report.rewritten:
        print(f"rewritten: {line}")
    print(f"salvaged {counted(report.copied, 'document')} of {args.project} "
          f"into {name}" + ("" if report.complete else
                            f"; {counted(len(report.lost), 'item')} could not be read, {len(report.rewritten):,} "
                            "copied as new revisions"))
    return 0 if report.complete else 1
