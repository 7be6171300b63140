"""``storyloom conflicts`` and ``storyloom resolve``: conflicted documents of a team project.

- ``storyloom conflicts PROJECT [--json]``: every conflicted document (id, name, winner rev,
  and each leaf with its rev, author, time and, with ``--json``, the whole revision), then the
  edits the server refused (lock enforcement) that are still on this machine.
- ``storyloom resolve PROJECT DOC_ID (--take REV | --merged FILE)``: take one leaf, or write a
  merged document (JSON; ``-`` reads standard input). The resolution goes on the winner and
  every other leaf gets a tombstone that says what superseded it; the next sync carries both.

Exit codes: 0 done; 1 failed (the document is not in conflict, or changed meanwhile); 2 bad
usage or input (an unknown leaf, a file that is not a JSON document, an invalid document);
3 refused: another user holds the document's lock.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from storyloom.cli.main import CliError


def register(subparsers: Any) -> None:
    conflicts = subparsers.add_parser(
        "conflicts", help="list the conflicted documents of a project and the edits the server refused",
        description="List every conflicted document of PROJECT: its winner and every leaf revision, who "
        "wrote it and when (--json: the whole revisions), then the local edits the server refused.")
    conflicts.add_argument("project", metavar="PROJECT", help="project name or id")
    conflicts.add_argument("--json", action="store_true", help="print them as JSON, with every leaf's document")
    conflicts.set_defaults(func=run_conflicts)

    resolve = subparsers.add_parser(
        "resolve", help="resolve a conflicted document: take one leaf revision or write a merged document",
        description="Resolve the conflict of DOC_ID in PROJECT: --take REV keeps that leaf's content, "
        "--merged FILE writes the document in FILE (JSON, - for standard input). The other leaves are "
        "superseded. Exit 3 when another user holds the document's lock.")
    resolve.add_argument("project", metavar="PROJECT", help="project name or id")
    resolve.add_argument("doc_id", metavar="DOC_ID", help="the conflicted document's id")
    how = resolve.add_mutually_exclusive_group(required=True)
    how.add_argument("--take", metavar="REV", help="the leaf revision to keep (see storyloom conflicts)")
    how.add_argument("--merged", metavar="FILE", help="a JSON file holding the merged document (- for stdin)")
    resolve.set_defaults(func=run_resolve)


def run_conflicts(args: argparse.Namespace) -> int:
    from storyloom.cli.workspace import project_session
    from storyloom.project import list_conflicts, list_refused

    with project_session(args.project) as session:
        found = list_conflicts(session.project.db)
        refused = list_refused(session.project.db)
        name = session.project.name
    if args.json:
        print(json.dumps({"conflicts": [c.to_json() for c in found], "refused": [r.to_json() for r in refused]},
                         indent=2, ensure_ascii=False))
        return 0
    if not found and not refused:
        print("no conflicts")
        return 0
    for conflict in found:
        label = f"{conflict.name!r} " if conflict.name else ""
        print(f"{label}({conflict.doc_id}), {conflict.collection or 'no collection'}: {len(conflict.leaves)} leaves")
        for n, leaf in enumerate(conflict.leaves):
            role = "winner" if n == 0 else "leaf  "
            what = "deleted" if leaf.deleted else f"by {leaf.author or '?'} at {leaf.time or '?'}"
            print(f"  {role} {leaf.rev}  {what}")
            if n:
                _print_differences(conflict.leaves[0], leaf)
    if found:
        print(f"resolve with: storyloom resolve {shlex.quote(name)} DOC_ID (--take REV | --merged FILE)")
    for edit in refused:
        print(f"refused by the server: {edit.doc_id} {', '.join(edit.revs)}: {edit.reason}")
    return 0


def _print_differences(winner: Any, leaf: Any) -> None:
    """The fields in which ``leaf`` differs from the winner, an excerpt of each side."""
    from storyloom.project import field_excerpts

    if leaf.deleted or winner.deleted:
        print("         deleted on one side while changed on the other")
        return
    excerpts = field_excerpts(winner.doc, leaf.doc)
    if not excerpts:
        print("         same content as the winner (only stamps or the lock differ)")
        return
    for item in excerpts:
        print(f"         {item.label}: winner {item.old!r} / this leaf {item.new!r}")


def _read_merged(path: str) -> dict[str, Any]:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}", 2) from None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise CliError(f"{path} is not JSON: {exc}", 2) from None
    if not isinstance(doc, dict):
        raise CliError(f"{path} must hold one JSON object (the merged document)", 2)
    return doc


def run_resolve(args: argparse.Namespace) -> int:
    from storyloom.app.terms import Conflict
    from storyloom.cli.verb_locks import EXIT_REFUSED, lock_service
    from storyloom.cli.workspace import project_session
    from storyloom.project import ConflictError, LockRefused, ValidationError, resolve

    merged = _read_merged(args.merged) if args.merged is not None else None
    with project_session(args.project) as session:
        lock_service(session)  # the team lock rules guard the editor
        try:
            rev = resolve(session.editor, args.doc_id, take=args.take, merged=merged)
        except ConflictError as exc:
            raise CliError(exc, exc.exit_code) from None
        except LockRefused as exc:
            raise CliError(exc, EXIT_REFUSED) from None
        except ValidationError as exc:
            raise CliError(exc, 2) from None
        except Conflict:
            raise CliError(f"{args.doc_id!r} changed while resolving (a sync or another edit): run "
                           f"`storyloom conflicts {shlex.quote(session.project.name)}` and resolve again",
                           1) from None
    print(f"resolved {args.doc_id}: {rev} (the other leaves are superseded; sync to share it)")
    return 0
