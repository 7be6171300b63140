"""gettext PO files (``.po``), written and read with polib (docs/translation-files.md).

One entry per line: ``msgctxt`` is the line id (so two lines of the same text stay two entries),
``msgid`` the source text, ``msgstr`` the translation (empty when there is none). The writer's
notes and the speaker are extracted comments (``#.``), the document and the place in it a
reference (``#:``); a translation to review is ``fuzzy``, with the source it was made for as
``#| msgid`` when known. No entry has a format flag: ``%`` in a line is text, not a C format.
"""

from __future__ import annotations

import re
from pathlib import Path

import polib

from storyloom import __version__
from storyloom.l10n.catalog import Catalog, CatalogEntry, ReadEntry, ReadFile
from storyloom.l10n.formats.common import (
    TranslationFileError,
    check_unique,
    hyphenated,
    target_text,
    underscored,
)

# polib reports a syntax error as "Syntax error in po file <name>(line N)...".
_LINE = re.compile(r"\(line (\d+)\)")
_CHARSET = re.compile(rb"Content-Type:[^\"\\]*?charset=([\w.:-]+)", re.IGNORECASE)
# gettext (0.20 and later) writes a file name holding a space between these two marks (Unicode's
# first-strong and pop isolates), so that a reference stays one word.
_ISOLATE = ("\u2068", "\u2069")
# A line of a PO file that is not a comment: a keyword and a quoted string, or a quoted string
# continuing the one above. polib reads a string without its closing quote as if it had one (less
# its last character): the lines are checked first, so a damaged file is refused, not misread.
_STRING_LINE = re.compile(r'^\s*(?:(?:msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+)?"(?:[^"\\]|\\.)*"\s*$')


def reference(entry: CatalogEntry) -> str | None:
    """The ``#:`` reference of an entry, ``document:place``, or None without a document. A
    reference is one word on one line: every run of white space is one space, and a reference
    with a space goes between Unicode's isolates."""
    document = entry.document or entry.document_id
    if not document:
        return None
    words = " ".join(f"{document}:{entry.location}".split() if entry.location else document.split())
    return f"{_ISOLATE[0]}{words}{_ISOLATE[1]}" if " " in words else words


def comments(entry: CatalogEntry) -> str:
    """The extracted comments (``#.``) of an entry: the speaker, then the writer's notes."""
    lines = [f"Speaker: {entry.speaker}"] if entry.speaker else []
    if entry.kind == "option":
        lines.append("A choice option the player picks")
    lines.extend(note for note in entry.notes if note.strip())
    return "\n".join(lines)


def po_text(catalog: Catalog) -> str:
    """The PO file of a catalog, as text."""
    return po_bytes(catalog).decode("utf-8")


def po_bytes(catalog: Catalog) -> bytes:
    """The PO file of a catalog, as UTF-8 bytes.

    What ``str(polib.POFile)`` writes (the header and metadata, then each entry after a blank
    line), made one entry at a time: a file of 100,000 lines never holds 100,000 ``POEntry``
    objects, only their bytes (docs/benchmarks.md, "Localization")."""
    # No wrapping: a wrapped reference would split a document's name at its spaces, and an
    # unwrapped msgid is as valid (gettext's tools wrap only for looks).
    po = polib.POFile(wrapwidth=0)
    po.header = (f"{catalog.project}: its lines in {catalog.source_locale}, to translate into "
                 f"{catalog.target_locale}. The msgctxt of each entry is the line's id: keep it.")
    po.metadata = {
        "Project-Id-Version": catalog.project,
        "Language": underscored(catalog.target_locale),
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
        "X-Source-Language": underscored(catalog.source_locale),
        "X-Generator": f"Storyloom {__version__}",
    }
    chunks = [str(po).encode("utf-8")]
    for entry in catalog.entries:
        for text in (entry.line_id, entry.source, entry.target or "", entry.previous_source or ""):
            if _CONTEXT_SEPARATOR in text:
                raise TranslationFileError(
                    f"the line {entry.line_id!r} holds the control character U+0004, which gettext keeps to "
                    "separate an entry's context from its text: a PO file cannot hold it (XLIFF and CSV can)")
        ref = reference(entry)
        item = polib.POEntry(
            msgctxt=entry.line_id,
            msgid=entry.source,
            msgstr=entry.target or "",
            comment=comments(entry),
            occurrences=[(ref, "")] if ref is not None else [],
            flags=["fuzzy"] if entry.needs_review else [],
        )
        if entry.needs_review and entry.previous_source is not None and entry.previous_source != entry.source:
            item.previous_msgctxt = entry.line_id
            item.previous_msgid = entry.previous_source
        chunks.append(("\n" + item.__unicode__(po.wrapwidth)).encode("utf-8"))
    return b"".join(chunks)


# gettext joins an entry's msgctxt and msgid with it in a compiled catalog: msgfmt refuses it in a string.
_CONTEXT_SEPARATOR = "\x04"


class _Lines(str):
    """A PO file's text whose lines end at line feeds only: polib splits a text with
    ``str.splitlines``, which also ends a line at U+2028, U+0085, a form feed..., characters a
    PO string may hold as they are (msgfmt, and polib reading a file, split at line feeds)."""

    __slots__ = ()

    def splitlines(self, keepends: bool = False) -> list[str]:
        lines = self.split("\n")
        if keepends:
            lines = [line + "\n" for line in lines[:-1]] + [lines[-1]]
        return lines if lines[-1] else lines[:-1]


def _decoded(data: bytes, path: Path | str) -> str:
    """A PO file's text, in the charset its header names (UTF-8 when it names none)."""
    match = _CHARSET.search(data[:4096])
    charset = match.group(1).decode("ascii") if match else "utf-8"
    if charset.upper() == "CHARSET":  # a template's placeholder
        charset = "utf-8"
    try:
        # A byte order mark (some editors write one) is not part of the first line.
        return data.decode("utf-8-sig" if charset.lower().replace("_", "-") in ("utf-8", "utf8") else charset)
    except LookupError:
        raise TranslationFileError(f"the header names the charset {charset!r}, which is unknown; expected UTF-8",
                                   path=path) from None
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise TranslationFileError(f"this is not {charset} text (the header's charset)", path=path,
                                   line=line) from None


def read_po_bytes(data: bytes, path: Path | str = "<memory>") -> ReadFile:
    """A PO file's entries: every entry but the header and the obsolete ones (``#~``)."""
    text = _decoded(data, path)
    if not text.strip():
        raise TranslationFileError("the file is empty; expected a PO file (a header, then msgctxt/msgid/msgstr "
                                   "entries)", path=path)
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and not _STRING_LINE.match(line):
            shown = stripped if len(stripped) <= 60 else stripped[:57] + "..."
            raise TranslationFileError(
                f"expected a keyword (msgctxt, msgid, msgstr) and a string in double quotes, or a quoted string "
                f"continuing the one above; got {shown!r}", path=path, line=number)
    try:
        # The text always holds a line feed, so polib never takes it for a file's path.
        po = polib.pofile(_Lines(text if "\n" in text else text + "\n"), wrapwidth=0)
    except (OSError, ValueError) as exc:
        match = _LINE.search(str(exc))
        detail = str(exc).split(": ", 1)[1] if ": " in str(exc) else "a syntax error"
        raise TranslationFileError(
            f"not a valid PO file ({detail}); expected comments (#), msgctxt, msgid and msgstr lines with "
            "quoted strings", path=path, line=int(match.group(1)) if match else None) from None
    found: list[tuple[ReadEntry, int | None]] = []
    for item in po:
        if item.obsolete:
            continue
        if item.msgid_plural:
            raise TranslationFileError(
                f"the entry {item.msgctxt or item.msgid!r} has plural forms (msgid_plural); Storyloom's lines have "
                "none", path=path, line=item.linenum)
        if not item.msgctxt:
            raise TranslationFileError(
                f"the entry for {item.msgid!r} has no msgctxt; expected the line id as its msgctxt", path=path,
                line=item.linenum)
        found.append((ReadEntry(line_id=item.msgctxt, source=item.msgid, target=target_text(item.msgstr),
                                needs_review="fuzzy" in item.flags), item.linenum))
    language = po.metadata.get("Language", "").strip()
    source = po.metadata.get("X-Source-Language", "").strip()
    return ReadFile(source_locale=hyphenated(source) if source else None,
                    target_locale=hyphenated(language) if language else None,
                    entries=check_unique(found, path))
