"""File > Print / Export document… and ``storyloom print``: the one "print these documents to this
file" of the desktop app and the command line.

:func:`print_documents` gathers what to print (documents named by id or name, a folder with
everything under it, or a whole collection in tree order), builds the print document
(:mod:`storyloom.outputs`), reads the images the pages reference from the project's
attachments, and writes the file in the format its extension names, atomically
(:mod:`storyloom.output_files`). Scripts print as screenplays; GDD pages as pages.

PDF is drawn by Qt's text document, which only the GUI layer may import: the caller hands in a
``pdf`` function (:func:`storyloom.gui.pdf_writer.html_to_pdf`; the command line creates an
offscreen Qt application for it), so this module and everything below it stay Qt-free.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from storyloom.app.attachments import AttachmentImages, guess_type
from storyloom.app.export_files import slug
from storyloom.errors import StoryloomError
from storyloom.output_files import resolve_output, write_chunks
from storyloom.outputs.dialogue import dialogue_parts
from storyloom.outputs.docx import docx_bytes
from storyloom.outputs.formats import FORMATS, NotPrintable, UnsupportedFormat, format_of
from storyloom.outputs.fountain import to_fountain
from storyloom.outputs.html import to_html
from storyloom.outputs.markdown import image_sources, page_tokens
from storyloom.outputs.model import Image, Page, PrintDocument
from storyloom.outputs.screenplay import screenplay_of
from storyloom.progress import ProgressCallback, ProgressReporter
from storyloom.project import BY_APP_NAME, BY_EXPORT_NAME, FOLDER_TYPE
from storyloom.words import counted

#: ``pdf(html, images)`` -> the PDF's bytes; ``images`` maps each ``src`` the HTML uses to bytes.
PdfRenderer = Callable[[str, Mapping[str, bytes]], bytes]
#: The collections with a printed form, by app name.
PRINTABLE = ("Script", "Gdd", "Dialogue")

__all__ = [
    "FORMATS",
    "PRINTABLE",
    "NotPrintable",
    "PdfRenderer",
    "PrintCancelled",
    "PrintError",
    "PrintResult",
    "PrintTarget",
    "UnsupportedFormat",
    "build_document",
    "default_file_name",
    "format_of",
    "output_for",
    "print_documents",
    "print_targets",
    "printable",
]


class PrintError(StoryloomError):
    """A print that cannot run as asked: an unknown document, nothing to print, no PDF writer."""

    code = "print_failed"


class PrintCancelled(StoryloomError):
    """The writer cancelled the print before the file was written (nothing was written)."""

    code = "print_cancelled"

    def __init__(self) -> None:
        super().__init__("Print cancelled; no file was written.")


@dataclass
class PrintResult:
    """What was written: the file, its format, how many documents it holds, and the images the
    pages reference that are not in it (each with the reason)."""

    path: Path
    format: str
    documents: int
    missing_images: list[str] = field(default_factory=list)


def printable(doc_type: Any) -> bool:
    """Whether documents of ``doc_type`` (a collection's app name, or a folder) can be printed."""
    return doc_type in PRINTABLE or doc_type == FOLDER_TYPE


def default_file_name(title: str, fmt: str = "pdf") -> str:
    """``Reflection (Ending)`` -> ``reflection-ending.pdf``."""
    suffix = next((ext for ext, name in FORMATS.items() if name == fmt), ".pdf")
    return slug(title) + suffix


# ---------------------------------------------------------------------------------- what to print


def _app_collection(name: str) -> str:
    found = BY_EXPORT_NAME.get(name) or BY_APP_NAME.get(name)
    if found is None:
        lowered = name.casefold()
        found = next((c for c in BY_EXPORT_NAME.values() if lowered in (c.export_name.casefold(),
                                                                         c.app_name.casefold())), None)
    if found is None or found.app_name not in PRINTABLE:
        raise PrintError(f"Cannot print the collection “{name}”: GDD, Scripts and Dialogues print "
                         "(as pages, a screenplay, node by node).")
    return found.app_name


def _find(session: Any, wanted: str) -> str:
    """A document id from an id or a name (printable documents only; a name must be unique)."""
    index = session.index
    if index.get(wanted) is not None:
        return wanted
    matches = [s.id for s in index.summaries() if s.name == wanted and (printable(s.type) or s.is_tree)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise PrintError(f"More than one document is named “{wanted}” ({', '.join(sorted(matches))}); "
                         "name it by its id.")
    raise PrintError(f"No document with the id or name “{wanted}” in this project.")


def _walk(session: Any, summary: Any, level: int, out: list[tuple[Any, int]], seen: set[str]) -> None:
    # ``seen``: a folder cycle (two concurrent moves, replicated) prints each document once.
    if summary.id in seen:
        return
    seen.add(summary.id)
    out.append((summary, level))
    if summary.type == FOLDER_TYPE:
        for child in session.index.siblings(summary.id):
            _walk(session, child, level + 1, out, seen)


def _gather(session: Any, doc_ids: Sequence[str], collection: str | None) -> list[tuple[Any, int]]:
    """``(summary, level)`` of each document to print, in order: a folder is followed by what it
    holds, one level deeper."""
    found: list[tuple[Any, int]] = []
    seen: set[str] = set()
    if collection is not None:
        for top in session.index.siblings(None, _app_collection(collection)):
            _walk(session, top, 1, found, seen)
    for wanted in doc_ids:
        summary = session.index.get(_find(session, wanted))
        if summary is not None:
            _walk(session, summary, 1, found, set())
    return found


def _text(doc: Mapping[str, Any], key: str) -> str:
    content = doc.get("content")
    value = content.get(key) if isinstance(content, dict) else content
    return value if isinstance(value, str) else ""


def _script(session: Any, script_id: str) -> tuple[str, str] | None:
    """A dialogue's linked script as ``(name, text)``; ``None`` when it is gone."""
    summary = session.index.get(script_id)
    if summary is None or summary.type != "Script":
        return None
    name = summary.name if isinstance(summary.name, str) and summary.name else script_id
    return name, _text(session.db.get(script_id), "script")


_KIND_WORDS = {"Gdd": "a GDD page", "Dialogue": "a dialogue"}


def build_document(session: Any, doc_ids: Sequence[str] = (), *, collection: str | None = None,
                   title: str | None = None, on_document: Callable[[], None] | None = None,
                   screenplay_only: bool = False) -> PrintDocument:
    """The print document of the documents named (ids or names) and/or a whole collection. Raises
    :class:`PrintError` for an unknown document or nothing to print, :class:`NotPrintable` for a
    document of a kind with no printed form (or, with ``screenplay_only``, one that is not a
    script or a folder: a .fountain file), before any document is read."""
    gathered = _gather(session, doc_ids, collection)
    if not gathered:
        raise PrintError("Nothing to print: name the documents or a collection.")
    for summary, _level in gathered:
        if not printable(summary.type):
            raise NotPrintable(f"“{summary.name}” is a {summary.type} document, which has no printed form: "
                               "scripts, GDD pages and dialogues print.")
        if screenplay_only and summary.type in _KIND_WORDS:
            raise NotPrintable(f"“{summary.name}” is {_KIND_WORDS[summary.type]}, not a script: a .fountain file "
                               "holds screenplays only; print it to .pdf, .docx or .html.")
    parts: list[Any] = []
    for summary, level in gathered:
        name = summary.name if isinstance(summary.name, str) and summary.name else summary.id
        if summary.type == FOLDER_TYPE:
            parts.append(Page(name, None, level, summary.id))
        elif summary.type == "Script":
            doc = session.db.get(summary.id)
            parts.append(screenplay_of(name, _text(doc, "script"), summary.id))
        elif summary.type == "Gdd":
            doc = session.db.get(summary.id)
            parts.append(Page(name, _text(doc, "gdd"), level, summary.id))
        else:  # a dialogue (every other kind was refused above)
            content = session.db.get(summary.id).get("content")
            tree = content.get("tree") if isinstance(content, dict) else None
            parts.extend(dialogue_parts(name, tree, lambda script_id: _script(session, script_id), level=level,
                                        doc_id=summary.id))
        if on_document is not None:
            on_document()
    if title is None:
        if len(gathered) == 1 or (collection is None and len(doc_ids) == 1):
            first = gathered[0][0]
            title = first.name if isinstance(first.name, str) and first.name else first.id
        else:
            title = f"{session.project.name} — {collection or 'Documents'}"
    return PrintDocument(str(title), parts)


# ---------------------------------------------------------------------------------- the dialog's choices


@dataclass(frozen=True)
class PrintTarget:
    """One thing File > Print / Export document… offers: its words, what it prints (documents
    or a collection) and the formats it can be written in (a page has no .fountain form)."""

    key: str
    label: str
    doc_ids: tuple[str, ...] = ()
    collection: str | None = None
    formats: tuple[str, ...] = ("pdf", "docx", "html")
    title: str = ""


def print_targets(session: Any, current: str | None = None) -> list[PrintTarget]:
    """What the dialog offers: the current document when it prints (a script, a GDD page, a
    folder of them), then the whole GDD and all scripts when the project has some."""
    targets: list[PrintTarget] = []
    summaries = session.index.summaries()
    summary = session.index.get(current) if current else None
    if summary is not None and (printable(summary.type)
                                and (summary.type != FOLDER_TYPE or summary.collection in PRINTABLE)):
        name = summary.name if isinstance(summary.name, str) and summary.name else summary.id
        screenplay = summary.type == "Script" or (summary.type == FOLDER_TYPE and summary.collection == "Script")
        formats = ("pdf", "docx", "html", "fountain") if screenplay else ("pdf", "docx", "html")
        what = {"Script": "script, as a screenplay", "Gdd": "page", "Dialogue": "dialogue, node by node",
                FOLDER_TYPE: "folder, with what it holds"}
        targets.append(PrintTarget("document", f"This {what[summary.type]}: {name}", (summary.id,),
                                   formats=formats, title=name))
    counts = {kind: sum(1 for s in summaries if s.type == kind) for kind in PRINTABLE}
    if counts["Gdd"]:
        pages = counted(counts["Gdd"], "page", grouped=False)
        targets.append(PrintTarget("gdd", f"The whole GDD, in tree order ({pages})", collection="GDD",
                                   title=f"{session.project.name} GDD"))
    if counts["Script"]:
        scripts = counted(counts["Script"], "script", grouped=False)
        targets.append(PrintTarget("scripts", f"All scripts, as a screenplay ({scripts})", collection="Scripts",
                                   formats=("pdf", "docx", "html", "fountain"),
                                   title=f"{session.project.name} scripts"))
    return targets


def output_for(folder: str | Path, target: PrintTarget, fmt: str) -> Path:
    """The file the dialog suggests: the target's title as a file name in ``folder``."""
    return Path(folder) / default_file_name(target.title or target.label, fmt)


# ---------------------------------------------------------------------------------- images


def _images(session: Any, document: PrintDocument, name_of: Callable[[str], str | None]) -> dict[str, Image]:
    """Every image the pages reference, as found in the project's attachments (or why not)."""
    resolver = AttachmentImages(session.db, session.index)
    found: dict[str, Image] = {}
    for page in document.pages:
        if not page.markdown:
            continue
        for source in image_sources(page_tokens(page.markdown, name_of=name_of)):
            if source in found:
                continue
            loaded = resolver.load(source)
            if loaded.data is not None and loaded.kind in ("attachment", "data"):
                found[source] = Image(loaded.data, guess_type(source, loaded.data))
            else:
                found[source] = Image(None, note=loaded.placeholder)
    return found


# ---------------------------------------------------------------------------------- writing


def render(document: PrintDocument, fmt: str, images: Mapping[str, Image], *,
           name_of: Callable[[str], str | None] | None = None, pdf: PdfRenderer | None = None) -> bytes:
    """The bytes of ``document`` in format ``fmt``."""
    if fmt == "fountain":
        return to_fountain(document).encode("utf-8")
    if fmt == "html":
        return to_html(document, images, name_of=name_of).encode("utf-8")
    if fmt == "docx":
        return docx_bytes(document, images, name_of=name_of)
    if fmt == "pdf":
        if pdf is None:
            raise PrintError("PDF needs Qt's text document, which this front end did not hand in.")
        resources: dict[str, bytes] = {}

        def resource(source: str, image: Image) -> str:
            name = f"storyloom-image-{len(resources) + 1}"
            resources[name] = image.data or b""
            return name

        return pdf(to_html(document, images, image_url=resource, name_of=name_of), resources)
    raise UnsupportedFormat(f"No writer for the format {fmt!r}.")  # pragma: no cover - format_of checks first


def print_documents(session: Any, output: str | Path, doc_ids: Iterable[str] = (), *, collection: str | None = None,
                    pdf: PdfRenderer | None = None, progress: ProgressCallback | None = None,
                    cancelled: Callable[[], bool] | None = None) -> PrintResult:
    """Print the documents named (ids or names) and/or a whole ``collection`` (``GDD``,
    ``Scripts``) to the file ``output``, in the format its extension names. The file is written
    only when everything was built (a cancel or an error leaves no file)."""
    fmt = format_of(output)
    wanted = list(doc_ids)
    target = resolve_output(str(output), default_file_name(collection or "documents", fmt)).path

    def name_of(doc_id: str) -> str | None:
        summary = session.index.get(doc_id)
        return summary.name if summary is not None and isinstance(summary.name, str) else None

    reporter = ProgressReporter(progress, "print")
    document = build_document(session, wanted, collection=collection, on_document=reporter.advance,
                              screenplay_only=fmt == "fountain")
    images = _images(session, document, name_of) if fmt != "fountain" else {}
    if cancelled is not None and cancelled():
        raise PrintCancelled()
    reporter.set_detail(f"writing {target.name}")
    data = render(document, fmt, images, name_of=name_of, pdf=pdf)
    if cancelled is not None and cancelled():
        raise PrintCancelled()
    write_chunks(target, [data])
    reporter.finish()
    missing = [f"{source}: {image.note}" for source, image in images.items() if image.data is None]
    return PrintResult(target, fmt, reporter.done, missing)
