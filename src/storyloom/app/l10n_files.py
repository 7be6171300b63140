"""Translation files of a project: the one export and import of ``storyloom l10n`` and of the
app's File ▸ Export Translations… and Import Translations… (later, of the local API too).

- :func:`export_catalog` gathers the project's lines for a target locale
  (:func:`storyloom.l10n.gather.catalog`: every speech line and choice option, with the
  translations held and their review flags) and writes them in the format the file's suffix names
  (``.po``, ``.xlf``/``.xliff``, ``.csv``: :func:`storyloom.l10n.formats.write_catalog`,
  atomically). The locale must be one of the project's target locales.
- :func:`import_file` reads a translation file back (:func:`storyloom.l10n.formats.read_translation_file`)
  and imports it (:func:`storyloom.l10n.importing.import_translations`), or with ``dry_run``
  only reports what it would do. The project's lock policy applies: in a team project, a
  Translation document another translator holds is refused and listed.
- :func:`export_recording_script` writes the voice-over recording script of the project (one
  actor's lines, or everyone's; the text in a target locale or the source) as CSV, atomically
  (:mod:`storyloom.l10n.vo`).

See docs/localization.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from storyloom.l10n.catalog import Catalog
from storyloom.l10n.importing import ImportReport, import_translations, match_locale
from storyloom.project import target_locales

#: The CSV string tables a file may be.
CSV_DIALECTS = ("godot", "unity")


@dataclass(frozen=True)
class ExportedCatalog:
    """What :func:`export_catalog` wrote: the file, the locale, and its lines counted."""

    path: Path
    locale: str
    lines: int
    translated: int
    to_review: int


def catalog_for(project: Any, locale: str) -> Catalog:
    """The catalog of ``project`` for ``locale`` (one of its target locales, in any case: the
    project's spelling is used; :class:`~storyloom.l10n.importing.NotATargetLocale` otherwise)."""
    from storyloom.l10n.gather import catalog

    chosen = match_locale(locale, target_locales(project.editor.settings()))
    return catalog(project, chosen)


def export_catalog(project: Any, locale: str, path: Path | str, *, csv_dialect: str = "godot") -> ExportedCatalog:
    """Write ``project``'s catalog for ``locale`` to ``path`` in the format its suffix names."""
    from storyloom.l10n.formats import write_catalog

    found = catalog_for(project, locale)
    target = Path(path)
    write_catalog(found, target, csv_dialect=_dialect(csv_dialect) or "godot")
    return ExportedCatalog(
        target, found.target_locale, len(found.entries),
        sum(1 for e in found.entries if e.target), sum(1 for e in found.entries if e.target and e.needs_review),
    )


@dataclass(frozen=True)
class ExportedRecordingScript:
    """What :func:`export_recording_script` wrote: the file, the locale (None: the source), the
    rows, the actors they are for, and how many rows fell back to the source text."""

    path: Path
    locale: str | None
    lines: int
    actors: int
    untranslated: int


def export_recording_script(project: Any, path: Path | str, *, actor: str | None = None,
                            locale: str | None = None) -> ExportedRecordingScript:
    """Write ``project``'s recording script to ``path`` (CSV): ``actor``'s lines only when given,
    the text in ``locale`` (one of the project's target locales, in any case) when given."""
    from storyloom.l10n.vo import FROM_FALLBACK, recording_script, write_recording_csv

    chosen = match_locale(locale, target_locales(project.editor.settings())) if locale else None
    rows = recording_script(project, actor=actor, locale=chosen)
    target = Path(path)
    write_recording_csv(rows, target)
    return ExportedRecordingScript(target, chosen, len(rows), len({row.actor for row in rows}),
                                   sum(1 for row in rows if row.text_from == FROM_FALLBACK))


def import_file(project: Any, path: Path | str, *, locale: str | None = None, csv_dialect: str | None = None,
                dry_run: bool = False) -> ImportReport:
    """Import the translation file at ``path`` into ``project`` (``locale``: the file's own when
    not given, else the project's only target locale); see the module's description."""
    from storyloom.l10n.formats import read_translation_file

    read = read_translation_file(Path(path), csv_dialect=_dialect(csv_dialect), target_locale=locale)
    return import_translations(project, read, locale=locale, dry_run=dry_run)


def _dialect(value: str | None) -> Any:
    if value is not None and value not in CSV_DIALECTS:
        raise ValueError(f"csv_dialect: one of {', '.join(CSV_DIALECTS)}, got {value!r}")
    return value
