"""The editing service: every write to a project's documents goes through :class:`Editor`.

Create, update, patch, rename, move and delete build the new document, stamp it (``modified``
in ISO-8601 UTC, ``modifiedBy`` = the app options' username; ``created``/``createdBy`` on
create) and hand it to :meth:`Editor._commit`, which calls the single gate
:meth:`Editor._check_write` before touching the store. The gate runs validation (hard errors
refuse the write with a :class:`~storyloom.project.validation.ValidationError`; warnings are
returned in the :class:`WriteResult`) and the invariants that need the previous revision
(``type`` and ``projectId`` never change, no folder cycles, settings are never deleted).
Locks plug in as an injected :class:`~storyloom.project.locks.LockPolicy`, asked by the gate.
While the editor writes, :meth:`Editor.writing_intent` tells the store's subscribers on the
writing thread why (the session labels the change's origin with it).

Imports and restores also pass the gate (intents ``import`` and ``restore``): validated, but
not re-stamped, so the original timestamps survive.

Every single write but a lock toggle brings the document's line ids up to date first
(:func:`storyloom.project.line_ids.update_line_ids`: a Script's ``content.lineIds`` re-anchored
from the previous revision's when its text changed, a Dialogue's choice options' ``lineId``).
Batches (an import, a restore) are written as they come: their ids are derived on read, as the
first edit then stores them (docs/localization.md).
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from storyloom.project.checking import parsed_source
from storyloom.project.collections import FOLDER_TYPE, SETTINGS_ID
from storyloom.project.dates import now_iso
from storyloom.project.documents import copy_document, is_tree_document, new_document, normalise_foreign_dates
from storyloom.project.index import DocSummary, ProjectIndex
from storyloom.project.line_ids import update_line_ids
from storyloom.project.locks import LockPolicy, NoLocks
from storyloom.project.tree import is_valid_key, key_between, order_key, spread_keys
from storyloom.project.users import os_username
from storyloom.project.validation import (
    ERROR,
    WARNING,
    Context,
    Problem,
    ValidationError,
    check_document,
)
from storyloom.store import Conflict, Database, NotFound
from storyloom.store.documents import error_from_result
from storyloom.store.read_view import ReadView

MAX_DEPTH = 10_000


class WriteIntent(StrEnum):
    """Why a write happens; the gate (and, later, locks) may treat them differently."""

    CREATE = "create"
    UPDATE = "update"
    RENAME = "rename"
    MOVE = "move"
    DELETE = "delete"
    IMPORT = "import"
    RESTORE = "restore"
    LOCK = "lock"
    UNLOCK = "unlock"
    BREAK_LOCK = "break-lock"
    RESOLVE = "resolve"
    #: Translations imported from a file (storyloom.l10n): refused by another's lock like an
    #: edit, but never takes the lock itself (an import is one write; holding every translation
    #: it touched would stop the other translators until each lock is released).
    TRANSLATE = "translate"


# Intents that bring documents in from elsewhere: no stamping, cross-document uniqueness
# problems are reported rather than refused (the source already holds both documents).
_BULK_INTENTS = (WriteIntent.IMPORT, WriteIntent.RESTORE)
_DOWNGRADED_ON_BULK = ("duplicate-sid",)
# Intents that change only a document's lock fields: not stamped, so a lock toggle is not an
# edit (the server accepts a break only when every other field is unchanged, and a lock-only
# revision then merges with a content edit field by field).
_LOCK_INTENTS = (WriteIntent.LOCK, WriteIntent.UNLOCK, WriteIntent.BREAK_LOCK)


@dataclass
class WriteResult:
    """The outcome of one accepted write."""

    id: str
    rev: str
    doc: dict[str, Any]
    intent: WriteIntent
    warnings: list[Problem] = field(default_factory=list)


class StoreContext(Context):
    """Cross-document lookups against the store, with a batch of pending writes on top.

    With an ``index`` (:class:`~storyloom.project.index.ProjectIndex`; the editing service
    always passes one) the questions of validation and of the gate (the owner of a Variable
    ``_sid``, the variable states, the parent of a document, the documents of a type) are
    answered from the index, caught up once when the context first needs it, and the pending
    batch; ``get`` reads the one document asked for. Without an index, they read every
    document (the behaviour before the index).
    """

    def __init__(self, db: Database | ReadView, pending: dict[str, dict[str, Any]] | None = None,
                 index: ProjectIndex | None = None) -> None:
        self.db = db
        self.pending = pending or {}
        self.index = index
        self._caught_up = False
        self._all: list[dict[str, Any]] | None = None
        self._pending_states: dict[str, dict[str, Any] | None] | None = None
        self._pending_sids: dict[str, list[str]] | None = None
        self._states: dict[str, dict[str, Any]] | None = None

    def get(self, doc_id: str) -> dict[str, Any] | None:
        if doc_id in self.pending:
            doc = self.pending[doc_id]
            return None if doc.get("_deleted") else doc
        try:
            return self.db.get(doc_id)
        except NotFound:
            return None

    def all_docs(self) -> list[dict[str, Any]]:
        if self._all is None:
            rows = self.db.all_docs(include_docs=True, skip_damaged=True)["rows"]
            merged = {row["id"]: row["doc"] for row in rows if row.get("doc")}
            merged.update(self.pending)
            self._all = [d for d in merged.values() if not d.get("_deleted")]
        return self._all

    def _index(self) -> ProjectIndex:
        assert self.index is not None
        if not self._caught_up:
            self.index.refresh()
            self._caught_up = True
        return self.index

    def _stored(self, doc_id: str) -> DocSummary | None:
        return self._index().get(doc_id, catch_up=False)

    def docs_of_type(self, doc_type: str) -> list[dict[str, Any]]:
        if self.index is None:
            return [doc for doc in self.all_docs() if doc.get("type") == doc_type]
        # The stored documents (id order), pending versions in their place, then the pending
        # documents new to the store (batch order): the order all_docs() gives.
        index = self._index()
        in_place = [i for i in index.ids_of_type(doc_type, catch_up=False) if i not in self.pending]
        new: list[str] = []
        for doc_id, doc in self.pending.items():
            if not doc.get("_deleted") and doc.get("type") == doc_type:
                (in_place if index.get(doc_id, catch_up=False) is not None else new).append(doc_id)
        fetch = [i for i in in_place if i not in self.pending]
        rows = self.db.all_docs(keys=fetch, include_docs=True, skip_damaged=True)["rows"] if fetch else []
        docs = {row["id"]: row["doc"] for row in rows if row.get("doc")}
        docs.update((i, self.pending[i]) for i in in_place + new if i in self.pending)
        return [docs[i] for i in [*sorted(in_place), *new] if i in docs]

    @property
    def knows_documents(self) -> bool:
        return True

    # -- index-backed lookups ----------------------------------------------------------------

    def _pending_variables(self) -> dict[str, dict[str, Any] | None]:
        """``{id: parsed state, or None when it does not parse}`` of the pending Variables
        (each parsed once per context, however many documents of the batch ask)."""
        if self._pending_states is None:
            from storyloom.project import content

            states: dict[str, dict[str, Any] | None] = {}
            for doc_id, doc in self.pending.items():
                if doc.get("_deleted") or doc.get("type") != "Variable":
                    continue
                try:
                    states[doc_id] = parsed_source(content, doc, "variables")
                except content.ContentError:
                    states[doc_id] = None
            self._pending_states = states
        return self._pending_states

    def variable_sid_owner(self, sid: str, exclude: str | None = None) -> str | None:
        if self.index is None:
            return super().variable_sid_owner(sid, exclude)
        stored = [i for i in self._index().sid_owners(sid, catch_up=False)
                  if i != exclude and i not in self.pending]
        if not any(i != exclude for i in self.pending):  # one write: only stored owners count
            return stored[0] if stored else None
        if self._pending_sids is None:
            by_sid: dict[str, list[str]] = {}
            for doc_id, state in self._pending_variables().items():
                if state is not None:
                    by_sid.setdefault(state["_sid"], []).append(doc_id)
            self._pending_sids = by_sid
        # The first match in docs_of_type("Variable") order: stored ids (pending versions in
        # their place) by id, then pending documents new to the store in batch order.
        pending = [i for i in self._pending_sids.get(sid, ()) if i != exclude]
        replacing = [i for i in pending if self._stored(i) is not None]
        if stored or replacing:
            return min(stored + replacing)
        return pending[0] if pending else None

    def variable_states(self) -> dict[str, dict[str, Any]]:
        if self.index is None:
            return super().variable_states()
        if self._states is None:
            self._states = self._merged_states()
        return self._states

    def _merged_states(self) -> dict[str, dict[str, Any]]:
        index = self._index()
        pending_vars = self._pending_variables()
        replaced = [i for i in self.pending if (s := self._stored(i)) is not None and s.type == "Variable"]
        if not pending_vars and not replaced:
            return index.states(catch_up=False)
        # Pending Variables replace or join the stored ones; collect_states' rule (the first
        # in id order wins a duplicate _sid) over the merged set.
        merged: dict[str, dict[str, Any] | None] = {
            s.id: s.state for s in index.variables(catch_up=False) if s.id not in self.pending
        }
        merged.update(pending_vars)
        states: dict[str, dict[str, Any]] = {}
        for doc_id in sorted(merged):
            state = merged[doc_id]
            if state is not None:
                states.setdefault(state["_sid"], state)
        return states

    def parent_of(self, doc_id: str) -> tuple[bool, Any]:
        if self.index is None or doc_id in self.pending or doc_id.startswith("_design/"):
            return super().parent_of(doc_id)
        summary = self._stored(doc_id)
        return (False, None) if summary is None else (True, summary.parent)


UsernameSource = str | Callable[[], str] | None


class Editor:
    """Every document write of one project. ``db`` is the project's :class:`~storyloom.store.Database`.

    ``username`` is the name stamped in ``modifiedBy``: a string, or a callable returning the
    current app options' username (so a change of options applies at once).
    """

    def __init__(self, db: Database, username: UsernameSource = None, *, clock: Callable[[], str] = now_iso,
                 index: ProjectIndex | None = None, lock_policy: LockPolicy | None = None) -> None:
        self.db = db
        self._username = username
        self._clock = clock
        self._index = index
        self.lock_policy: LockPolicy = lock_policy or NoLocks()
        self._writing = threading.local()
        # Checks that read other documents (parent cycles, unique _sids, locks) and the write
        # they allow happen under one lock, so two threads of this editor cannot both pass a
        # check that only one of their writes could pass.
        self._gate_lock = threading.RLock()
        # doc id -> the revision this editor wrote with its Script line table anchored to its
        # text: the next write of that revision need not check the table against the text again
        self._anchored: dict[str, str] = {}
        self._in_flight: Counter[str] = Counter()
        self._in_flight_lock = threading.Lock()

    def writing_intent(self) -> WriteIntent | None:
        """The intent of the write this thread is committing now, else ``None``. The store calls
        its subscribers on the writing thread, so a subscriber learns why a change was made."""
        return getattr(self._writing, "intent", None)

    def is_writing(self, doc_id: str) -> bool:
        """True while a write of ``doc_id`` by this editor is in flight (begun, not returned).
        A reader of the changes feed that meets such a document waits for the write to return
        before deciding it was not this editor's."""
        with self._in_flight_lock:
            return doc_id in self._in_flight

    @contextlib.contextmanager
    def _writing_as(self, intent: WriteIntent, doc_ids: Iterable[object]) -> Iterator[None]:
        ids = [doc_id for doc_id in doc_ids if isinstance(doc_id, str)]
        with self._in_flight_lock:
            self._in_flight.update(ids)
        outer = getattr(self._writing, "intent", None)
        self._writing.intent = intent
        try:
            yield
        finally:
            self._writing.intent = outer
            with self._in_flight_lock:
                self._in_flight.subtract(ids)
                for doc_id in ids:
                    if self._in_flight[doc_id] <= 0:
                        del self._in_flight[doc_id]

    @property
    def index(self) -> ProjectIndex:
        """The project index the editor places, moves and validates with (built on first use
        unless one was given: a :class:`~storyloom.project.manager.Project` shares its own)."""
        if self._index is None:
            self._index = ProjectIndex(self.db)
        return self._index

    @property
    def index_loaded(self) -> bool:
        """Whether the project index holds its table in memory now."""
        return self._index is not None and self._index.loaded

    def close_index(self) -> None:
        """Save the project index's table (when it changed since its last save) and let go of
        it; nothing when the index was never used. The session calls this when it closes."""
        if self._index is not None:
            self._index.close()

    # -- reading -----------------------------------------------------------------------------

    @property
    def username(self) -> str:
        source = self._username
        if callable(source):
            return source()
        return source or os_username()

    def get(self, doc_id: str) -> dict[str, Any]:
        """The current document (raises the store's ``NotFound``)."""
        return self.db.get(doc_id)

    def documents(self) -> list[dict[str, Any]]:
        """Every current document (no design documents)."""
        rows = self.db.all_docs(include_docs=True, skip_damaged=True)["rows"]
        return [row["doc"] for row in rows if row.get("doc") and not row["id"].startswith("_design/")]

    def tree(self) -> dict[str, dict[str, Any]]:
        """The derived tree of the whole project (see :func:`storyloom.project.tree.derive_tree`),
        from the index (no document is read)."""
        return self.index.tree()

    def siblings(self, parent: str | None, collection: str | None) -> list[dict[str, Any]]:
        """The documents under ``parent`` (for the top level: of ``collection``), in order.

        Reads only those documents (the index knows which they are)."""
        return self._read_docs(s.id for s in self.index.siblings(parent, collection))

    def _read_docs(self, ids: Iterable[str]) -> list[dict[str, Any]]:
        """The current documents ``ids`` (in one store read), in tree order; gone ones skipped."""
        keys = list(ids)
        if not keys:
            return []
        rows = self.db.all_docs(keys=keys, include_docs=True, skip_damaged=True)["rows"]
        return sorted((row["doc"] for row in rows if row.get("doc")), key=order_key)

    # -- writing -----------------------------------------------------------------------------

    def create(
        self,
        doc_type: str,
        name: str,
        *,
        parent: str | None = None,
        collection: str | None = None,
        content: dict[str, Any] | None = None,
        before: str | None = None,
        after: str | None = None,
        doc_id: str | None = None,
        **fields: Any,
    ) -> WriteResult:
        """Create a document of ``doc_type`` (``"Folder"`` needs ``collection``) under ``parent``.

        It goes at the end of its siblings unless ``before`` or ``after`` names a sibling. A new
        Variables or Scenario document without content starts from a template that validates
        (a Variables document's state id comes from its name, unlike any other's).
        """
        content = self._starting_content(doc_type, name, content)
        doc = new_document(
            doc_type, name, collection=collection, parent=parent, doc_id=doc_id, content=content, **fields
        )
        return self.create_document(doc, before=before, after=after)

    def _state_ids(self, *, but: str | None = None) -> set[str]:
        """The state ids the project's Variables documents claim (the index's, parsed once),
        those of ``but`` aside."""
        return {s.sid for s in self.index.summaries() if s.type == "Variable" and s.sid and s.id != but}

    def _starting_content(self, doc_type: str, name: str, content: dict[str, Any] | None) -> dict[str, Any] | None:
        # The content rules bring the property languages' parsers (yaml): imported at a first new
        # document, not by every verb that opens a project.
        from storyloom.project.content import SCENARIO_TEMPLATE, sid_for, variables_template

        if doc_type == "Variable" and not (content or {}).get("variables"):
            return {**(content or {}), "variables": variables_template(sid_for(name, self._state_ids()))}
        if doc_type == "Scenario" and not (content or {}).get("scenario"):
            return {**(content or {}), "scenario": SCENARIO_TEMPLATE}
        return content

    def create_document(self, doc: dict[str, Any], *, before: str | None = None,
                        after: str | None = None) -> WriteResult:
        """Create ``doc`` as given (a complete document without ``_rev``); a tree document with
        no ``sortKey`` is placed at the end of its siblings (or ``before``/``after`` one)."""
        doc = copy_document(doc)
        if "_rev" in doc:
            raise ValidationError.single(doc.get("_id"), "_rev", "no _rev on a new document", doc["_rev"])
        if is_tree_document(doc) and ("sortKey" not in doc or before or after):
            doc["sortKey"] = self._place(doc, doc.get("parent"), before=before, after=after)
        now = self._clock()
        doc.setdefault("created", now)
        doc.setdefault("createdBy", self.username)
        return self._commit(doc, WriteIntent.CREATE, previous=None, now=now)

    def update(self, doc: dict[str, Any], *, intent: WriteIntent = WriteIntent.UPDATE) -> WriteResult:
        """Replace a document with ``doc`` (which carries the ``_rev`` it was based on; a conflict
        leaf's rev writes on that leaf)."""
        doc = copy_document(doc)
        doc_id = doc.get("_id")
        if not isinstance(doc_id, str):
            raise ValidationError.single(None, "_id", "the id of an existing document", doc_id)
        if "_rev" not in doc:
            raise ValidationError.single(doc_id, "_rev", "the revision the update is based on")
        previous = self._current(doc_id)
        if doc["_rev"] != previous.get("_rev"):
            # A write on a conflict leaf other than the winner: the gate (and the lock policy)
            # compares with that leaf, its parent, as the server does.
            previous = self._leaf_or(doc_id, doc["_rev"], previous)
        for key in ("created", "createdBy"):
            if key not in doc and key in previous:
                doc[key] = previous[key]
        return self._commit(doc, intent, previous)

    def patch(self, doc_id: str, changes: dict[str, Any], rev: str | None = None,
              *, intent: WriteIntent = WriteIntent.UPDATE) -> WriteResult:
        """Set top-level fields of the current document (a value of ``None`` is stored as null)."""
        previous = self._current(doc_id)
        # A field the changes replace is not copied from the previous revision first (an
        # autosave's content, a long script and its line table, was copied twice); the fields
        # keep their order.
        doc = {key: copy_document(changes[key] if key in changes and key not in ("_id", "_rev") else value)
               for key, value in previous.items()}
        if rev is not None:
            doc["_rev"] = rev
        for key, value in changes.items():
            if key not in ("_id", "_rev") and key not in previous:
                doc[key] = copy_document(value)
        return self._commit(doc, intent, previous)

    def rename(self, doc_id: str, name: str, rev: str | None = None) -> WriteResult:
        """Change a document's ``name`` (``projectName`` for the settings document). A Variables
        document still holding the untouched template of its old name follows the new name (its
        state id too: nothing can name the old one yet)."""
        previous = self._current(doc_id)
        doc = copy_document(previous)
        if rev is not None:
            doc["_rev"] = rev
        doc["projectName" if doc_id == SETTINGS_ID else "name"] = name
        if doc.get("type") == "Variable" and isinstance(doc.get("content"), dict):
            from storyloom.project.content import is_untouched_template, sid_for, variables_template

            source = doc["content"].get("variables")
            if is_untouched_template(source, str(previous.get("name") or "")):
                taken = self._state_ids(but=doc_id)
                doc["content"] = {**doc["content"], "variables": variables_template(sid_for(name, taken))}
        return self._commit(doc, WriteIntent.RENAME, previous)

    def move(self, doc_id: str, parent: str | None, *, before: str | None = None,
             after: str | None = None, rev: str | None = None) -> WriteResult:
        """Put a document under ``parent`` (``None``: top level), at the end of its new siblings
        unless ``before`` or ``after`` names one of them."""
        previous = self._current(doc_id)
        if not is_tree_document(previous):
            raise ValidationError.single(doc_id, "type", "a folder or a document of a tree collection",
                                         previous.get("type"))
        if parent is not None:
            target = self._get_or_none(parent)
            if target is None:
                raise ValidationError.single(doc_id, "parent", "an existing folder", parent, "missing-parent")
        doc = copy_document(previous)
        if rev is not None:
            doc["_rev"] = rev
        doc["parent"] = parent
        doc["sortKey"] = self._place(doc, parent, before=before, after=after, exclude=doc_id)
        return self._commit(doc, WriteIntent.MOVE, previous)

    def delete(self, doc_id: str, rev: str | None = None, *, recursive: bool = False) -> list[WriteResult]:
        """Delete a document; a folder that is not empty needs ``recursive=True`` (its content
        goes too, deepest first). Every document is checked at the gate before any is deleted,
        and all are deleted in one transaction: a refusal deletes nothing. Returns one result
        per deleted document."""
        with self._gate_lock:
            plan = self._deletion_plan(doc_id, rev, recursive)
            context = self._context()
            checked = []
            for previous in plan:
                tombstone = {"_id": previous["_id"], "_rev": previous["_rev"], "_deleted": True}
                checked.append((tombstone, self._check_write(tombstone, WriteIntent.DELETE, previous, context)))
            with self._writing_as(WriteIntent.DELETE, [tombstone["_id"] for tombstone, _ in checked]):
                written = self.db.bulk_docs([dict(tombstone) for tombstone, _ in checked])
        failed = [result for result in written if "error" in result]
        if failed:  # another process wrote one of them meanwhile
            raise error_from_result(failed[0])
        return [
            WriteResult(tombstone["_id"], result["rev"], tombstone | {"_rev": result["rev"]}, WriteIntent.DELETE,
                        warnings)
            for (tombstone, warnings), result in zip(checked, written, strict=True)
        ]

    def _deletion_plan(self, doc_id: str, rev: str | None, recursive: bool) -> list[dict[str, Any]]:
        """The current revisions of ``doc_id`` and, for a folder, of its content, deepest first."""
        previous = self._current(doc_id)
        if rev is not None and rev != previous.get("_rev"):
            previous = dict(previous, _rev=rev)
        plan: list[dict[str, Any]] = []
        if previous.get("type") == FOLDER_TYPE:
            children = [child.id for child in self.index.children(doc_id)]
            if children and not recursive:
                raise ValidationError.single(
                    doc_id, "children", "an empty folder (or recursive=True to delete its content)",
                    children, "folder-not-empty",
                )
            for child in children:
                plan.extend(self._deletion_plan(child, None, True))
        plan.append(previous)
        return plan

    def settings(self) -> dict[str, Any]:
        return self.get(SETTINGS_ID)

    def update_settings(self, changes: dict[str, Any], *, rev: str | None = None,
                        intent: WriteIntent = WriteIntent.UPDATE) -> WriteResult:
        """Change fields of the ProjectSettings document (``projectId`` cannot change, except
        when a restore makes a copy of a project: ``intent=WriteIntent.RESTORE``). With ``rev``
        (the revision a form loaded), a change made meanwhile raises ``Conflict`` instead of
        being overwritten."""
        return self.patch(SETTINGS_ID, changes, rev=rev, intent=intent)

    def create_settings(self, settings: dict[str, Any]) -> WriteResult:
        """Write the first ProjectSettings document of a new project."""
        doc = copy_document(settings)
        now = self._clock()
        doc.setdefault("createdAt", now)
        return self._commit(doc, WriteIntent.CREATE, previous=None, now=now)

    def write_resolution(self, resolution: dict[str, Any], tombstones: list[dict[str, Any]],
                         leaves: Iterable[str]) -> WriteResult:
        """A conflict resolution (intent ``resolve``, storyloom.project.conflicts): ``resolution``
        on the winner and a tombstone on every other leaf, checked at the gate against the
        winner (locks apply) and written in one store transaction. The revisions come with their
        ``_rev`` and ``_revisions`` (the caller derives them from the leaves, so machines that
        resolve alike write the same revisions). ``leaves`` are the leaf revs it was computed
        from: if the document's leaves differ now, nothing is written (``Conflict``)."""
        doc_id = resolution["_id"]
        with self._gate_lock:
            now = {e["ok"]["_rev"] for e in self.db.get(doc_id, open_revs="all") if "ok" in e}
            if now != set(leaves):
                raise Conflict()
            previous = self._get_or_none(doc_id)
            context = self._context({doc_id: resolution})
            warnings = self._check_write({k: v for k, v in resolution.items() if k != "_revisions"},
                                         WriteIntent.RESOLVE, previous, context)
            for tombstone in tombstones:
                self._check_write(tombstone, WriteIntent.RESOLVE, previous, context)
            with self._writing_as(WriteIntent.RESOLVE, [doc_id]):
                failed = self.db.bulk_docs([resolution, *tombstones], new_edits=False)
        if failed:
            raise error_from_result(failed[0])
        return WriteResult(doc_id, resolution["_rev"], resolution, WriteIntent.RESOLVE, warnings)

    def write_local(self, doc: dict[str, Any], intent: WriteIntent = WriteIntent.IMPORT) -> dict[str, Any]:
        """Write a ``_local`` document (per machine, never replicated: remote settings, an import's
        leftovers) through the gate: the lock policy is asked as for any write; there is no
        document shape to validate. Returns the store's ``{"ok", "id", "rev"}``."""
        doc_id = doc.get("_id")
        if not (isinstance(doc_id, str) and doc_id.startswith("_local/") and len(doc_id) > len("_local/")):
            raise ValidationError.single(doc_id if isinstance(doc_id, str) else None, "_id",
                                         "an id starting with _local/", doc_id, "not-local")
        self.lock_policy.check_write(doc, intent, None, self.username)
        with self._writing_as(intent, [doc_id]):
            return self.db.put_local(doc)

    def write_many(self, docs: Iterable[dict[str, Any]], intent: WriteIntent = WriteIntent.IMPORT,
                   *, new_edits: bool = True) -> tuple[list[WriteResult], list[tuple[dict[str, Any], Exception]]]:
        """Write a batch (an import or a restore) through the gate, in one store transaction.

        Every document is checked against the store plus the whole batch (so references between
        documents of the batch resolve). Returns ``(written, refused)``; ``refused`` pairs each
        document the gate refused with its :class:`ValidationError`. With ``new_edits=False``
        the documents keep their ``_rev`` (a restore).
        """
        with self._gate_lock:
            return self._write_many([copy_document(doc) for doc in docs], intent, new_edits)

    def write_batch_of_many(self, docs: Iterable[dict[str, Any]], context: Context,
                            intent: WriteIntent = WriteIntent.IMPORT, *, new_edits: bool = True
                            ) -> tuple[list[WriteResult], list[tuple[dict[str, Any], Exception]]]:
        """One batch of a large import or restore written in several batches, through the gate.

        Like :meth:`write_many`, but every document is checked against ``context``, which knows
        every document of the whole import (written or still to come), so each batch is checked
        as the whole import in one batch would be, without holding it all in memory.
        """
        with self._gate_lock:
            return self._write_many([copy_document(doc) for doc in docs], intent, new_edits, context)

    def _write_many(self, batch: list[dict[str, Any]], intent: WriteIntent, new_edits: bool,
                    context: Context | None = None
                    ) -> tuple[list[WriteResult], list[tuple[dict[str, Any], Exception]]]:
        if context is None:
            context = self._context({doc["_id"]: doc for doc in batch if isinstance(doc.get("_id"), str)})
        accepted: list[tuple[dict[str, Any], list[Problem]]] = []
        refused: list[tuple[dict[str, Any], Exception]] = []
        for doc in batch:
            try:
                previous = None if intent in _BULK_INTENTS else self._get_or_none(doc.get("_id"))
                warnings = self._check_write(doc, intent, previous, context)
            except ValidationError as exc:
                refused.append((doc, exc))
                continue
            accepted.append((doc, warnings))
        written: list[WriteResult] = []
        if not accepted:
            return written, refused
        with self._writing_as(intent, [doc.get("_id") for doc, _ in accepted]):
            results = self.db.bulk_docs([doc for doc, _ in accepted], new_edits=new_edits)
        if new_edits:
            for (doc, warnings), result in zip(accepted, results, strict=True):
                if "error" in result:
                    refused.append((doc, RuntimeError(f"{result['error']}: {result.get('reason', '')}")))
                    continue
                stored = {k: v for k, v in doc.items() if k != "_attachments"} | {"_rev": result["rev"]}
                written.append(WriteResult(doc["_id"], result["rev"], stored, intent, warnings))
        else:
            failed = {result.get("id") for result in results}
            for result in results:
                bad = next(doc for doc, _ in accepted if doc["_id"] == result.get("id"))
                refused.append((bad, RuntimeError(f"{result.get('error')}: {result.get('reason', '')}")))
            for doc, warnings in accepted:
                if doc["_id"] not in failed:
                    written.append(WriteResult(doc["_id"], doc.get("_rev", ""), doc, intent, warnings))
        return written, refused

    # -- the gate ----------------------------------------------------------------------------

    def _check_write(self, doc: dict[str, Any], intent: WriteIntent, previous: dict[str, Any] | None,
                     context: Context) -> list[Problem]:
        """THE gate every write passes. Raises :class:`ValidationError` to refuse the write;
        returns the warnings to report. ``previous`` is the current revision (``None`` for a
        new document or a bulk write into an empty project)."""
        self.lock_policy.check_write(doc, intent, previous, self.username)
        doc_id = doc.get("_id")
        if intent is WriteIntent.RESOLVE and doc.get("_deleted"):
            return []  # a tombstone on a leaf a resolution supersedes: no shape to validate
        if intent is WriteIntent.DELETE:
            if doc_id == SETTINGS_ID:
                raise ValidationError.single(doc_id, "_id", "a document other than ProjectSettings "
                                             "(the settings document cannot be deleted)", doc_id, "forbidden")
            return []
        normalise_foreign_dates(doc)
        errors: list[Problem] = []
        warnings: list[Problem] = []
        for problem in check_document(doc, context):
            if problem.severity == ERROR and intent in _BULK_INTENTS and problem.code in _DOWNGRADED_ON_BULK:
                problem = dataclasses.replace(problem, severity=WARNING)
            (errors if problem.is_error else warnings).append(problem)
        if previous is not None and not previous.get("_deleted") and intent is not WriteIntent.RESTORE:
            for key in ("type", "collection", "projectId"):
                if previous.get(key) != doc.get(key) and (key in previous or key in doc):
                    errors.insert(0, Problem(
                        f"document {doc_id!r}: {key}: cannot change from {previous.get(key)!r} "
                        f"to {doc.get(key)!r}", "immutable-field", ERROR, doc_id, field=key,
                        expected=f"{previous.get(key)!r} (a document's {key} never changes)"))
        if is_tree_document(doc) and isinstance(doc.get("parent"), str):
            cycle = self._cycle_through(doc, context)
            if cycle:
                errors.insert(0, Problem(
                    f"document {doc_id!r}: parent: moving it under {doc['parent']!r} would put it inside "
                    f"itself ({' > '.join(cycle)})", "parent-cycle", ERROR, doc_id, field="parent",
                    expected="a folder that is not the document itself or inside it"))
        if errors:
            raise ValidationError(errors)
        return warnings

    def _commit(self, doc: dict[str, Any], intent: WriteIntent, previous: dict[str, Any] | None,
                now: str | None = None) -> WriteResult:
        if intent not in _BULK_INTENTS and intent not in _LOCK_INTENTS:
            doc["modified"] = now or self._clock()
            doc["modifiedBy"] = self.username
            self._give_sort_key(doc, previous)
        anchored = intent not in _LOCK_INTENTS and intent is not WriteIntent.RESTORE
        if anchored:
            current = previous is not None and self._anchored.get(doc["_id"]) == previous.get("_rev")
            update_line_ids(doc, previous, previous_current=current)
        with self._gate_lock:  # the check and the write as one step for this editor's writers
            warnings = self._check_write(doc, intent, previous, self._context({doc["_id"]: doc}))
            with self._writing_as(intent, [doc["_id"]]):
                result = self.db.put(doc)
        if anchored and doc.get("type") == "Script":
            self._anchored[doc["_id"]] = result["rev"]
        else:
            self._anchored.pop(doc["_id"], None)
        stored = {k: v for k, v in doc.items() if k != "_attachments"} | {"_rev": result["rev"]}
        if self._index is not None:
            self._index.note_written(stored)
        return WriteResult(result["id"], result["rev"], stored, intent, warnings)

    # -- helpers -----------------------------------------------------------------------------

    def _give_sort_key(self, doc: dict[str, Any], previous: dict[str, Any] | None) -> None:
        """A document another program wrote (a Drafft teammate's, replicated) has no ``sortKey``;
        the first edit here places it at the end of its siblings, instead of refusing the edit."""
        if previous is None or not is_tree_document(doc) or is_valid_key(doc.get("sortKey")):
            return
        if is_valid_key(previous.get("sortKey")):
            return  # the edit removed a valid key: validation says so
        doc["sortKey"] = self._place(doc, doc.get("parent"), exclude=doc["_id"])

    def _context(self, pending: dict[str, dict[str, Any]] | None = None) -> StoreContext:
        """What validation and the gate ask about other documents: the store via the index,
        with ``pending`` (the write or batch being checked) on top."""
        return StoreContext(self.db, pending, index=self.index)

    def _current(self, doc_id: str) -> dict[str, Any]:
        return self.db.get(doc_id)

    def _leaf_or(self, doc_id: str, rev: str, fallback: dict[str, Any]) -> dict[str, Any]:
        """The live leaf revision ``rev`` of ``doc_id``, else ``fallback`` (an older revision
        is not a leaf: the store refuses the write anyway)."""
        for entry in self.db.get(doc_id, open_revs="all"):
            doc = entry.get("ok")
            if isinstance(doc, dict) and doc.get("_rev") == rev and not doc.get("_deleted"):
                return doc
        return fallback

    def _get_or_none(self, doc_id: Any) -> dict[str, Any] | None:
        if not isinstance(doc_id, str):
            return None
        try:
            return self.db.get(doc_id)
        except NotFound:
            return None

    def _cycle_through(self, doc: dict[str, Any], context: Context) -> list[str]:
        """The ancestor chain if ``doc``'s new parent is ``doc`` itself or one of its descendants."""
        chain = [doc["_id"]]
        current = doc.get("parent")
        for _ in range(MAX_DEPTH):
            if not isinstance(current, str):
                return []
            chain.append(current)
            if current == doc["_id"]:
                return chain
            found, current = context.parent_of(current)
            if not found:
                return []
        return chain

    def _place(self, doc: dict[str, Any], parent: str | None, *, before: str | None = None,
               after: str | None = None, exclude: str | None = None) -> str:
        """A sort key putting ``doc`` at the end of the siblings under ``parent``, or just
        ``before``/``after`` the named sibling. Rewrites siblings' keys only in the rare case of
        equal keys around the insertion point."""
        if before is None and after is None:
            # The usual case, an append, reads the last sibling alone (a top level may hold
            # thousands); an invalid last key takes the general way below, which respreads.
            last = self.index.last_sibling(parent, doc.get("collection"), exclude=exclude)
            if last is None:
                return key_between(None, None)
            if is_valid_key(last.sort_key):
                return key_between(last.sort_key, None)
        siblings = [s for s in self.index.siblings(parent, doc.get("collection")) if s.id != exclude]
        ids = [s.id for s in siblings]
        if before is not None and after is not None:
            raise ValidationError.single(doc.get("_id"), "sortKey", "either before or after, not both")
        if before is not None or after is not None:
            anchor = before if before is not None else after
            if anchor not in ids:
                raise ValidationError.single(doc.get("_id"), "sortKey",
                                             f"a sibling under {parent!r} to place it next to", anchor,
                                             "missing-sibling")
            index = ids.index(anchor) + (0 if before is not None else 1)
        else:
            index = len(siblings)
        keys: Sequence[str | None] = [s.sort_key if is_valid_key(s.sort_key) else None for s in siblings]
        low = keys[index - 1] if index > 0 else None
        high = keys[index] if index < len(keys) else None
        if (index > 0 and low is None) or (index < len(keys) and high is None) or (
            low is not None and high is not None and low >= high
        ):
            keys = self._rebalance(siblings)
            low = keys[index - 1] if index > 0 else None
            high = keys[index] if index < len(keys) else None
        return key_between(low, high)

    def _rebalance(self, siblings: list[DocSummary]) -> list[str]:
        """Give every sibling a fresh evenly spread key (same order); returns the new keys."""
        keys = spread_keys(len(siblings))
        changed = [(s.id, key) for s, key in zip(siblings, keys, strict=True) if s.sort_key != key]
        docs = {d["_id"]: d for d in self._read_docs(doc_id for doc_id, _ in changed)}
        for doc_id, key in changed:
            sibling = docs.get(doc_id)
            if sibling is None:  # deleted meanwhile (another writer): its key no longer matters
                continue
            doc = copy_document(sibling)
            doc["sortKey"] = key
            self._commit(doc, WriteIntent.MOVE, sibling)
        return keys
