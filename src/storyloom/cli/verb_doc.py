"""``storyloom doc get`` and ``doc set``: read and edit one document from the command line.

- ``storyloom doc get PROJECT DOC_ID [--json]``: the current document (``--json``: exactly as
  stored, with ``_conflicts`` when it has some); without ``--json`` a short header (type, name,
  revision, lock, conflicts) and the fields.
- ``storyloom doc set PROJECT DOC_ID PATH=VALUE ... [--release]``: set fields. ``PATH`` is
  dotted (``content.script``; missing objects on the way are created); ``VALUE`` is read as
  JSON when it parses (``3``, ``true``, ``null``, ``[1,2]``, ``{"a":1}``, ``"quoted"``), else
  taken as text. The edit goes through the editor gate (validation, locks, stamps). When the
  project requires a lock to edit (``requireLockToEdit``; absent: on when a remote is
  configured), the lock is taken first (compare-and-swap on the server when it answers). The
  edit is pushed at once when the server answers; ``--release`` unlocks afterwards.

The lock fields and ``_``-fields are not set this way (``storyloom lock`` / ``unlock`` change
locks). Exit codes: 0 done; 1 failed; 2 bad usage or input (an unknown document, a malformed
assignment, a value validation refuses); 3 refused: another user holds the lock.
"""

from __future__ import annotations

import argparse
import copy
import json
from typing import Any

from storyloom.cli.main import CliError
from storyloom.cli.verb_locks import EXIT_REFUSED, document_name, lock_errors, lock_service, open_project
from storyloom.words import counted

READ_ONLY_FIELDS = ("locked", "lockedBy", "lockedAt", "lockBroken")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "doc", help="read (doc get) or edit (doc set) one document",
        description="Read or edit one document of a project from the command line.")
    verbs = parser.add_subparsers(dest="doc_verb", metavar="get|set")
    verbs.required = True

    get = verbs.add_parser("get", help="print a document", description="Print the current document DOC_ID.")
    get.add_argument("project", metavar="PROJECT", help="project name or id")
    get.add_argument("doc_id", metavar="DOC_ID", help="the document's id")
    get.add_argument("--json", action="store_true", help="print the document exactly as stored, as JSON")
    get.set_defaults(func=run_get)

    put = verbs.add_parser(
        "set", help="set fields of a document through the editor gate",
        description="Set fields of DOC_ID: PATH is dotted (content.script), VALUE is JSON when it parses, "
        "else text. Takes the lock first when the project requires it; pushes the edit at once when the "
        "server answers.")
    put.add_argument("project", metavar="PROJECT", help="project name or id")
    put.add_argument("doc_id", metavar="DOC_ID", help="the document's id")
    put.add_argument("assignments", metavar="PATH=VALUE", nargs="+", help="a field to set, e.g. name=Intro")
    put.add_argument("--release", action="store_true", help="unlock the document after the edit")
    put.set_defaults(func=run_set)


# ------------------------------------------------------------------ assignments
def parse_value(text: str) -> Any:
    """JSON when ``text`` parses as JSON, else the text itself."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_assignments(items: list[str]) -> list[tuple[list[str], Any]]:
    """``PATH=VALUE`` items as ``(path parts, value)``; a :class:`CliError` (exit 2) names a bad one."""
    parsed = []
    for item in items:
        path, sep, value = item.partition("=")
        parts = path.split(".")
        if not sep or not path or any(not part for part in parts):
            raise CliError(f"{item!r}: expected PATH=VALUE with a dotted PATH such as content.script=Hello")
        if parts[0].startswith("_") or parts[0] in READ_ONLY_FIELDS:
            hint = "take or release locks with `storyloom lock` / `storyloom unlock`" if parts[0] in READ_ONLY_FIELDS \
                else "the store keeps the _-fields"
            raise CliError(f"{item!r}: {parts[0]} cannot be set with doc set ({hint})")
        parsed.append((parts, parse_value(value)))
    return parsed


def set_path(doc: dict[str, Any], parts: list[str], value: Any) -> None:
    """Set ``doc[parts[0]][parts[1]]...`` to ``value``, creating missing objects on the way."""
    target = doc
    for depth, part in enumerate(parts[:-1]):
        child = target.get(part)
        if child is None:
            child = target[part] = {}
        if not isinstance(child, dict):
            where = ".".join(parts[: depth + 1])
            raise CliError(f"{'.'.join(parts)}: {where} is not an object (it holds {json.dumps(child)[:60]})")
        target = child
    target[parts[-1]] = copy.deepcopy(value)


# ------------------------------------------------------------------ verbs
def run_get(args: argparse.Namespace) -> int:
    from storyloom.project import broken_lock, lock_info

    with open_project(args.project) as session, lock_errors():
        doc = session.db.get(args.doc_id, conflicts=True)
        if args.json:
            print(json.dumps(doc, indent=2, ensure_ascii=False))
            return 0
        info = lock_info(doc)
        print(f"id: {doc['_id']}")
        print(f"type: {doc.get('type', '')}")
        if "name" in doc or "projectName" in doc:
            print(f"name: {doc.get('name', doc.get('projectName'))}")
        print(f"rev: {doc['_rev']}")
        print(f"lock: {'free' if info is None else f'locked by {info.holder} since {info.since}'}")
        broken = broken_lock(doc)
        if broken is not None:
            print(f"lock broken: {broken.describe()}")
        if doc.get("_conflicts"):
            print(f"conflicts: {counted(len(doc['_conflicts']), 'other revision')} ({', '.join(doc['_conflicts'])}); "
                  "see storyloom conflicts")
        body = {k: v for k, v in doc.items() if not k.startswith("_")}
        print(json.dumps(body, indent=2, ensure_ascii=False))
    return 0


def run_set(args: argparse.Namespace) -> int:
    from storyloom.project import lock_info, require_lock_to_edit

    assignments = parse_assignments(args.assignments)
    with open_project(args.project) as session, lock_errors():
        service = lock_service(session)
        current = session.db.get(args.doc_id)
        name = document_name(session, args.doc_id)
        held = lock_info(current)
        me = service.holder()
        remote = service.remote
        required = require_lock_to_edit(session.settings(), bool(remote is not None and remote.configured))
        if required and (held is None or held.holder != me):
            taken = service.lock(args.doc_id)
            state = "provisionally (the server cannot be reached)" if taken.provisional else "on the server"
            print(f"locked {name} for {me} {state}")
            current = session.db.get(args.doc_id)
        doc = copy.deepcopy(current)
        for parts, value in assignments:
            set_path(doc, parts, value)
        result = session.editor.update(doc)
        for warning in result.warnings:
            print(f"warning: {warning.message}")
        print(f"set {', '.join('.'.join(parts) for parts, _ in assignments)} on {name}: revision {result.rev}")
        refused = service.publish(args.doc_id)
        code = 0
        if refused is None:
            if remote is not None and remote.configured:
                print("kept here: the server cannot be reached; the next sync sends it")
        elif refused:
            reasons = "; ".join(f"{r.get('error')}: {r.get('reason')}" for r in refused)
            print(f"the server refused the edit ({reasons}); it stays here, listed until resolved")
            code = EXIT_REFUSED if any(r.get("error") == "forbidden" for r in refused) else 1
        else:
            print("pushed to the server")
        if args.release:
            service.unlock(args.doc_id)
            print(f"unlocked {name}")
    return code
