"""Translation files: a :class:`~storyloom.l10n.catalog.Catalog` written as the file translators'
tools read, and such a file read back (docs/translation-files.md).

The format follows the file's suffix: ``.po`` (gettext, :mod:`.po`), ``.xlf`` or ``.xliff``
(XLIFF 2.0, :mod:`.xliff`), ``.csv`` (a Godot or a Unity string table, :mod:`.csv_table`). Every
line is keyed by its line id. What the file's locales mean, and what to do with the entries read,
is the caller's (the project's localization, above this module).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from storyloom.l10n.catalog import Catalog, ReadFile
from storyloom.l10n.formats.common import TRANSLATION_EXTENSIONS, TranslationFileError, check_catalog, format_of
from storyloom.output_files import atomic_write

__all__ = [
    "TRANSLATION_EXTENSIONS",
    "CsvDialect",
    "TranslationFileError",
    "catalog_bytes",
    "read_translation_bytes",
    "read_translation_file",
    "write_catalog",
]

#: The CSV string tables: Godot's translation CSV, or Unity Localization's CSV import.
CsvDialect = Literal["godot", "unity"]


def catalog_bytes(catalog: Catalog, fmt: str, *, csv_dialect: CsvDialect = "godot") -> bytes:
    """The file of ``catalog`` in the format ``fmt`` names (a suffix: ``".po"``, ``"xlf"``...),
    as bytes (UTF-8). :class:`TranslationFileError` for a suffix of no format, an entry without a
    line id, or a line id given twice."""
    kind = format_of(fmt, writing=True)
    check_catalog(catalog)
    if kind == ".po":
        from storyloom.l10n.formats.po import po_bytes

        return po_bytes(catalog)
    if kind == ".xlf":
        from storyloom.l10n.formats.xliff import xliff_bytes

        return xliff_bytes(catalog)
    from storyloom.l10n.formats.csv_table import csv_bytes

    return csv_bytes(catalog, csv_dialect)


def write_catalog(catalog: Catalog, path: Path, *, csv_dialect: CsvDialect = "godot") -> None:
    """Write ``catalog`` to ``path`` in the format its suffix names, atomically (the file is
    whole or as it was). :class:`TranslationFileError` as :func:`catalog_bytes`; ``OSError``
    when the file system refuses."""
    path = Path(path)
    format_of(path.suffix, path=path, writing=True)
    atomic_write(path, catalog_bytes(catalog, path.suffix, csv_dialect=csv_dialect))


def read_translation_bytes(data: bytes, fmt: str, *, csv_dialect: CsvDialect | None = None,
                           target_locale: str | None = None, name: str = "<memory>") -> ReadFile:
    """A translation file's content read as the format ``fmt`` (a suffix) says; ``name`` is the
    file's name in errors. See :func:`read_translation_file`."""
    kind = format_of(fmt, path=name)
    if kind == ".po":
        from storyloom.l10n.formats.po import read_po_bytes

        return read_po_bytes(data, name)
    if kind == ".xlf":
        from storyloom.l10n.formats.xliff import read_xliff_bytes

        return read_xliff_bytes(data, name)
    from storyloom.l10n.formats.csv_table import read_csv_bytes

    return read_csv_bytes(data, name, dialect=csv_dialect, target_locale=target_locale)


def read_translation_file(path: Path, *, csv_dialect: CsvDialect | None = None,
                          target_locale: str | None = None) -> ReadFile:
    """The entries of the translation file at ``path``, in the format its suffix names.

    For a CSV, ``csv_dialect`` (Godot's or Unity's) is found from the header when not given, and
    ``target_locale`` picks the column to read when the file holds several target locales.
    :class:`TranslationFileError` for a suffix of no format or a file that is not what its format
    says (with the line, when known); ``OSError`` when the file cannot be read. Whether the
    file's locales are the project's is the caller's to check (:class:`ReadFile` says them)."""
    path = Path(path)
    format_of(path.suffix, path=path)
    return read_translation_bytes(path.read_bytes(), path.suffix, csv_dialect=csv_dialect,
                                  target_locale=target_locale, name=str(path))
