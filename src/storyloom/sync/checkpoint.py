"""Replication ids and checkpoints in PouchDB's v1 format (docs/protocol.md 3.2).

A checkpoint is a ``_local`` document, written on the target first and then on the source::

    {"_id": "_local/<repid>", "_rev": "0-N", "session_id": "<uuid4>", "last_seq": <seq>,
     "history": [{"session_id", "last_seq"}, ...],   # newest first, at most 5
     "replicator": "storyloom", "version": 1}

Seqs of remote databases are opaque: they are stored exactly as received and only ever
compared for equality.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeGuard

from storyloom.sync.errors import RemoteError

if TYPE_CHECKING:
    from storyloom.sync.peers import Peer

CHECKPOINT_VERSION = 1
HISTORY_LIMIT = 5
REPLICATOR_NAME = "storyloom"

CheckpointMode = bool | Literal["source", "target"]


def replication_id(
    source_id: str,
    target_id: str,
    *,
    doc_ids: Sequence[str] | None = None,
    filter_name: str | None = None,
    query_params: Mapping[str, Any] | None = None,
    view: str | None = None,
    selector: Mapping[str, Any] | None = None,
) -> str:
    """The ``_local/…`` id shared by both checkpoints, computed with PouchDB's formula:
    base64(md5(source id + target id + filter + view + query params + doc ids + selector))
    with ``/`` replaced by ``.`` and ``+`` by ``_``. Every filter input is part of it."""
    filter_part = filter_name or ""
    view_part = view if (filter_name == "_view" and view) else ""
    params_part = ""
    if filter_name and query_params:
        params_part = json.dumps(dict(sorted(query_params.items())), separators=(",", ":"))
    ids_part = ",".join(sorted(doc_ids)) if doc_ids else ""
    selector_part = json.dumps(selector, separators=(",", ":")) if selector else ""
    data = source_id + target_id + filter_part + view_part + params_part + ids_part + selector_part
    digest = base64.b64encode(hashlib.md5(data.encode("utf-8")).digest()).decode("ascii")
    return "_local/" + digest.replace("/", ".").replace("+", "_")


def _usable(doc: Mapping[str, Any] | None) -> TypeGuard[Mapping[str, Any]]:
    """Whether ``doc`` is a checkpoint (so not None)."""
    return doc is not None and "last_seq" in doc


def compare_histories(source: Mapping[str, Any], target: Mapping[str, Any]) -> Any:
    """Start seq from two checkpoint docs that both exist (steps 3 to 5 of 3.2)."""
    if source.get("version") != target.get("version"):
        return 0
    if source.get("session_id") is not None and source.get("session_id") == target.get("session_id"):
        return source.get("last_seq", 0)
    src_hist = list(source.get("history") or [])
    tgt_hist = list(target.get("history") or [])
    # Walk both histories in step (newest first).
    for i in range(min(len(src_hist), len(tgt_hist))):
        sid = src_hist[i].get("session_id")
        if sid is not None and any(h.get("session_id") == sid for h in tgt_hist[i:]):
            return src_hist[i].get("last_seq", 0)
        tid = tgt_hist[i].get("session_id")
        if tid is not None and any(h.get("session_id") == tid for h in src_hist[i + 1 :]):
            return tgt_hist[i].get("last_seq", 0)
    return 0


class Checkpointer:
    """Reads the start seq and writes checkpoints on both peers of one replication."""

    def __init__(
        self,
        source: Peer,
        target: Peer,
        rep_id: str,
        *,
        mode: CheckpointMode = True,
        session_id: str | None = None,
        on_warning: Callable[[str], None] | None = None,
        interval: float = 0.0,
        first_at_once: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.source = source
        self.target = target
        self.rep_id = rep_id
        self.session_id = session_id or uuid.uuid4().hex
        self.write_source = mode in (True, "source")
        self.write_target = mode in (True, "target")
        self.read_source = self.write_source
        self.read_target = self.write_target
        self._docs: dict[str, dict[str, Any] | None] = {"source": None, "target": None}
        self.last_written: Any = None
        self._have_start = False
        self._on_warning = on_warning
        #: Seconds between writes by :meth:`offer` (0: every offered seq is written).
        self.interval = interval
        #: Write the first offered seq at once (an attempt after a failure: on a link that
        #: fails more often than ``interval``, each attempt still records some progress).
        self._first_at_once = first_at_once
        self._clock = clock
        self._written_at = clock()
        #: A seq offered but not written yet (:meth:`flush` writes it).
        self.pending: Any = None
        self._has_pending = False

    def _peer(self, side: str) -> Peer:
        return self.source if side == "source" else self.target

    def _warn(self, message: str) -> None:
        if self._on_warning is not None:
            self._on_warning(message)

    def start_seq(self) -> Any:
        """Where to start reading the source's changes (rules 1 to 5 of 3.2)."""
        target_doc = self.target.get_checkpoint(self.rep_id) if self.read_target else None
        source_doc = self.source.get_checkpoint(self.rep_id) if self.read_source else None
        self._docs = {"source": source_doc, "target": target_doc}
        start = self._decide(source_doc, target_doc)
        self.last_written = start
        self._have_start = True
        self._written_at = self._clock()
        return start

    def _decide(self, source_doc: dict[str, Any] | None, target_doc: dict[str, Any] | None) -> Any:
        if not self.read_source:
            # target-only checkpoints
            if _usable(target_doc) and target_doc.get("version") == CHECKPOINT_VERSION:
                return target_doc["last_seq"]
            return 0
        if not self.read_target:
            if _usable(source_doc) and source_doc.get("version") == CHECKPOINT_VERSION:
                return source_doc["last_seq"]
            return 0
        if not _usable(target_doc):
            return 0
        assert target_doc is not None
        if not _usable(source_doc):
            # The source lost its checkpoint (recreated db, or never written): record a 0
            # there and start over; if the source refuses, trust the target alone.
            try:
                doc = self._new_doc(0, source_doc)
                self._docs["source"] = self._put("source", doc)
            except RemoteError as exc:
                if 400 <= exc.status < 500:
                    self.write_source = False
                    self._warn(f"cannot write checkpoints on the source ({exc.status} {exc.error})")
                    return target_doc["last_seq"]
                raise
            return 0
        assert source_doc is not None
        return compare_histories(source_doc, target_doc)

    def _new_doc(self, seq: Any, previous: Mapping[str, Any] | None) -> dict[str, Any]:
        history = [
            h for h in list((previous or {}).get("history") or []) if h.get("session_id") != self.session_id
        ]
        history.insert(0, {"session_id": self.session_id, "last_seq": seq})
        doc: dict[str, Any] = {
            "_id": self.rep_id,
            "session_id": self.session_id,
            "last_seq": seq,
            "history": history[:HISTORY_LIMIT],
            "replicator": REPLICATOR_NAME,
            "version": CHECKPOINT_VERSION,
        }
        if previous is not None and previous.get("_rev"):
            doc["_rev"] = previous["_rev"]
        return doc

    def _put(self, side: str, doc: dict[str, Any]) -> dict[str, Any]:
        """Write ``doc`` on one side; on a 409 re-read the current rev and try again."""
        peer = self._peer(side)
        for _attempt in range(5):
            try:
                rev = peer.put_checkpoint(doc)
                return {**doc, "_rev": rev}
            except RemoteError as exc:
                if exc.status != 409:
                    raise
            except Exception as exc:  # the local store's Conflict
                if getattr(exc, "status", None) != 409:
                    raise
            current = peer.get_checkpoint(self.rep_id)
            doc = self._new_doc(doc["last_seq"], current)
        raise RuntimeError(f"checkpoint {self.rep_id} kept conflicting on the {side}")

    def write(self, seq: Any) -> bool:
        """Record ``seq`` on the target, then on the source. False when nothing was written
        (the seq is the one already recorded in this session)."""
        if self._have_start and seq == self.last_written:
            self.pending, self._has_pending = None, False
            return False
        if self.write_target:
            self._docs["target"] = self._put("target", self._new_doc(seq, self._docs["target"]))
        if self.write_source:
            try:
                self._docs["source"] = self._put("source", self._new_doc(seq, self._docs["source"]))
            except RemoteError as exc:
                if 400 <= exc.status < 500:
                    self.write_source = False
                    self._warn(f"cannot write checkpoints on the source ({exc.status} {exc.error})")
                else:
                    raise
        self.last_written = seq
        self._written_at = self._clock()
        self.pending, self._has_pending = None, False
        return True

    def offer(self, seq: Any) -> bool:
        """Record ``seq`` if ``interval`` seconds have passed since the last write, else keep
        it for later (the next offer, or :meth:`flush`). True when it was written."""
        if self.interval <= 0 or self._first_at_once or self._clock() - self._written_at >= self.interval:
            self._first_at_once = False
            return self.write(seq)
        self.pending, self._has_pending = seq, True
        return False

    def flush(self) -> bool:
        """Write the seq last offered, if it is not written yet."""
        if not self._has_pending:
            return False
        return self.write(self.pending)

    @property
    def documents(self) -> dict[str, dict[str, Any] | None]:
        """The last known checkpoint documents on each side (for tests and diagnostics)."""
        return dict(self._docs)
