"""A project's in-memory index: a summary of every document, kept current from the changes feed.

The editing service needs a few facts about *other* documents on every write: the siblings
under a folder (to pick a sort key), a folder's children (to delete it), the ancestors of a
folder (to refuse a parent cycle), which Variable already uses a ``_sid`` and the parsed
variable states (to check a Scenario). Reading every document of the store for each of these
makes every write O(N). :class:`ProjectIndex` keeps, for each current document, a small
:class:`DocSummary` (id, rev, type, collection, parent, sortKey, name; the parsed ``_sid`` and
state of a Variable; the state ids a Scenario overrides) plus the lookup tables built on them,
so those questions cost O(answer).

**Freshness.** The index follows the store's changes feed: before answering anything it reads
``db.changes(since=last_seq, include_docs=True)`` and applies the rows (usually none or one).
Every write is therefore seen, whoever made it: the editor, a direct ``db.put``, a replication
(``bulk_docs(new_edits=False)``), another thread, or another process writing the same file.
``db.subscribe`` is not used: it only reports writes made through this ``Database`` object.
The feed gives each document's winning revision, so after a conflict the index holds the
winner, and a deleted winner is replaced by the next one (or the document leaves the index).

**Scope.** Design documents (``_design/...``) are not indexed (the editor ignores them);
``_local`` documents never appear in the feed. Summaries describe the stored winner, not the
pending write the editor is validating: :class:`storyloom.project.editor.StoreContext` lays the
pending batch over the index.

Thread safety: one lock guards the tables; every query catches up and answers under it. Results
are fresh lists (safe to keep); the parsed Variable states are shared and must not be mutated.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from storyloom.project.collections import FOLDER_TYPE
from storyloom.project.documents import TREE_COLLECTIONS
from storyloom.project.tree import derive_tree, order_key

DESIGN_PREFIX = "_design/"
CATCH_UP_BATCH = 2000
VARIABLE_TYPE = "Variable"
SCENARIO_TYPE = "Scenario"


@dataclass(frozen=True, slots=True)
class DocSummary:
    """What the index keeps of one current document.

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


def _hashable_text(value: Any) -> bool:
    return value is None or isinstance(value, str)


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
        state = content.parse_variables_doc(doc)
    except Exception:  # a ContentError, or any malformed document the store accepted
        return None, None
    return state["_sid"], state


def _scenario_refs(doc: Mapping[str, Any]) -> frozenset[str] | None:
    from storyloom.project import content

    try:
        diff = content.parse_scenario_doc(doc)
    except Exception:  # a ContentError, or any malformed document
        return None
    return frozenset(str(key) for key in diff)


class ProjectIndex:
    """Summaries of the current documents of ``db``, caught up from its changes feed on use.

    Building is lazy: the first query reads the whole feed once (O(N)); each later query reads
    only the changes made since the previous one.
    """

    def __init__(self, db: Any) -> None:
        self.db = db
        self._lock = threading.RLock()
        self._seq: int | str = 0
        self._docs: dict[str, DocSummary] = {}
        # Every document with a string parent, by parent (tree or not: derive_tree's children).
        self._children: dict[str, set[str]] = {}
        # Parents named by some document but not current (those children count as top level).
        self._dangling: set[str] = set()
        # Tree documents with no (string) parent, by collection (str or None; anything else
        # under _ODD_COLLECTION, compared by value on lookup).
        self._top: dict[Any, set[str]] = {}
        self._by_type: dict[Any, set[str]] = {}
        self._sid_owners: dict[str, set[str]] = {}
        self._scenario_refs: dict[str, set[str]] = {}
        self._states: dict[str, dict[str, Any]] | None = None
        self.changes_applied = 0

    # -- catching up -----------------------------------------------------------------------

    @property
    def last_seq(self) -> int | str:
        """The store sequence the index has caught up to."""
        return self._seq

    def refresh(self) -> int:
        """Apply every change committed since the last call; returns how many were applied."""
        applied = 0
        with self._lock:
            while True:
                feed = self.db.changes(since=self._seq, include_docs=True, limit=CATCH_UP_BATCH)
                results = feed.get("results") or []
                for row in results:
                    self._apply(row)
                applied += len(results)
                if feed.get("last_seq") is not None:
                    self._seq = feed["last_seq"]
                if len(results) < CATCH_UP_BATCH:
                    break
            self.changes_applied += applied
        return applied

    def _apply(self, row: Mapping[str, Any]) -> None:
        doc_id = row.get("id")
        if not isinstance(doc_id, str) or doc_id.startswith(DESIGN_PREFIX):
            return
        doc = row.get("doc")
        self._remove(doc_id)
        if row.get("deleted") or not isinstance(doc, dict) or doc.get("_deleted"):
            return
        self._add(summarize(doc))

    def _remove(self, doc_id: str) -> None:
        old = self._docs.pop(doc_id, None)
        if old is None:
            return
        if old.parent is not None:
            bucket = self._children.get(old.parent)
            if bucket is not None:
                bucket.discard(doc_id)
                if not bucket:
                    del self._children[old.parent]
                    self._dangling.discard(old.parent)
        elif old.is_tree:
            _discard(self._top, _collection_key(old.collection), doc_id)
        if _hashable(old.type):
            _discard(self._by_type, old.type, doc_id)
        if old.sid is not None:
            _discard(self._sid_owners, old.sid, doc_id)
        if old.refs:
            for ref in old.refs:
                _discard(self._scenario_refs, ref, doc_id)
        if old.type == VARIABLE_TYPE:
            self._states = None
        if doc_id in self._children:  # its children now name a parent that is not there
            self._dangling.add(doc_id)

    def _add(self, summary: DocSummary) -> None:
        doc_id = summary.id
        self._docs[doc_id] = summary
        self._dangling.discard(doc_id)
        if summary.parent is not None:
            self._children.setdefault(summary.parent, set()).add(doc_id)
            if summary.parent not in self._docs:
                self._dangling.add(summary.parent)
        elif summary.is_tree:
            self._top.setdefault(_collection_key(summary.collection), set()).add(doc_id)
        if _hashable(summary.type):
            self._by_type.setdefault(summary.type, set()).add(doc_id)
        if summary.sid is not None:
            self._sid_owners.setdefault(summary.sid, set()).add(doc_id)
        if summary.refs:
            for ref in summary.refs:
                self._scenario_refs.setdefault(ref, set()).add(doc_id)
        if summary.type == VARIABLE_TYPE:
            self._states = None

    # -- queries (each catches up first) ----------------------------------------------------
    #
    # ``catch_up=False`` answers from the state of the last catch-up: for a caller asking many
    # questions about one moment (the validation of one write) after one ``refresh()``.

    def _catch_up(self, catch_up: bool) -> None:
        if catch_up:
            self.refresh()

    def __len__(self) -> int:
        with self._lock:
            self.refresh()
            return len(self._docs)

    def __contains__(self, doc_id: object) -> bool:
        return self.get(doc_id) is not None if isinstance(doc_id, str) else False

    def get(self, doc_id: str, *, catch_up: bool = True) -> DocSummary | None:
        """The summary of the current document ``doc_id`` (``None``: missing, deleted or design)."""
        with self._lock:
            self._catch_up(catch_up)
            return self._docs.get(doc_id)

    def summaries(self, *, catch_up: bool = True) -> list[DocSummary]:
        """Every current document's summary (in no particular order)."""
        with self._lock:
            self._catch_up(catch_up)
            return list(self._docs.values())

    def ids_of_type(self, doc_type: Any, *, catch_up: bool = True) -> list[str]:
        """Ids of the current documents whose ``type`` is ``doc_type``, in id order."""
        with self._lock:
            self._catch_up(catch_up)
            if _hashable(doc_type):
                return sorted(self._by_type.get(doc_type, ()))
            return sorted(s.id for s in self._docs.values() if s.type == doc_type)

    def children(self, parent_id: str, *, catch_up: bool = True) -> list[DocSummary]:
        """The documents whose parent is ``parent_id`` (the document itself excluded), in order:
        exactly the ``children`` of :func:`storyloom.project.tree.derive_tree`."""
        with self._lock:
            self._catch_up(catch_up)
            if parent_id not in self._docs:
                return []
            found = [self._docs[i] for i in self._children.get(parent_id, ()) if i != parent_id]
            return sorted(found, key=_order)

    def siblings(self, parent: str | None, collection: Any = None, *, catch_up: bool = True) -> list[DocSummary]:
        """The tree documents under ``parent`` in order; for ``parent=None``, the top level of
        ``collection`` (documents whose parent is missing count as top level)."""
        with self._lock:
            self._catch_up(catch_up)
            if parent is not None:
                found = [self._docs[i] for i in self._children.get(parent, ()) if self._docs[i].is_tree]
                return sorted(found, key=_order)
            if _hashable_text(collection):
                found = [self._docs[i] for i in self._top.get(collection, ())]
            else:
                found = [self._docs[i] for i in self._top.get(_ODD_COLLECTION, ())
                         if self._docs[i].collection == collection]
            for missing in self._dangling:
                found.extend(
                    self._docs[i] for i in self._children.get(missing, ())
                    if self._docs[i].is_tree and self._docs[i].collection == collection
                )
            return sorted(found, key=_order)

    def ancestors(self, doc_id: str, limit: int = 10_000, *, catch_up: bool = True) -> list[str]:
        """The ids from ``doc_id``'s parent up to the top (stops at a missing parent or a cycle)."""
        with self._lock:
            self._catch_up(catch_up)
            chain: list[str] = []
            seen = {doc_id}
            current = self._docs.get(doc_id)
            while current is not None and current.parent is not None and len(chain) < limit:
                chain.append(current.parent)
                if current.parent in seen:
                    break
                seen.add(current.parent)
                current = self._docs.get(current.parent)
            return chain

    def sid_owners(self, sid: str, *, catch_up: bool = True) -> list[str]:
        """Ids of the Variable documents whose (parsed) ``_sid`` is ``sid``, in id order."""
        with self._lock:
            self._catch_up(catch_up)
            return sorted(self._sid_owners.get(sid, ()))

    def scenarios_using(self, sid: str, *, catch_up: bool = True) -> list[str]:
        """Ids of the Scenario documents whose diff overrides state ``sid``, in id order."""
        with self._lock:
            self._catch_up(catch_up)
            return sorted(self._scenario_refs.get(sid, ()))

    def variables(self, *, catch_up: bool = True) -> list[DocSummary]:
        """The Variable documents' summaries, in id order."""
        with self._lock:
            self._catch_up(catch_up)
            return [self._docs[i] for i in sorted(self._by_type.get(VARIABLE_TYPE, ()))]

    def states(self, *, catch_up: bool = True) -> dict[str, dict[str, Any]]:
        """``{_sid: state}`` of the Variable documents that parse, the first in id order winning a
        duplicate ``_sid``: :func:`storyloom.project.content.collect_states` without re-parsing.
        Cached until a Variable changes; do not mutate."""
        with self._lock:
            self._catch_up(catch_up)
            if self._states is None:
                states: dict[str, dict[str, Any]] = {}
                for doc_id in sorted(self._by_type.get(VARIABLE_TYPE, ())):
                    summary = self._docs[doc_id]
                    if summary.sid is not None and summary.state is not None:
                        states.setdefault(summary.sid, summary.state)
                self._states = states
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
            if isinstance(d.get("_id"), str) and not d.get("_deleted") and not d["_id"].startswith(DESIGN_PREFIX)
        }
        with self._lock:
            self.refresh()
            problems = [f"missing {i}" for i in expected.keys() - self._docs.keys()]
            problems += [f"extra {i}" for i in self._docs.keys() - expected.keys()]
            problems += [f"stale {i}: {self._docs[i]} != {s}" for i, s in expected.items()
                         if i in self._docs and self._docs[i] != s]
            return sorted(problems)


class _OddCollection:
    """The bucket of top-level tree documents whose ``collection`` is not a string or null."""

    def __repr__(self) -> str:
        return "<non-string collection>"


_ODD_COLLECTION = _OddCollection()


def _collection_key(collection: Any) -> Any:
    return collection if _hashable_text(collection) else _ODD_COLLECTION


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _discard(table: dict[Any, set[str]], key: Any, doc_id: str) -> None:
    bucket = table.get(key)
    if bucket is not None:
        bucket.discard(doc_id)
        if not bucket:
            del table[key]


def _order(summary: DocSummary) -> tuple[str, str]:
    return summary.order
