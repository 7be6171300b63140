"""Writing a large import or restore in bounded batches, each checked as the whole would be.

A project of 100,000 documents cannot be held in memory at once, so an import or a restore
writes it in batches (:func:`batches`, :data:`BATCH_SIZE` documents, one store transaction
each). Checked against the store plus its own batch, a batch would not see the documents of
later batches: a parent folder further on in the file would look missing. :class:`BulkContext`
answers validation's questions about other documents from the whole import (a document read
from where the import keeps them, the parsed state of every Variable), so each batch
(``Editor.write_batch_of_many``) is checked exactly as one batch of everything against an empty
project would be.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from storyloom.project.validation import Context

BATCH_SIZE = 500
# Documents validation asked for recently (parent folders are asked for again and again).
CACHE_SIZE = 2048


class BulkContext(Context):
    """What validation asks about the other documents of a whole import.

    ``load(doc_id)`` gives a document of the import as it is written (``None`` when the import
    has none); :meth:`add_variable` gives it each Variable document. It answers as a store
    holding nothing but the whole import as one pending batch would (the batch order, ids first
    seen first).
    """

    def __init__(self, load: Callable[[str], dict[str, Any] | None]) -> None:
        self._load = load
        self._cache: OrderedDict[str, dict[str, Any] | None] = OrderedDict()
        self._variables: dict[str, dict[str, Any] | None] = {}
        self._by_sid: dict[str, list[str]] | None = None
        self._states: dict[str, dict[str, Any]] | None = None

    @property
    def knows_documents(self) -> bool:
        return True

    def add_variable(self, doc: Mapping[str, Any]) -> None:
        """Parse a Variable document of the import (its parsed state is what others ask about)."""
        from storyloom.project import content

        doc_id = doc.get("_id")
        if not isinstance(doc_id, str) or doc.get("_deleted"):
            return
        try:
            self._variables[doc_id] = content.parse_variables_doc(dict(doc))
        except content.ContentError:
            self._variables[doc_id] = None
        self._by_sid = None
        self._states = None

    def get(self, doc_id: str) -> dict[str, Any] | None:
        cache = self._cache
        if doc_id in cache:
            cache.move_to_end(doc_id)
            doc = cache[doc_id]
        else:
            doc = self._load(doc_id)
            if doc is None or "_attachments" not in doc:  # a document with its files is not kept
                cache[doc_id] = doc
                if len(cache) > CACHE_SIZE:
                    cache.popitem(last=False)
        return None if doc is None or doc.get("_deleted") else doc

    def docs_of_type(self, doc_type: str) -> list[dict[str, Any]]:
        # Every document of a type at once is what a bounded import cannot hold; the lookups
        # built on it are answered below from the Variables' parsed states.
        raise NotImplementedError("BulkContext reads documents one at a time")

    def variable_sid_owner(self, sid: str, exclude: str | None = None) -> str | None:
        if self._by_sid is None:
            by_sid: dict[str, list[str]] = {}
            for doc_id, state in self._variables.items():
                if state is not None:
                    by_sid.setdefault(state["_sid"], []).append(doc_id)
            self._by_sid = by_sid
        return next((i for i in self._by_sid.get(sid, ()) if i != exclude), None)

    def variable_states(self) -> dict[str, dict[str, Any]]:
        # The rule of a project's states: the first Variable in id order wins a duplicate _sid.
        if self._states is None:
            states: dict[str, dict[str, Any]] = {}
            for doc_id in sorted(self._variables):
                state = self._variables[doc_id]
                if state is not None:
                    states.setdefault(state["_sid"], state)
            self._states = states
        return self._states


def batches(docs: Iterable[dict[str, Any]], size: int | None = None) -> Iterator[list[dict[str, Any]]]:
    """``docs`` in lists of at most ``size`` (default :data:`BATCH_SIZE`)."""
    size = size or BATCH_SIZE
    batch: list[dict[str, Any]] = []
    for doc in docs:
        batch.append(doc)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
