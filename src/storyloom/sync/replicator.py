"""One-way replication between two peers (docs/protocol.md 3.2 to 3.7).

A :class:`Replicator` reads the source's changes from the last checkpoint, asks the target
which revisions it lacks (``revs_diff``), fetches them with their history and attachments,
writes them with ``new_edits=false``, confirms with one ``_revs_diff`` that a remote target
kept them (``WritesDropped`` otherwise, see :meth:`Replicator._verify_kept`) and checkpoints
(at most every ``checkpoint_interval`` seconds, and always on catching up and at the end).
Reading, diffing and fetching of the next batches run in a helper thread while the current
batch is written, so
the source and the target work at the same time; batches are still written and
checkpointed strictly in order.

Driving it: ``run()`` blocks and returns the final :class:`ReplicationStatus`; ``start()``
runs it in a background thread; ``cancel()`` (any thread) stops it within a second;
``status`` is a snapshot at any time; ``on_event`` receives :class:`SyncEvent` objects
(``active``, ``paused``, ``change``, ``denied``, ``error``, ``complete``) on the replication's
threads, so a GUI should hand them over to its own thread.

A document the target refuses as too large (HTTP 413 even alone) does not hold the
checkpoint back: it is recorded in a ``_local`` "failed documents" list on the local store
(:data:`FAILED_DOCS_PREFIX` + the replication id), the checkpoint moves past it, and the next
run sends the listed documents first (and drops them from the list once they went through).
A refused one (``forbidden``: the server's lock rules) is recorded there too, with its error,
and stays listed (``project.conflicts.list_refused``) until it or a newer revision goes through.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import logging
import queue
import threading
import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from storyloom.collector import gc_paused
from storyloom.progress import ProgressCallback, reporter
from storyloom.store.errors import Damaged, DiskFull
from storyloom.sync.checkpoint import Checkpointer, replication_id
from storyloom.sync.errors import (
    AccessDenied,
    BatchFailed,
    Cancelled,
    NetworkError,
    RemoteError,
    RemoteForbidden,
    RemoteUnauthorized,
    SyncError,
    WritesDropped,
)

# FAILED_DOCS_PREFIX and failed_docs_id are imported from here by callers of this module.
from storyloom.sync.failed_docs import (  # noqa: F401
    FAILED_DOCS_PREFIX,
    TOO_LARGE_REMEDY,
    DocFailure,
    FailedDocs,
    denied_failures,
    failed_docs_id,
)
from storyloom.sync.identity import check_peers
from storyloom.sync.peers import (
    ChangesPage,
    FetchResult,
    Peer,
    RemotePeer,
    StubsUnresolved,
    local_store_error,
    take_included_docs,
)
from storyloom.sync.replication_state import (  # noqa: F401 (imported from here by callers)
    DEFAULT_BATCH_SIZE,
    DEFAULT_PAGE_BYTES,
    MAX_FAILURES_KEPT,
    MAX_PAGE_ROWS,
    Direction,
    EventCallback,
    EventType,
    ReplicationOptions,
    ReplicationStatus,
    State,
)

# "as": re-exported explicitly for the type checker (storyloom.app.clone imports it from here).
from storyloom.sync.replication_state import SyncEvent as SyncEvent

log = logging.getLogger("storyloom.sync")

#: Seconds between full collections of a one-shot run (its collector is paused), at least...
COLLECT_INTERVAL = 1.0
#: ...and at least this many times as long as the last full collection took.
COLLECT_SPACING = 50
#: Seconds to wait before asking again about revisions a write verification found missing: a
#: cluster that answered 202 may need a moment before every replica has them; a server that
#: dropped them still lacks them afterwards.
VERIFY_RECHECK_DELAYS: tuple[float, ...] = (0.2, 1.0)


@dataclass
class _Batch:
    rows: list[dict[str, Any]]
    last_seq: Any
    missing: dict[str, list[str]] = field(default_factory=dict)
    ancestors: dict[str, list[str]] = field(default_factory=dict)
    fetched: FetchResult = field(default_factory=FetchResult)
    #: Missing revisions the changes page carried already (``include_docs``).
    included: list[dict[str, Any]] = field(default_factory=list)
    pending: int | None = None
    #: Share of the page's revisions the target lacked (decides ``include_docs`` next).
    missing_share: float = 0.0


@dataclass
class _Written:
    """What writing one batch gave."""

    fetched: FetchResult
    docs: list[dict[str, Any]]
    denied: list[dict[str, Any]] = field(default_factory=list)
    too_large: list[DocFailure] = field(default_factory=list)
    other: list[dict[str, Any]] = field(default_factory=list)


_END = object()  # the source is exhausted (one-shot)
_CAUGHT_UP = object()  # live mode: everything so far is processed; now waiting


class _EitherSet:
    """Set when either event is: the reader's stop signal (cancel, or end of its attempt)."""

    def __init__(self, first: threading.Event, second: threading.Event) -> None:
        self.first = first
        self.second = second

    def is_set(self) -> bool:
        return self.first.is_set() or self.second.is_set()

class Replicator:
    """Replicates ``source`` into ``target`` once, or continuously with ``live=True``."""

    def __init__(
        self,
        source: Peer,
        target: Peer,
        options: ReplicationOptions | None = None,
        *,
        direction: Direction = "replicate",
        on_event: EventCallback | None = None,
        progress: ProgressCallback | None = None,
    ) -> None:
        self.source = source
        self.target = target
        self.options = options or ReplicationOptions()
        self.direction = direction
        self.on_event = on_event
        #: Changes rows handled out of the total when a peer says it (``storyloom.progress``).
        self.progress = reporter(progress, "replicate" if direction == "replicate" else direction)
        self._status = ReplicationStatus(direction=direction, live=self.options.live)
        self._lock = threading.RLock()
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._done = threading.Event()
        self._checkpointer: Checkpointer | None = None
        #: Row limit of the next page of documents (follows their size, see ``_read_page``).
        self._doc_page_rows = self.options.rows_per_page
        self._collect_at = 0.0
        self._session_id: str | None = None
        self._progress = False
        self._failed: FailedDocs | None = None
        self._failed_retried = False
        self._all_missing = False

    # -- public API ------------------------------------------------------------------------------

    @property
    def status(self) -> ReplicationStatus:
        with self._lock:
            return _snapshot(self._status)

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def run(self) -> ReplicationStatus:
        """Run in the calling thread until complete, failed or cancelled.

        A one-shot run pauses the cyclic garbage collector (``storyloom.collector``): its
        batches are acyclic, and every collection would traverse them (and whatever else the
        process holds) for nothing. Performance (bench/sync_bench.py): a first pull's own CPU
        time falls by about a fifth. The pause is process-wide, as an export's is (counted:
        the last one out turns the collector on again); the run's own full collections
        (:meth:`_collect_cycles`) collect for the whole process meanwhile. A live run, which
        never ends, leaves the collector alone."""
        self._collect_at = time.monotonic() + COLLECT_INTERVAL
        try:
            with contextlib.nullcontext() if self.options.live else gc_paused():
                self._run()
        finally:
            self._done.set()
        return self.status

    def start(self) -> threading.Thread:
        """Run in a background thread; returns it."""
        if self._thread is not None:
            raise RuntimeError("this replication was already started")
        self._thread = threading.Thread(target=self.run, name=f"storyloom-sync-{self.direction}", daemon=True)
        self._thread.start()
        return self._thread

    def cancel(self) -> None:
        """Stop as soon as possible (well within a second); safe from any thread."""
        self._cancel.set()
        self.source.abort()
        self.target.abort()

    def wait(self, timeout: float | None = None) -> ReplicationStatus:
        """Wait for the end of a started (or running) replication."""
        self._done.wait(timeout)
        return self.status

    @property
    def done(self) -> bool:
        return self._done.is_set()

    # -- events ----------------------------------------------------------------------------------

    def _emit(self, kind: EventType, *, error: SyncError | None = None, docs: tuple[dict[str, Any], ...] = ()) -> None:
        if self.on_event is None:
            return
        event = SyncEvent(type=kind, direction=self.direction, status=self.status, error=error, docs=docs)
        try:
            self.on_event(event)
        except Exception:  # a listener's bug must not stop the replication
            log.exception("sync event listener failed")

    def _set_total(self, total: int) -> None:
        with self._lock:
            self._status.total = total
        self.progress.set_total(total)

    def _set_state(self, state: State) -> None:
        with self._lock:
            self._status.state = state

    def _warn(self, message: str) -> None:
        with self._lock:
            self._status.warnings.append(message)
        log.warning("%s: %s", self.direction, message)

    # -- the run loop with retries ---------------------------------------------------------------

    def _run(self) -> None:
        with self._lock:
            self._status.started_at = time.time()
            self._status.state = "active"
        self._emit("active")
        delay = 0.0
        consecutive = 0
        while True:
            self._progress = False
            try:
                self._check_cancel()
                self._attempt()
                # A one-shot replication finished (live mode only ends through Cancelled).
                self._finish("complete")
                return
            except Cancelled:
                self._finish("cancelled")
                return
            except SyncError as exc:
                error = self._explain(exc)
            except (Damaged, DiskFull) as exc:  # this machine's store: named, not a bug
                error = local_store_error(exc)
            except Exception as exc:  # a bug: report it rather than die silently
                log.exception("replication failed unexpectedly")
                error = SyncError(f"internal error during {self.direction}: {exc!r}")
            with self._lock:
                self._status.last_error = error
            if self._cancel.is_set():
                self._finish("cancelled")
                return
            if self._progress:
                # Batches went through since the last failure: start the backoff afresh.
                delay, consecutive = 0.0, 0
            can_retry = (
                error.retryable
                and self.options.should_retry
                and (self.options.max_retries is None or consecutive < self.options.max_retries)
            )
            if not can_retry:
                self._set_state("error")
                self._emit("error", error=error)
                self._finish("error")
                return
            consecutive += 1
            delay = self.options.backoff(delay)
            with self._lock:
                self._status.retries += 1
                self._status.state = "paused"
            log.info("%s: %s; retrying in %.1f s", self.direction, error.message, delay)
            self._emit("paused", error=error)
            if self._cancel.wait(delay):
                self._finish("cancelled")
                return
            # Restart from the checkpoint.
            with self._lock:
                self._status.state = "active"
            self._emit("active")

    def close(self) -> None:
        """Release the peers (their own HTTP clients, the store subscription). Idempotent;
        done automatically at the end of a run."""
        self.source.close()
        self.target.close()

    def _finish(self, state: State) -> None:
        with self._lock:
            self._status.state = state
            self._status.ended_at = time.time()
        self.progress.finish()
        self.close()
        self._emit("complete", error=self._status.last_error if state == "error" else None)

    def _check_cancel(self) -> None:
        if self._cancel.is_set():
            raise Cancelled("the replication was cancelled")

    def _explain(self, exc: SyncError) -> SyncError:
        """A database-level 401/403 becomes an AccessDenied that names what is missing."""
        if isinstance(exc, (RemoteUnauthorized, RemoteForbidden)) and not isinstance(exc, AccessDenied):
            for peer, action in ((self.target, "write"), (self.source, "read")):
                if isinstance(peer, RemotePeer) and exc.url.startswith(peer.remote.server_url):
                    return peer.access_denied(exc, action)
        return exc

    # -- one attempt: from the checkpoint until caught up ------------------------------------

    def _attempt(self) -> None:
        opts = self.options
        self.source.prepare(as_target=False, create=False)
        self._check_cancel()
        self.target.prepare(as_target=True, create=opts.create_target)
        self._check_cancel()
        if opts.identity is not None:
            check_peers(self.source, self.target, opts.identity)
        rep_id = replication_id(self.source.identity(), self.target.identity(), doc_ids=opts.doc_ids)
        if self._session_id is None:
            self._session_id = uuid.uuid4().hex
        checkpointer = Checkpointer(
            self.source, self.target, rep_id, mode=opts.checkpoint, session_id=self._session_id,
            on_warning=self._warn, interval=opts.checkpoint_interval, first_at_once=self._status.retries > 0,
        )
        self._checkpointer = checkpointer
        since = checkpointer.start_seq()
        with self._lock:
            self._status.replication_id = rep_id
            self._status.session_id = self._session_id
            if self._status.start_seq is None:
                self._status.start_seq = since
            self._status.last_seq = since
        # Into a database that has never held a document, every revision is missing: a one-shot
        # first push or pull sends them without asking ``_revs_diff`` (writing a revision the
        # target got meanwhile with ``new_edits=false`` changes nothing). Not in live mode,
        # where the other direction brings the target's documents into the source and they must
        # not go back as new. Performance (bench/sync_bench.py): pouchdb-server's part of a
        # first push is about a sixth less.
        self._all_missing = not opts.live and since in (0, "0", None) and self.target.is_empty()
        if self.progress.active:
            # (a retry from a later checkpoint may not know: the total stays what it was)
            left = self.source.count_changes(since)
            if left is not None:
                self._set_total(self.progress.done + left)
        if opts.checkpoint is not False:
            # Without checkpoints every run starts from 0 and sends everything anyway.
            local = next((p for p in (self.source, self.target) if not p.is_remote), self.source)
            self._failed = FailedDocs(local, rep_id)
            if not self._failed_retried:
                self._retry_failed_docs(self._failed)
                self._failed_retried = True
        self._check_cancel()

        batches: queue.Queue[Any] = queue.Queue(maxsize=opts.prefetch_batches)
        stop_reader = threading.Event()
        reader = threading.Thread(
            target=self._read_batches,
            args=(since, batches, stop_reader),
            name=f"storyloom-sync-{self.direction}-reader",
            daemon=True,
        )
        reader.start()
        try:
            while True:
                item = self._next(batches)
                if item is _END:
                    checkpointer.flush()
                    # Counted from a server's document counts, the total is an estimate
                    # (pouchdb-server gives no deleted count): at the end it is what was done.
                    if self.progress.total != self.progress.done:
                        self._set_total(self.progress.done)
                    return
                if item is _CAUGHT_UP:
                    checkpointer.flush()
                    self._caught_up()
                    continue
                if isinstance(item, BaseException):
                    raise item
                self._write_batch(checkpointer, item)
                self._collect_cycles()
        except BaseException as exc:
            self._flush_after_failure(checkpointer, exc)
            raise
        finally:
            stop_reader.set()
            # The reader stops at its next step. A reader blocked in a live wait (a longpoll
            # until the next remote change) is woken: its request is aborted, so it neither
            # holds a connection nor outlives this attempt. It puts nothing more once
            # ``stop_reader`` is set.
            self.source.interrupt_wait()
            reader.join(1.0)

    def _collect_cycles(self) -> None:
        """While a one-shot run pauses the collector (see :meth:`run`), free the reference
        cycles its requests leave (an httpx response and its stream refer to each other, and
        the response keeps its body) with a full collection, after a batch: a younger
        generation alone would miss the responses still being read at the time, which it
        promotes. A full collection traverses the whole process (in the desktop app, the open
        project's index and caches too), so the next one waits :data:`COLLECT_INTERVAL`
        seconds or :data:`COLLECT_SPACING` times as long as this one took, whichever is
        longer: at most about 2% of the time goes to it. Performance: about 1% of a first
        pull in the CLI; memory: what a second of replication reads and sends."""
        if self.options.live or gc.isenabled():
            return
        started = time.monotonic()
        if started >= self._collect_at:
            gc.collect()
            ended = time.monotonic()
            self._collect_at = ended + max(COLLECT_INTERVAL, COLLECT_SPACING * (ended - started))

    def _flush_after_failure(self, checkpointer: Checkpointer, exc: BaseException) -> None:
        """Record the batches written before a failure, so a retry or the next run starts
        after them. Not after a cancel or a network failure: the server may not answer, and
        waiting for it would hold back the report of the failure. What is not recorded is
        sent again (at most ``checkpoint_interval`` seconds of work)."""
        if self._cancel.is_set() or isinstance(exc, (Cancelled, NetworkError)) or not isinstance(exc, Exception):
            return
        try:
            checkpointer.flush()
        except Exception as flush_error:  # noqa: BLE001 - cleanup: the failure being reported is ``exc``
            log.info("%s: could not write the checkpoint after a failure: %s", self.direction, flush_error)

    def _next(self, batches: queue.Queue[Any]) -> Any:
        while True:
            self._check_cancel()
            try:
                return batches.get(timeout=0.1)
            except queue.Empty:
                continue

    def _put(self, batches: queue.Queue[Any], item: Any, stop: threading.Event) -> bool:
        while not stop.is_set() and not self._cancel.is_set():
            try:
                batches.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _read_batches(self, since: Any, batches: queue.Queue[Any], stop: threading.Event) -> None:
        """Reader thread: changes → revs_diff → fetch, one batch at a time, into the queue.

        After a full page of a remote source, the next one is requested at once, in a helper
        thread, while this one is diffed and fetched. Performance (bench/sync_bench.py): the server then always
        has the next page to prepare, instead of waiting for this process between pages."""
        opts = self.options
        live_waiting = False
        stopped = _EitherSet(self._cancel, stop)
        # A first pull (nothing read yet) lacks every document; later, the last batch tells.
        include = opts.include_docs is not False and (opts.include_docs is True or since in (0, "0", None))
        ahead = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"storyloom-sync-{self.direction}-changes")
        next_page: Future[tuple[ChangesPage, int]] | None = None
        try:
            while not stop.is_set() and not self._cancel.is_set():
                if live_waiting:
                    page = self.source.wait_changes(since, opts.rows_per_page, opts.doc_ids, stopped)
                    limit = opts.rows_per_page
                elif next_page is not None:
                    (page, limit), next_page = next_page.result(), None
                else:
                    page, limit = self._read_page(since, include)
                full = len(page.results) >= limit
                if full and self.source.is_remote:  # (the local store answers in milliseconds)
                    next_page = ahead.submit(self._read_page, page.last_seq, include)
                if page.results or page.last_seq != since:
                    batch = _Batch(rows=page.results, last_seq=page.last_seq, pending=page.pending)
                    if page.results:
                        self._prepare_batch(batch)
                        if opts.include_docs is None:
                            include = batch.missing_share >= 0.5
                    if not self._put(batches, batch, stop):
                        return
                since = page.last_seq
                if full:
                    live_waiting = False  # there may be more right away
                    continue
                if not opts.live:
                    self._put(batches, _END, stop)
                    return
                if not self._put(batches, _CAUGHT_UP, stop):
                    return
                live_waiting = True
        except BaseException as exc:  # noqa: BLE001 - reader thread: handed to the writer, which raises it
            item: BaseException = Cancelled("the replication was cancelled") if self._cancel.is_set() else exc
            self._put(batches, item, stop)
        finally:
            # A page still being read is dropped (a cancel aborts its request).
            ahead.shutdown(wait=False, cancel_futures=True)

    def _read_page(self, since: Any, include: bool) -> tuple[ChangesPage, int]:
        """A page of changes and the row limit it was asked with. Pages of documents are
        sized by bytes (``page_bytes``) unless the batch size is fixed. Called by one thread
        at a time (a page is asked ahead only once the one before it is in)."""
        opts = self.options
        if not include:
            return self.source.changes(since, opts.rows_per_page, opts.doc_ids), opts.rows_per_page
        limit = self._doc_page_rows
        page = self.source.changes(since, limit, opts.doc_ids, include_docs=True)
        if opts.batch_size is None and page.body_bytes and page.results:
            per_row = page.body_bytes / len(page.results)
            # At most twice the rows of this page: a page of small documents (deleted ones, say)
            # says little about the next, which may hold large ones.
            self._doc_page_rows = max(1, min(MAX_PAGE_ROWS, 2 * limit, int(opts.page_bytes / per_row)))
        return page, limit

    def _prepare_batch(self, batch: _Batch) -> None:
        revs: dict[str, list[str]] = {}
        for row in batch.rows:
            doc_id = row.get("id")
            if not isinstance(doc_id, str):
                continue
            revs.setdefault(doc_id, [])
            for change in row.get("changes") or []:
                rev = change.get("rev")
                if rev and rev not in revs[doc_id]:
                    revs[doc_id].append(rev)
        if self._all_missing:
            diff: dict[str, Any] = {doc_id: {"missing": r} for doc_id, r in revs.items() if r}
        else:
            diff = self.target.revs_diff(revs) if revs else {}
        for doc_id, entry in diff.items():
            missing = list(entry.get("missing") or [])
            if missing:
                batch.missing[doc_id] = missing
                if entry.get("possible_ancestors"):
                    batch.ancestors[doc_id] = list(entry["possible_ancestors"])
        asked = sum(len(r) for r in revs.values())
        batch.missing_share = sum(len(r) for r in batch.missing.values()) / asked if asked else 0.0
        batch.included = take_included_docs(batch.rows, batch.missing)
        if batch.missing:
            batch.fetched = self.source.fetch(batch.missing, batch.ancestors)

    # -- writing a batch ------------------------------------------------------------------------

    def _write_docs(self, batch: _Batch, *, count_batch: bool = True) -> _Written:
        """Write a fetched batch to the target and account for it in the status (counters,
        failures, ``denied`` event). Raises nothing for per-document failures: the caller
        decides what they mean."""
        fetched = batch.fetched
        docs = batch.included + fetched.docs if batch.included else fetched.docs
        failures: list[dict[str, Any]] = []
        if docs:
            try:
                failures = self.target.write(docs)
            except StubsUnresolved as exc:
                log.info("%s: %s; fetching full attachments", self.direction, exc.message)
                fetched = self.source.fetch(batch.missing, None)
                docs = batch.included + fetched.docs
                failures = self.target.write(docs)
        self._check_cancel()
        written = _Written(fetched=fetched, docs=docs)
        for failure in failures:
            name = str(failure.get("error", "")).lower()
            if name in ("forbidden", "unauthorized"):
                written.denied.append(failure)
            elif name == "too_large" and failure.get("status") == 413:
                written.too_large.append(
                    DocFailure(
                        id=str(failure.get("id")),
                        rev=failure.get("rev"),
                        error="too_large",
                        reason=str(failure.get("reason") or "Request Entity Too Large"),
                        size=failure.get("size"),
                        remedy=TOO_LARGE_REMEDY,
                    )
                )
            else:
                written.other.append(failure)
        denied, too_large = written.denied, written.too_large
        with self._lock:
            st = self._status
            st.docs_read += len(docs)
            st.docs_written += max(len(docs) - len(failures), 0)
            st.doc_write_failures += len(denied) + len(too_large)
            st.denied += len(denied)
            for failure in denied:
                st.failures.append(
                    DocFailure(
                        id=str(failure.get("id")),
                        rev=failure.get("rev"),
                        error=str(failure.get("error")),
                        reason=str(failure.get("reason") or ""),
                    )
                )
            st.failures.extend(too_large)
            del st.failures[:-MAX_FAILURES_KEPT]
            if too_large:
                st.last_error = SyncError(
                    f"{len(too_large)} document(s) too large for the server: "
                    + "; ".join(f.message for f in too_large)
                )
            if count_batch:
                st.batches += 1
        if denied:
            self._emit("denied", docs=tuple(denied))
        return written

    def _write_batch(self, checkpointer: Checkpointer, batch: _Batch) -> None:
        written = self._write_docs(batch)
        fetched, denied, too_large, other = written.fetched, written.denied, written.too_large, written.other
        if other:
            first = other[0]
            raise BatchFailed(
                f"the target refused {len(other)} document(s), e.g. {first.get('id')!r}: "
                f"{first.get('error')} {first.get('reason', '')}".strip()
            )
        if fetched.unresolved:
            doc_id, rev, error, reason = fetched.unresolved[0]
            raise BatchFailed(
                f"the source did not return {len(fetched.unresolved)} revision(s), e.g. {doc_id} {rev}: "
                f"{error} {reason}".strip()
            )
        self._verify_kept(written)
        if (too_large or denied) and self._failed is not None:
            # Recorded before the checkpoint moves past them: the next run sends them first.
            self._failed.add(too_large + [d for f in denied for d in denied_failures(f, written.docs)])
        checkpointer.offer(batch.last_seq)
        with self._lock:
            self._status.handled += len(batch.rows)
        self.progress.advance(len(batch.rows))
        if batch.pending is not None and self.progress.total != self.progress.done + batch.pending:
            self._set_total(self.progress.done + batch.pending)
        elif self.progress.total is not None and self.progress.done > self.progress.total:
            self._set_total(self.progress.done)
        with self._lock:
            self._status.last_seq = batch.last_seq
            self._status.pending = batch.pending
            if self._status.state != "active":
                self._status.state = "active"
                resumed = True
            else:
                resumed = False
        self._progress = True
        if resumed:
            self._emit("active")
        if batch.rows or written.docs:
            self._emit(
                "change",
                docs=tuple(f.to_json() for f in too_large) + tuple(denied),
            )

    def _verify_kept(self, written: _Written) -> None:
        """Confirm that a remote target holds the revisions it acknowledged: one ``_revs_diff``
        of the batch's revisions (PouchDB and CouchDB answer ``201`` with no per-document
        entry for a replicated write, so the answer alone proves nothing; pouchdb-server 4.2
        drops such writes once a validate function exists). Documents the target refused with
        a per-document error are left out: they are reported and recorded as such. Raises
        :class:`WritesDropped` before the caller moves the checkpoint, so what was dropped stays
        pending. A one-shot first push (``_all_missing``) skips the ``_revs_diff`` before
        writing, never this one. Performance (bench/sync_bench.py): about a tenth of a first
        push's time (docs/benchmarks.md, issue 22)."""
        if not written.docs or not self.target.is_remote or not self.options.verify_writes:
            return
        failed = {str(f.get("id")) for f in written.denied + written.other} | {f.id for f in written.too_large}
        revs: dict[str, list[str]] = {}
        for doc in written.docs:
            doc_id, rev = doc.get("_id"), doc.get("_rev")
            if isinstance(doc_id, str) and isinstance(rev, str) and doc_id not in failed:
                revs.setdefault(doc_id, []).append(rev)
        if not revs:
            return
        missing = _missing_revs(self.target.revs_diff(revs))
        for delay in VERIFY_RECHECK_DELAYS:
            if not missing:
                return
            self._check_cancel()
            if self._cancel.wait(delay):
                self._check_cancel()
            missing = _missing_revs(self.target.revs_diff(missing))
        if not missing:
            return
        count = sum(len(r) for r in missing.values())
        with self._lock:
            self._status.docs_written = max(self._status.docs_written - count, 0)
        raise WritesDropped(self.target.label, missing)

    def _retry_failed_docs(self, failed: FailedDocs) -> None:
        """Start of a run: send the documents an earlier run could not send (too large).

        Those that are now on the target (sent, or superseded by a newer revision that was)
        leave the list; those still too large or still refused (``forbidden``) stay (and are
        reported again); a revision the source no longer has leaves it (its next change is
        replicated as usual). A refused revision that a local resolution superseded is fetched
        as its newer leaf (``latest``), which the server accepts."""
        entries = failed.load()
        if not entries:
            return
        revs = {doc_id: [str(r) for r in entry.get("revs") or []] for doc_id, entry in entries.items()}
        revs = {doc_id: r for doc_id, r in revs.items() if r}
        diff = self.target.revs_diff(revs) if revs else {}
        batch = _Batch(rows=[], last_seq=None)
        for doc_id, entry in diff.items():
            missing = list(entry.get("missing") or [])
            if missing:
                batch.missing[doc_id] = missing
                if entry.get("possible_ancestors"):
                    batch.ancestors[doc_id] = list(entry["possible_ancestors"])
        done = [doc_id for doc_id in entries if doc_id not in batch.missing]
        if batch.missing:
            batch.fetched = self.source.fetch(batch.missing, batch.ancestors)
            written = self._write_docs(batch, count_batch=False)
            keep = {f.id for f in written.too_large} | {str(f.get("id")) for f in written.denied}
            for failure in written.other:
                keep.add(str(failure.get("id")))
                self._warn(
                    f"could not send {failure.get('id')!r} again: {failure.get('error')} "
                    f"{failure.get('reason', '')}".strip()
                )
            for doc_id, rev, error, reason in written.fetched.unresolved:
                self._warn(f"{doc_id} {rev} is no longer on the source ({error} {reason}); dropped from the retry list")
            # (raises before the list changes: what the server dropped stays listed)
            self._verify_kept(written)
            done += [doc_id for doc_id in batch.missing if doc_id not in keep]
            if written.docs or written.too_large:
                self._progress = True
                self._emit(
                    "change",
                    docs=tuple(f.to_json() for f in written.too_large) + tuple(written.denied),
                )
        failed.remove(done)

    def _caught_up(self) -> None:
        with self._lock:
            if self._status.state == "paused":
                return
            self._status.state = "paused"
        self._emit("paused")



def _missing_revs(diff: dict[str, Any]) -> dict[str, list[str]]:
    """The ``missing`` revisions of a ``_revs_diff`` answer, per document."""
    missing: dict[str, list[str]] = {}
    for doc_id, entry in diff.items():
        revs = entry.get("missing") if isinstance(entry, dict) else None
        if revs:
            missing[doc_id] = [str(r) for r in revs]
    return missing


def _snapshot(status: ReplicationStatus) -> ReplicationStatus:
    clone = copy.copy(status)
    clone.failures = list(status.failures)
    clone.warnings = list(status.warnings)
    return clone


def explain_remote_error(exc: RemoteError) -> str:
    """A one-line description of a remote error for users."""
    return exc.message
