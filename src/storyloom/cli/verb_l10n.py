"""``storyloom l10n``: translation files of a project (docs/localization.md).

- ``l10n export PROJECT --locale TAG -o FILE [--csv-dialect godot|unity]``: every speech line and
  choice option of PROJECT, with the translations held for TAG and their review flags, written
  in the format FILE's suffix names (``.po``, ``.xlf``/``.xliff``, ``.csv``;
  docs/translation-files.md). TAG must be one of the project's target locales.
- ``l10n import PROJECT FILE [--locale TAG] [--csv-dialect godot|unity] [--dry-run]``: the
  translations of FILE stored in PROJECT, then the report: the lines counted by outcome, then
  the unknown ids and the locked lines listed. Exit status 0 when every line was imported (or
  left empty by the translator), 1 when some were refused (unknown ids, translations locked by
  another translator), and the error's status when nothing could be imported.
- ``l10n vo PROJECT [--actor NAME] [--locale TAG] -o FILE.csv``: the voice-over recording
  script: one CSV row per speech line with its id, actor, expression, text, context (the
  previous line) and the audio file a game loads (the project's ``voiceOverPath``).

The work is the app's (:mod:`storyloom.app.l10n_files`).
"""

from __future__ import annotations

import argparse
from typing import Any

from storyloom.cli.workspace import project_session

_DIALECT_HELP = ("the CSV string table's kind: godot (Godot's translation CSV) or unity (Unity Localization's "
                 "CSV); for an import, found from the header when not given")


def register(subparsers: Any) -> None:
    l10n = subparsers.add_parser(
        "l10n",
        help="export and import a project's translation files (.po, .xlf, .csv) and voice-over scripts",
        description="Export a project's lines for translators, and import their translations.",
    )
    verbs = l10n.add_subparsers(dest="l10n_verb", metavar="ACTION", required=True)

    export = verbs.add_parser(
        "export", help="write the lines to translate into one locale",
        description="Write every speech line and choice option of PROJECT, with the translations held for "
        "--locale, to FILE in the format its suffix names (.po, .xlf or .xliff, .csv).",
    )
    export.add_argument("project", metavar="PROJECT", help="project name or id")
    export.add_argument("--locale", required=True, metavar="TAG", help="a target locale of the project (fr, pt-BR)")
    export.add_argument("-o", "--output", required=True, metavar="FILE", help="the file to write (replaced)")
    export.add_argument("--csv-dialect", choices=("godot", "unity"), default="godot", help=_DIALECT_HELP)
    export.set_defaults(func=run_export)

    imported = verbs.add_parser(
        "import", help="store the translations of a translation file",
        description="Store the translations of FILE in PROJECT and print what was new, changed, unchanged, "
        "refused. Exits 1 when lines were refused (unknown ids, locked translations).",
    )
    imported.add_argument("project", metavar="PROJECT", help="project name or id")
    imported.add_argument("file", metavar="FILE", help="a .po, .xlf, .xliff or .csv file")
    imported.add_argument("--locale", metavar="TAG",
                          help="the file's locale (default: the one the file names, else the project's only one)")
    imported.add_argument("--csv-dialect", choices=("godot", "unity"), default=None, help=_DIALECT_HELP)
    imported.add_argument("--dry-run", action="store_true", help="report what the import would do; write nothing")
    imported.set_defaults(func=run_import)

    vo = verbs.add_parser(
        "vo", help="write the voice-over recording script (CSV)",
        description="Write one CSV row per speech line of PROJECT: its line id, actor, expression, text, "
        "the previous line of the script (context), and the audio file a game loads (the project's "
        "voiceOverPath, {actor}/{lineId}.ogg by default).",
    )
    vo.add_argument("project", metavar="PROJECT", help="project name or id")
    vo.add_argument("--actor", metavar="NAME", help="only this actor's lines (a name or alias)")
    vo.add_argument("--locale", metavar="TAG",
                    help="the text in this target locale (the source where a line is not translated)")
    vo.add_argument("-o", "--output", required=True, metavar="FILE", help="the CSV file to write (replaced)")
    vo.set_defaults(func=run_vo)


def run_export(args: argparse.Namespace) -> int:
    from storyloom.app.l10n_files import export_catalog

    with project_session(args.project) as session:
        done = export_catalog(session.project, args.locale, args.output, csv_dialect=args.csv_dialect)
    print(f"{done.path}: {done.lines} lines for {done.locale} ({done.translated} translated, "
          f"{done.to_review} to review)")
    return 0


def run_vo(args: argparse.Namespace) -> int:
    from storyloom.app.l10n_files import export_recording_script

    with project_session(args.project) as session:
        done = export_recording_script(session.project, args.output, actor=args.actor, locale=args.locale)
    language = f"in {done.locale}" if done.locale else "in the source language"
    fallback = f", {done.untranslated} untranslated (source text)" if done.locale else ""
    print(f"{done.path}: {done.lines} lines for {done.actors} actor{'s' if done.actors != 1 else ''} "
          f"{language}{fallback}")
    return 0


def run_import(args: argparse.Namespace) -> int:
    from storyloom.app.l10n_files import import_file

    with project_session(args.project) as session:
        report = import_file(session.project, args.file, locale=args.locale, csv_dialect=args.csv_dialect,
                             dry_run=args.dry_run)
    print(("Dry run, nothing written: " if report.dry_run else "") +
          f"{report.locale} translations from {args.file}, "
          f"{report.documents} translation document{'s' if report.documents != 1 else ''} "
          f"{'to write' if report.dry_run else 'written'}")
    counts = report.counts()
    for key, label in (("new", "new"), ("changed", "changed"), ("unchanged", "unchanged"),
                       ("empty", "left empty in the file"),
                       ("source_changed", "source changed since the export (stored, flagged for review)"),
                       ("unknown", "unknown ids (refused)"), ("locked", "locked (refused)")):
        print(f"  {counts[key]:>6}  {label}")
    if report.unknown:
        print("Unknown ids (no line of the project has them):")
        for refused in report.unknown:
            print(f"  {refused.line_id}  {refused.source!r}")
    if report.locked:
        print("Locked by another translator (ask them to unlock, then import again):")
        for refused in report.locked:
            print(f"  {refused.line_id}  {refused.document}  locked by {refused.holder}")
    return 1 if report.refused else 0
