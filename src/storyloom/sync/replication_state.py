"""What drives and reports a replication: its options, its status and its events (the
:class:`~storyloom.sync.replicator.Replicator` runs it)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from storyloom.sync.backoff import BackoffFunction, default_backoff
from storyloom.sync.checkpoint import CheckpointMode
from storyloom.sync.errors import SyncError
from storyloom.sync.failed_docs import DocFailure
from storyloom.sync.identity import IdentityDoc
from storyloom.sync.peers import DEFAULT_MAX_REQUEST_BYTES

Direction = Literal["push", "pull", "replicate"]
State = Literal["idle", "active", "paused", "complete", "error", "cancelled"]
EventType = Literal["active", "paused", "change", "denied", "error", "complete"]

#: At most this many failed documents are kept in ``ReplicationStatus.failures`` (the
#: counters keep counting).
MAX_FAILURES_KEPT = 1000
#: Rows per page of the changes feed (CouchDB's replicator reads 500; PouchDB 100).
DEFAULT_BATCH_SIZE = 500
#: About the size of a remote page of documents without an explicit batch size.
DEFAULT_PAGE_BYTES = 4_000_000
#: At most this many rows in a page sized by bytes.
MAX_PAGE_ROWS = 10_000

@dataclass
class ReplicationOptions:
    """How a replication runs. The defaults suit a one-shot CLI run."""

    #: Changes read per batch (PouchDB's ``batch_size``). None (the default): pages of
    #: :data:`DEFAULT_BATCH_SIZE` rows, and pages that carry their documents (``include_docs``)
    #: sized by ``page_bytes``; a number fixes every page at that many rows.
    batch_size: int | None = None
    #: Without a ``batch_size``: about how many bytes a remote page of documents holds. Its
    #: row count follows the previous page's bytes per row, from 1 to :data:`MAX_PAGE_ROWS`.
    #: Performance (bench/sync_bench.py): pouchdb-server's cost of a first pull falls by about
    #: a third from pages of 500 rows to pages of 4 MB; memory stays bounded by bytes however
    #: large the documents are.
    page_bytes: int = DEFAULT_PAGE_BYTES
    #: Batches read, diffed and fetched ahead of the one being written.
    prefetch_batches: int = 2
    #: Upper bound of one ``_bulk_docs`` request body; larger batches are split.
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    #: Keep following changes after catching up.
    live: bool = False
    #: Retry retryable failures (network errors, 5xx, incomplete batches) with backoff.
    #: None (the default) means: retry in live mode, not in a one-shot run.
    retry: bool | None = None
    #: Give up after this many consecutive retries (None: never, the usual live setting).
    max_retries: int | None = None
    backoff: BackoffFunction = default_backoff
    #: Create a missing target database (only possible for a server admin).
    create_target: bool = True
    #: Checkpoints on both sides (True), one side ("source"/"target") or none (False).
    checkpoint: CheckpointMode = True
    #: Seconds between checkpoints while batches keep coming (0: after every batch, as
    #: PouchDB does). A checkpoint is always written on catching up and at the end, and
    #: after a failure the server answered. CouchDB's replicator waits 30 s; here a run that
    #: stops at worst sends again what it sent in the last few seconds. Performance
    #: (bench/sync_bench.py): a checkpoint costs pouchdb-server about as much as 25 documents.
    checkpoint_interval: float = 5.0
    #: Replicate only these documents (``filter=_doc_ids``); part of the replication id.
    doc_ids: list[str] | None = None
    #: Longpoll heartbeat of the live pull, in milliseconds.
    heartbeat_ms: int = 10_000
    #: Read first-generation documents with the source's changes feed (``include_docs``, see
    #: ``fetched.take_included_docs``) instead of fetching them: True, False, or None (the
    #: default): from the start of a first replication, and afterwards while most of the
    #: last batch was missing on the target. Performance (bench/sync_bench.py): a page with
    #: its documents costs pouchdb-server about a third of the page plus ``_bulk_get``, and
    #: the local store about half of the page plus ``bulk_get``.
    include_docs: bool | None = None
    #: After each batch written to a remote target, ask it (one ``_revs_diff``) whether it holds
    #: what it acknowledged; revisions it dropped fail the run (``WritesDropped``) and stay
    #: pending. Off only to measure what the check costs (bench/sync_bench.py).
    verify_writes: bool = True
    #: Where both sides keep their project identity: a remote database of another project
    #: is refused (``ProjectMismatch``) before anything is written. None: no check.
    identity: IdentityDoc | None = None

    @property
    def rows_per_page(self) -> int:
        """Rows of a page without documents (and of the first page with them)."""
        return DEFAULT_BATCH_SIZE if self.batch_size is None else self.batch_size

    @property
    def should_retry(self) -> bool:
        return self.live if self.retry is None else self.retry

    def __post_init__(self) -> None:
        if self.batch_size is not None and self.batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if self.page_bytes < 1024:
            raise ValueError("page_bytes must be at least 1024")
        if not self.checkpoint_interval >= 0:  # (NaN included)
            raise ValueError("checkpoint_interval must be 0 or more seconds")
        if self.prefetch_batches < 1:
            raise ValueError("prefetch_batches must be at least 1")
        if self.max_request_bytes < 1024:
            raise ValueError("max_request_bytes must be at least 1024")


@dataclass
class ReplicationStatus:
    """Where a replication stands. Every public read returns a copy."""

    direction: str = "replicate"
    state: State = "idle"
    live: bool = False
    docs_read: int = 0
    docs_written: int = 0
    doc_write_failures: int = 0
    denied: int = 0
    failures: list[DocFailure] = field(default_factory=list)
    start_seq: Any = None
    last_seq: Any = None
    pending: int | None = None
    #: Changes rows handled (documents looked at, whether or not the target lacked them), and
    #: how many this run has in all when a peer says (the figures of ``progress``).
    handled: int = 0
    total: int | None = None
    batches: int = 0
    retries: int = 0
    replication_id: str | None = None
    session_id: str | None = None
    started_at: float | None = None
    ended_at: float | None = None
    last_error: SyncError | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Finished (or running) without a fatal error and without failed documents."""
        return self.state not in ("error", "cancelled") and self.doc_write_failures == 0

    @property
    def last_error_message(self) -> str | None:
        return None if self.last_error is None else self.last_error.message

    @property
    def elapsed(self) -> float | None:
        if self.started_at is None:
            return None
        return (self.ended_at or time.time()) - self.started_at

    def to_json(self) -> dict[str, Any]:
        return {
            "direction": self.direction,
            "state": self.state,
            "live": self.live,
            "docs_read": self.docs_read,
            "docs_written": self.docs_written,
            "doc_write_failures": self.doc_write_failures,
            "denied": self.denied,
            "failures": [f.to_json() for f in self.failures],
            "start_seq": self.start_seq,
            "last_seq": self.last_seq,
            "pending": self.pending,
            "handled": self.handled,
            "total": self.total,
            "batches": self.batches,
            "retries": self.retries,
            "replication_id": self.replication_id,
            "elapsed": None if self.elapsed is None else round(self.elapsed, 3),
            "last_error": None if self.last_error is None else self.last_error.to_json(),
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class SyncEvent:
    """One progress event. ``status`` is a snapshot taken when the event was emitted."""

    type: EventType
    direction: str
    status: ReplicationStatus
    error: SyncError | None = None
    #: For ``denied``: the refused documents; for ``change``: failures of that batch.
    docs: tuple[dict[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type, "direction": self.direction, "status": self.status.to_json()}
        if self.error is not None:
            data["error"] = self.error.to_json()
        if self.docs:
            data["docs"] = list(self.docs)
        return data


EventCallback = Callable[[SyncEvent], None]
