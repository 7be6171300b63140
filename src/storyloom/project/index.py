"""A project's index: a summary of every document, kept beside the store and current from the
changes feed.

The editing service needs a few facts about *other* documents on every write: the siblings
under a folder (to pick a sort key), a folder's children (to delete it), the ancestors of a
folder (to refuse a parent cycle), which Variable already uses a ``_sid`` and the parsed
variable states (to check a Scenario). Reading every document of the store for each of these
makes every write O(N). :class:`ProjectIndex` keeps, for each current document, a small
:class:`DocSummary` (id, rev, type, collection, parent, sortKey, name; the parsed ``_sid`` and
state of a Variable; the state ids a Scenario overrides) as rows of an SQLite table with indexes
for those questions, so they cost O(answer), and so does reopening the project: the table is
saved beside the store (:mod:`storyloom.project.index_table`) with the seq it stands at, and a
new index loads it and reads only the changes since.

**Freshness.** The index follows the store's changes feed: before answering anything it reads
``db.changes(since=last_seq, include_docs=True)`` and applies the rows (usually none or one).
Every write is therefore seen, whoever made it: the editor, a direct ``db.put``, a replication
(``bulk_docs(new_edits=False)``), another thread, or another process writing the same file,
while the project is open or closed.
``db.subscribe`` is not used: it only reports writes made through this ``Database`` object.
The feed gives each document's winning revision, so after a conflict the index holds the
winner, and a deleted winner is replaced by the next one (or the document leaves the index).

**Scope.** Design documents (``_design/...``) are not indexed (the editor ignores them), nor
the test documents of ``storyloom remote check`` (``storyloom-probe-...``);
``_local`` documents never appear in the feed. Summaries describe the stored winner, not the
pending write the editor is validating: :class:`storyloom.project.editor.StoreContext` lays the
pending batch over the index.

Thread safety: one lock guards the table; every query catches up and answers under it. Results
are fresh lists (safe to keep); summaries are immutable; the parsed Variable states are shared
and must not be mutated.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import weakref
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from storyloom.project.checking import parsed_source
from storyloom.project.collections import ATTACHMENT_TYPE, FOLDER_TYPE
from storyloom.project.documents import TREE_COLLECTIONS
from storyloom.project.index_table import (
    FORMAT,
    IndexTable,
    dumps,
    loads,
    odd_values,
    split_odd,
    storable,
    table_path,
)
from storyloom.project.tree import derive_tree, order_key, sort_position
from storyloom.store import Damaged, Database
from storyloom.store.documents import PROBE_PREFIX
from storyloom.store.read_view import ReadView

DESIGN_PREFIX = "_design/"
#: Ids not indexed: design documents, and the test documents of ``storyloom remote check``
#: (a teammate's pull may catch one in the moment before its deletion).
SKIPPED_PREFIXES = (DESIGN_PREFIX, PROBE_PREFIX)
CATCH_UP_BATCH = 2000
# Rows a build from a snapshot adds at a time.
BUILD_CHUNK = 5000
# Changes applied to the table in memory before it is saved again (besides on close).
SAVE_AFTER = 5000
# Summaries of the editor's own writes kept until the next catch-up applies them.
HINTS_KEPT = 64
# The fields a summary is made of (Variables and Scenarios are read whole, to parse their text).
_SUMMARY_FIELDS = ("type", "collection", "parent", "sortKey", "name")
VARIABLE_TYPE = "Variable"
SCENARIO_TYPE = "Scenario"


class DocSummary(NamedTuple):
    """What the index keeps of one current document (immutable; a named tuple, which is four
    times quicker to make than a frozen dataclass: ``summaries()`` makes one per document).

    ``parent`` is the stored parent when it is a string, else ``None`` (a non-string parent
    means "top level" everywhere in the tree code). ``sort_key`` is the stored ``sortKey``
    when it is a string (valid or not), else ``None``; ``order`` is
    :func:`storyloom.project.tree.order_key` of the document. ``type``, ``collection`` and
    ``name`` are the stored values, whatever they are.

    Variables: ``sid`` and ``state`` are the parsed ``_sid`` and state object, ``None`` when
    the source does not parse. Scenarios: ``refs`` holds the state ids the diff overrides,
    ``None`` when it does not parse.
    """

    id: str
    rev: str
    type: Any
    collection: Any
    parent: str | None
    sort_key: str | None
    name: Any
    is_tree: bool
    order: tuple[str, str]
    sid: str | None = None
    state: dict[str, Any] | None = None
    refs: frozenset[str] | None = None

    def tree_fields(self) -> dict[str, Any]:
        """The fields :func:`storyloom.project.tree.derive_tree` reads."""
        return {"_id": self.id, "parent": self.parent, "sortKey": self.sort_key}


def summarize(doc: Mapping[str, Any]) -> DocSummary:
    """The :class:`DocSummary` of a stored document (parses Variable and Scenario text)."""
    doc_type = doc.get("type")
    parent = doc.get("parent")
    sort_key = doc.get("sortKey")
    sid = state = refs = None
    if doc_type == VARIABLE_TYPE:
        sid, state = _variable_state(doc)
    elif doc_type == SCENARIO_TYPE:
        refs = _scenario_refs(doc)
    return DocSummary(
        id=str(doc["_id"]),
        rev=str(doc.get("_rev", "")),
        type=doc_type,
        collection=doc.get("collection"),
        parent=parent if isinstance(parent, str) else None,
        sort_key=sort_key if isinstance(sort_key, str) else None,
        name=doc.get("name"),
        is_tree=doc_type == FOLDER_TYPE or doc_type in TREE_COLLECTIONS,
        order=order_key(doc),
        sid=sid,
        state=state,
        refs=refs,
    )


def _variable_state(doc: Mapping[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
    from storyloom.project import content

    try:
        state = parsed_source(content, doc, "variables")
    except Exception:  # noqa: BLE001 - a ContentError, or any malformed document the store accepted
        return None, None
    return state["_sid"], state


def _scenario_refs(doc: Mapping[str, Any]) -> frozenset[str] | None:
    from storyloom.project import content

    try:
        diff = parsed_source(content, doc, "scenario")
    except Exception:  # noqa: BLE001 - a ContentError, or any malformed document
        return None
    return frozenset(str(key) for key in diff)


class ProjectIndex:
    """Summaries of the current documents of ``db``, caught up from its changes feed on use.

    The summaries live in an :class:`~storyloom.project.index_table.IndexTable` (by default the
    file beside the store, see :func:`~storyloom.project.index_table.table_path`; ``location``
    names another file, or ``":memory:"``). Each query catches the table up first: it reads the
    changes made since the table's recorded seq, usually none or one, so a project reopened on
    this machine answers its first question after reading only what changed while it was closed.
    A table that does not exist yet (a project never opened here, a clone, a lost file) is built
    once, from one snapshot of the store (the summary fields read in SQLite, Variables and
    Scenarios decoded whole), or from the whole feed when the store offers no snapshot.
    Queries read the rows they answer with (the siblings under one folder, the owners of one
    ``_sid``): none reads every summary except :meth:`summaries`, :meth:`tree` and
    :meth:`check`, which answer about every document.
    """

    def __init__(self, db: Database | ReadView, location: str | None = None, *, on_disk: bool = False) -> None:
        self.db = db
        self._location = location
        # Build the table straight into its file (see IndexTable): for a build that is saved
        # and closed at once, whose memory must not grow with the project.
        self._on_disk = on_disk
        self._lock = threading.RLock()
        self._table: IndexTable | None = None
        self._finalizer: weakref.finalize[[], ProjectIndex] | None = None
        self._seq: int | str = 0
        self._checked = False
        # {_sid: state} of the Variables, built on first use; the sids whose Variables changed
        # since are refreshed on the next call (a copy: a caller may still hold the old dict).
        self._states: dict[str, dict[str, Any]] | None = None
        self._dirty_sids: set[str] = set()
        # Every summary by id, made on the first summaries() (the desktop app draws its trees
        # from it after each change) and kept up to date by each catch-up from then on.
        self._all: dict[str, DocSummary] | None = None
        # Summaries of this editor's last writes, by id (see note_written).
        self._hints: dict[str, DocSummary] = {}
        self.changes_applied = 0
        self._shape_changes = 0
        #: Ids of the documents whose winning revision is damaged (storyloom.store.Damaged): left
        #: out of the index, so one damaged document never keeps the project from opening.
        self.damaged: set[str] = set()

    # -- the table -------------------------------------------------------------------------

    def _open(self) -> IndexTable:
        if self._table is None:
            table = IndexTable(self._location or table_path(self.db), on_disk=self._on_disk)
            self._table = table
            self._finalizer = weakref.finalize(self, table.close)
        return self._table

    def close(self) -> None:
        """Save the table when changes were applied since its last save, and let go of it (the
        index loads it again if asked anything)."""
        with self._lock:
            if self._table is not None and self._checked:
                # Caught up first, so the save stands at the store's last write.
                with contextlib.suppress(Exception):  # the store closed already: save what is held
                    self.refresh()
            if self._finalizer is not None:
                self._finalizer()
            self._table = self._finalizer = None
            self._checked = False
            self._states = None
            self._all = None

    @property
    def loaded(self) -> bool:
        """Whether the table is open (in memory) now."""
        return self._table is not None

    @property
    def location(self) -> str:
        """Where the table is kept: a file path, or ``":memory:"``."""
        return self._location or table_path(self.db)

    # -- catching up -----------------------------------------------------------------------

    @property
    def last_seq(self) -> int | str:
        """The store sequence the index has caught up to."""
        return self._seq

    def refresh(self) -> int:
        """Apply every change committed since the last call; returns how many were applied."""
        with self._lock:
            table = self._open()
            first: dict[str, Any] | None = None
            if self._checked:
                first = self.db.changes(since=self._seq, limit=CATCH_UP_BATCH)
                if not first.get("results"):
                    return 0
                # This editor's own writes come summarised already; any other change makes the
                # catch-up read the feed again with the documents.
                first = self._with_hints(first)
            with table.writing():
                built = not self._checked and self._check_table(table)
                applied = self._build_from_snapshot(table) if built else 0
                applied += self._catch_up_table(table, first)
            self.changes_applied += applied
            table.unsaved += applied
            if built or table.unsaved >= SAVE_AFTER:
                table.save()
            return applied

    def note_written(self, doc: Mapping[str, Any]) -> None:
        """The editor wrote ``doc`` (with its new ``_rev``): its summary, made now, saves the
        next catch-up reading and decoding it again when the feed lists that very revision."""
        if not self._checked or not isinstance(doc.get("_id"), str) or not isinstance(doc.get("_rev"), str):
            return
        summary = summarize(doc)
        with self._lock:
            self._hints[summary.id] = summary
            while len(self._hints) > HINTS_KEPT:
                del self._hints[next(iter(self._hints))]

    def _with_hints(self, feed: dict[str, Any]) -> dict[str, Any] | None:
        """``feed`` (read without documents) with each row's summary from the hints, or ``None``
        when some live row was not written by this editor at that revision."""
        rows = []
        for row in feed.get("results") or []:
            if not row.get("deleted"):
                hint = self._hints.get(row.get("id"))
                changes = row.get("changes") or [{}]
                if hint is None or hint.rev != changes[0].get("rev"):
                    self._hints.clear()
                    return None
                row = dict(row, _summary=hint)
            rows.append(row)
        self._hints.clear()
        return dict(feed, results=rows)

    def _check_table(self, table: IndexTable) -> bool:
        """Once per index: is the loaded table this store's, in this format, not beyond it?
        Otherwise it starts empty. Returns whether it is empty (a build from nothing)."""
        info = self.db.info()
        instance = str(info.get("instance_uuid") or "")
        stored_seq = table.meta("seq")
        if (table.meta("format") != FORMAT or table.meta("instance") != instance or stored_seq is None
                or _seq_number(stored_seq) > _seq_number(info.get("update_seq", 0))):
            table.clear(instance)
            stored_seq = "0"
        self._seq = _seq_value(stored_seq)
        self._checked = True
        self._shape_changes += 1  # a table loaded (or started afresh): whatever was counted, count again
        self._states = None
        self._dirty_sids.clear()
        self._all = None
        return table.is_empty()

    def _build_from_snapshot(self, table: IndexTable) -> int:
        """Fill an empty table from one snapshot of the store: the summary fields read in SQLite
        (:func:`storyloom.store.fields.winning_fields`), whole bodies decoded only for Variables
        and Scenarios, whose text is parsed; the table's seq is the snapshot's. Returns the
        documents read, 0 when the store offers no snapshot or a body is not JSON SQLite reads
        (the feed then builds it, decoding every document)."""
        snapshot = getattr(self.db, "snapshot", None)
        if snapshot is None:
            return 0
        from storyloom.store.fields import winning_fields

        rows: list[tuple[tuple[Any, ...], list[str] | None]] = []
        count = 0
        try:
            with snapshot() as snap:
                seq = int(snap.meta("update_seq", "0") or 0)
                for doc_id, rev, values in winning_fields(snap, _SUMMARY_FIELDS):
                    if doc_id.startswith(SKIPPED_PREFIXES):
                        continue
                    row = _plain_row(doc_id, rev, values)
                    if row is not None:
                        rows.append((row, None))
                    else:
                        doc: dict[str, Any] = dict(zip(_SUMMARY_FIELDS, values, strict=True))
                        if doc["type"] in (VARIABLE_TYPE, SCENARIO_TYPE):
                            try:
                                found = snap.body(doc_id, rev)
                            except Damaged:
                                self.damaged.add(doc_id)
                                continue
                            if found is None:  # a winner always keeps its body; should it not, skip it
                                continue
                            doc = dict(found[0])
                        doc["_id"], doc["_rev"] = doc_id, rev
                        rows.append(_row_and_refs(summarize(doc)))
                    if len(rows) >= BUILD_CHUNK:  # added as they come: memory stays flat
                        table.add_many(rows)
                        count += len(rows)
                        rows.clear()
                if rows:
                    table.add_many(rows)
                    count += len(rows)
        except sqlite3.Error:
            table.remove_all()  # the feed builds it instead, from an empty table
            return 0
        table.settle_top()
        self._all = None
        self._seq = seq
        self._shape_changes += 1
        return count

    def _catch_up_table(self, table: IndexTable, first: dict[str, Any] | None) -> int:
        """Inside a transaction: read the feed from the table's seq and apply it. ``first`` is
        the first page of it, read before the transaction began (``None``: read it here)."""
        seq = self._seq
        applied = 0
        # The first build inserts rows in bulk; a document met again in a later page (written
        # meanwhile) goes the ordinary way.
        building: set[str] | None = set() if table.is_empty() else None
        while True:
            feed = first if first is not None else self._feed_page(seq)
            first = None
            results = feed.get("results") or []
            if building is not None:
                self._all = None
                fresh = [row for row in results if row.get("id") not in building]
                table.add_many([_row_and_refs(s) for s in map(_summary_of_row, fresh) if s is not None])
                self._shape_changes += 1
                for row in results:
                    if row.get("id") in building:
                        self._apply(table, row)
                building.update(row.get("id") for row in fresh)
            else:
                for row in results:
                    self._apply(table, row)
            applied += len(results)
            if feed.get("last_seq") is not None:
                seq = feed["last_seq"]
            if len(results) < CATCH_UP_BATCH:
                break
        if building is not None:
            table.settle_top()
        table.set_meta("seq", str(seq))
        self._seq = seq
        return applied

    def _feed_page(self, seq: int | str) -> dict[str, Any]:
        """A page of the changes feed with the documents; around a damaged one, the others."""
        try:
            return self.db.changes(since=seq, include_docs=True, limit=CATCH_UP_BATCH)
        except Damaged:
            page = self.db.changes(since=seq, limit=CATCH_UP_BATCH)
        rows = []
        for row in page.get("results") or []:
            doc_id = row.get("id")
            if not row.get("deleted"):
                try:
                    row = dict(row, doc=self.db.get(doc_id))
                except Damaged:
                    self.damaged.add(doc_id)
                    row = dict(row, doc=None)
                else:
                    self.damaged.discard(doc_id)
            rows.append(row)
        return dict(page, results=rows)

    def _apply(self, table: IndexTable, row: Mapping[str, Any]) -> None:
        doc_id = row.get("id")
        if not isinstance(doc_id, str) or doc_id.startswith(SKIPPED_PREFIXES):
            return
        summary = _summary_of_row(row)
        shape = table.conn.execute("SELECT type, collection, odd IS NOT NULL FROM summary WHERE id = ?",
                                   (doc_id,)).fetchone()
        if summary is None:
            old = table.remove(doc_id)
            self._shape_changes += shape is not None
        else:
            new_row, refs = _row_and_refs(summary)
            old = table.put(new_row, refs)
            # a document came, or its type or collection changed (an odd value: counted as a change)
            self._shape_changes += (shape is None or bool(shape[2]) or new_row[7] is not None
                                    or tuple(shape[:2]) != new_row[2:4])
        if self._all is not None:
            if summary is None:
                self._all.pop(doc_id, None)
            else:
                self._all[doc_id] = summary
        if old is not None and old[0] == VARIABLE_TYPE and old[2]:
            self._variable_changed(old[1])
        if summary is not None and summary.type == VARIABLE_TYPE and summary.state is not None:
            self._variable_changed(summary.sid if isinstance(summary.sid, str) and storable(summary.sid) else None)

    def _variable_changed(self, sid: str | None) -> None:
        """A Variable with a parsed state came or went: its ``_sid``'s entry of :meth:`states`
        is read again (``None``: a ``_sid`` with no column, the whole dict is)."""
        if self._states is None:
            return
        if sid is None:
            self._states = None
        else:
            self._dirty_sids.add(sid)

    # -- queries (each catches up first) ----------------------------------------------------
    #
    # ``catch_up=False`` answers from the state of the last catch-up: for a caller asking many
    # questions about one moment (the validation of one write) after one ``refresh()``.

    def _ready(self, catch_up: bool) -> IndexTable:
        if catch_up or not self._checked:
            self.refresh()
        return self._open()

    def __len__(self) -> int:
        with self._lock:
            return self._ready(True).count()

    def __contains__(self, doc_id: object) -> bool:
        return self.get(doc_id) is not None if isinstance(doc_id, str) else False

    def get(self, doc_id: str, *, catch_up: bool = True) -> DocSummary | None:
        """The summary of the current document ``doc_id`` (``None``: missing, deleted or design)."""
        if not isinstance(doc_id, str) or not storable(doc_id):
            return None
        with self._lock:
            table = self._ready(catch_up)
            if self._all is not None:
                return self._all.get(doc_id)
            row = table.row(doc_id)
            return None if row is None else _from_row(row)

    def summaries(self, *, catch_up: bool = True) -> list[DocSummary]:
        """Every current document's summary (in no particular order)."""
        with self._lock:
            table = self._ready(catch_up)
            if self._all is None:
                self._all = {row[0]: _from_row(row) for row in table.rows()}
            return list(self._all.values())

    def ids_of_type(self, doc_type: Any, *, catch_up: bool = True) -> list[str]:
        """Ids of the current documents whose ``type`` is ``doc_type``, in id order."""
        with self._lock:
            table = self._ready(catch_up)
            if isinstance(doc_type, str) and storable(doc_type):
                return table.column("SELECT id FROM summary WHERE type = ? ORDER BY id", (doc_type,))
            rows = table.rows("type IS NULL", order="id")
            return [row[0] for row in rows if _from_row(row).type == doc_type]

    def children(self, parent_id: str, *, catch_up: bool = True) -> list[DocSummary]:
        """The documents whose parent is ``parent_id`` (the document itself excluded), in order:
        exactly the ``children`` of :func:`storyloom.project.tree.derive_tree`."""
        if not isinstance(parent_id, str) or not storable(parent_id):
            return []
        with self._lock:
            table = self._ready(catch_up)
            if table.row(parent_id) is None:
                return []
            rows = table.rows("parent = ? AND id != ?", (parent_id, parent_id), order="ord, id")
            return [_from_row(row) for row in rows]

    def siblings(self, parent: str | None, collection: Any = None, *, catch_up: bool = True) -> list[DocSummary]:
        """The tree documents under ``parent`` in order; for ``parent=None``, the top level of
        ``collection`` (documents whose parent is missing count as top level)."""
        with self._lock:
            table = self._ready(catch_up)
            if parent is not None:
                if not storable(parent):  # kept in ``odd``: compared in Python
                    rows = table.rows("parent IS NULL AND odd IS NOT NULL AND is_tree = 1", order="ord, id")
                    return [s for s in map(_from_row, rows) if s.parent == parent]
                rows = table.rows("parent = ? AND is_tree = 1", (parent,), order="ord, id")
                return [_from_row(row) for row in rows]
            if isinstance(collection, str) and storable(collection):
                rows = table.rows("top = 1 AND is_tree = 1 AND collection = ?", (collection,), order="ord, id")
                return [_from_row(row) for row in rows]
            rows = table.rows("top = 1 AND is_tree = 1 AND collection IS NULL", order="ord, id")
            return [s for s in map(_from_row, rows) if s.collection == collection]

    def last_sibling(self, parent: str | None, collection: Any = None, *, exclude: str | None = None,
                     catch_up: bool = True) -> DocSummary | None:
        """The last of :meth:`siblings` (other than ``exclude``), read alone: where an append goes."""
        with self._lock:
            table = self._ready(catch_up)
            if parent is not None and storable(parent):
                where, params = "parent = ? AND is_tree = 1", [parent]
            elif parent is None and isinstance(collection, str) and storable(collection):
                where, params = "top = 1 AND is_tree = 1 AND collection = ?", [collection]
            else:
                found = [s for s in self.siblings(parent, collection, catch_up=False) if s.id != exclude]
                return found[-1] if found else None
            if exclude is not None:
                where += " AND id != ?"
                params.append(exclude)
            rows = table.rows(where, params, order="ord DESC, id DESC LIMIT 1")
            return _from_row(rows[0]) if rows else None

    def tree_top(self, collection: str, *, catch_up: bool = True) -> tuple[list[tuple[DocSummary, bool]], set[str]]:
        """The top level of ``collection``'s folder tree as :func:`storyloom.app.views.outline.build_outline`
        draws it, read from the table's indexes (the rest of the tree is read a folder at a time:
        :meth:`tree_children`): each row's summary (without a Variable's parsed state or a
        Scenario's references: what a tree shows) and whether it has children in the tree. A
        document whose parent is missing, not a tree document of ``collection`` or itself is at the
        top, and so is each member of a parent cycle (replicated concurrent moves) where the cycle is
        cut. Also returns the ids of those cut members, which no folder lists as its child (each
        document shows once)."""
        with self._lock:
            table = self._ready(catch_up)
            if not storable(collection):
                return [], set()
            rows = table.conn.execute(
                _TREE_ROW + " INDEXED BY summary_top WHERE top = 1 AND is_tree = 1 AND collection = ?",
                (collection,)).fetchall()
            # Each document that is a parent of one below the top, with its own parent: a parent
            # that is not a tree document of this collection leaves its children at the top, and
            # so does a parent cycle (whose members are all parents), cut at its least id.
            inner: dict[str, str] = {}
            misplaced: list[str] = []
            having: set[str] = set()
            for parent_id, its_parent, is_tree, its_collection in table.conn.execute(_PARENTS, (collection,)):
                if not is_tree or its_collection != collection:
                    misplaced.append(parent_id)
                    continue
                having.add(parent_id)
                if its_parent == parent_id:  # its own parent: at the top, its children under it
                    rows += table.conn.execute(_TREE_ROW + " WHERE id = ?", (parent_id,)).fetchall()
                elif its_parent is not None:
                    inner[parent_id] = its_parent
            cut = _cycle_cuts(inner)
            for chunk in _chunks(sorted(cut), 500):
                rows += table.conn.execute(_TREE_ROW + f" WHERE id IN ({', '.join('?' * len(chunk))})",
                                           chunk).fetchall()
            for parent_id in misplaced:
                rows += table.conn.execute(
                    _TREE_ROW + " WHERE parent = ? AND id != ? AND is_tree = 1 AND collection = ? AND top = 0",
                    (parent_id, parent_id, collection)).fetchall()
            return [(summary, summary.id in having) for summary in map(_from_row, rows)], cut

    def tree_children(self, parent_id: str, collection: str, *,
                      catch_up: bool = True) -> list[tuple[DocSummary, bool]]:
        """The documents of ``collection``'s tree under ``parent_id`` (itself excluded), each with
        whether it has children in the tree: one folder of :meth:`tree_top`'s tree, in no order."""
        with self._lock:
            table = self._ready(catch_up)
            if not storable(parent_id) or not storable(collection):
                return []
            # (below a current parent, ``top`` is 0: the index of the tree's parents answers)
            rows = table.conn.execute(
                _TREE_ROW + " WHERE parent = ? AND id != ? AND is_tree = 1 AND top = 0 AND collection = ?",
                (parent_id, parent_id, collection)).fetchall()
            having: set[str] = set()
            for chunk in _chunks(sorted(row[0] for row in rows), 500):
                having.update(table.column(
                    f"SELECT DISTINCT parent FROM summary WHERE is_tree = 1 AND top = 0 AND collection = ? "
                    f"AND parent IN ({', '.join('?' * len(chunk))}) AND parent != id", (collection, *chunk)))
            return [(summary, summary.id in having) for summary in map(_from_row, rows)]

    def tree_counts(self, *, catch_up: bool = True) -> dict[str, int]:
        """How many documents (folders not counted) each collection's tree holds, by collection,
        and the Attachments under ``ATTACHMENT_TYPE``: the desktop app's rail, counted in the
        table's indexes. (A collection that is not text is counted under none.)"""
        with self._lock:
            table = self._ready(catch_up)
            counts: dict[str, int] = {}
            for collection, doc_type, count in table.conn.execute(_COUNT_TREE):
                if isinstance(collection, str) and doc_type != FOLDER_TYPE:
                    counts[collection] = counts.get(collection, 0) + count
            attachments = table.conn.execute("SELECT count(*) FROM summary WHERE type = ?",
                                             (ATTACHMENT_TYPE,)).fetchone()[0]
            counts[ATTACHMENT_TYPE] = int(attachments)
            return counts

    @property
    def shape_changes(self) -> int:
        """How many changes caught up so far added or removed a document or changed its type or
        collection: what a count of documents by collection follows (:meth:`tree_counts`)."""
        return self._shape_changes

    def ancestors(self, doc_id: str, limit: int = 10_000, *, catch_up: bool = True) -> list[str]:
        """The ids from ``doc_id``'s parent up to the top (stops at a missing parent or a cycle)."""
        with self._lock:
            self._ready(catch_up)
            chain: list[str] = []
            seen = {doc_id}
            current = self.get(doc_id, catch_up=False)
            while current is not None and current.parent is not None and len(chain) < limit:
                chain.append(current.parent)
                if current.parent in seen:
                    break
                seen.add(current.parent)
                current = self.get(current.parent, catch_up=False)
            return chain

    def sid_owners(self, sid: str, *, catch_up: bool = True) -> list[str]:
        """Ids of the Variable documents whose (parsed) ``_sid`` is ``sid``, in id order."""
        if not isinstance(sid, str) or not storable(sid):
            return []
        with self._lock:
            return self._ready(catch_up).column("SELECT id FROM summary WHERE sid = ? ORDER BY id", (sid,))

    def scenarios_using(self, sid: str, *, catch_up: bool = True) -> list[str]:
        """Ids of the Scenario documents whose diff overrides state ``sid``, in id order."""
        if not isinstance(sid, str) or not storable(sid):
            return []
        with self._lock:
            return self._ready(catch_up).column("SELECT id FROM scenario_refs WHERE ref = ? ORDER BY id", (sid,))

    def variables(self, *, catch_up: bool = True) -> list[DocSummary]:
        """The Variable documents' summaries, in id order."""
        with self._lock:
            rows = self._ready(catch_up).rows("type = ?", (VARIABLE_TYPE,), order="id")
            return [_from_row(row) for row in rows]

    def states(self, *, catch_up: bool = True) -> dict[str, dict[str, Any]]:
        """``{_sid: state}`` of the Variable documents that parse, the first in id order winning a
        duplicate ``_sid``: :func:`storyloom.project.content.collect_states` without re-parsing.
        Kept between calls and brought up to date per changed ``_sid``; do not mutate."""
        with self._lock:
            table = self._ready(catch_up)
            if self._states is None:
                states: dict[str, dict[str, Any]] = {}
                for (state,) in table.conn.execute(
                        "SELECT state FROM summary WHERE type = ? AND state IS NOT NULL ORDER BY id",
                        (VARIABLE_TYPE,)):
                    value = loads(state)
                    states.setdefault(value["_sid"], value)
                self._states = states
                self._dirty_sids.clear()
            elif self._dirty_sids:
                states = dict(self._states)
                for sid in self._dirty_sids:
                    row = table.conn.execute(
                        "SELECT state FROM summary WHERE sid = ? AND state IS NOT NULL ORDER BY id LIMIT 1",
                        (sid,)).fetchone()
                    if row is None:
                        states.pop(sid, None)
                    else:
                        states[sid] = loads(row[0])
                self._states = states
                self._dirty_sids.clear()
            return self._states

    def tree(self, *, catch_up: bool = True) -> dict[str, dict[str, Any]]:
        """:func:`storyloom.project.tree.derive_tree` of the project, from the summaries (no
        document is read)."""
        return derive_tree(s.tree_fields() for s in self.summaries(catch_up=catch_up))

    def check(self, docs: Iterable[Mapping[str, Any]]) -> list[str]:
        """Differences between the index and ``docs`` (every current document, e.g. from
        ``all_docs``): empty when the index is exact. For tests and diagnostics."""
        expected = {
            str(d["_id"]): summarize(d) for d in docs
            if isinstance(d.get("_id"), str) and not d.get("_deleted") and not d["_id"].startswith(SKIPPED_PREFIXES)
        }
        with self._lock:
            table = self._ready(True)
            held = {row[0]: _from_row(row) for row in table.rows()}
            problems = [f"missing {i}" for i in expected.keys() - held.keys()]
            if self._all is not None and self._all != held:  # the summaries kept in memory
                problems += [f"cached {i}" for i in self._all.keys() ^ held.keys()]
                problems += [f"cached {i}: {s} != {held[i]}" for i, s in self._all.items()
                             if i in held and s != held[i]]
            problems += [f"extra {i}" for i in held.keys() - expected.keys()]
            problems += [f"stale {i}: {held[i]} != {s}" for i, s in expected.items()
                         if i in held and held[i] != s]
            problems += self._check_top(expected)
            return sorted(problems)

    def _check_top(self, expected: Mapping[str, DocSummary]) -> list[str]:
        """The ``top`` column against its definition (no string parent, or a parent not current)."""
        table = self._open()
        top = {doc_id: bool(flag) for doc_id, flag in table.conn.execute("SELECT id, top FROM summary")}
        return [f"top {doc_id}: {top[doc_id]}" for doc_id, s in expected.items()
                if doc_id in top and top[doc_id] != (s.parent is None or s.parent not in expected)]


#: A summary row as the tree reads it: without a Variable's parsed state and a Scenario's references.
_TREE_ROW = "SELECT id, rev, type, collection, parent, sort_key, name, odd, is_tree, ord, sid, NULL, NULL FROM summary"
#: The tree documents by collection and type, read in an index alone.
_COUNT_TREE = "SELECT collection, type, count(*) FROM summary WHERE is_tree = 1 GROUP BY collection, type"
#: Each document that is the parent of a tree document of a collection (the parameter) below the
#: top level, with its own parent, whether it is a tree document, and its collection.
_PARENTS = """
SELECT d.parent, p.parent, p.is_tree, p.collection
FROM (SELECT DISTINCT parent FROM summary WHERE is_tree = 1 AND top = 0 AND collection = ?) AS d
JOIN summary AS p ON p.id = d.parent
"""


def _cycle_cuts(parents: Mapping[str, str]) -> set[str]:
    """Where each parent cycle among ``parents`` (``{id: its parent}``) is cut: its least id,
    shown at the top."""
    cuts: set[str] = set()
    done: set[str] = set()
    for start in parents:
        path: list[str] = []
        on_path: set[str] = set()
        current: str | None = start
        while current is not None and current in parents and current not in done and current not in on_path:
            path.append(current)
            on_path.add(current)
            current = parents[current]
        if current is not None and current in on_path:  # a cycle: from current to the path's end
            cuts.add(min(path[path.index(current):]))
        done.update(path)
    return cuts


def _chunks(items: list[str], size: int) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _seq_number(seq: Any) -> int:
    try:
        return int(str(seq).split("-", 1)[0])
    except ValueError:
        return 0


def _seq_value(text: str) -> int | str:
    return int(text) if text.isdigit() else text


def _summary_of_row(row: Mapping[str, Any]) -> DocSummary | None:
    """The summary a changes row leaves in the index (``None``: the document leaves it); a row
    of this editor's own write carries it already (``_summary``, see ``note_written``)."""
    doc_id = row.get("id")
    if not isinstance(doc_id, str) or doc_id.startswith(SKIPPED_PREFIXES):
        return None
    if "_summary" in row:
        summary: DocSummary | None = row["_summary"]  # set by note_written
        return summary
    doc = row.get("doc")
    if row.get("deleted") or not isinstance(doc, dict) or doc.get("_deleted"):
        return None
    return summarize(doc)


def _plain_row(doc_id: str, rev: str, values: list[Any]) -> tuple[Any, ...] | None:
    """The table row of a document whose summary fields are all text or null, made straight from
    them (what ``_row_and_refs(summarize(doc))`` gives, without the dict and the summary); ``None``
    for a Variable, a Scenario or any other value (they take the general way)."""
    doc_type, collection, parent, sort_key, name = values
    for value in values:
        if value is not None and not (type(value) is str and (value.isascii() or storable(value))):
            return None
    if doc_type in (VARIABLE_TYPE, SCENARIO_TYPE):
        return None
    is_tree = doc_type == FOLDER_TYPE or doc_type in TREE_COLLECTIONS
    return (doc_id, rev, doc_type, collection, parent, sort_key, name, None, 1 if is_tree else 0,
            sort_position(sort_key), None, None, None)


def _row_and_refs(summary: DocSummary) -> tuple[tuple[Any, ...], list[str] | None]:
    columns, odd = split_odd({"type": summary.type, "collection": summary.collection, "parent": summary.parent,
                              "sort_key": summary.sort_key, "name": summary.name, "sid": summary.sid})
    refs = None if summary.refs is None else sorted(summary.refs)
    stored_refs = [ref for ref in refs if storable(ref)] if refs else refs
    row = (summary.id, summary.rev, columns["type"], columns["collection"], columns["parent"],
           columns["sort_key"], columns["name"], odd, 1 if summary.is_tree else 0, summary.order[0],
           columns["sid"], None if summary.state is None else dumps(summary.state),
           None if refs is None else dumps(refs))
    return row, stored_refs


def _from_row(row: tuple[Any, ...]) -> DocSummary:
    doc_id = row[0]
    values = odd_values(row[7]) if row[7] is not None else None
    doc_type, collection, parent, sort_key, name, sid = row[2], row[3], row[4], row[5], row[6], row[10]
    if values:
        doc_type = values.get("type", doc_type)
        collection = values.get("collection", collection)
        parent = values.get("parent", parent)
        sort_key = values.get("sort_key", sort_key)
        name = values.get("name", name)
        sid = values.get("sid", sid)
    return DocSummary(
        id=doc_id, rev=row[1], type=doc_type, collection=collection, parent=parent, sort_key=sort_key,
        name=name, is_tree=bool(row[8]), order=(row[9], doc_id), sid=sid,
        state=None if row[11] is None else loads(row[11]),
        refs=None if row[12] is None else frozenset(loads(row[12])),
    )


def build_index_file(db: Any) -> int:
    """Build ``db``'s index table from nothing straight into its file beside the store and close
    it (memory bounded by SQLite's page cache, whatever the project's size); returns the
    documents it holds. What a new project (an import, a restore, a clone) runs before it is
    first opened."""
    index = ProjectIndex(db, on_disk=True)
    try:
        index.refresh()
        return len(index)
    finally:
        index.close()
