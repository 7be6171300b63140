"""The localized game export: the translated text in place of the source (docs/export-format.md,
"Localized export"; docs/localization.md, "The localized export").

An export asked for a locale (``storyloom export --locale``, ``/game-export?locale=``, the export
dialog's Language) reads that locale's Translation documents (``l10n.<locale>.<document id>``,
:mod:`storyloom.l10n.translations`) and gives:

- each Script speech line whose ``lineId`` has a translation: the translated text, put in place
  of the source before ``${...}`` interpolation and the export mapping (so ``mapped`` says the
  translation);
- each Dialogue choice option with a translation: the translated ``label``;
- a **stale** translation (made from another source text, or marked to be reviewed): exported
  all the same and counted in ``needsReview``. A slightly outdated line in the player's language
  beats a line in the source language in the middle of a translated scene; a build that wants
  none checks ``_meta.localization.needsReview``;
- an untranslated line: the source, counted in ``untranslated``.

``_meta.localization`` says ``{locale, sourceLocale, lines, translated, needsReview,
untranslated}`` (``translated`` includes the lines to review). The source locale gives the plain
export; any other locale that is not one of the project's target locales is refused
(:class:`UnknownExportLocale`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from storyloom.errors import Fix, StoryloomError
from storyloom.l10n.translations import ID_PREFIX, StoredEntry, entries_of, needs_review
from storyloom.project import TRANSLATION_TYPE, source_locale, target_locales


class UnknownExportLocale(StoryloomError, ValueError):
    """A game export asked for a locale that is neither the project's source locale nor one of
    its target locales."""

    code = "unknown_export_locale"
    fixes = ("add_target_locale",)

    def __init__(self, locale: str, source: str, targets: list[str]) -> None:
        self.locale = locale
        self.source = source
        self.targets = targets
        have = ", ".join(targets) if targets else "none yet"
        super().__init__(
            f"{locale!r} is not one of the project's locales (source {source}; targets {have})",
            fix=Fix("add_target_locale", locale=locale, locales=(*targets, locale)),
        )


def export_locale(settings: Mapping[str, Any], locale: str | None) -> str | None:
    """The target locale an export asked for ``locale`` localizes into, as the project's settings
    spell it (tags compare without case), or ``None`` for the plain export (no locale, or the
    source locale). Raises :class:`UnknownExportLocale` for any other tag."""
    if locale is None:
        return None
    source = source_locale(settings)
    if locale.lower() == source.lower():
        return None
    targets = target_locales(settings)
    for tag in targets:
        if tag.lower() == locale.lower():
            return tag
    raise UnknownExportLocale(locale, source, targets)


def is_translation_of(doc: Mapping[str, Any], locale: str) -> bool:
    """Whether ``doc`` (or a light reading of it: ``_id`` and ``type``) is a Translation document
    into ``locale``."""
    doc_id = doc.get("_id")
    return (doc.get("type") == TRANSLATION_TYPE and isinstance(doc_id, str)
            and doc_id.startswith(f"{ID_PREFIX}{locale}."))


class Localizer:
    """One localized export's translations and counts: :meth:`text` for each translatable line,
    in export order. Counts are per run (never memoised), so they are right on every export."""

    def __init__(self, locale: str, source: str, translation_docs: Iterable[Mapping[str, Any]]) -> None:
        self.locale = locale
        self.source = source
        self._entries: dict[str, dict[str, StoredEntry]] = {}
        for doc in translation_docs:
            document = doc.get("document")
            if isinstance(document, str) and is_translation_of(doc, locale) and not doc.get("_deleted"):
                self._entries[document] = entries_of(doc)
        self.lines = self.translated = self.needs_review = 0
        #: ``{line id: exported translation}`` of every translated line (a string table).
        self.strings: dict[str, str] = {}

    def text(self, document_id: str, line_id: str | None, source: str) -> str:
        """The text exported for the line ``line_id`` of ``document_id`` whose source is
        ``source``: its translation when there is one (stale or not), else the source. A line
        without text is not counted (there is nothing to translate)."""
        if not source.strip():
            return source
        self.lines += 1
        entry = self._entries.get(document_id, {}).get(line_id) if line_id is not None else None
        if entry is None:
            return source
        self.translated += 1
        if needs_review(entry, source):
            self.needs_review += 1
        self.strings[line_id] = entry.text  # type: ignore[index]  # not None: an entry was found
        return entry.text

    def meta(self) -> dict[str, Any]:
        """``_meta.localization``."""
        return {"locale": self.locale, "sourceLocale": self.source, "lines": self.lines,
                "translated": self.translated, "needsReview": self.needs_review,
                "untranslated": self.lines - self.translated}
