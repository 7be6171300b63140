"""Writing a large import or restore in bounded batches, each checked as the whole would be.

A project of 100,000 documents cannot be held in memory at once, so an import or a restore
writes it in batches (:func:`batches`, :data:`BATCH_SIZE` documents, one store transaction
each). Checked against the store plus its own batch, a batch would not see the documents of
later batches: a parent folder further on in the file would look missing. :class:`BulkContext`
knows every document of the whole import by a small summary (id, type, collection, parent) and
the parsed state of every Variable, which is all that validation and the gate ask of other
documents, so each batch (``Editor.write_batch_of_many``) is checked exactly as one batch of
everything against an empty project would be.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from storyloom.project.validation import Context

BATCH_SIZE = 500

# The fields of a document that other documents' checks read (a parent folder's type and
# collection, a linked script's type, a document's parent for the cycle check).
SUMMARY_KEYS = ("_id", "type", "collection", "parent")


def summary_of(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The part of ``doc`` that :class:`BulkContext` keeps (the keys it has of :data:`SUMMARY_KEYS`)."""
    return {key: doc[key] for key in SUMMARY_KEYS if key in doc}


class BulkContext(Context):
    """What validation asks about the other documents of a whole import, from summaries.

    ``summaries`` maps each document id to a dict holding at least the document's ``type``,
    ``collection`` and ``parent`` as written (see :func:`summary_of`; a larger dict does too);
    :meth:`add_variable` gives it each Variable document. It answers as a store holding nothing
    but the whole import as one pending batch would (the batch order, ids first seen first).
    """

    def __init__(self, summaries: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.summaries: Mapping[str, Mapping[str, Any]] = summaries if summaries is not None else {}
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
        summary = self.summaries.get(doc_id)
        if summary is None or summary.get("_deleted"):
            return None
        return dict(summary)

    def docs_of_type(self, doc_type: str) -> list[dict[str, Any]]:
        # Whole documents are what this context does not keep; the lookups built on them are
        # answered below from the Variables' parsed states.
        raise NotImplementedError("BulkContext keeps document summaries, not documents")

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


def batches(docs: Iterable[dict[str, Any]], size: int = BATCH_SIZE) -> Iterator[list[dict[str, Any]]]:
    """``docs`` in lists of at most ``size``."""
    batch: list[dict[str, Any]] = []
    for doc in docs:
        batch.append(doc)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
