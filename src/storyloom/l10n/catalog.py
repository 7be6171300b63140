"""What a translation file holds, whatever its format: one entry per translatable line of a
project, for one target locale.

The file formats (:mod:`storyloom.l10n.formats`) write a :class:`Catalog` and read a file back
into :class:`ReadEntry` values; what to do with them (gather a project's lines, store
translations, report an import) lives in the modules above them. Pure data: no store, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

#: What kind of text a line is: a Script's speech line, a Dialogue choice option's label.
LineKind = Literal["speech", "option"]


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One translatable line, as a translator sees it."""

    #: The line's stable id (``docs/localization.md``): the key in every format.
    line_id: str
    #: The source text, as the player reads it (a speech line's text after ``::Actor::``).
    source: str
    #: The translation held for the target locale, or None when there is none yet.
    target: str | None = None
    #: The translation was made for another source text: kept, but to be reviewed (a PO entry's
    #: ``fuzzy`` flag, an XLIFF segment's ``reviewed`` state not reached).
    needs_review: bool = False
    #: The source text the translation was made for, when it differs from ``source``.
    previous_source: str | None = None
    #: Who says it (a speech line's actor; None for an option).
    speaker: str | None = None
    #: The document's id, and its path in the project tree as a writer names it ("Act 1/Intro").
    document_id: str = ""
    document: str = ""
    #: Where in the document: a Script's 1-based line number, or a Dialogue's "node id/handle id".
    location: str = ""
    kind: LineKind = "speech"
    #: The writer's notes to the translator (comments beside the line, the document's notes).
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Catalog:
    """A project's translatable lines for one target locale, in the project's order."""

    project: str
    source_locale: str
    target_locale: str
    entries: tuple[CatalogEntry, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class ReadEntry:
    """One entry read back from a translation file."""

    line_id: str
    #: The source text the file carries (what the translator translated from).
    source: str
    #: The translation, or None (or "") when the translator left it empty.
    target: str | None
    #: The file marks the translation as to be reviewed (PO ``fuzzy``; XLIFF state below
    #: ``reviewed`` given as ``initial``/``translated`` with a needs-review mark; see the formats).
    needs_review: bool = False


@dataclass(frozen=True, slots=True)
class ReadFile:
    """A translation file as read: its locales (when the format says them) and its entries."""

    source_locale: str | None
    target_locale: str | None
    entries: tuple[ReadEntry, ...]
