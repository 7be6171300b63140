"""``storyloom lines PROJECT --actor NAME [--json]``: every line of an actor, for a voice
recording session, a casting sheet or a build check.

The lines are those of the actor editor's "All lines" (:func:`storyloom.project.actor_lines`):
every speech line whose speaker is the actor's name or alias (ignoring case), in every Script,
in document-name then line order. One line each::

    script-000907 "Intro" 24 [angry]: I told you not to come here.

then a count. ``--json`` prints ``{"project", "actor", "actorId", "count", "documents",
"lines": [{"docId", "docName", "line", "text", "expression", "tag", "speaker", "nodes":
[{"dialogueId", "dialogueName", "nodeId", "label"}]}]}`` (``nodes``: the dialogue nodes that play
the line's Script). Exit status 0 when the actor has lines, 1 when it has none (a name that is no
actor and no speaker says so on stderr), 2 when the project cannot be opened.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from typing import Any

from storyloom.cli.workspace import project_session
from storyloom.words import counted


def register(subparsers: Any) -> None:
    lines = subparsers.add_parser(
        "lines",
        help="list every line of an actor (document, line number, text, expression)",
        description="List every line the actor NAME speaks in PROJECT's scripts (the actor's name or alias, "
        "ignoring case): the document's id and name, the line number, the expression and the text. Exit status "
        "0 when there is any, 1 when there is none.",
    )
    lines.add_argument("project", metavar="PROJECT", help="project name or id")
    lines.add_argument("--actor", required=True, metavar="NAME", help="the actor's name or alias")
    lines.add_argument("--json", action="store_true", help="print the lines as JSON")
    lines.set_defaults(func=run_lines)


def line_text(line: Any) -> str:
    """One line of the plain output: id, quoted document name, line number, expression, text."""
    expression = f" [{line.expression}]" if line.expression else ""
    return f"{line.doc_id} {json.dumps(line.doc_name, ensure_ascii=False)} {line.line}{expression}: {line.text}"


def run_lines(args: argparse.Namespace) -> int:
    from storyloom.project import actor_lines

    with project_session(args.project) as session:
        found = actor_lines(session.db, session.index, args.actor)
        project = session.project.name
    try:
        _print(found, project, args.json)
    except BrokenPipeError:  # the reader stopped early (`storyloom lines P --actor A | head`)
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
    if not found.lines and found.actor_id is None:
        print(f"storyloom: no actor and no speaker named {args.actor!r} in {project}", file=sys.stderr)
    return 0 if found.lines else 1


def _print(found: Any, project: str, as_json: bool) -> None:
    if as_json:
        json.dump({"project": project, "actor": found.name, "actorId": found.actor_id, "count": len(found.lines),
                   "documents": found.documents, "lines": [line.to_dict() for line in found.lines]},
                  sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        for line in found.lines:
            print(line_text(line))
        count = len(found.lines)
        print(f"{counted(count, 'line')} of {found.name} in {counted(found.documents, 'document')} of {project}")
    sys.stdout.flush()
