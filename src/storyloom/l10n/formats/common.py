"""What every translation file format shares: its one error, the locale codes of the tools, and
the checks of a catalog before it is written and of the entries read back."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from storyloom.errors import Fix, StoryloomError
from storyloom.l10n.catalog import Catalog, ReadEntry

#: The file name suffixes a translation file may have, each naming its format.
TRANSLATION_EXTENSIONS = (".po", ".xlf", ".xliff", ".csv")


class TranslationFileError(StoryloomError):
    """A translation file that cannot be written or read: a suffix of no supported format, a file
    that is not what its format says (``line`` says where, when known), an entry without a line
    id, the same line id twice."""

    code = "translation_file_refused"
    fixes = ("other_name",)

    def __init__(self, message: str, *, path: Path | str | None = None, line: int | None = None,
                 fix: Fix | None = None) -> None:
        where = "" if path is None else f"{path}" + ("" if line is None else f", line {line}") + ": "
        super().__init__(where + message, fix=fix)
        self.path = None if path is None else Path(path)
        self.line = line


def format_of(suffix: str, *, path: Path | str | None = None, writing: bool = False) -> str:
    """The format a suffix names (``".po"``, ``"po"``, ``".XLF"``...), as its suffix with the dot
    (``".xliff"`` names the same format as ``".xlf"``); :class:`TranslationFileError` otherwise."""
    given = suffix.lower()
    normal = given if given.startswith(".") else f".{given}"
    if normal in TRANSLATION_EXTENSIONS:
        return ".xlf" if normal == ".xliff" else normal
    shown = f"'{suffix}'" if suffix else "no suffix"
    raise TranslationFileError(
        f"{shown} is not a translation file format; the formats are {', '.join(TRANSLATION_EXTENSIONS)} "
        "(gettext PO, XLIFF 2.0, Godot or Unity CSV)",
        path=path, fix=Fix("other_name", verb="write") if writing else None)


def check_catalog(catalog: Catalog) -> None:
    """Refuse a catalog no format can hold: an entry without a line id, or one line id twice (a
    translation read back could not say which line it belongs to)."""
    seen: dict[str, str] = {}
    for entry in catalog.entries:
        if not entry.line_id:
            raise TranslationFileError(
                f"a line of {entry.document or 'the project'} (at {entry.location or 'an unknown place'}) has no "
                "line id; every line of a translation file is keyed by its id")
        where = f"{entry.document or entry.document_id}:{entry.location}".strip(":")
        if entry.line_id in seen:
            raise TranslationFileError(
                f"the line id {entry.line_id!r} is used twice ({seen[entry.line_id]} and {where}); a translation "
                "file keys each line by its id, so each id must be given once")
        seen[entry.line_id] = where


def check_unique(entries: Iterable[tuple[ReadEntry, int | None]], path: Path | str | None) -> tuple[ReadEntry, ...]:
    """The entries read (each with the line where it starts), refusing a line id given twice."""
    first: dict[str, int | None] = {}
    kept: list[ReadEntry] = []
    for entry, line in entries:
        if entry.line_id in first:
            before = first[entry.line_id]
            earlier = "" if before is None else f" (first at line {before})"
            raise TranslationFileError(f"the line id {entry.line_id!r} is given twice{earlier}; each line id may be "
                                       "given once", path=path, line=line)
        first[entry.line_id] = line
        kept.append(entry)
    return tuple(kept)


def underscored(tag: str) -> str:
    """A BCP 47 tag as gettext and Godot spell a locale: subtags joined by underscores
    (``pt-BR`` → ``pt_BR``, ``zh-Hant-TW`` → ``zh_Hant_TW``)."""
    return tag.replace("-", "_")


def hyphenated(code: str) -> str:
    """A gettext or Godot locale code as a BCP 47 tag (``pt_BR`` → ``pt-BR``); a tag passes as it is.
    A gettext modifier (``sr@latin``) is kept: the caller compares the result with its locales."""
    return code.strip().replace("_", "-")


def target_text(text: str | None) -> str | None:
    """A target as read: None when the file leaves it empty."""
    return text if text else None
