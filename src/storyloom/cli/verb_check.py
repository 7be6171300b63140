"""``storyloom check PROJECT [--json]``: every problem of a project, for people and build servers.

The problems are those of the desktop app's problems panel (:mod:`storyloom.app.views.problems`):
each document's validation problems, its property text that does not parse, its script's
problems against the project's variables, and its speakers who are not actors (``unknown-actor``:
no Actor has that name or alias). One line per problem::

    script-000907 (Script "Intro" in Script) content.script:24:5: warning: unknown variable path ... [unknown-path]

then a summary line. ``--json`` prints ``{"project", "documents", "count", "errors",
"warnings", "problems": [{"docId", "name", "collection", "type", "field", "line", "column",
"severity", "code", "message"}]}``. Exit status 0 when there is no problem, 1 when there is
any (errors or warnings), so a build can fail on them; 2 when the project cannot be opened.

First the store itself is verified (:func:`storyloom.store.verify.verify`: SQLite's integrity
check, every row against its checksum, every document decodes, every attachment matches its
digest, revision trees agree with their winners). Damage is listed one line per damaged item
(``damaged: document 'x': ...``), with what to do, and exits 1 before the problems are checked;
``--json`` then prints ``{"project", "damaged", "damage": [{"docId", "attachment", "detail"}]}``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from typing import Any

from storyloom.cli.workspace import project_session
from storyloom.errors import Fix
from storyloom.words import counted


def register(subparsers: Any) -> None:
    check = subparsers.add_parser(
        "check",
        help="list every problem of a project (exit 1 when there is any)",
        description="List every problem of PROJECT: validation, property text that does not parse, script "
        "problems; with the document's name, collection, field, line and column. Exit status 0 when there is "
        "none, 1 when there is any.",
    )
    check.add_argument("project", metavar="PROJECT", help="project name or id")
    check.add_argument("--json", action="store_true", help="print the problems as JSON")
    check.set_defaults(func=run_check)


def short_message(problem: Any) -> str:
    """The message without what the other columns already say: the document, the field, the position."""
    text = problem.message  # already without "document '<id>': "
    field = problem.diagnostic.field
    if field and text.startswith(f"{field}: "):
        text = text[len(field) + 2:]
    if problem.line is not None:
        for prefix in (f"line {problem.line}, column {problem.column}: ", f"line {problem.line}: "):
            if text.startswith(prefix):
                text = text[len(prefix):]
                break
    return text


def problem_dict(problem: Any) -> dict[str, Any]:
    return {
        "docId": problem.doc_id,
        "name": problem.doc_name,
        "collection": problem.collection or problem.doc_type,
        "type": problem.doc_type,
        "field": problem.diagnostic.field,
        "line": problem.line,
        "column": problem.column,
        "severity": problem.severity,
        "code": problem.diagnostic.code,
        "message": short_message(problem),
    }


def problem_line(problem: Any) -> str:
    collection = problem.collection or problem.doc_type
    kind = problem.doc_type if problem.doc_type == collection else f"{problem.doc_type} in {collection}"
    where = problem.diagnostic.field or "(document)"
    if problem.line is not None:
        where += f":{problem.line}" + (f":{problem.column}" if problem.column is not None else "")
    return (f"{problem.doc_id} ({kind} {json.dumps(problem.doc_name, ensure_ascii=False)}) {where}: "
            f"{problem.severity}: {short_message(problem)} [{problem.diagnostic.code}]")


def run_check(args: argparse.Namespace) -> int:
    from storyloom.app.views.problems import ProjectProblems

    damage = _store_damage(args.project)
    if damage:
        _print_damage(args.project, damage, args.json)
        return 1
    with project_session(args.project) as session:
        checker = ProjectProblems(session.db, session.index)
        problems = checker.rebuild()
        documents = checker.checked
        name = session.project.name
    try:
        _print(problems, documents, name, args.json)
    except BrokenPipeError:  # the reader stopped early (`storyloom check P | head`): not an error
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
    return 1 if problems else 0


def _store_damage(project: str) -> list[Any]:
    from storyloom.cli.main import CliError
    from storyloom.project import ProjectError, ProjectManager

    try:
        return ProjectManager().verify(project)
    except ProjectError as exc:
        raise CliError(exc) from None


def _print_damage(project: str, damage: list[Any], as_json: bool) -> None:
    if as_json:
        report = {
            "project": project,
            "damaged": len(damage),
            "damage": [{"docId": d.doc_id, "attachment": d.attachment, "detail": d.detail} for d in damage],
        }
        json.dump(report, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        for item in damage:
            print(f"damaged: {item}")
        print(f"the store of {project} is damaged: {counted(len(damage), 'damaged item')}; "
              "its documents' problems are checked once it is whole again")
        from storyloom.cli.explain import fix_words

        print(fix_words(Fix("recover_damaged", project=project, checked=True)))
    sys.stdout.flush()


def _print(problems: list[Any], documents: int, name: str, as_json: bool) -> None:
    errors = sum(1 for p in problems if p.is_error)
    warnings = len(problems) - errors
    if as_json:
        report = {
            "project": name,
            "documents": documents,
            "count": len(problems),
            "errors": errors,
            "warnings": warnings,
            "problems": [problem_dict(p) for p in problems],
        }
        json.dump(report, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        for problem in problems:
            print(problem_line(problem))
        if problems:
            print(f"{counted(len(problems), 'problem')} ({counted(errors, 'error')}, "
                  f"{counted(warnings, 'warning')}) "
                  f"in {len({p.doc_id for p in problems}):,} of {documents:,} documents of {name}")
        else:
            print(f"no problems in {documents:,} documents of {name}")
    sys.stdout.flush()
