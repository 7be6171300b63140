"""The import of a translation file into a project: :func:`import_translations` and its
:class:`ImportReport` (docs/localization.md, "Importing a translation file").

Every entry of the file is compared with the project's lines for the locale:

- **new**: no translation was held for the line; **changed**: the translation text differs
  from the one held; **unchanged**: the same text (its source and review mark are brought up
  to date when they differ);
- **empty**: the translator left it empty: nothing changes (an import never deletes a
  translation);
- **unknown**: no line of the project has the id (deleted since the export, or a file of
  another project): refused, listed with the file's source text;
- **source changed**: the file's source text is not the line's source now (the writer edited it
  after the export): the translation is stored with the source it was made from, so it reads
  as to be reviewed;
- **locked**: the Translation document is locked by another user: refused, with who holds it;
  the file's other lines are imported.

The source text is never written: only Translation documents are, one write per translated
document, through the editor's gate (intent ``translate``: another's lock refuses it, and it
takes no lock itself). A line id that two documents share (a Drafft tag used twice) is
imported into both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from storyloom.errors import Fix, StoryloomError
from storyloom.l10n.catalog import CatalogEntry, ReadEntry, ReadFile
from storyloom.l10n.gather import entries as catalog_entries
from storyloom.l10n.translations import (
    StoredEntry,
    entries_of,
    needs_review,
    new_translation,
    same_source,
    translation_id,
)
from storyloom.project import (
    LockRefused,
    WriteIntent,
    lock_info,
    now_iso,
    target_locales,
)


class LocaleError(StoryloomError):
    """A translation file that cannot be imported for the locale asked (see the subclasses)."""

    code = "translation_locale"


class NotATargetLocale(LocaleError):
    """The locale is not one of the project's target locales."""

    code = "locale_not_a_target"
    fixes = ("add_target_locale",)

    def __init__(self, locale: str, targets: list[str]) -> None:
        self.locale = locale
        self.targets = targets
        have = ", ".join(targets) if targets else "none yet"
        super().__init__(f"{locale!r} is not one of the project's target locales ({have})",
                         fix=Fix("add_target_locale", locale=locale, locales=(*targets, locale)))


class LocaleMismatch(LocaleError):
    """The file says it holds another locale than the one the import was asked for."""

    code = "translation_locale_mismatch"
    fixes = ("give_locale",)

    def __init__(self, file_locale: str, asked: str) -> None:
        self.file_locale = file_locale
        self.asked = asked
        super().__init__(f"the file holds {file_locale!r} translations, not {asked!r}",
                         fix=Fix("give_locale", locale=file_locale))


class LocaleNotGiven(LocaleError):
    """The file does not say its locale and the project has more than one target locale."""

    code = "translation_locale_not_given"
    fixes = ("give_locale",)

    def __init__(self, targets: list[str]) -> None:
        self.targets = targets
        has = f"{len(targets)} target locales ({', '.join(targets)})" if targets else "no target locale yet"
        super().__init__(f"the file does not say which locale it holds, and the project has {has}",
                         fix=Fix("give_locale", locale=" or ".join(targets) or None))


def match_locale(asked: str, targets: list[str]) -> str:
    """The project's spelling of ``asked`` among ``targets`` (BCP 47 tags compare without case),
    else :class:`NotATargetLocale`."""
    for target in targets:
        if target.casefold() == asked.strip().casefold():
            return target
    raise NotATargetLocale(asked.strip(), targets)


def choose_locale(project: Any, read_file: ReadFile | None, asked: str | None) -> str:
    """The target locale an import writes: ``asked`` (checked against the file's own), else the
    file's, else the project's only target locale."""
    targets = target_locales(project.editor.settings())
    said = read_file.target_locale if read_file is not None else None
    if asked:
        chosen = match_locale(asked, targets)
        if said and said.strip().casefold() != chosen.casefold():
            raise LocaleMismatch(said.strip(), asked.strip())
        return chosen
    if said:
        return match_locale(said, targets)
    if len(targets) == 1:
        return targets[0]
    raise LocaleNotGiven(targets)


@dataclass(frozen=True)
class Refused:
    """A line of the file that was not imported, and why."""

    line_id: str
    #: The file's source text (an unknown id), or the line's document path (a locked one).
    source: str = ""
    document: str = ""
    #: Who holds the lock of the Translation document (a locked line).
    holder: str | None = None


@dataclass
class ImportReport:
    """What an import did (or, with ``dry_run``, would do): line ids by outcome."""

    locale: str
    dry_run: bool = False
    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)
    #: Stored, flagged for review: the file's source is not the line's source now.
    source_changed: list[str] = field(default_factory=list)
    unknown: list[Refused] = field(default_factory=list)
    locked: list[Refused] = field(default_factory=list)
    #: Translation documents written (or that would be).
    documents: int = 0

    @property
    def refused(self) -> bool:
        """Some lines were not imported (unknown ids, locked translations)."""
        return bool(self.unknown or self.locked)

    def counts(self) -> dict[str, int]:
        return {"new": len(self.new), "changed": len(self.changed), "unchanged": len(self.unchanged),
                "empty": len(self.empty), "source_changed": len(self.source_changed),
                "unknown": len(self.unknown), "locked": len(self.locked)}

    def to_json(self) -> dict[str, Any]:
        return {
            "locale": self.locale, "dryRun": self.dry_run, "counts": self.counts(), "documents": self.documents,
            "sourceChanged": list(self.source_changed),
            "unknown": [{"lineId": r.line_id, "source": r.source} for r in self.unknown],
            "locked": [{"lineId": r.line_id, "document": r.document, "holder": r.holder} for r in self.locked],
        }


def import_translations(project: Any, read_file: ReadFile, *, locale: str | None, dry_run: bool = False,
                        on_document: Callable[[int, int], None] | None = None) -> ImportReport:
    """Import ``read_file``'s translations into ``project`` (a :class:`~storyloom.project.Project`)
    for ``locale`` (see :func:`choose_locale`); see the module's description. ``on_document(done,
    total)`` is told after each translated document."""
    chosen = choose_locale(project, read_file, locale)
    report = ImportReport(chosen, dry_run)
    wanted = {read.line_id for read in read_file.entries}
    lines: dict[str, list[CatalogEntry]] = {}  # only the file's lines: the project's may be many more
    for entry in catalog_entries(project, chosen):
        if entry.line_id in wanted:
            lines.setdefault(entry.line_id, []).append(entry)
    # document id -> [(read entry, the line it translates)], in the order the project lists them
    plan: dict[str, list[tuple[ReadEntry, CatalogEntry]]] = {}
    names: dict[str, str] = {}
    read_ids: set[str] = set()
    for read in read_file.entries:
        if read.line_id in read_ids:
            continue  # a file repeating an id: its first entry counts
        read_ids.add(read.line_id)
        found = lines.get(read.line_id)
        if not found:
            report.unknown.append(Refused(read.line_id, read.source))
            continue
        if not read.target:
            report.empty.append(read.line_id)
            continue
        for line in found:
            plan.setdefault(line.document_id, []).append((read, line))
            names[line.document_id] = line.document
    editor = project.editor
    for done, (doc_id, pairs) in enumerate(plan.items(), 1):
        _import_document(editor, chosen, doc_id, names[doc_id], pairs, report)
        if on_document is not None:
            on_document(done, len(plan))
    return report


def _import_document(editor: Any, locale: str, doc_id: str, path: str,
                     pairs: list[tuple[ReadEntry, CatalogEntry]], report: ImportReport) -> None:
    """One Translation document's share of the import, written in one revision (retried once
    when another writer wrote it between the read and the write)."""
    from storyloom.store import Conflict, NotFound

    for attempt in (1, 2):
        try:
            current: dict[str, Any] | None = editor.get(translation_id(locale, doc_id))
        except NotFound:
            current = None
        if current is not None and current.get("_deleted"):
            current = None
        holder = _held_by_another(editor, current)
        if holder is not None:
            report.locked.extend(Refused(read.line_id, document=path, holder=holder) for read, _ in pairs)
            return
        outcome = _Outcome()
        entries = _merged_entries(current, pairs, editor.username, outcome)
        if not outcome.writes:
            outcome.tell(report)
            return
        if report.dry_run:
            report.documents += 1
            outcome.tell(report)
            return
        doc = dict(current) if current is not None else new_translation(locale, doc_id, path.rsplit("/", 1)[-1])
        content = doc.get("content")
        doc["content"] = {**(content if isinstance(content, dict) else {}), "entries": entries}
        try:
            if current is None:
                editor.create_document(doc)
            else:
                editor.update(doc, intent=WriteIntent.TRANSLATE)
        except LockRefused as refused:  # locked on this machine between the read and the write
            report.locked.extend(Refused(read.line_id, document=path, holder=refused.holder) for read, _ in pairs)
            return
        except Conflict:
            if attempt == 2:
                raise
            continue
        report.documents += 1
        outcome.tell(report)
        return


def _held_by_another(editor: Any, doc: dict[str, Any] | None) -> str | None:
    """Who holds ``doc``'s lock when the editor's lock policy refuses this user's write of it
    (a team project: the holder is someone else), else None."""
    held = lock_info(doc)
    holder = getattr(editor.lock_policy, "holder", None)
    if held is None or not callable(holder):
        return None
    return held.holder if held.holder != holder() else None


@dataclass
class _Outcome:
    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    source_changed: list[str] = field(default_factory=list)
    writes: bool = False

    def tell(self, report: ImportReport) -> None:
        report.new.extend(self.new)
        report.changed.extend(self.changed)
        report.unchanged.extend(self.unchanged)
        report.source_changed.extend(self.source_changed)


def _merged_entries(current: dict[str, Any] | None, pairs: list[tuple[ReadEntry, CatalogEntry]], user: str,
                    outcome: _Outcome) -> dict[str, Any]:
    """The ``content.entries`` of the Translation document after the import of ``pairs``."""
    raw = (current or {}).get("content", {})
    entries: dict[str, Any] = dict(raw.get("entries") or {}) if isinstance(raw, dict) else {}
    stored = entries_of(current)
    at = now_iso()
    for read, line in pairs:
        assert read.target  # empty ones are left out by the caller
        # The source the translation was made from: the file's (a format without one: the line's).
        source = read.source if read.source.strip() else line.source
        if not same_source(source, line.source):
            outcome.source_changed.append(read.line_id)
        held = stored.get(read.line_id)
        wanted = StoredEntry(read.target, source, read.needs_review, user, at)
        if held is None:
            outcome.new.append(read.line_id)
        elif held.text != read.target:
            outcome.changed.append(read.line_id)
        else:
            outcome.unchanged.append(read.line_id)
            if same_source(held.source, source) and held.review == read.needs_review:
                continue  # nothing to write for this line
            if read.needs_review and needs_review(held, line.source):
                continue  # still to review, as held: keep the source it was made from (the file's previous text)
        entries[read.line_id] = wanted.to_json()
        outcome.writes = True
    return entries
