"""``storyloom export``, ``storyloom schema`` and ``storyloom dump``.

- ``export PROJECT [--collections A,B] [--compat MODE] [-o FILE] [--schema-sidecar] [--pretty]
  [--locale TAG | --all-locales] [-q]``:
  the game export (``docs/export-format.md``); with ``--schema-sidecar`` also
  ``<FILE>.schema.json`` (``game.json`` -> ``game.schema.json``), the JSON Schema of that very
  export. ``--compat drafft`` adds what Drafft's engine importers check (``none``: the plain
  export even when the project's settings name a mode). ``--locale TAG``: the text of that target
  locale in place (``_meta.localization`` counts the lines); ``--all-locales``: the source-text
  export and beside it a string table per target locale (``game.fr.json``).
- ``schema PROJECT [--collections A,B] [--compat MODE] [-o FILE] [--pretty] [-q]``: the JSON Schema
  alone (``docs/schema.md``).
- ``dump PROJECT [-o FILE]``: the raw ``all_docs`` dump with ``include_docs`` and
  ``attachments`` (what ``/db-dump`` serves and what a backup holds).

``PROJECT`` is a project name or id. Output goes to stdout unless ``-o`` is given. ``-o``
follows :mod:`storyloom.output_files`: ending in ``/`` or naming an existing folder, it is a
folder (created when absent) for the verb's default name (``<project>.json``,
``<project>.schema.json``, ``<project>.dump.json``); a file named is replaced (a build script
rewrites its output), never a folder; files are written atomically. ``export`` and ``schema`` read the
documents one at a time (memory bounded) and draw a progress bar on stderr when it is a terminal
(not with ``--quiet``). The writing is the app's File > Export's (:mod:`storyloom.app.export_files`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
from typing import Any

from storyloom.cli.main import CliError
from storyloom.cli.progress import add_quiet_option, progress_bars
from storyloom.cli.workspace import project_session
from storyloom.output_files import OutputError
from storyloom.words import counted

_OUTPUT_HELP = ("write to FILE (replaced when it exists) instead of stdout; a folder (an existing one, or ending "
                "in /: created) gets {name} inside it")


def register(subparsers: Any) -> None:
    export = subparsers.add_parser(
        "export",
        help="write the game export of a project (JSON)",
        description="Write the game export of PROJECT: the JSON a game engine reads.",
    )
    export.add_argument("project", metavar="PROJECT", help="project name or id")
    _collections_option(export)
    _compat_option(export)
    export.add_argument("-o", "--output", metavar="FILE", help=_OUTPUT_HELP.format(name="<project>.json"))
    export.add_argument(
        "--schema-sidecar",
        action="store_true",
        help="also write the JSON Schema of the export beside it (FILE.json -> FILE.schema.json); needs -o",
    )
    export.add_argument("--pretty", action="store_true", help="indent the JSON (2 spaces)")
    languages = export.add_mutually_exclusive_group()
    languages.add_argument("--locale", metavar="TAG",
                           help="the text in this language: a target locale of the project (untranslated lines "
                           "keep the source text; _meta.localization counts them)")
    languages.add_argument("--all-locales", action="store_true",
                           help="the source text, and beside FILE a string table per target locale "
                           "(FILE.json -> FILE.<locale>.json); needs -o")
    add_quiet_option(export)
    export.set_defaults(func=run_export)

    schema = subparsers.add_parser(
        "schema",
        help="write the JSON Schema (2020-12) of a project's game export",
        description="Write the JSON Schema (draft 2020-12) of PROJECT's game export, same filter.",
    )
    schema.add_argument("project", metavar="PROJECT", help="project name or id")
    _collections_option(schema)
    _compat_option(schema)
    schema.add_argument("-o", "--output", metavar="FILE", help=_OUTPUT_HELP.format(name="<project>.schema.json"))
    schema.add_argument("--pretty", action="store_true", help="indent the JSON (2 spaces)")
    add_quiet_option(schema)
    schema.set_defaults(func=run_schema)

    dump = subparsers.add_parser(
        "dump",
        help="print the raw all_docs dump of a project (include_docs, attachments)",
        description="Print the raw all_docs dump of PROJECT (with include_docs and attachments): "
        "the same JSON /db-dump serves.",
    )
    dump.add_argument("project", metavar="PROJECT", help="project name or id")
    dump.add_argument("-o", "--output", metavar="FILE", help=_OUTPUT_HELP.format(name="<project>.dump.json"))
    dump.set_defaults(func=run_dump)


def _collections_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--collections",
        metavar="A,B,...",
        help="export names, comma-separated (default: the project's export sections); "
        "ProjectSettings, GDD, Scripts, Dialogues, Actors, Quests, Items, Variables, Scenarios, "
        "Scenes, Misc, Grids, Kanban, Canvas, Maps",
    )


def _compat_option(parser: argparse.ArgumentParser) -> None:
    from storyloom.app.terms import COMPAT_VALUES

    parser.add_argument(
        "--compat",
        choices=COMPAT_VALUES,
        default=None,
        help="compatibility mode (default: the project's exportCompat setting, off when unset): "
        "drafft adds _meta.drafftVersion, which Drafft's engine importers check; none: the plain export",
    )


# --------------------------------------------------------------------------------------


# The kinds of app.export_files (imported when a verb runs: the CLI starts without the export code).
GAME, SCHEMA, DUMP = "game", "schema", "dump"


def _target(output: str | None, project_name: str, kind: str) -> Any:
    """Where this verb writes: the file ``-o`` names, checked before the work starts, or stdout."""
    if output is None:
        return _Stdout()
    from storyloom.app.export_files import output_path

    try:
        return output_path(output, project_name, kind)
    except OutputError as exc:
        raise CliError(exc) from None


class _Stdout:
    """Standard output as an export's stream (bytes). A reader that stops early (`storyloom dump P
    | head`) is not an error: the stream says it is ``closed`` and the writing ends."""

    def __init__(self) -> None:
        self.closed = False

    def write(self, data: bytes) -> int:
        try:
            stream = getattr(sys.stdout, "buffer", None)
            if stream is not None:
                stream.write(data)
            else:  # pragma: no cover - a text-only stdout (captured)
                sys.stdout.write(data.decode("utf-8"))
        except BrokenPipeError:
            self._reader_gone()
        return len(data)

    def flush(self) -> None:
        stream = getattr(sys.stdout, "buffer", None)
        try:
            if stream is not None:
                stream.flush()
        except BrokenPipeError:
            self._reader_gone()

    def _reader_gone(self) -> None:
        self.closed = True
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())


def run_export(args: argparse.Namespace) -> int:
    from storyloom.app.export_files import write_game_export
    from storyloom.app.terms import UnknownCollections, UnknownExportLocale

    if args.schema_sidecar and not args.output:
        raise CliError("--schema-sidecar needs -o FILE (the schema is written beside the export)")
    if args.all_locales and not args.output:
        raise CliError("--all-locales needs -o FILE (the string tables are written beside the export)")
    # Streamed: the documents are read, transformed and spooled one at a time, so memory stays
    # bounded whatever the project's size; with the sidecar, one reading of the store for both.
    with progress_bars(args) as progress, project_session(args.project) as session:
        target = _target(args.output, session.project.name, GAME)
        try:
            result = write_game_export(session.project, target, collections=args.collections,
                                       exported_by=session.workspace.user, compat=args.compat, pretty=args.pretty,
                                       schema_sidecar=args.schema_sidecar, on_progress=progress,
                                       locale=args.locale, all_locales=args.all_locales)
        except (UnknownCollections, UnknownExportLocale) as exc:
            raise CliError(exc) from exc
    localization = result.localization
    if localization is not None and not args.quiet:
        print(f"storyloom: text in {localization['locale']}: {localization['translated']} of "
              f"{counted(localization['lines'], 'line')} translated, {localization['needsReview']} to review, "
              f"{localization['untranslated']} in the source language (_meta.localization)", file=sys.stderr)
    for path, _size in result.files[1:]:
        if not args.quiet and path.endswith(tuple(f".{tag}.json" for tag in result.tables)):
            print(f"storyloom: wrote {path}", file=sys.stderr)
    warnings = result.warnings
    count = result.warning_count
    if count:
        print(f"storyloom: {counted(count, 'warning')} (_meta.warningCount; "
              f"`storyloom check {shlex.quote(args.project)}` lists every problem):", file=sys.stderr)
        for warning in warnings[:20]:
            where = f"{warning['collection']} {warning['docId']} {warning['field'] or ''}".strip()
            if warning.get("line"):
                where += f" line {warning['line']}" + (f":{warning['column']}" if warning.get("column") else "")
            print(f"  {where}: {warning['message']}", file=sys.stderr)
        if count > 20:
            print(f"  ... and {count - 20} more", file=sys.stderr)
    return 0


def run_schema(args: argparse.Namespace) -> int:
    from storyloom.app.export_files import write_schema
    from storyloom.app.terms import UnknownCollections

    with progress_bars(args) as progress, project_session(args.project) as session:
        target = _target(args.output, session.project.name, SCHEMA)
        try:
            write_schema(session.project, target, collections=args.collections, compat=args.compat,
                         pretty=args.pretty, on_progress=progress)
        except UnknownCollections as exc:
            raise CliError(exc) from exc
    return 0


def run_dump(args: argparse.Namespace) -> int:
    from storyloom.app.export_files import write_dump

    with project_session(args.project) as session:
        write_dump(session.db, _target(args.output, session.project.name, DUMP))
    return 0
