"""The two kinds of replication endpoint behind one interface.

The replicator only talks to :class:`Peer` objects: :class:`LocalPeer` wraps a
``storyloom.store.Database``, :class:`RemotePeer` wraps a :class:`RemoteDatabase`. Both
expose what one replication step needs: identity for the replication id, the changes
feed (one-shot and live), ``revs_diff``, fetching revisions with their history and
attachments, writing them with ``new_edits=false``, and ``_local`` checkpoints.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ParamSpec, Protocol, TypeVar

from storyloom.errors import Fix
from storyloom.store.errors import Damaged, DiskFull, StoreError
from storyloom.sync.errors import (
    AccessDenied,
    Cancelled,
    DatabaseMissing,
    RemoteError,
    RemoteForbidden,
    RemoteNotFound,
    RemotePreconditionFailed,
    RemoteUnauthorized,
    RequestTooLarge,
    SyncError,
)

# FetchResult, match_fetched, clean_doc and take_included_docs are imported from here too.
from storyloom.sync.fetched import (  # noqa: F401
    FetchResult,
    collect_bulk_get,
    match_fetched,
    rev_ancestry,
    take_included_docs,
)

# "as": re-exported explicitly for the type checker (storyloom.app.locks imports it from here).
from storyloom.sync.fetched import clean_doc as clean_doc
from storyloom.sync.remote import RemoteDatabase, dumps

if TYPE_CHECKING:
    from storyloom.store import Database

_P = ParamSpec("_P")
_T = TypeVar("_T")
# What ``_split_on_413`` splits: a ``_revs_diff`` request, ``_all_docs`` keys, ``_bulk_get`` items.
_Payload = TypeVar("_Payload", dict[str, list[str]], list[str], list[dict[str, Any]])

DEFAULT_MAX_REQUEST_BYTES = 1_000_000  # below nginx's default client_max_body_size (1 MiB)
BULK_GET_FALLBACK_CONCURRENCY = 6
MAX_REVS_PER_URL = 50
LONGPOLL_HEARTBEAT_MS = 10_000
#: ``_bulk_get`` answers that mean "this server has no such endpoint": only these switch a
#: client to the ``open_revs`` fallback. Anything else (400, 415, 5xx, ...) is an error of
#: that request and is raised as such.
BULK_GET_MISSING_STATUSES = (404, 405, 501)


class StopSignal(Protocol):
    """What ``wait_changes`` polls to know it must give up (a ``threading.Event`` will do)."""

    def is_set(self) -> bool: ...


class StubsUnresolved(SyncError):
    """The target could not resolve attachment stubs (412 ``missing_stub``); the batch is
    fetched again with full attachment data."""

    code = "stubs_unresolved"
    retryable = True


@dataclass
class ChangesPage:
    results: list[dict[str, Any]]
    last_seq: Any
    #: Rows left after this page, when the source says (CouchDB's ``pending``).
    pending: int | None = None
    #: Size of the answer's body in bytes (a remote source's; None for the local store).
    body_bytes: int | None = None



class Peer:
    """One end of a replication."""

    is_remote = False

    #: Human-readable description for messages ("local store", "http://host/db").
    label = "peer"

    def identity(self) -> str:
        raise NotImplementedError

    def prepare(self, *, as_target: bool, create: bool) -> None:
        """Check that the database is there and accessible (and create it if allowed)."""

    def update_seq(self) -> Any:
        return None

    def count_changes(self, since: Any) -> int | None:
        """How many changes rows follow ``since``, when the peer can tell cheaply (None if not):
        the total of a replication's progress."""
        return None

    def is_empty(self) -> bool:
        """Whether the database has never held a document (False when the peer cannot tell)."""
        return False

    def changes(
        self, since: Any, limit: int, doc_ids: list[str] | None = None, include_docs: bool = False
    ) -> ChangesPage:
        """A page of the changes feed (``style=all_docs``). With ``include_docs`` each row's
        winning revision is in its ``doc`` (see :func:`take_included_docs`)."""
        raise NotImplementedError

    def wait_changes(
        self, since: Any, limit: int, doc_ids: list[str] | None, cancelled: StopSignal
    ) -> ChangesPage:
        """Block until there are changes after ``since`` (live mode) or ``cancelled`` is set
        (then raise Cancelled)."""
        raise NotImplementedError

    def interrupt_wait(self) -> None:
        """Make a ``wait_changes`` blocked in another thread give up now (it raises
        Cancelled), without disturbing the peer's other requests. Used before a retry, so an
        abandoned reader does not hold a connection until the next change."""

    def revs_diff(self, revs: dict[str, list[str]]) -> dict[str, Any]:
        raise NotImplementedError

    def fetch(self, missing: dict[str, list[str]], atts_since: dict[str, list[str]] | None = None) -> FetchResult:
        raise NotImplementedError

    def write(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Write with ``new_edits=false``; return the per-document failures."""
        raise NotImplementedError

    def get_checkpoint(self, rep_id: str) -> dict[str, Any] | None:
        raise NotImplementedError

    def put_checkpoint(self, doc: dict[str, Any]) -> str:
        raise NotImplementedError

    def abort(self) -> None:
        """Interrupt any blocking call from another thread."""

    def close(self) -> None:
        """Release what the peer opened itself."""


# -- local ---------------------------------------------------------------------------------------

def _local_read(fn: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """A read of the local store, with store errors turned into LocalStoreError."""
    from storyloom.store import StoreError

    try:
        return fn(*args, **kwargs)
    except StoreError as exc:
        raise local_store_error(exc) from None


class LocalStoreError(SyncError):
    """The local store refused a read or a write (closed, damaged, a full disk, invalid data);
    ``store_error`` is the store's own error, whose fix it carries. A full disk may pass: retryable."""

    code = "local_store_error"
    fixes = ("recover_damaged", "free_disk_space")

    def __init__(self, message: str, store_error: Exception | None = None) -> None:
        super().__init__(message, fix=store_error.fix if isinstance(store_error, Damaged | DiskFull) else None)
        self.store_error = store_error
        self.retryable = isinstance(store_error, DiskFull)


def local_store_error(exc: StoreError, doing: str = "failed") -> LocalStoreError:
    """The sync error of a local store error: damage and a full disk in their own words."""
    if isinstance(exc, Damaged | DiskFull):
        return LocalStoreError(f"this machine's store {doing}: {exc.cause}", exc)
    return LocalStoreError(f"the local store {doing} ({exc.status} {exc.error}: {exc.reason})", exc)


class LocalPeer(Peer):
    """The local store. Live mode follows its ``subscribe`` notification."""

    label = "local store"

    def __init__(self, db: Database) -> None:
        self.db = db
        self._changed = threading.Event()
        self._unsubscribe: Callable[[], None] | None = None

    def identity(self) -> str:
        return str(_local_read(self.db.info)["instance_uuid"])

    def update_seq(self) -> Any:
        return _local_read(self.db.info)["update_seq"]

    def is_empty(self) -> bool:
        seq: int = _local_read(self.db.info)["update_seq"]
        return seq == 0

    def count_changes(self, since: Any) -> int | None:
        try:
            seq = int(since or 0)
        except (TypeError, ValueError):
            return None
        return int(_local_read(self.db.changes_count, seq))

    def changes(
        self, since: Any, limit: int, doc_ids: list[str] | None = None, include_docs: bool = False
    ) -> ChangesPage:
        result = _local_read(self.db.changes, since=since, limit=limit, style="all_docs", doc_ids=doc_ids,
                             include_docs=include_docs)
        return ChangesPage(result["results"], result["last_seq"])

    def _on_change(self, _change: dict[str, Any]) -> None:
        self._changed.set()

    def wait_changes(
        self, since: Any, limit: int, doc_ids: list[str] | None, cancelled: StopSignal
    ) -> ChangesPage:
        if self._unsubscribe is None:
            self._unsubscribe = self.db.subscribe(self._on_change)
        while True:
            self._changed.clear()
            page = self.changes(since, limit, doc_ids)
            if page.results:
                return page
            if page.last_seq != since:
                return page  # filtered rows only: lets the checkpoint advance
            while not self._changed.wait(0.1):
                if cancelled.is_set():
                    raise Cancelled("the replication was cancelled")
            if cancelled.is_set():
                raise Cancelled("the replication was cancelled")

    def revs_diff(self, revs: dict[str, list[str]]) -> dict[str, Any]:
        return _local_read(self.db.revs_diff, revs)

    def fetch(self, missing: dict[str, list[str]], atts_since: dict[str, list[str]] | None = None) -> FetchResult:
        requests: list[dict[str, Any]] = []
        for doc_id, revs in missing.items():
            since = (atts_since or {}).get(doc_id)
            for rev in revs:
                item: dict[str, Any] = {"id": doc_id, "rev": rev}
                if since:
                    item["atts_since"] = since
                requests.append(item)
        reply = _local_read(self.db.bulk_get, requests, revs=True, latest=True, attachments=True)
        return collect_bulk_get(missing, reply)

    def write(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        from storyloom.store import MissingStub, StoreError

        try:
            return self.db.bulk_docs(docs, new_edits=False)
        except MissingStub as exc:
            raise StubsUnresolved(f"the local store could not resolve attachment stubs: {exc.reason}") from None
        except StoreError as exc:
            raise local_store_error(exc, "refused the documents") from None

    def get_checkpoint(self, rep_id: str) -> dict[str, Any] | None:
        from storyloom.store import NotFound as StoreNotFound

        def read() -> dict[str, Any] | None:
            try:
                return self.db.get_local(rep_id)
            except StoreNotFound:
                return None

        return _local_read(read)

    def put_checkpoint(self, doc: dict[str, Any]) -> str:
        from storyloom.store import Conflict as StoreConflict
        from storyloom.store import StoreError

        try:
            return str(self.db.put_local(doc)["rev"])
        except StoreConflict:
            raise  # the checkpointer re-reads and retries
        except StoreError as exc:
            raise local_store_error(exc) from None

    def abort(self) -> None:
        self._changed.set()

    def interrupt_wait(self) -> None:
        self._changed.set()  # the waiter re-checks ``cancelled``

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None



# -- remote --------------------------------------------------------------------------------------


class RemotePeer(Peer):
    """A database on a CouchDB-compatible server."""

    is_remote = True

    def __init__(
        self,
        remote: RemoteDatabase,
        *,
        max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
        heartbeat_ms: int = LONGPOLL_HEARTBEAT_MS,
        first_generation_fast_path: bool = True,
        owns_client: bool = False,
    ) -> None:
        self.remote = remote
        self.max_request_bytes = max_request_bytes
        self.heartbeat_ms = heartbeat_ms
        self.first_generation_fast_path = first_generation_fast_path
        self.owns_client = owns_client
        self._identity: str | None = None
        self.label = remote.db_url
        # Live mode: longpolls go through a client of their own, so that one can be aborted
        # (interrupt_wait) without failing the checkpoint writes and fetches on ``remote``.
        self._longpoll: RemoteDatabase | None = None
        self._longpoll_lock = threading.Lock()
        self._closed = False

    # identity and setup -----------------------------------------------------------------------

    def identity(self) -> str:
        if self._identity is None:
            try:
                uuid = self.remote.server_info().get("uuid")
            except RemoteError:
                # ``GET /`` refused (a proxy, require_valid_user): identify by URL instead.
                # Network errors propagate, so that a retry computes the same id.
                uuid = None
            if uuid:
                self._identity = str(uuid) + self.remote.db_name
            else:
                self._identity = self.remote.db_url  # credentials are never part of it
        return self._identity

    def prepare(self, *, as_target: bool, create: bool) -> None:
        try:
            self.remote.info()
            return
        except (RemoteUnauthorized, RemoteForbidden) as exc:
            raise self.access_denied(exc, "write" if as_target else "read") from None
        except RemoteNotFound:
            pass
        db = self.remote.db_name
        where = f"{self.remote.server_url}"
        if not as_target or not create:
            raise DatabaseMissing(f"the database {db!r} does not exist on {where}",
                                  fix=Fix("create_database", database=db))
        # Only server admins may create databases. Ask first: a non-admin PUT /db crashes
        # pouchdb-server 4.2.0, and on CouchDB it would only give 401/403.
        try:
            ctx = self.remote.session().get("userCtx") or {}
        except (RemoteUnauthorized, RemoteForbidden) as exc:
            raise self.access_denied(exc, "write") from None
        roles = ctx.get("roles") or []
        if "_admin" not in roles:
            who = f"user {ctx.get('name')!r}" if ctx.get("name") else "an anonymous user"
            raise DatabaseMissing(
                f"the database {db!r} does not exist on {where}, and {who} cannot create it (only a server "
                "admin can)", fix=Fix("create_database", database=db)
            )
        try:
            self.remote.create()
        except (RemoteUnauthorized, RemoteForbidden) as exc:
            raise self.access_denied(exc, "create") from None

    def access_denied(self, exc: RemoteError, action: str) -> AccessDenied:
        """Turn a database-level 401/403 into a message naming the missing credential or
        permission. Asks ``GET /_session`` whether the credentials themselves are valid."""
        remote = self.remote
        db = remote.db_name
        server = remote.server_url
        detail = f"({exc.status} {exc.error}: {exc.reason})" if exc.reason else f"({exc.status} {exc.error})"
        if not remote.has_credentials:
            return AccessDenied(
                f"the database {db!r} on {server} requires a user name and password, and none "
                f"were given {detail}",
                exc,
                action="credentials",
                database=db,
            )
        user = remote.username
        try:
            ctx = (remote.session().get("userCtx") or {}) if not remote.aborted else {}
        except RemoteUnauthorized:
            return AccessDenied(
                f"the server {server} rejected the password for user {user!r} (wrong password, "
                f"or no such user) {detail}",
                exc,
                action="credentials",
                username=user,
                database=db,
            )
        except (RemoteError, SyncError):
            ctx = {}
        if ctx.get("name") != user:
            return AccessDenied(
                f"the server {server} did not accept the credentials of user {user!r} {detail}",
                exc,
                action="credentials",
                username=user,
                database=db,
            )
        if action == "create":
            what = f"create the database {db!r} (only a server admin can)"
        elif action == "write":
            what = (
                f"write to the database {db!r}: a database admin must add {user!r} (or one of "
                "the user's roles) to the members in the database's _security"
            )
        else:
            what = (
                f"read the database {db!r}: {user!r} is not a member; a database admin must add "
                f"{user!r} (or one of the user's roles) to the members in the database's _security"
            )
        return AccessDenied(f"user {user!r} is signed in but is not allowed to {what} {detail}", exc, action=action,
                            username=user, database=db)

    def update_seq(self) -> Any:
        return self.remote.info().get("update_seq")

    def is_empty(self) -> bool:
        info = self.remote.info()
        seq = info.get("update_seq")
        # CouchDB 2+ seqs are opaque strings that start with the number ("0-g1AAAA...").
        fresh = seq == 0 or (isinstance(seq, str) and seq.split("-", 1)[0] == "0")
        return fresh and info.get("doc_count") == 0 and not info.get("doc_del_count")

    def count_changes(self, since: Any) -> int | None:
        # From the start, the feed has one row per document, deleted ones included; later
        # seqs are opaque, and the pages' ``pending`` says what is left (CouchDB 2 and later).
        if since not in (0, "0", None):
            return None
        info = self.remote.info()
        count, deleted = info.get("doc_count"), info.get("doc_del_count") or 0
        return count + deleted if isinstance(count, int) and isinstance(deleted, int) else None

    # changes ------------------------------------------------------------------------------------

    def changes(
        self, since: Any, limit: int, doc_ids: list[str] | None = None, include_docs: bool = False
    ) -> ChangesPage:
        extra: dict[str, Any] = {"include_docs": True} if include_docs else {}
        result, size = self.remote.changes_sized(since, limit=limit, style="all_docs", doc_ids=doc_ids, **extra)
        pending = result.get("pending")
        last_seq = result.get("last_seq")
        return ChangesPage(
            result.get("results") or [],
            since if last_seq is None else last_seq,
            pending if isinstance(pending, int) else None,
            size,
        )

    def _longpoll_client(self) -> RemoteDatabase:
        with self._longpoll_lock:
            if self._closed or self.remote.aborted:
                raise Cancelled("the replication was cancelled")
            if self._longpoll is None:
                self._longpoll = self.remote.clone()
            return self._longpoll

    def interrupt_wait(self) -> None:
        with self._longpoll_lock:
            client, self._longpoll = self._longpoll, None
        if client is not None:
            client.abort()  # the blocked read returns at once with Cancelled
            client.close()

    def wait_changes(
        self, since: Any, limit: int, doc_ids: list[str] | None, cancelled: StopSignal
    ) -> ChangesPage:
        # Take the client first, then check ``cancelled``: interrupt_wait() sets the stop
        # signal before it aborts the client, so either this sees the signal or it holds the
        # client that gets aborted.
        client = self._longpoll_client()
        while True:
            if cancelled.is_set():
                raise Cancelled("the replication was cancelled")
            result = client.changes(
                since,
                limit=limit,
                style="all_docs",
                doc_ids=doc_ids,
                feed="longpoll",
                heartbeat=self.heartbeat_ms,
                read_timeout=self.heartbeat_ms / 1000 + 20,
            )
            if cancelled.is_set():
                raise Cancelled("the replication was cancelled")
            last_seq = result.get("last_seq")
            page = ChangesPage(result.get("results") or [], since if last_seq is None else last_seq)
            if page.results or page.last_seq != since:
                return page

    # revs_diff and fetching ---------------------------------------------------------------

    def revs_diff(self, revs: dict[str, list[str]]) -> dict[str, Any]:
        return _split_on_413(self.remote.revs_diff, revs)

    def fetch(self, missing: dict[str, list[str]], atts_since: dict[str, list[str]] | None = None) -> FetchResult:
        """The missing revisions with their history and attachments: ``_bulk_get`` where the
        server has it; otherwise, as PouchDB, ``_all_docs?keys`` for first-generation revisions
        (``first_generation_fast_path``) and ``open_revs`` GETs for the rest."""
        if not missing:
            return FetchResult()
        if self.remote.bulk_get_supported is not False:
            fetched = self._fetch_bulk_get(missing, atts_since or {})
            if fetched is not None:
                return fetched
        result = FetchResult()
        rest = dict(missing)
        if self.first_generation_fast_path:
            fast = {doc_id: revs for doc_id, revs in missing.items() if len(revs) == 1 and revs[0].startswith("1-")}
            if fast:
                got = self._fetch_first_generation(fast)
                result.docs.extend(got.values())
                rest = {doc_id: revs for doc_id, revs in missing.items() if doc_id not in got}
        if rest:
            more = self._fetch_open_revs(rest, atts_since or {})
            result.docs.extend(more.docs)
            result.unresolved.extend(more.unresolved)
        return result

    def _fetch_first_generation(self, wanted: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
        """Documents whose only missing rev is their first: ``_all_docs?include_docs`` gives
        them in one cheap request (a generation-1 history is the rev itself). Documents that
        have attachments, are deleted, or have moved on are left to ``_bulk_get``."""
        reply = _split_on_413(
            lambda keys: self.remote.all_docs(keys=keys, include_docs=True), list(wanted)
        )
        got: dict[str, dict[str, Any]] = {}
        for row in reply.get("rows") or []:
            doc = row.get("doc")
            doc_id = row.get("id")
            if not isinstance(doc, dict) or doc_id not in wanted:
                continue
            rev = doc.get("_rev", "")
            if rev != wanted[doc_id][0] or "_attachments" in doc or doc.get("_deleted"):
                continue
            doc["_revisions"] = {"start": 1, "ids": [rev[2:]]}
            got[doc_id] = clean_doc(doc)
        return got

    def _fetch_bulk_get(self, missing: dict[str, list[str]], atts_since: dict[str, list[str]]) -> FetchResult | None:
        """``_bulk_get``, or None when the server has no such endpoint (this client then stops
        asking)."""
        items: list[dict[str, Any]] = []
        for doc_id, revs in missing.items():
            for rev in revs:
                item: dict[str, Any] = {"id": doc_id, "rev": rev}
                if atts_since.get(doc_id):
                    item["atts_since"] = atts_since[doc_id]
                items.append(item)
        try:
            reply = _split_on_413(self.remote.bulk_get, items)
        except RemoteError as exc:
            # Only "no such endpoint" downgrades, and only this client: a 400 or a 5xx
            # says nothing about the server lacking _bulk_get.
            if exc.status not in BULK_GET_MISSING_STATUSES:
                raise
            self.remote.bulk_get_supported = False
            return None
        self.remote.bulk_get_supported = True
        return collect_bulk_get(missing, reply)

    def _fetch_open_revs(self, missing: dict[str, list[str]], atts_since: dict[str, list[str]]) -> FetchResult:
        """Fallback: ``GET /db/id?open_revs=[…]`` per document, 6 at a time, at most 50 revs
        per URL."""
        jobs: list[tuple[str, list[str]]] = []
        for doc_id, revs in missing.items():
            for i in range(0, len(revs), MAX_REVS_PER_URL):
                jobs.append((doc_id, revs[i : i + MAX_REVS_PER_URL]))

        def run(job: tuple[str, list[str]]) -> tuple[str, list[str], list[dict[str, Any]] | RemoteError]:
            doc_id, revs = job
            try:
                params: dict[str, Any] = {}
                since = atts_since.get(doc_id)
                if since:
                    params["atts_since"] = since
                reply = self.remote.get_json(
                    _doc_path(doc_id),
                    open_revs=revs,
                    revs=True,
                    latest=True,
                    attachments=True,
                    **params,
                )
                return doc_id, revs, reply
            except RemoteNotFound as exc:
                return doc_id, revs, exc

        found: list[tuple[str, dict[str, Any]]] = []
        errors: dict[tuple[str, str], tuple[str, str]] = {}
        from concurrent.futures import ThreadPoolExecutor  # here: only a server without _bulk_get needs it

        with ThreadPoolExecutor(max_workers=BULK_GET_FALLBACK_CONCURRENCY) as pool:
            for doc_id, revs, reply in pool.map(run, jobs):
                if isinstance(reply, RemoteError):
                    for rev in revs:
                        errors[(doc_id, rev)] = (reply.error, reply.reason)
                    continue
                for entry in reply:
                    if "ok" in entry and isinstance(entry["ok"], dict):
                        found.append((doc_id, clean_doc(entry["ok"])))
                    elif "missing" in entry:
                        errors[(doc_id, str(entry["missing"]))] = ("not_found", "missing")
        return match_fetched(missing, found, errors)

    # writing ------------------------------------------------------------------------------------

    def write(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``_bulk_docs`` with ``new_edits=false`` in requests bounded by ``max_request_bytes``.

        A 413 splits the request in half, recursively. A single document still refused is
        reported as a ``too_large`` failure with its size; the others go through.
        """
        encoded = [(doc, dumps(doc)) for doc in docs]
        failures: list[dict[str, Any]] = []
        for chunk in _chunks_by_size(encoded, self.max_request_bytes):
            failures.extend(self._write_chunk(chunk))
        return failures

    def _write_chunk(self, chunk: list[tuple[dict[str, Any], bytes]]) -> list[dict[str, Any]]:
        try:
            reply = self.remote.bulk_docs_serialized([data for _, data in chunk])
        except RequestTooLarge as exc:
            if len(chunk) > 1:
                half = len(chunk) // 2
                return self._write_chunk(chunk[:half]) + self._write_chunk(chunk[half:])
            doc, data = chunk[0]
            return [
                {
                    "id": doc.get("_id"),
                    "rev": doc.get("_rev"),
                    "error": "too_large",
                    "reason": exc.reason,
                    "size": len(data),
                    "status": 413,
                }
            ]
        except RemotePreconditionFailed as exc:
            if exc.error == "missing_stub":
                raise StubsUnresolved(f"the server could not resolve attachment stubs: {exc.reason}") from None
            raise
        return [r for r in (reply if isinstance(reply, list) else []) if isinstance(r, dict) and r.get("error")]

    # checkpoints ------------------------------------------------------------------------------

    def get_checkpoint(self, rep_id: str) -> dict[str, Any] | None:
        return self.remote.get_local(rep_id)

    def put_checkpoint(self, doc: dict[str, Any]) -> str:
        return str(self.remote.put_local(doc)["rev"])

    def abort(self) -> None:
        self.remote.abort()
        with self._longpoll_lock:
            client = self._longpoll
        if client is not None:
            client.abort()

    def close(self) -> None:
        with self._longpoll_lock:
            self._closed = True
            client, self._longpoll = self._longpoll, None
        if client is not None:
            client.abort()
            client.close()
        if self.owns_client:
            self.remote.close()


def _doc_path(doc_id: str) -> str:
    from storyloom.sync.urls import encode_doc_id

    return encode_doc_id(doc_id)


def _chunks_by_size(
    encoded: list[tuple[dict[str, Any], bytes]], max_bytes: int
) -> Iterable[list[tuple[dict[str, Any], bytes]]]:
    chunk: list[tuple[dict[str, Any], bytes]] = []
    size = 32  # the envelope
    for item in encoded:
        item_size = len(item[1]) + 1
        if chunk and size + item_size > max_bytes:
            yield chunk
            chunk, size = [], 32
        chunk.append(item)
        size += item_size
    if chunk:
        yield chunk


def _split_on_413(call: Callable[[_Payload], dict[str, Any]], payload: _Payload) -> dict[str, Any]:
    """Call with a dict or list payload; on 413 split it in halves and merge the replies."""
    try:
        return call(payload)
    except RequestTooLarge:
        if len(payload) <= 1:
            raise
    if isinstance(payload, dict):
        items = list(payload.items())
        half = len(items) // 2
        first = _split_on_413(call, dict(items[:half]))
        second = _split_on_413(call, dict(items[half:]))
    else:
        half = len(payload) // 2
        first = _split_on_413(call, payload[:half])
        second = _split_on_413(call, payload[half:])
    if isinstance(first, dict) and ("results" in first or "rows" in first):
        key = "results" if "results" in first else "rows"
        return {**first, key: list(first.get(key) or []) + list(second.get(key) or [])}
    if isinstance(first, dict):
        return {**first, **second}
    return list(first) + list(second)


__all__ = [
    "ChangesPage",
    "FetchResult",
    "LocalPeer",
    "LocalStoreError",
    "Peer",
    "RemotePeer",
    "StubsUnresolved",
    "match_fetched",
    "take_included_docs",
]
