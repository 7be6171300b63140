"""``storyloom print PROJECT [ID_OR_NAME...] [--collection GDD] -o FILE [-q]``: documents as a
file a writer hands on (docs/printing.md).

The format is the file's extension: ``.pdf``, ``.docx``, ``.html`` or ``.fountain`` (scripts
only, as a screenplay). Scripts print as screenplays, GDD pages as pages, dialogues node by node; a folder prints with
everything under it, ``--collection`` a whole collection in tree order. The work is the app's
File > Print / Export document… (:mod:`storyloom.app.print_files`); a PDF is drawn by Qt's text
document in an offscreen Qt application (no window opens).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from storyloom.cli.main import CliError
from storyloom.cli.progress import add_quiet_option, progress_bars
from storyloom.cli.workspace import project_session
from storyloom.words import counted


def register(subparsers: Any) -> None:
    verb = subparsers.add_parser(
        "print",
        help="print scripts (as a screenplay), GDD pages or dialogues to a .pdf, .docx, .html or .fountain file",
        description="Print documents of PROJECT to FILE: scripts as a screenplay, GDD pages as pages, "
        "dialogues node by node, in the format FILE's extension names (.pdf, .docx, .html, or .fountain "
        "for scripts).",
    )
    verb.add_argument("project", metavar="PROJECT", help="project name or id")
    verb.add_argument("documents", metavar="ID", nargs="*",
                      help="documents to print, by id or name, in this order (a folder prints what it holds)")
    verb.add_argument("--collection", metavar="NAME",
                      help="print a whole collection in tree order: GDD, Scripts or Dialogues")
    verb.add_argument("-o", "--output", metavar="FILE", required=True,
                      help="the file to write (replaced when it exists); its extension is the format")
    add_quiet_option(verb)
    verb.set_defaults(func=run_print)


def run_print(args: argparse.Namespace) -> int:
    from storyloom.app.print_files import format_of, print_documents

    if not args.documents and not args.collection:
        raise CliError("name the documents to print (ids or names) or --collection GDD")
    pdf = None
    if format_of(args.output) == "pdf":
        from storyloom.gui.pdf_writer import ensure_application, html_to_pdf

        ensure_application()
        pdf = html_to_pdf
    with progress_bars(args) as progress, project_session(args.project) as session:
        result = print_documents(session, args.output, args.documents, collection=args.collection, pdf=pdf,
                                 progress=progress)
    for missing in result.missing_images:
        print(f"storyloom: an image is not in the file: {missing}", file=sys.stderr)
    print(f"{result.path} ({counted(result.documents, 'document', grouped=False)}, {result.format})")
    return 0
