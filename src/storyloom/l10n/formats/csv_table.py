"""CSV string tables (``.csv``; docs/translation-files.md): Godot's translation CSV, or the CSV
Unity Localization imports into a String Table Collection. One row per line, keyed by its id.

- **Godot** (4.x): ``keys,<source>,<target>,_speaker,_document,_location,_notes,_review``. Locale
  columns are named as Godot names locales (``pt_BR``: a BCP 47 tag's hyphens as underscores);
  Godot ignores the columns whose name begins with ``_``. Godot reads a cell's backslash escapes
  (``\\n`` is a line break), so a backslash is written doubled and read back as one.
- **Unity**: ``Key,Id,Shared Comments,<Name(code)> of the source,<Name(code)> of the target,
  _review``: Unity's own export's columns, the locale columns named as Unity's default column
  mapping names them (``French(fr)``, ``Portuguese (Brazil)(pt-BR)``); ``Id`` left empty, so Unity
  gives each new key its id.

A translation to review has ``needs review`` in ``_review`` (any non-empty cell reads as to
review). Reading, the dialect is found from the header when not given: a first column ``Key``
and a column named ``Name(code)`` make Unity's, anything else Godot's. The source is the first
locale column; ``target_locale`` picks the target among the others.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from typing import Literal

import langcodes

from storyloom.l10n.catalog import Catalog, CatalogEntry, ReadEntry, ReadFile
from storyloom.l10n.formats.common import TranslationFileError, check_unique, hyphenated, target_text, underscored

Dialect = Literal["godot", "unity"]

#: The mark a translation to review has in the ``_review`` column.
REVIEW_MARK = "needs review"
REVIEW_COLUMN = "_review"
#: Godot's comment columns (ignored by Godot: their names begin with an underscore).
GODOT_COMMENTS = ("_speaker", "_document", "_location", "_notes", REVIEW_COLUMN)
UNITY_KEY, UNITY_ID, UNITY_SHARED = "Key", "Id", "Shared Comments"
# A Unity locale column: "French(fr)", "Portuguese (Brazil)(pt-BR)"; its comments column adds " Comments".
_UNITY_LOCALE = re.compile(r"^(?P<name>.*)\((?P<code>[A-Za-z0-9_-]+)\)$")
# Godot's escapes (String.c_unescape), each read as its character.
_GODOT_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "'": "'", '"': '"',
                  "?": "?", "\\": "\\"}
_GODOT_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def unity_column(tag: str) -> str:
    """A locale's column as Unity names it: its English name and its code (``French(fr)``)."""
    try:
        name = langcodes.Language.get(tag).display_name()
        if name.startswith("Unknown language"):  # langcodes' words for a code it has no name for
            name = tag
    except (LookupError, ValueError, ImportError, OSError):  # no name (or no name data): the code alone
        name = tag
    return f"{name}({tag})"


def godot_escape(text: str) -> str:
    return text.replace("\\", "\\\\")


def godot_unescape(text: str) -> str:
    """A Godot cell's text as Godot reads it (an unknown escape stays as it is)."""
    return _GODOT_ESCAPE.sub(lambda match: _GODOT_ESCAPES.get(match.group(1), match.group(0)), text)


def _place(entry: CatalogEntry) -> str:
    return ":".join(part for part in (entry.document, entry.location) if part)


def _godot_rows(catalog: Catalog) -> Iterator[list[str]]:
    yield ["keys", underscored(catalog.source_locale), underscored(catalog.target_locale), *GODOT_COMMENTS]
    for entry in catalog.entries:
        yield [entry.line_id, godot_escape(entry.source), godot_escape(entry.target or ""), entry.speaker or "",
               entry.document, entry.location, "\n".join(entry.notes),
               REVIEW_MARK if entry.needs_review else ""]


def _shared_comment(entry: CatalogEntry) -> str:
    lines = [f"Speaker: {entry.speaker}"] if entry.speaker else []
    if place := _place(entry):
        lines.append(f"Location: {place}")
    if entry.kind == "option":
        lines.append("A choice option the player picks")
    lines.extend(note for note in entry.notes if note.strip())
    return "\n".join(lines)


def _unity_rows(catalog: Catalog) -> Iterator[list[str]]:
    yield [UNITY_KEY, UNITY_ID, UNITY_SHARED, unity_column(catalog.source_locale),
           unity_column(catalog.target_locale), REVIEW_COLUMN]
    for entry in catalog.entries:
        yield [entry.line_id, "", _shared_comment(entry), entry.source, entry.target or "",
               REVIEW_MARK if entry.needs_review else ""]


def csv_text(catalog: Catalog, dialect: Dialect = "godot") -> str:
    """The CSV string table of a catalog, as text."""
    if dialect not in ("godot", "unity"):
        raise TranslationFileError(f"no CSV dialect {dialect!r}; the dialects are godot and unity")
    out = io.StringIO()
    # Records end with CRLF (RFC 4180): Python's writer quotes a cell holding a character of the
    # record's end, so a carriage return inside a line is quoted too (with "\n" alone, it would
    # end the record). Godot drops every carriage return it reads; spreadsheets expect CRLF.
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerows(_godot_rows(catalog) if dialect == "godot" else _unity_rows(catalog))
    return out.getvalue()


def csv_bytes(catalog: Catalog, dialect: Dialect = "godot") -> bytes:
    return csv_text(catalog, dialect).encode("utf-8")


def _rows(text: str, path: str) -> Iterator[tuple[int, list[str]]]:
    """Each record with the line it starts on; the delimiter is a comma, or the semicolon or tab
    of the header when it has no comma (a spreadsheet's export in some languages)."""
    header_line = text.split("\n", 1)[0]
    delimiter = ","
    if "," not in header_line:
        delimiter = next((candidate for candidate in (";", "\t") if candidate in header_line), ",")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    start = 1
    try:
        for row in reader:
            yield start, row
            start = reader.line_num + 1
    except csv.Error as exc:
        raise TranslationFileError(f"not a valid CSV record ({exc}); expected comma-separated cells, a cell "
                                   'holding a comma, a quote or a line break in double quotes ("" for a quote)',
                                   path=path, line=start) from None


def _pick_target(targets: dict[str, int], source: str, wanted: str | None, path: str) -> str:
    """The target column: the one ``wanted`` names, or the only one."""
    found = ", ".join(targets) or "none"
    if wanted is not None:
        for column in targets:
            if hyphenated(_code(column)).lower() == hyphenated(wanted).lower():
                return column
        raise TranslationFileError(f"no column for the locale {wanted!r}; the locale columns are {source} (the "
                                   f"source) and, for targets, {found}", path=path, line=1)
    if len(targets) == 1:
        return next(iter(targets))
    if not targets:
        raise TranslationFileError(f"no target locale column: the only locale column is {source} (the source); "
                                   "expected a column for the translation", path=path, line=1)
    raise TranslationFileError(f"several target locale columns ({found}); say which locale to read", path=path,
                               line=1)


def _code(column: str) -> str:
    match = _UNITY_LOCALE.match(column)
    return match.group("code") if match else column


def detect_dialect(header: list[str]) -> Dialect:
    """Unity's when the first column is ``Key`` and a column is named ``Name(code)``; else Godot's."""
    if header and header[0].strip() == UNITY_KEY and any(_UNITY_LOCALE.match(name.strip()) for name in header[1:]):
        return "unity"
    return "godot"


def _locale_columns(header: list[str], dialect: Dialect) -> dict[str, int]:
    """The locale columns of a header, by name, in order (the source first)."""
    columns: dict[str, int] = {}
    for index, name in enumerate(header):
        if dialect == "godot":
            # The keys column, comments (_) and Godot's special columns (?context, ?plural) hold no locale.
            if index == 0 or not name or name.startswith(("_", "?")):
                continue
        elif name in (UNITY_KEY, UNITY_ID, UNITY_SHARED) or name.endswith(" Comments") \
                or not _UNITY_LOCALE.match(name):
            continue
        columns.setdefault(name, index)
    return columns


def read_csv_bytes(data: bytes, path: str = "<memory>", *, dialect: Dialect | None = None,
                   target_locale: str | None = None) -> ReadFile:
    """A CSV string table's rows: the source and target columns, the review column."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TranslationFileError("this is not UTF-8 text; save the table as CSV in UTF-8", path=path,
                                   line=data[:exc.start].count(b"\n") + 1) from None
    rows = _rows(text, path)
    first = next(rows, None)
    if first is None or not any(cell.strip() for cell in first[1]):
        raise TranslationFileError("the file is empty; expected a header row (keys, then a column per locale)",
                                   path=path, line=1)
    header = [cell.lstrip("\ufeff").strip() for cell in first[1]]
    kind = dialect or detect_dialect(header)
    key_index = 0
    if kind == "unity":
        if UNITY_KEY not in header:
            raise TranslationFileError(f"no {UNITY_KEY} column; Unity's string table keys each row by it",
                                       path=path, line=1)
        key_index = header.index(UNITY_KEY)
    locales = _locale_columns(header, kind)
    if not locales:
        expected = ("a column per locale after the keys (en, fr, pt_BR)" if kind == "godot"
                    else "a column per locale named Name(code), as French(fr)")
        raise TranslationFileError(f"no locale column in the header ({', '.join(header)}); expected {expected}",
                                   path=path, line=1)
    source = next(iter(locales))
    target = _pick_target({name: index for name, index in locales.items() if name != source}, source,
                          target_locale, path)
    review = header.index(REVIEW_COLUMN) if REVIEW_COLUMN in header else None
    unescape = godot_unescape if kind == "godot" else (lambda cell: cell)
    found: list[tuple[ReadEntry, int | None]] = []
    for line, row in rows:
        if not any(cell.strip() for cell in row):
            continue  # a blank row, as Godot and Unity skip it
        if len(row) != len(header):
            raise TranslationFileError(f"{len(row)} cells; expected {len(header)}, one per column of the header",
                                       path=path, line=line)
        line_id = row[key_index].strip()
        if not line_id:
            raise TranslationFileError(f"a row without a line id in its {header[key_index] or 'first'} column",
                                       path=path, line=line)
        found.append((ReadEntry(line_id=line_id, source=unescape(row[locales[source]]),
                                target=target_text(unescape(row[locales[target]])),
                                needs_review=review is not None and bool(row[review].strip())), line))
    return ReadFile(source_locale=hyphenated(_code(source)), target_locale=hyphenated(_code(target)),
                    entries=check_unique(found, path))
