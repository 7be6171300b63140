"""Documents a replication could not send, kept for the next run (docs/sync.md).

A document the target refuses as too large (HTTP 413 even alone) or as ``forbidden`` (the
server's lock rules) is a :class:`DocFailure`; :class:`FailedDocs` keeps them in a ``_local``
document of the local store (:data:`FAILED_DOCS_PREFIX` + the replication id), so the
checkpoint can move past them and the next run sends them first.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

from storyloom.sync.errors import BatchFailed
from storyloom.sync.peers import Peer

#: ``_local`` id prefix of the per-replication list of documents refused as too large.
FAILED_DOCS_PREFIX = "_local/storyloom-failed-"

TOO_LARGE_REMEDY = (
    "raise the proxy's request body limit (nginx: client_max_body_size) or the server's "
    "[couchdb] max_document_size / [chttpd] max_http_request_size, or make the document "
    "smaller; it is sent again on the next sync"
)


@dataclass
class DocFailure:
    """A document that could not be written (denied by the server, or too large)."""

    id: str
    rev: str | None
    error: str
    reason: str
    size: int | None = None
    remedy: str | None = None

    @property
    def message(self) -> str:
        text = f"{self.id} ({self.rev}): {self.error}"
        if self.size is not None:
            text += f", {self.size} bytes"
        if self.reason:
            text += f": {self.reason}"
        if self.remedy:
            text += f"; {self.remedy}"
        return text

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}



def failed_docs_id(rep_id: str) -> str:
    """The ``_local`` id of the "failed documents" list of a replication."""
    return FAILED_DOCS_PREFIX + rep_id.removeprefix("_local/")


class FailedDocs:
    """The persistent list of documents a replication could not send (too large, or refused):
    ``{"docs": {id: {"revs": [...], "size": n, "error": "too_large" | "forbidden", "reason"}}}``
    in a ``_local`` document of ``peer`` (the local store). Written only when it changes."""

    def __init__(self, peer: Peer, rep_id: str) -> None:
        self.peer = peer
        self.id = failed_docs_id(rep_id)
        self.entries: dict[str, dict[str, Any]] = {}
        self._rev: str | None = None
        self._loaded = False

    def load(self) -> dict[str, dict[str, Any]]:
        doc = self.peer.get_checkpoint(self.id)
        self._rev = None if doc is None else doc.get("_rev")
        docs = (doc or {}).get("docs")
        self.entries = {
            str(k): dict(v) for k, v in (docs.items() if isinstance(docs, dict) else []) if isinstance(v, dict)
        }
        self._loaded = True
        return self.entries

    def add(self, failures: list[DocFailure]) -> None:
        if not self._loaded:
            self.load()
        for failure in failures:
            entry = self.entries.setdefault(failure.id, {})
            revs = entry["revs"] = [r for r in entry.get("revs") or [] if isinstance(r, str)]
            if failure.rev and failure.rev not in revs:
                revs.append(failure.rev)
            entry["size"] = failure.size
            entry["error"] = failure.error
            entry["reason"] = failure.reason
            entry["failed_at"] = time.time()
        self.save()

    def remove(self, doc_ids: list[str]) -> None:
        changed = False
        for doc_id in doc_ids:
            changed = self.entries.pop(doc_id, None) is not None or changed
        if changed:
            self.save()

    def save(self) -> None:
        body: dict[str, Any] = {"_id": self.id, "docs": self.entries, "replicator": "storyloom", "version": 1}
        for _attempt in range(5):
            if self._rev:
                body["_rev"] = self._rev
            else:
                body.pop("_rev", None)
            try:
                self._rev = self.peer.put_checkpoint(dict(body))
                return
            except Exception as exc:  # the store's or the server's 409: take the current rev
                if getattr(exc, "status", None) != 409:
                    raise
                current = self.peer.get_checkpoint(self.id)
                self._rev = None if current is None else current.get("_rev")
        raise BatchFailed(f"the list of failed documents {self.id} kept conflicting")


def denied_failures(failure: dict[str, Any], sent: list[dict[str, Any]]) -> list[DocFailure]:
    """A ``forbidden`` refusal per revision (pouchdb-server names no rev: every one sent for the
    id); an ``unauthorized`` one (a member's design document) is not kept, as before."""
    doc_id = str(failure.get("id"))
    revs = [failure["rev"]] if failure.get("rev") else [d.get("_rev") for d in sent if d.get("_id") == doc_id]
    return [DocFailure(id=doc_id, rev=rev, error="forbidden", reason=str(failure.get("reason") or ""))
            for rev in revs or [None]] if str(failure.get("error")).lower() == "forbidden" else []

