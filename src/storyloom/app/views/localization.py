"""The Localization view's rules (View ▸ Localization): Qt-free.

What it shows (docs/localization.md, "In the app"): per target locale of the project, its
progress (:class:`LocaleProgress`: lines, translated, to review, untranslated) and its lines
(:class:`Row`: line id, document path, speaker, source, translation, state, and the source a
translation was made from when that changed), filtered by state (:data:`FILTERS`) and by text,
in the project's order (the documents as the explorer lists them, each document's lines top to
bottom).

- **Reading** (:func:`load`) reads each translated document once for every locale (the lines,
  then the Translation documents of each locale), 200 documents at a time; at 10,000 documents
  it takes seconds, so the window calls it on a worker thread. It is a pure read: the result
  (:class:`Loaded`) is handed to :class:`LocalizationState` on the GUI thread.
- **Following changes** (:meth:`LocalizationState.affected`): a change of a Script or Dialogue
  (a source edit flips a row to "to review"), of a folder (paths), or of a Translation document
  (a teammate's synced translation) re-reads only those documents (:func:`load` with
  ``doc_ids``); a change of an Actor (speakers) or of the project settings (the locales) reads
  everything again.
- **Editing in place** (:meth:`LocalizationState.edit`, :meth:`~LocalizationState.mark_reviewed`)
  writes through :func:`storyloom.l10n.translations.write_entry` (the editor's gate: validation,
  locks). An edit refused by another user's lock keeps the typed text as a draft of the row
  (shown instead of the stored translation, "not saved") and says who holds the lock.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from storyloom.app.events import DocumentChanged
from storyloom.l10n.translations import ID_PREFIX, needs_review, same_source
from storyloom.project import SETTINGS_ID, LockRefused, source_locale, target_locales
from storyloom.words import counted

#: A row's state.
UNTRANSLATED = "untranslated"
REVIEW = "review"
TRANSLATED = "translated"
#: The filters: every line, the lines without a translation, the translations to review.
ALL = "all"
FILTERS = (ALL, UNTRANSLATED, REVIEW)
FILTER_LABELS = {ALL: "All", UNTRANSLATED: "Untranslated", REVIEW: "Needs review"}
STATE_LABELS = {UNTRANSLATED: "Untranslated", REVIEW: "To review", TRANSLATED: "Translated"}


@dataclass(frozen=True)
class Row:
    """One translatable line for one locale, as the view shows it."""

    line_id: str
    document_id: str
    #: The document's path in the tree ("Act 1/Intro").
    document: str
    #: A Script's 1-based line number, or a Dialogue's "node id/handle id".
    location: str
    source: str
    translation: str | None
    state: str
    speaker: str | None = None
    #: The source the translation was made from, when it is not the source now (a review row).
    previous_source: str | None = None
    kind: str = "speech"
    notes: tuple[str, ...] = ()
    doc_type: str = "Script"

    @property
    def line(self) -> int:
        """The line to open the document at (0: a Dialogue's option opens its document)."""
        return int(self.location) if self.location.isdigit() else 0

    def matches(self, words: str) -> bool:
        """Whether ``words`` (already case-folded) is in its source, translation, speaker,
        document or line id."""
        return any(words in (text or "").casefold() for text in (
            self.source, self.translation, self.speaker, self.document, self.line_id, self.previous_source))


@dataclass(frozen=True)
class LocaleProgress:
    """A target locale's lines counted."""

    locale: str
    lines: int
    translated: int
    review: int

    @property
    def untranslated(self) -> int:
        return self.lines - self.translated

    @property
    def percent(self) -> int:
        """Translated and not to review, in whole percent (100 only when every line is done)."""
        if not self.lines:
            return 100
        done = self.translated - self.review
        return 100 if done == self.lines else min(99, done * 100 // self.lines)

    def label(self) -> str:
        """``fr — 120/300 translated, 4 to review``."""
        text = f"{self.locale} — {self.translated}/{self.lines} translated"
        return f"{text}, {self.review} to review" if self.review else text


@dataclass(frozen=True)
class Loaded:
    """What :func:`load` read: the documents in tree order (id, path, type), and per locale the
    rows of each document read."""

    source_locale: str
    locales: tuple[str, ...]
    #: Every translated document of the project in tree order: (id, path, type).
    places: tuple[tuple[str, str, str], ...]
    #: ``{locale: {document id: rows}}`` for the documents read (all, or those asked).
    rows: dict[str, dict[str, list[Row]]]
    #: The documents asked (None: all of them).
    doc_ids: frozenset[str] | None = None
    #: ``{document or folder id: (type, name, parent, order)}`` of the tree the places were made
    #: from: a change that leaves a document's shape alone keeps the places (no tree walk).
    shapes: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    #: The speakers the lines were read with (the next partial read reuses them).
    speakers: Mapping[str, str] = field(default_factory=dict)


def _shape(summary: Any) -> tuple[Any, ...]:
    return summary.type, summary.name, summary.parent, summary.order


def _tree_changed(index: Any, doc_ids: Iterable[str], shapes: Mapping[str, tuple[Any, ...]]) -> bool:
    """Whether the changes of ``doc_ids`` may move, rename, add or remove a translated document
    or a folder (the places must be walked again), judged from the index's summaries."""
    for doc_id in doc_ids:
        summary = index.get(doc_id)
        held = shapes.get(doc_id)
        if summary is None or not summary.is_tree:
            if held is not None:
                return True  # deleted
            continue
        if held is None or held != _shape(summary):
            return True  # new, renamed, moved or retyped
    return False


def load(project: Any, doc_ids: Iterable[str] | None = None, previous: Loaded | None = None,
         speakers: Mapping[str, str] | None = None) -> Loaded:
    """Read the lines of ``project`` (a :class:`~storyloom.project.Project`) for each of its
    target locales: every translated document's, or only those of ``doc_ids``. With ``doc_ids``,
    the ``previous`` read's places are kept when the changes leave the tree as it was (a line
    edited: no walk of the whole tree, a fifth of a second at 10,000 documents), and
    ``speakers`` (:func:`storyloom.l10n.gather.actor_names`) saves reading the actors. A pure
    read, safe on a worker thread."""
    from storyloom.l10n.gather import (
        SCRIPT,
        Place,
        actor_names,
        option_lines,
        placed_documents,
        places,
        script_lines,
    )

    settings = project.editor.settings()
    locales = tuple(target_locales(settings))
    index = project.editor.index
    asked = frozenset(doc_ids) if doc_ids is not None else None
    if asked is not None and previous is not None and not _tree_changed(index, asked, previous.shapes):
        found = [Place(doc_id, doc_type, path.rsplit("/", 1)[-1], path) for doc_id, path, doc_type in previous.places
                 if doc_id in asked]
        shapes, kept = previous.shapes, previous.places
    else:
        found = places(index)
        shapes = {s.id: _shape(s) for s in index.summaries() if s.is_tree}
        kept = tuple((p.id, p.path, p.type) for p in found)
    wanted = [p for p in found if asked is None or p.id in asked]
    if speakers is None:
        speakers = actor_names(project.db, index.ids_of_type("Actor"))
    rows: dict[str, dict[str, list[Row]]] = {locale: {} for locale in locales}
    for place, doc, held in placed_documents(project.db, wanted, locales):
        lines = script_lines(doc, speakers) if place.type == SCRIPT else option_lines(doc)
        for locale in locales:
            stored = held[locale]
            rows[locale][place.id] = [_row(line, place.id, place.path, place.type, stored.get(line.line_id))
                                      for line in lines]
    return Loaded(source_locale(settings), locales, kept, rows, asked, shapes, speakers)


def _row(line: Any, doc_id: str, path: str, doc_type: str, stored: Any) -> Row:
    if stored is None:
        state, previous = UNTRANSLATED, None
    else:
        state = REVIEW if needs_review(stored, line.source) else TRANSLATED
        previous = stored.source if not same_source(stored.source, line.source) else None
    return Row(line.line_id, doc_id, path, line.location, line.source, stored.text if stored is not None else None,
               state, line.speaker, previous, line.kind, line.notes, doc_type)


@dataclass(frozen=True)
class Affected:
    """What a batch of changes asks the view to read again: some documents, or everything."""

    doc_ids: frozenset[str] = frozenset()
    everything: bool = False

    def __bool__(self) -> bool:
        return self.everything or bool(self.doc_ids)


@dataclass(frozen=True)
class EditOutcome:
    """What an edit in place did: saved, or refused with the reason (the typed text is kept)."""

    saved: bool
    message: str = ""
    #: Who holds the lock that refused it.
    holder: str | None = None


@dataclass
class LocalizationState:
    """What the view holds: the rows of every locale, the locale shown, the filter and search,
    and the drafts an edit refused left. Used on one thread (the GUI's)."""

    locale: str | None = None
    filter: str = ALL
    search: str = ""
    source_locale: str = "en"
    locales: tuple[str, ...] = ()
    places: tuple[tuple[str, str, str], ...] = ()
    by_locale: dict[str, dict[str, list[Row]]] = field(default_factory=dict)
    #: ``{(locale, line id): text}``: typed translations a lock refused, kept until saved.
    drafts: dict[tuple[str, str], str] = field(default_factory=dict)
    loaded: bool = False
    #: The last read, for the next partial one (its places, tree shapes and speakers).
    last: Loaded | None = None

    # ------------------------------------------------------------------ reading
    def take(self, loaded: Loaded) -> None:
        """Take what :func:`load` read (everything, or the documents it was asked for)."""
        if loaded.doc_ids is None:
            self.by_locale = {locale: dict(loaded.rows.get(locale, {})) for locale in loaded.locales}
        else:
            kept = {locale: self.by_locale.get(locale, {}) for locale in loaded.locales}
            for locale, docs in kept.items():
                for doc_id in loaded.doc_ids:
                    docs.pop(doc_id, None)
                docs.update(loaded.rows.get(locale, {}))
            self.by_locale = kept
        paths = {doc_id: path for doc_id, path, _type in loaded.places}
        if loaded.doc_ids is not None and paths != {doc_id: path for doc_id, path, _type in self.places}:
            for docs in self.by_locale.values():  # a folder renamed or a document moved: its lines' paths
                for doc_id, rows in docs.items():
                    path = paths.get(doc_id)
                    if path is not None and rows and rows[0].document != path:
                        docs[doc_id] = [dataclasses.replace(row, document=path) for row in rows]
        self.places = loaded.places
        self.last = loaded
        self.source_locale = loaded.source_locale
        self.locales = loaded.locales
        if self.locale not in self.locales:
            self.locale = self.locales[0] if self.locales else None
        self.loaded = True

    def reader(self, project: Any, doc_ids: Iterable[str] | None = None) -> Callable[[], Loaded]:
        """The read to run on a worker thread: everything, or ``doc_ids`` after the last read
        (its places and speakers kept when the tree is as it was)."""
        last = self.last
        if doc_ids is None or last is None:
            return lambda: load(project)
        ids = frozenset(doc_ids)
        return lambda: load(project, ids, last, last.speakers)

    def all_rows(self, locale: str | None = None) -> list[Row]:
        """Every row of ``locale`` (the one shown when None), in the project's order."""
        docs = self.by_locale.get(locale or self.locale or "", {})
        return [row for doc_id, _path, _type in self.places for row in docs.get(doc_id, ())]

    def rows(self) -> list[Row]:
        """The rows shown: the locale's, through the filter and the search."""
        words = self.search.strip().casefold()
        shown = []
        for row in self.all_rows():
            if self.filter != ALL and row.state != self.filter:
                continue
            if words and not (row.matches(words) or words in self.draft(row).casefold()):
                continue
            shown.append(row)
        return shown

    def progress(self, locale: str | None = None) -> LocaleProgress:
        rows = self.all_rows(locale)
        translated = sum(1 for row in rows if row.translation is not None)
        review = sum(1 for row in rows if row.state == REVIEW)
        return LocaleProgress(locale or self.locale or "", len(rows), translated, review)

    def draft(self, row: Row) -> str:
        """The text a refused edit of ``row`` left (empty when none)."""
        return self.drafts.get((self.locale or "", row.line_id), "")

    def shown_text(self, row: Row) -> str:
        """The translation column's text: the draft a lock refused, else the translation."""
        return self.draft(row) or (row.translation or "")

    # ------------------------------------------------------------------ following the session
    def affected(self, changes: Iterable[DocumentChanged]) -> Affected:
        """What ``changes`` (the session's) ask to read again."""
        ids: set[str] = set()
        known = {doc_id for doc_id, _path, _type in self.places}
        for change in changes:
            doc_id = change.id
            if doc_id == SETTINGS_ID or change.collection == "Actor":
                return Affected(everything=True)
            if doc_id.startswith(ID_PREFIX):
                translated = _translated_document(doc_id, self.locales)
                if translated is not None:
                    ids.add(translated)
            elif change.collection in ("Script", "Dialogue") or doc_id in known:
                ids.add(doc_id)  # a line edited, a document added, renamed, moved or deleted; a folder
        return Affected(frozenset(ids))

    # ------------------------------------------------------------------ editing
    def edit(self, editor: Any, row: Row, text: str) -> EditOutcome:
        """Save ``text`` as ``row``'s translation in the locale shown (made from its source now:
        a review row is reviewed by it). An empty text saves nothing (a translation is not
        deleted here). Refused by another's lock: the text stays as the row's draft."""
        if not text.strip():
            self.drafts.pop((self.locale or "", row.line_id), None)
            return EditOutcome(False, "An empty translation is not saved: type the translation, or Escape to cancel.")
        return self._write(editor, row, text)

    def mark_reviewed(self, editor: Any, row: Row) -> EditOutcome:
        """Keep ``row``'s translation as good for its source now (clears "to review")."""
        if row.translation is None:
            return EditOutcome(False, "This line has no translation to review yet.")
        return self._write(editor, row, row.translation)

    def _write(self, editor: Any, row: Row, text: str) -> EditOutcome:
        from storyloom.errors import StoryloomError
        from storyloom.l10n.translations import write_entry

        locale = self.locale or ""
        name = row.document.rsplit("/", 1)[-1]
        try:
            write_entry(editor, locale, row.document_id, name, row.line_id, text, row.source)
        except LockRefused as refused:
            self.drafts[(locale, row.line_id)] = text
            return EditOutcome(False, refused_message(refused.holder, locale, row.document), refused.holder)
        except StoryloomError as error:
            self.drafts[(locale, row.line_id)] = text
            return EditOutcome(False, f"Not saved: {error}. Your text is kept in the row.")
        self.drafts.pop((locale, row.line_id), None)
        self._replace(row, dataclasses.replace(row, translation=text, state=TRANSLATED, previous_source=None))
        return EditOutcome(True, "Saved.")

    def _replace(self, old: Row, new: Row) -> None:
        rows = self.by_locale.get(self.locale or "", {}).get(old.document_id)
        if rows is None:
            return
        for at, row in enumerate(rows):
            if row.line_id == old.line_id and row.location == old.location:
                rows[at] = new
                return

    def next_untranslated(self, shown: list[Row], after: int) -> int | None:
        """The index in ``shown`` of the first row after ``after`` without a translation (nor a
        draft), wrapping around; None when there is none."""
        count = len(shown)
        for step in range(1, count + 1):
            at = (after + step) % count
            if shown[at].translation is None and not self.draft(shown[at]):
                return at
        return None


def refused_message(holder: str, locale: str, document: str) -> str:
    """Why an edit was not saved: the lock's holder, and that the text is kept."""
    return (f"Not saved: {holder} holds the lock of the {locale} translation of “{document}”. "
            f"Your text is kept in the row; save it again when {holder} releases the lock.")


def _translated_document(translation_doc_id: str, locales: Iterable[str]) -> str | None:
    """The document a Translation id (``l10n.<locale>.<id>``) translates, when its locale is
    one of ``locales``."""
    rest = translation_doc_id[len(ID_PREFIX):]
    for locale in locales:
        if rest.startswith(locale + "."):
            return rest[len(locale) + 1:]
    return None


def import_summary(report: Any, file_name: str) -> tuple[str, str]:
    """An import's report (:class:`~storyloom.l10n.importing.ImportReport`) as a heading and a
    few sentences a translator reads: what was stored, what was refused and why."""
    counts: Mapping[str, int] = report.counts()
    stored = counts["new"] + counts["changed"] + counts["source_changed"]
    heading = (f"{report.locale} translations from {file_name}: "
               + (f"{counted(stored, 'line')} stored" if stored else "nothing new to store"))
    lines = [f"{counted(counts['new'], 'new translation')}, {counted(counts['changed'], 'changed translation')}, "
             f"{counts['unchanged']} unchanged."]
    if counts["empty"]:
        lines.append(f"{counted(counts['empty'], 'line')} left empty in the file (nothing changed for them).")
    if counts["source_changed"]:
        lines.append(f"{counted(counts['source_changed'], 'line')} changed in the script since the export: "
                     "stored, and marked to review.")
    if report.unknown:
        shown = ", ".join(f"{r.line_id} (“{_cut(r.source)}”)" for r in report.unknown[:5])
        more = f" and {len(report.unknown) - 5} more" if len(report.unknown) > 5 else ""
        lines.append(f"{counted(len(report.unknown), 'line')} not imported: no line of the project has "
                     f"{'its id' if len(report.unknown) == 1 else 'their ids'} (deleted since the export, or "
                     f"a file of another project): {shown}{more}.")
    if report.locked:
        holders: dict[str, int] = {}
        for refused in report.locked:
            holders[refused.holder or "someone"] = holders.get(refused.holder or "someone", 0) + 1
        who = ", ".join(f"{holder} ({counted(n, 'line')})" for holder, n in holders.items())
        lines.append(f"{counted(len(report.locked), 'line')} not imported: locked by {who}. Import the file "
                     "again when the lock is released.")
    lines.append(f"{counted(report.documents, 'translation document')} written.")
    return heading, "\n".join(lines)


def export_summary(exported: Any) -> str:
    """What an export (:class:`~storyloom.app.l10n_files.ExportedCatalog`) wrote, in a sentence."""
    review = f", {exported.to_review} to review" if exported.to_review else ""
    return (f"Exported {counted(exported.lines, 'line')} for {exported.locale} to {exported.path.name} "
            f"({exported.translated} translated{review}).")


def _cut(text: str, width: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"
