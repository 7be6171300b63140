"""An embedded document database on SQLite with CouchDB semantics (docs/protocol.md sections 1-2).

One file per project (WAL mode), or ``":memory:"``. One writer at a time (a lock), many readers
(one SQLite connection per reading thread, each seeing a committed snapshot). Every ``bulk_docs``
call is one transaction, so a killed process never leaves a torn document, and a write is only
acknowledged after its transaction committed.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from storyloom.store import revtree
from storyloom.store.errors import (
    BadRequest,
    Conflict,
    DatabaseClosed,
    Forbidden,
    MissingStub,
    NotAStore,
    NotFound,
    StoreError,
)

ChangeCallback = Callable[[dict[str, Any]], None]
Validator = Callable[[dict[str, Any], "dict[str, Any] | None"], None]

LOCAL_PREFIX = "_local/"
DEFAULT_REVS_LIMIT = 1000
_ABSENT = object()  # "no entry" in a dict that may hold None
# Revision hashes: the first 128 bits of a SHA-1, as 32 lowercase hex digits (see _write_one).
# write_all_interactive computes the same hash for new documents: change both together.
_sha1 = hashlib.sha1
# Reading connections kept open between reads (more are opened while more threads read at once).
_IDLE_READERS = 4
DESIGN_PREFIX = "_design/"
# Top-level fields a document may carry; any other ``_`` field is refused (couch_doc.erl).
_SPECIAL_FIELDS_KEPT = {"_id", "_rev", "_deleted", "_attachments", "_revisions"}
_SPECIAL_FIELDS_IGNORED = {"_conflicts", "_deleted_conflicts", "_revs_info", "_local_seq"}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    id TEXT PRIMARY KEY,
    rev_tree TEXT NOT NULL,
    winning_rev TEXT NOT NULL,
    deleted INTEGER NOT NULL,
    seq INTEGER NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS revs (
    doc_id TEXT NOT NULL,
    rev TEXT NOT NULL,
    deleted INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (doc_id, rev)
);
CREATE TABLE IF NOT EXISTS attachments (
    digest TEXT PRIMARY KEY,
    data BLOB NOT NULL,
    length INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS att_refs (
    digest TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    rev TEXT NOT NULL,
    PRIMARY KEY (digest, doc_id, rev)
);
CREATE INDEX IF NOT EXISTS att_refs_by_doc ON att_refs (doc_id, rev);
CREATE TABLE IF NOT EXISTS local_docs (
    id TEXT PRIMARY KEY,
    rev INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def _make_fast_dumps() -> Callable[[Any], str] | None:
    """Compact JSON with one C encoder built once (JSONEncoder.encode builds one per call).

    The stdlib encoder of the store (used for whatever orjson refuses, see ``_encode``). It relies
    on the stdlib's C accelerator; when that is missing or encodes differently, ``_ENCODER.encode``
    is used.
    """
    try:
        from json.encoder import c_make_encoder, encode_basestring

        if c_make_encoder is None:
            return None
        c_encode = c_make_encoder(None, _ENCODER.default, encode_basestring, None, ":", ",", False, False, True)

        def fast_dumps(value: Any) -> str:
            return "".join(c_encode(value, 0))

        sample = {"a": [1, 2.5, None, True, "é\n\"", {"b": -0.0}], "": 1e300}
        if fast_dumps(sample) != _ENCODER.encode(sample) or fast_dumps("x") != '"x"':
            return None
        return fast_dumps
    except Exception:  # any surprise in the private API: keep the plain encoder
        return None


_std_dumps: Callable[[Any], str] = _make_fast_dumps() or _ENCODER.encode


_INF = float("inf")


def _has_non_finite(value: Any) -> bool:
    """True if ``value`` holds a NaN or an infinite float anywhere (which orjson writes as null)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            if item != item or item in (_INF, -_INF):
                return True
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


try:
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency; the stdlib encoder still works
    orjson = None  # type: ignore[assignment]


if orjson is not None:
    _orjson_dumps = orjson.dumps
    # Types the stdlib encoder refuses or encodes differently go to the stdlib (``default=None``
    # makes orjson raise for them): dataclasses, datetimes, and subclasses of str/int/dict/list.
    _ORJSON_OPTIONS = (
        orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS
    )

    def _encode(value: Any) -> tuple[str, bytes | None]:
        """Compact JSON of ``value``: (text, its UTF-8 bytes, or None when not at hand).

        Performance (bench/store_bench.py): orjson encodes a 1 KB body about ten times faster than
        the stdlib. Whatever orjson refuses (integers beyond 64 bits, non-str keys, lone
        surrogates, nesting deeper than 255, the passthrough types above) and whatever it would
        write differently in meaning (NaN and infinities, which it writes as null) is encoded by
        the stdlib encoder, exactly as before. Both write the same JSON text for the same value
        except in the spelling of some floats (``1e-07`` against ``1e-7``), which parse back to the
        same number.
        """
        try:
            raw = _orjson_dumps(value, option=_ORJSON_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError
            return _std_dumps(value), None
        text = raw.decode()
        if "null" in text and _has_non_finite(value):
            return _std_dumps(value), None
        return text, raw

    def _dumps(value: Any) -> str:
        """Compact JSON text of ``value`` (see ``_encode``)."""
        return _encode(value)[0]

else:  # pragma: no cover
    _dumps = _std_dumps

    def _encode(value: Any) -> tuple[str, bytes | None]:
        return _std_dumps(value), None


def _encode_tree(tree: list) -> str:
    """The rev tree as stored in ``docs.rev_tree``: the tree's own JSON (see revtree.py).

    Fix: a tree nests two JSON levels per generation, and json.dumps/json.loads hit Python's
    recursion limit at about 490 generations although revs_limit defaults to 1000. Deep trees now
    go through the iterative encoder and decoder below; the stored text is the same JSON.
    """
    if len(tree) == 1 and not tree[0]["ids"][2] and tree[0]["pos"] == 1:  # a new document
        node = tree[0]["ids"]
        if node[1] == _OPTS_LIVE and _is_hex(node[0]):
            return _NEW_TREE_LIVE % node[0]
    try:
        return _dumps(tree)
    except RecursionError:
        return _encode_tree_deep(tree)


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)


def _encode_tree_deep(tree: list) -> str:
    parts = ["["]
    for index, branch in enumerate(tree):
        if index:
            parts.append(",")
        parts.append(f'{{"pos":{int(branch["pos"])},"ids":')
        stack: list[Any] = [branch["ids"]]  # nodes (lists) and literal text to emit (str)
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                parts.append(item)
                continue
            parts.append(f"[{_dumps(item[0])},{_dumps(item[1])},[")
            stack.append("]]")
            children = item[2]
            for i in range(len(children) - 1, -1, -1):
                stack.append(children[i])
                if i:
                    stack.append(",")
        parts.append("}")
    parts.append("]")
    return "".join(parts)


# ``_encode_tree`` of a new document's one-node tree, to be completed with its (hex) hash.
_OPTS_LIVE = {"status": "available"}
_NEW_TREE_LIVE = '[{"pos":1,"ids":["%s",{"status":"available"},[]]}]'
_NEW_TREE_DELETED = '[{"pos":1,"ids":["%s",{"status":"available","deleted":true},[]]}]'
_NEW_TREE_HEAD, _NEW_TREE_TAIL = _NEW_TREE_LIVE.split("%s")
_JSON = json.JSONDecoder()


def _decode_tree(text: str) -> list:
    """The inverse of ``_encode_tree``."""
    try:
        return json.loads(text)
    except RecursionError:
        return _decode_tree_deep(text)


def _decode_tree_deep(text: str) -> list:
    """Parse ``[{"pos": N, "ids": node}, ...]`` where node is ``[hash, opts, [node, ...]]``, without
    recursion. Hashes, opts and ``pos`` are shallow and go through the stdlib decoder."""
    i = 0

    def skip(at: int) -> int:
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        return at

    def expect(at: int, char: str) -> int:
        at = skip(at)
        if text[at] != char:
            raise ValueError(f"rev tree JSON: expected {char!r} at {at}")
        return at + 1

    def value(at: int) -> tuple[Any, int]:
        return _JSON.raw_decode(text, skip(at))

    tree: list = []
    i = expect(i, "[")
    i = skip(i)
    if text[i] == "]":
        return tree
    while True:
        i = expect(i, "{")
        branch: dict[str, Any] = {}
        while True:
            key, i = value(i)
            i = expect(i, ":")
            if key == "ids":
                # Iterative node parser: ``open`` holds the nodes whose children list is still open.
                root: list | None = None
                open_nodes: list[list] = []
                while True:
                    i = expect(i, "[")
                    rev_hash, i = value(i)
                    i = expect(i, ",")
                    opts, i = value(i)
                    i = expect(i, ",")
                    i = expect(i, "[")
                    node: list = [rev_hash, opts, []]
                    if open_nodes:
                        open_nodes[-1][2].append(node)
                    else:
                        root = node
                    open_nodes.append(node)
                    i = skip(i)
                    if text[i] != "]":
                        continue  # the first child follows
                    # Close finished nodes: ``]`` ends a children list, the next ``]`` the node.
                    while open_nodes:
                        i = expect(i, "]")
                        i = expect(i, "]")
                        open_nodes.pop()
                        i = skip(i)
                        if open_nodes and text[i] == ",":
                            i += 1  # a sibling follows
                            break
                    if not open_nodes:
                        break
                branch["ids"] = root
            else:
                branch[key], i = value(i)
            i = skip(i)
            if text[i] == ",":
                i += 1
                continue
            i = expect(i, "}")
            break
        tree.append(branch)
        i = skip(i)
        if text[i] == ",":
            i += 1
            continue
        expect(i, "]")
        return tree


def attachment_digest(data: bytes) -> str:
    """Our digest of raw attachment bytes: ``md5-<base64>`` (never compared with a peer's)."""
    return "md5-" + base64.b64encode(hashlib.md5(data).digest()).decode()


def validate_doc_id(doc_id: Any) -> None:
    """Refuse ids CouchDB refuses (couch_doc.erl validate_docid/1)."""
    if not isinstance(doc_id, str) or doc_id == "":
        raise BadRequest("Document id must be a non-empty string", error="illegal_docid")
    if doc_id in (DESIGN_PREFIX, LOCAL_PREFIX):
        raise BadRequest(f"Illegal document id {doc_id!r}", error="illegal_docid")
    if doc_id.startswith("_") and not doc_id.startswith((DESIGN_PREFIX, LOCAL_PREFIX)):
        raise BadRequest("Only reserved document ids may start with underscore.", error="illegal_docid")


def _local_key(doc_id: str) -> str:
    key = doc_id[len(LOCAL_PREFIX):] if doc_id.startswith(LOCAL_PREFIX) else doc_id
    if not key:
        raise BadRequest("Local document id must not be empty", error="illegal_docid")
    return key


def _check_special_fields(doc: dict[str, Any]) -> None:
    for key in doc:
        if key.startswith("_") and key not in _SPECIAL_FIELDS_KEPT and key not in _SPECIAL_FIELDS_IGNORED:
            raise BadRequest(f"Bad special document member: {key}", error="doc_validation")
    if "_deleted" in doc:
        _check_deleted_flag(doc["_deleted"])


def _check_deleted_flag(value: Any) -> None:
    # bool("false") is True: a non-boolean must never delete a document.
    if not isinstance(value, bool):
        raise BadRequest("_deleted must be true or false", error="doc_validation")


def replicated_revision(doc: dict[str, Any]) -> tuple[str, int, list[str]]:
    """The canonical ``(rev, generation, ids newest first)`` of a ``new_edits=False`` document.

    Checked before anything is written, so a malformed revision fails the whole request (400)
    and no body can ever be stored under a rev that differs from the one in its tree.
    """
    revisions = doc.get("_revisions")
    given = doc.get("_rev")
    if revisions is not None:
        if not isinstance(revisions, dict):
            raise BadRequest("Invalid _revisions: expected an object {start, ids}")
        start, ids = revisions.get("start"), revisions.get("ids")
        if isinstance(start, bool) or not isinstance(start, int) or start < 1:
            raise BadRequest("Invalid _revisions: start must be a positive integer")
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
            raise BadRequest("Invalid _revisions: ids must be a non-empty list of non-empty strings")
        if start < len(ids):
            raise BadRequest("Invalid _revisions: start must be at least the number of ids")
        rev = f"{start}-{ids[0]}"
        if given is not None:
            try:
                given_pos, given_hash = revtree.parse_rev(given)
            except ValueError as exc:
                raise BadRequest("Invalid rev format") from exc
            if f"{given_pos}-{given_hash}" != rev:
                raise BadRequest("_rev does not match _revisions")
        return rev, start, list(ids)
    try:
        pos, rev_hash = revtree.parse_rev(given)
    except ValueError as exc:
        raise BadRequest("Invalid rev format") from exc
    if pos < 1:
        raise BadRequest("Invalid rev format: the generation must be at least 1")
    return f"{pos}-{rev_hash}", pos, [rev_hash]


def _checked_body(doc: dict[str, Any]) -> dict[str, Any]:
    """``_check_special_fields`` and ``_body_of`` in one pass over the document (write hot path)."""
    body = {}
    for key, value in doc.items():
        if key[:1] != "_" or key == "_attachments":
            body[key] = value
        elif key not in _SPECIAL_FIELDS_KEPT and key not in _SPECIAL_FIELDS_IGNORED:
            raise BadRequest(f"Bad special document member: {key}", error="doc_validation")
        elif key == "_deleted":
            _check_deleted_flag(value)
    return body


def _body_of(doc: dict[str, Any]) -> dict[str, Any]:
    """The stored body: the document without the fields the store manages itself."""
    return {k: v for k, v in doc.items() if not k.startswith("_") or k == "_attachments"}


class _Snapshot:
    """A read view on one connection; reads inside one snapshot see one committed state."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def doc_row(self, doc_id: str) -> tuple[list, str, bool, int] | None:
        row = self.conn.execute(
            "SELECT rev_tree, winning_rev, deleted, seq FROM docs WHERE id = ?", (doc_id,)
        ).fetchone()
        if row is None:
            return None
        return _decode_tree(row[0]), row[1], bool(row[2]), row[3]

    def body(self, doc_id: str, rev: str) -> tuple[dict[str, Any], bool] | None:
        row = self.conn.execute(
            "SELECT body, deleted FROM revs WHERE doc_id = ? AND rev = ?", (doc_id, rev)
        ).fetchone()
        if row is None:
            return None
        return json.loads(row[0]), bool(row[1])

    def attachment_data(self, digest: str) -> bytes | None:
        row = self.conn.execute("SELECT data FROM attachments WHERE digest = ?", (digest,)).fetchone()
        return None if row is None else bytes(row[0])

    def meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else row[0]


_SQLITE_HEADER = b"SQLite format 3\x00"


def _check_is_store(path: str) -> None:
    """Refuse an existing file that is not a Storyloom store, reading it only (read-only
    connection, so not even the journal mode of another program's database changes)."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(_SQLITE_HEADER))
    except OSError as exc:
        raise NotAStore(f"cannot read {path}: {exc.strerror or exc}") from None
    if header != _SQLITE_HEADER:
        raise NotAStore(f"{path} is not a Storyloom store (not an SQLite database)")
    try:
        conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'instance_uuid'").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise NotAStore(f"{path} is not a Storyloom store ({exc})") from None
    if row is None:
        raise NotAStore(f"{path} is not a Storyloom store (it has no instance id)")


class Database:
    """A CouchDB-like database in one SQLite file. See docs/store.md for the full contract."""

    def __init__(
        self,
        path: str | Path,
        revs_limit: int | None = None,
        validator: Validator | None = None,
        name: str | None = None,
        *,
        create: bool = True,
    ) -> None:
        """``revs_limit``: None keeps the database's own (set by an earlier open or
        ``set_revs_limit``; 1000 for a new database); a number sets and stores it.

        A file that exists must be a Storyloom store: anything else (another program's SQLite
        file, a file that is not SQLite) raises :class:`NotAStore` and is left untouched. With
        ``create=False`` a missing file raises :class:`NotAStore` too."""
        if revs_limit is not None and (isinstance(revs_limit, bool) or not isinstance(revs_limit, int)
                                       or revs_limit < 1):
            raise BadRequest("revs_limit must be a positive integer")
        self.path = str(path)
        self.name = name or (Path(self.path).stem if self.path != ":memory:" else "memory")
        self.revs_limit = DEFAULT_REVS_LIMIT if revs_limit is None else revs_limit
        self.validator = validator
        self._memory = self.path == ":memory:"
        self._write_lock = threading.RLock()
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []  # every open reading connection
        self._idle_readers: list[sqlite3.Connection] = []  # those not inside a read right now
        self._readers_lock = threading.Lock()
        self._subscribers: list[ChangeCallback] = []
        self._seq_cond = threading.Condition()
        self._closed = False
        existing = not self._memory and os.path.exists(self.path) and os.path.getsize(self.path) > 0
        if not self._memory and not existing:
            if not create:
                there = os.path.exists(self.path)
                raise NotAStore(f"{self.path} is empty, not a Storyloom store" if there
                                else f"no Storyloom store at {self.path}")
            # A store holds a project's data and credentials: only its owner may read it. SQLite
            # gives the -wal and -shm files the mode of the database file it finds.
            try:
                os.close(os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
            except OSError:  # created meanwhile (its mode stands), or not creatable (SQLite says why)
                pass
        if existing:
            _check_is_store(self.path)
        try:
            self._writer = self._connect()
        except sqlite3.DatabaseError as exc:
            raise NotAStore(f"{self.path} is not a Storyloom store ({exc})") from None
        with self._write_lock:
            self._writer.executescript(_SCHEMA)
            cur = self._writer.cursor()
            cur.execute("BEGIN IMMEDIATE")
            cur.execute("INSERT OR IGNORE INTO meta VALUES ('instance_uuid', ?)", (uuid.uuid4().hex,))
            cur.execute("INSERT OR IGNORE INTO meta VALUES ('update_seq', '0')")
            cur.execute("INSERT OR IGNORE INTO meta VALUES ('doc_count', '0')")
            cur.execute("INSERT OR IGNORE INTO meta VALUES ('doc_del_count', '0')")
            if revs_limit is None:
                cur.execute("INSERT OR IGNORE INTO meta VALUES ('revs_limit', ?)", (str(self.revs_limit),))
                stored = cur.execute("SELECT value FROM meta WHERE key = 'revs_limit'").fetchone()[0]
                self.revs_limit = int(stored)
            else:
                cur.execute("INSERT OR REPLACE INTO meta VALUES ('revs_limit', ?)", (str(revs_limit),))
            cur.execute("COMMIT")

    # -- connections -------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
        if not self._memory:
            conn.execute("PRAGMA journal_mode=WAL")
            # FULL: an acknowledged write survives power loss too, not only a process kill.
            conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=OFF")
        return conn

    def _checkout_reader(self) -> sqlite3.Connection:
        """A reading connection for one read transaction, from the idle pool or new.

        Fix: each reading thread used to keep a connection of its own (thread-local) until
        close(), so every short-lived thread that read (a sync run, a request) leaked a connection
        and its file descriptors. Connections now go back to a bounded pool after each read.
        """
        if self._closed:
            raise DatabaseClosed()
        if self._memory:
            return self._writer
        with self._readers_lock:
            if self._idle_readers:
                return self._idle_readers.pop()
        conn = self._connect()
        with self._readers_lock:
            self._readers.append(conn)
        return conn

    def _checkin_reader(self, conn: sqlite3.Connection) -> None:
        if self._memory:
            return
        with self._readers_lock:
            if not self._closed and len(self._idle_readers) < _IDLE_READERS:
                self._idle_readers.append(conn)
                return
            if conn in self._readers:
                self._readers.remove(conn)
        try:
            conn.close()
        except sqlite3.Error:
            pass

    def _read(self) -> _ReadContext:
        return _ReadContext(self)

    def close(self) -> None:
        """Close every connection. Further calls raise."""
        if self._closed:
            return
        self._closed = True
        with self._write_lock:
            with self._readers_lock:
                for conn in self._readers:
                    try:
                        conn.close()
                    except sqlite3.Error:
                        pass
                self._readers.clear()
                self._idle_readers.clear()
            self._writer.close()
        with self._seq_cond:
            self._seq_cond.notify_all()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- info and notifications ------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        with self._read() as snap:
            return {
                "db_name": self.name,
                "doc_count": int(snap.meta("doc_count", "0") or 0),
                "doc_del_count": int(snap.meta("doc_del_count", "0") or 0),
                "update_seq": int(snap.meta("update_seq", "0") or 0),
                "instance_uuid": snap.meta("instance_uuid"),
                "revs_limit": self.revs_limit,
            }

    @property
    def update_seq(self) -> int:
        return int(self.info()["update_seq"])

    def subscribe(self, callback: ChangeCallback) -> Callable[[], None]:
        """Call ``callback({"id", "rev", "seq", "deleted"})`` after each committed change."""
        if self._closed:
            raise DatabaseClosed()
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            try:
                self._subscribers.remove(callback)
            except ValueError:
                pass

        return unsubscribe

    def wait_for_change(self, since: int, timeout: float) -> bool:
        """Block until ``update_seq > since`` or ``timeout`` seconds pass; True if it changed."""
        with self._seq_cond:
            return self._seq_cond.wait_for(lambda: self._closed or self.update_seq > since, timeout)

    def _notify(self, changes: list[tuple[str, str, int, bool]]) -> None:
        """Wake waiters, then call every listener with each change ``(id, rev, seq, deleted)`` as a dict."""
        if not changes:
            return
        with self._seq_cond:
            self._seq_cond.notify_all()
        subscribers = list(self._subscribers)
        if not subscribers:
            return
        as_dicts = [{"id": i, "rev": r, "seq": q, "deleted": d} for i, r, q, d in changes]
        for callback in subscribers:
            for change in as_dicts:
                try:
                    callback(change)
                except Exception:  # a listener's bug must not fail the write
                    pass

    def set_revs_limit(self, limit: int) -> None:
        if not isinstance(limit, int) or limit < 1:
            raise BadRequest("revs_limit must be a positive integer")
        self.revs_limit = limit
        with self._write_lock:
            self._writer.execute("INSERT OR REPLACE INTO meta VALUES ('revs_limit', ?)", (str(limit),))

    # -- writes ----------------------------------------------------------------------------------

    def put(self, doc: dict[str, Any]) -> dict[str, Any]:
        """Write one document (interactive edit). Raises Conflict, BadRequest, Forbidden, MissingStub."""
        if not isinstance(doc, dict):
            raise BadRequest("Document must be a JSON object")
        doc_id = doc.get("_id")
        if isinstance(doc_id, str) and doc_id.startswith(LOCAL_PREFIX):
            return self.put_local(doc)
        result = self.bulk_docs([doc])[0]
        if "error" in result:
            raise _error_from_result(result)
        return result

    def remove(self, doc_id: str, rev: str) -> dict[str, Any]:
        """Delete a document by writing a tombstone on top of ``rev``."""
        return self.put({"_id": doc_id, "_rev": rev, "_deleted": True})

    def bulk_docs(self, docs: Iterable[dict[str, Any]], new_edits: bool = True) -> list[dict[str, Any]]:
        """Write many documents in one transaction.

        With ``new_edits=True``: one result per doc, ``{"ok", "id", "rev"}`` or ``{"id", "error",
        "reason"}``. With ``new_edits=False`` (replication): revisions are merged into the trees as
        they are; only failures are returned (an empty list on full success); a request-level
        problem (missing ``_rev``, bad special field, unresolvable stub) fails the whole call.
        """
        docs = list(docs)
        for doc in docs:
            if not isinstance(doc, dict):
                raise BadRequest("Each document must be a JSON object")
        if not new_edits:
            for doc in docs:
                _check_special_fields(doc)
                if "_rev" not in doc and "_revisions" not in doc:
                    raise BadRequest(
                        "When `new_edits: false`, the document needs `_rev` or `_revisions` specified."
                    )
                validate_doc_id(doc.get("_id"))
                if doc["_id"].startswith(LOCAL_PREFIX):
                    raise BadRequest("_local documents cannot be replicated")
                replicated_revision(doc)
        with self._write_lock:
            if self._closed:
                raise DatabaseClosed()
            cur = self._writer.cursor()
            cur.execute("BEGIN IMMEDIATE")
            writer = _Writer(self, cur)
            try:
                writer.prefetch([doc.get("_id") for doc in docs])
                if new_edits:
                    results = writer.write_all_interactive(docs)
                else:
                    results = []
                    for doc in docs:
                        failure = writer.write_replicated(doc)
                        if failure:
                            results.append(failure)
                writer.finish()
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise
        self._notify(writer.changes)
        return results

    # -- reads -------------------------------------------------------------------------------

    def get(
        self,
        doc_id: str,
        rev: str | None = None,
        revs: bool = False,
        revs_info: bool = False,
        conflicts: bool = False,
        deleted_conflicts: bool = False,
        open_revs: str | list[str] | None = None,
        latest: bool = False,
        attachments: bool = False,
        atts_since: list[str] | None = None,
    ) -> Any:
        """Read a document, a revision of it, or (with ``open_revs``) several revisions."""
        if isinstance(doc_id, str) and doc_id.startswith(LOCAL_PREFIX):
            return self.get_local(doc_id)
        with self._read() as snap:
            row = snap.doc_row(doc_id)
            if open_revs is not None:
                return self._open_revs(snap, doc_id, row, open_revs, latest, revs, attachments, atts_since)
            if row is None:
                raise NotFound("missing")
            tree, winner, deleted, _ = row
            if rev is None:
                if deleted:
                    raise NotFound("deleted")
                rev = winner
            else:
                try:
                    revtree.parse_rev(rev)
                except ValueError as exc:
                    raise BadRequest("Invalid rev format") from exc
                if latest:
                    descendants = revtree.leaves_descending_from(tree, rev)
                    if descendants:
                        rev = descendants[0].rev
            doc = self._materialize(snap, doc_id, tree, rev, revs, attachments, atts_since)
            if doc is None:
                raise NotFound("missing")
            if revs_info:
                doc["_revs_info"] = self._revs_info(snap, doc_id, tree, rev)
            if conflicts or deleted_conflicts:
                live, dead = revtree.conflicts(tree)
                if conflicts and live and rev == winner:
                    doc["_conflicts"] = live
                if deleted_conflicts and dead and rev == winner:
                    doc["_deleted_conflicts"] = dead
            return doc

    def _open_revs(
        self,
        snap: _Snapshot,
        doc_id: str,
        row: tuple | None,
        open_revs: str | list[str],
        latest: bool,
        revs: bool,
        attachments: bool,
        atts_since: list[str] | None,
    ) -> list[dict[str, Any]]:
        if open_revs == "all":
            if row is None:
                return []
            wanted = [leaf.rev for leaf in revtree.leaves(row[0])]
        elif isinstance(open_revs, list):
            wanted = list(open_revs)
        else:
            raise BadRequest("open_revs must be 'all' or a list of revs")
        out: list[dict[str, Any]] = []
        seen: set[str] = set()
        for wanted_rev in wanted:
            try:
                revtree.parse_rev(wanted_rev)
            except ValueError as exc:
                raise BadRequest(f"Invalid rev format: {wanted_rev!r}") from exc
            targets = [wanted_rev]
            if row is not None and latest:
                descendants = revtree.leaves_descending_from(row[0], wanted_rev)
                if descendants:
                    targets = [leaf.rev for leaf in descendants]
            for target in targets:
                if target in seen:
                    continue
                seen.add(target)
                doc = None
                if row is not None:
                    doc = self._materialize(snap, doc_id, row[0], target, revs, attachments, atts_since)
                out.append({"ok": doc} if doc is not None else {"missing": target})
        return out

    def _materialize(
        self,
        snap: _Snapshot,
        doc_id: str,
        tree: list,
        rev: str,
        revs: bool,
        attachments: bool,
        atts_since: list[str] | None = None,
    ) -> dict[str, Any] | None:
        stored = snap.body(doc_id, rev)
        if stored is None:
            return None
        body, deleted = stored
        doc: dict[str, Any] = {"_id": doc_id, "_rev": rev}
        doc.update(body)
        if deleted:
            doc["_deleted"] = True
        if revs:
            path = revtree.ancestry(tree, rev)
            if path:
                doc["_revisions"] = {"start": path[0][0], "ids": [node[0] for _, node in path]}
        atts = doc.get("_attachments")
        if atts:
            threshold = 0
            if atts_since:
                ancestors = {f"{p}-{n[0]}" for p, n in revtree.ancestry(tree, rev)}
                for since_rev in atts_since:
                    if since_rev in ancestors:
                        threshold = max(threshold, revtree.parse_rev(since_rev)[0])
            out_atts: dict[str, Any] = {}
            for name, meta in atts.items():
                entry = {k: v for k, v in meta.items() if k not in ("stub", "data")}
                if attachments and entry.get("revpos", 0) > threshold:
                    data = snap.attachment_data(meta["digest"])
                    entry["data"] = base64.b64encode(data or b"").decode()
                else:
                    entry["stub"] = True
                out_atts[name] = entry
            doc["_attachments"] = out_atts
        return doc

    def _revs_info(self, snap: _Snapshot, doc_id: str, tree: list, rev: str) -> list[dict[str, str]]:
        info = []
        for pos, node in revtree.ancestry(tree, rev):
            node_rev = f"{pos}-{node[0]}"
            if node[1].get("deleted"):
                status = "deleted"
            elif snap.body(doc_id, node_rev) is not None:
                status = "available"
            else:
                status = "missing"
            info.append({"rev": node_rev, "status": status})
        return info

    def get_attachment(self, doc_id: str, name: str, rev: str | None = None) -> bytes:
        """The raw bytes of attachment ``name`` of the winning (or given) revision."""
        # One snapshot for the document and its data (the nested get() joins it): a write between
        # the two reads could otherwise collect the data of a revision just stemmed.
        with self._read() as snap:
            doc = self.get(doc_id, rev=rev)
            meta = (doc.get("_attachments") or {}).get(name)
            if meta is None:
                raise NotFound("missing")
            data = snap.attachment_data(meta["digest"])
        if data is None:
            raise NotFound("missing")
        return data

    def revs_diff(self, request: dict[str, list[str]]) -> dict[str, dict[str, list[str]]]:
        """For each id, the revs this database lacks (and possible ancestors among its leaves)."""
        out: dict[str, dict[str, list[str]]] = {}
        with self._read() as snap:
            for doc_id, revs_wanted in request.items():
                row = snap.doc_row(doc_id)
                tree = row[0] if row else []
                missing = [r for r in dict.fromkeys(revs_wanted) if not revtree.has_rev(tree, r)]
                if not missing:
                    continue
                entry: dict[str, list[str]] = {"missing": missing}
                max_missing = max((_safe_pos(r) for r in missing), default=0)
                ancestors = [leaf.rev for leaf in revtree.leaves(tree) if leaf.pos < max_missing] if tree else []
                if ancestors:
                    entry["possible_ancestors"] = ancestors
                out[doc_id] = entry
        return out

    def bulk_get(
        self,
        requests: list[dict[str, Any]],
        revs: bool = False,
        latest: bool = False,
        attachments: bool = False,
    ) -> dict[str, Any]:
        """CouchDB ``_bulk_get``: one result per request item, in request order."""
        results = []
        with self._read() as snap:
            for item in requests:
                doc_id = item.get("id")
                if not isinstance(doc_id, str):
                    results.append({"id": doc_id, "docs": [{"error": {
                        "id": doc_id, "rev": item.get("rev"), "error": "bad_request", "reason": "missing id"}}]})
                    continue
                row = snap.doc_row(doc_id)
                open_revs: str | list[str] = [item["rev"]] if item.get("rev") else "all"
                if row is None:
                    rev = item.get("rev") or "undefined"
                    results.append({"id": doc_id, "docs": [{"error": {
                        "id": doc_id, "rev": rev, "error": "not_found", "reason": "missing"}}]})
                    continue
                try:
                    found = self._open_revs(
                        snap, doc_id, row, open_revs, latest, revs, attachments, item.get("atts_since")
                    )
                except BadRequest as exc:
                    results.append({"id": doc_id, "docs": [{"error": {
                        "id": doc_id, "rev": item.get("rev"), "error": exc.error, "reason": exc.reason}}]})
                    continue
                docs = []
                for entry in found:
                    if "ok" in entry:
                        docs.append(entry)
                    else:
                        docs.append({"error": {"id": doc_id, "rev": entry["missing"],
                                               "error": "not_found", "reason": "missing"}})
                results.append({"id": doc_id, "docs": docs})
        return {"results": results}

    # -- changes -------------------------------------------------------------------------

    def changes(
        self,
        since: int | str = 0,
        limit: int | None = None,
        style: str = "main_only",
        include_docs: bool = False,
        conflicts: bool = False,
        doc_ids: Iterable[str] | None = None,
        descending: bool = False,
        attachments: bool = False,
    ) -> dict[str, Any]:
        """The changes feed: one row per document at its latest seq, after ``since``."""
        if style not in ("main_only", "all_docs"):
            raise BadRequest(f"Invalid style {style!r}: use 'main_only' or 'all_docs'")
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise BadRequest("limit must be a non-negative integer")
        wanted_ids = set(doc_ids) if doc_ids is not None else None
        with self._read() as snap:
            update_seq = int(snap.meta("update_seq", "0") or 0)
            if since == "now":
                since_seq = update_seq
            else:
                try:
                    since_seq = int(since)
                except (TypeError, ValueError) as exc:
                    raise BadRequest(f"Invalid since value {since!r}") from exc
            order = "DESC" if descending else "ASC"
            # Read the tree only when rows need it (a main_only walk never does), and let SQLite
            # apply the limit when no doc_ids filter has to examine rows first (performance).
            need_tree = style == "all_docs" or (include_docs and conflicts)
            tree_column = "rev_tree" if need_tree else "NULL"
            sql_limit = limit if (limit is not None and wanted_ids is None) else -1
            if descending:
                query = (
                    f"SELECT id, {tree_column}, winning_rev, deleted, seq FROM docs ORDER BY seq {order} LIMIT ?"
                )
                params: tuple = (sql_limit,)
            else:
                query = (
                    f"SELECT id, {tree_column}, winning_rev, deleted, seq FROM docs WHERE seq > ? "
                    f"ORDER BY seq {order} LIMIT ?"
                )
                params = (since_seq, sql_limit)
            results: list[dict[str, Any]] = []
            last_seq = since_seq
            rows = snap.conn.execute(query, params)
            if not need_tree and not include_docs and wanted_ids is None:
                # The common walk (the replicator's and the benchmark's): rows only.
                for doc_id, _, winner, deleted, seq in rows:
                    row = {"seq": seq, "id": doc_id, "changes": [{"rev": winner}]}
                    if deleted:
                        row["deleted"] = True
                    results.append(row)
                if results:
                    last_seq = results[-1]["seq"]
                rows = iter(())
            for doc_id, tree_json, winner, deleted, seq in rows:
                if limit is not None and len(results) >= limit:
                    break
                last_seq = seq
                if wanted_ids is not None and doc_id not in wanted_ids:
                    continue
                tree = _decode_tree(tree_json) if need_tree else []
                if style == "all_docs":
                    revs_listed = [winner] + [leaf.rev for leaf in revtree.leaves(tree) if leaf.rev != winner]
                else:
                    revs_listed = [winner]
                row = {"seq": seq, "id": doc_id, "changes": [{"rev": r} for r in revs_listed]}
                if deleted:
                    row["deleted"] = True
                if include_docs:
                    doc = self._materialize(snap, doc_id, tree, winner, False, attachments)
                    if conflicts and doc is not None:
                        live, _ = revtree.conflicts(tree)
                        if live:
                            doc["_conflicts"] = live
                    row["doc"] = doc
                results.append(row)
            if descending and not results:
                last_seq = since_seq
            return {"results": results, "last_seq": last_seq}

    # -- all_docs --------------------------------------------------------------------------------

    def all_docs(self, **options: Any) -> dict[str, Any]:
        """CouchDB ``_all_docs``: see docs/store.md for every option and the output shape."""
        opts = _AllDocsOptions.parse(options)
        with self._read() as snap:
            header, rows = self._all_docs_rows(snap, opts)
            out = {"total_rows": header["total_rows"], "offset": header["offset"], "rows": list(rows)}
            if opts.update_seq:
                out["update_seq"] = header["update_seq"]
            return out

    def all_docs_stream(self, **options: Any) -> Iterator[str]:
        """The ``all_docs`` result as JSON text chunks, read from one snapshot, memory bounded.

        Options are validated before the first chunk is produced, so a bad option raises at call
        time and an HTTP layer can still answer 400.
        """
        opts = _AllDocsOptions.parse(options)
        if self._closed:
            raise DatabaseClosed()
        if self._memory:
            # One shared connection: materialise under the lock rather than hold it while streaming.
            result = self.all_docs(**options)
            return iter([_dumps(result)])
        conn = self._connect()
        conn.execute("BEGIN")
        snap = _Snapshot(conn)
        try:
            header, rows = self._all_docs_rows(snap, opts)
        except BaseException:
            conn.close()
            raise
        return self._stream_chunks(conn, header, rows, opts)

    @staticmethod
    def _stream_chunks(
        conn: sqlite3.Connection, header: dict[str, Any], rows: Iterator[dict[str, Any]], opts: _AllDocsOptions
    ) -> Iterator[str]:
        try:
            yield f'{{"total_rows":{header["total_rows"]},"offset":{_dumps(header["offset"])},"rows":['
            first = True
            for row in rows:
                yield ("" if first else ",\n") + _dumps(row)
                first = False
            tail = "]"
            if opts.update_seq:
                tail += f',"update_seq":{header["update_seq"]}'
            yield tail + "}\n"
        finally:
            conn.close()

    def _all_docs_rows(self, snap: _Snapshot, opts: _AllDocsOptions) -> tuple[dict[str, Any], Iterator[dict]]:
        total_rows = int(snap.meta("doc_count", "0") or 0)
        update_seq = int(snap.meta("update_seq", "0") or 0)
        if opts.keys is not None:
            keys = list(opts.keys)
            if opts.descending:
                keys.reverse()
            keys = keys[opts.skip:]
            if opts.limit is not None:
                keys = keys[: opts.limit]
            # Fix: CouchDB answers a keys request with "offset": null (fabric_view_all_docs.erl);
            # this used to report the skip (PouchDB's allDocsKeysQuery does that).
            header = {"total_rows": total_rows, "offset": None, "update_seq": update_seq}
            return header, self._key_rows(snap, keys, opts)
        # Range walk. Ids order by raw code point, as Python strings and SQLite's BINARY collation do.
        # Descending walks from startkey down, so startkey is the upper bound there.
        clauses, params = ["d.deleted = 0"], []
        if opts.descending:
            low, high = opts.endkey, opts.startkey
            low_op, high_op = (">=" if opts.inclusive_end else ">"), "<="
        else:
            low, high = opts.startkey, opts.endkey
            low_op, high_op = ">=", ("<=" if opts.inclusive_end else "<")
        if low is not None:
            clauses.append(f"d.id {low_op} ?")
            params.append(low)
        if high is not None:
            clauses.append(f"d.id {high_op} ?")
            params.append(high)
        # offset: live docs that precede the first row in walk order, plus skip (CouchDB's meaning).
        start_key = opts.startkey
        preceding = 0
        if start_key is not None:
            before_op = ">" if opts.descending else "<"
            preceding = snap.conn.execute(
                f"SELECT COUNT(*) FROM docs WHERE deleted = 0 AND id {before_op} ?", (start_key,)
            ).fetchone()[0]
        header = {"total_rows": total_rows, "offset": min(total_rows, preceding + opts.skip), "update_seq": update_seq}
        order = "DESC" if opts.descending else "ASC"
        limit = -1 if opts.limit is None else opts.limit
        body_column = "r.body" if opts.include_docs else "NULL"
        join = "LEFT JOIN revs r ON r.doc_id = d.id AND r.rev = d.winning_rev " if opts.include_docs else ""
        query = (
            f"SELECT d.id, d.winning_rev, {body_column} FROM docs d {join}"
            f"WHERE {' AND '.join(clauses)} ORDER BY d.id {order} LIMIT ? OFFSET ?"
        )
        cursor = snap.conn.execute(query, (*params, limit, opts.skip))
        return header, self._range_rows(snap, cursor, opts)

    def _range_rows(self, snap: _Snapshot, cursor: sqlite3.Cursor, opts: _AllDocsOptions) -> Iterator[dict]:
        for doc_id, rev, body_json in cursor:
            row: dict[str, Any] = {"id": doc_id, "key": doc_id, "value": {"rev": rev}}
            if opts.include_docs:
                row["doc"] = self._doc_for_listing(snap, doc_id, rev, body_json, opts)
            yield row

    def _doc_for_listing(
        self, snap: _Snapshot, doc_id: str, rev: str, body_json: str | None, opts: _AllDocsOptions
    ) -> dict[str, Any] | None:
        if body_json is None:
            return None
        body = json.loads(body_json)
        doc: dict[str, Any] = {"_id": doc_id, "_rev": rev}
        doc.update(body)
        atts = doc.get("_attachments")
        if atts:
            out_atts = {}
            for name, meta in atts.items():
                entry = {k: v for k, v in meta.items() if k not in ("stub", "data")}
                if opts.attachments:
                    entry["data"] = base64.b64encode(snap.attachment_data(meta["digest"]) or b"").decode()
                else:
                    entry["stub"] = True
                out_atts[name] = entry
            doc["_attachments"] = out_atts
        if opts.conflicts:
            row = snap.doc_row(doc_id)
            if row is not None:
                live, _ = revtree.conflicts(row[0])
                if live:
                    doc["_conflicts"] = live
        return doc

    def _key_rows(self, snap: _Snapshot, keys: list[str], opts: _AllDocsOptions) -> Iterator[dict]:
        for key in keys:
            row = snap.doc_row(key) if isinstance(key, str) else None
            if row is None:
                yield {"key": key, "error": "not_found"}
                continue
            _, winner, deleted, _ = row
            if deleted:
                out: dict[str, Any] = {"id": key, "key": key, "value": {"rev": winner, "deleted": True}}
                if opts.include_docs:
                    out["doc"] = None
                yield out
                continue
            out = {"id": key, "key": key, "value": {"rev": winner}}
            if opts.include_docs:
                stored = snap.body(key, winner)
                out["doc"] = self._doc_for_listing(
                    snap, key, winner, _dumps(stored[0]) if stored else None, opts
                )
            yield out

    # -- _local documents ------------------------------------------------------------------

    def get_local(self, doc_id: str) -> dict[str, Any]:
        key = _local_key(doc_id)
        with self._read() as snap:
            row = snap.conn.execute("SELECT rev, body FROM local_docs WHERE id = ?", (key,)).fetchone()
        if row is None:
            raise NotFound("missing")
        doc = {"_id": LOCAL_PREFIX + key, "_rev": f"0-{row[0]}"}
        doc.update(json.loads(row[1]))
        return doc

    def put_local(self, doc: dict[str, Any]) -> dict[str, Any]:
        """Write a ``_local`` doc: never replicated, no history, revs ``0-N``, 409 on a stale rev."""
        if not isinstance(doc, dict) or not isinstance(doc.get("_id"), str):
            raise BadRequest("A _local document needs an _id")
        key = _local_key(doc["_id"])
        if doc.get("_deleted"):
            self.remove_local(key, doc.get("_rev", ""))
            return {"ok": True, "id": LOCAL_PREFIX + key, "rev": "0-0"}
        body = {k: v for k, v in doc.items() if not k.startswith("_")}
        with self._write_lock:
            if self._closed:
                raise DatabaseClosed()
            cur = self._writer.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                row = cur.execute("SELECT rev FROM local_docs WHERE id = ?", (key,)).fetchone()
                given = doc.get("_rev")
                if row is None:
                    if given not in (None, "", "0-0"):
                        raise Conflict()
                    new_rev = 1
                else:
                    if given != f"0-{row[0]}":
                        raise Conflict()
                    new_rev = row[0] + 1
                cur.execute("INSERT OR REPLACE INTO local_docs VALUES (?, ?, ?)", (key, new_rev, _dumps(body)))
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise
        return {"ok": True, "id": LOCAL_PREFIX + key, "rev": f"0-{new_rev}"}

    def remove_local(self, doc_id: str, rev: str) -> dict[str, Any]:
        key = _local_key(doc_id)
        with self._write_lock:
            if self._closed:
                raise DatabaseClosed()
            cur = self._writer.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                row = cur.execute("SELECT rev FROM local_docs WHERE id = ?", (key,)).fetchone()
                if row is None:
                    raise NotFound("missing")
                if rev != f"0-{row[0]}":
                    raise Conflict()
                cur.execute("DELETE FROM local_docs WHERE id = ?", (key,))
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise
        return {"ok": True, "id": LOCAL_PREFIX + key, "rev": "0-0"}


class _ReadContext:
    """``with db._read() as snap``: one read transaction (one snapshot).

    A read nested in another on the same thread joins the outer transaction (same connection).
    """

    def __init__(self, db: Database) -> None:
        self.db = db
        self.locked = False

    def __enter__(self) -> _Snapshot:
        if self.db._memory:
            self.db._write_lock.acquire()
            self.locked = True
        outer = getattr(self.db._local, "conn", None)
        self.nested = outer is not None
        if self.nested:
            self.conn = outer
            return _Snapshot(outer)
        try:
            conn = self.db._checkout_reader()
            if conn is not self.db._writer and conn.in_transaction:
                conn.execute("ROLLBACK")  # an idle reader never holds a snapshot
            # In memory the writer's connection serves reads; inside a write (a validator that
            # reads) it is already in the write's transaction, which is not ours to end.
            self.began = not conn.in_transaction
            if self.began:
                conn.execute("BEGIN")
        except BaseException:
            if self.locked:
                self.db._write_lock.release()
            raise
        self.conn = conn
        self.db._local.conn = conn
        return _Snapshot(conn)

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        if self.nested:
            if self.locked:
                self.db._write_lock.release()
            return
        self.db._local.conn = None
        if exc_type is not None and issubclass(exc_type, sqlite3.ProgrammingError) and self.db._closed:
            # close() closed this connection under a read in flight: report it as the store's
            # db_closed error, not as a bare sqlite3 error.
            if self.locked:
                self.db._write_lock.release()
            raise DatabaseClosed() from exc
        try:
            if self.began and not self.db._closed:
                self.conn.execute("COMMIT")
        finally:
            try:
                self.db._checkin_reader(self.conn)
            finally:
                if self.locked:
                    self.db._write_lock.release()


def _safe_pos(rev: str) -> int:
    try:
        return revtree.parse_rev(rev)[0]
    except ValueError:
        return 0


def _error_from_result(result: dict[str, Any]) -> StoreError:
    error = result.get("error")
    reason = result.get("reason", "")
    for cls in (Conflict, BadRequest, Forbidden, MissingStub):
        if cls.error == error:
            return cls(reason) if reason else cls()
    if error == "not_found":
        return NotFound(reason or "missing")
    # Fix: CouchDB's 400s that carry their own error names (an invalid id, a bad special field)
    # used to surface from put() as a bare StoreError with status 500.
    if error in ("illegal_docid", "doc_validation"):
        return BadRequest(reason, error=error)
    return StoreError(reason, error=error, status=int(result.get("status", 500)))


class _AllDocsOptions:
    """Parsed and checked ``_all_docs`` options (CouchDB names and aliases)."""

    known = {
        "include_docs", "conflicts", "attachments", "descending", "startkey", "start_key", "endkey",
        "end_key", "key", "keys", "limit", "skip", "inclusive_end", "update_seq",
    }

    def __init__(self) -> None:
        self.include_docs = False
        self.conflicts = False
        self.attachments = False
        self.descending = False
        self.startkey: str | None = None
        self.endkey: str | None = None
        self.keys: list[Any] | None = None
        self.limit: int | None = None
        self.skip = 0
        self.inclusive_end = True
        self.update_seq = False

    @classmethod
    def parse(cls, options: dict[str, Any]) -> _AllDocsOptions:
        unknown = set(options) - cls.known
        if unknown:
            raise BadRequest(f"Unknown all_docs option(s): {', '.join(sorted(unknown))}")
        opts = cls()
        for flag in ("include_docs", "conflicts", "attachments", "descending", "inclusive_end", "update_seq"):
            if flag in options and options[flag] is not None:
                value = options[flag]
                if not isinstance(value, bool):
                    raise BadRequest(f"Invalid value for {flag}: expected true or false")
                setattr(opts, flag, value)
        for name, aliases in (("startkey", ("startkey", "start_key")), ("endkey", ("endkey", "end_key"))):
            given = [options[a] for a in aliases if options.get(a) is not None]
            if given:
                if not isinstance(given[0], str):
                    raise BadRequest(f"Invalid value for {name}: document ids are strings")
                setattr(opts, name, given[0])
        key = options.get("key")
        if key is not None and not isinstance(key, str):
            raise BadRequest("Invalid value for key: document ids are strings")
        keys = options.get("keys")
        if keys is not None:
            if not isinstance(keys, list):
                raise BadRequest("Invalid value for keys: expected a JSON array")
            if key is not None or opts.startkey is not None or opts.endkey is not None:
                raise BadRequest("`keys` is incompatible with `key`, `start_key` and `end_key`")
            opts.keys = keys
        elif key is not None:
            opts.startkey = opts.endkey = key
            opts.inclusive_end = True
        for name in ("limit", "skip"):
            value = options.get(name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise BadRequest(f"Invalid value for {name}: expected a non-negative integer")
            if value < 0:
                raise BadRequest(f"Invalid value for {name}: must not be negative")
            setattr(opts, name, value)
        return opts


# Rows per multi-row INSERT in ``_insert_rows``: at most 128 (640 parameters for the widest table,
# under the 999 of SQLite builds before 3.32).
_ROWS_PER_INSERT = (128, 64, 32, 16, 8, 4, 2, 1)
_INSERT_SQL: dict[tuple[str, int, int], str] = {}


def _insert_rows(cur: sqlite3.Cursor, insert: str, width: int, values: list[Any]) -> None:
    """Insert rows of ``width`` columns given one after the other in ``values``, in order.

    The same as ``cur.executemany(f"{insert} VALUES (?, ...)", rows)``, in a few multi-row
    statements. Performance (bench/store_bench.py): executemany runs one statement per row, and its
    per-row cost was about a third of the SQLite time of a bulk write. The rows go in the same
    order, so the outcome (OR REPLACE / OR IGNORE included) is the same; the statement for each
    size is built once and stays in the connection's statement cache.
    """
    start, total = 0, len(values) // width
    while start < total:
        left = total - start
        size = next(n for n in _ROWS_PER_INSERT if n <= left)
        key = (insert, width, size)
        sql = _INSERT_SQL.get(key)
        if sql is None:
            row_marks = "(" + ",".join("?" * width) + ")"
            sql = _INSERT_SQL[key] = f"{insert} VALUES " + ",".join([row_marks] * size)
        cur.execute(sql, values[start * width:(start + size) * width])
        start += size


class _Writer:
    """The writes of one transaction: tree merges, bodies, attachments, seqs and counters.

    Performance (bench/store_bench.py): the rows of every id in the call are fetched with one
    query and kept in ``rows``; ``revs``, ``att_refs`` and ``docs`` rows are collected and written
    with ``executemany`` in ``flush``. Before a document touched earlier in the same call is
    handled again, the pending rows are flushed, so every read a write makes sees the writes
    before it. Every check that can refuse one document (conflict, validation, stub) runs before
    anything of that document is written, so a refused document leaves nothing behind and needs
    no savepoint; any other exception aborts the whole transaction.
    """

    def __init__(self, db: Database, cur: sqlite3.Cursor) -> None:
        self.db = db
        self.cur = cur
        self.seq = int(cur.execute("SELECT value FROM meta WHERE key = 'update_seq'").fetchone()[0])
        self.doc_count_delta = 0
        self.del_count_delta = 0
        # (id, rev, seq, deleted) of each change; Database._notify makes the listeners' dicts.
        self.changes: list[tuple[str, str, int, bool]] = []
        self.dirty_digests: set[str] = set()
        self.rows: dict[str, tuple[list, str, bool, int] | None] = {}
        self.touched: set[str] = set()
        # Rows to insert, flattened (``_insert_rows``): revs (doc_id, rev, deleted, body), att_refs
        # (digest, doc_id, rev) and docs (id, rev_tree, winning_rev, deleted, seq). A document is in
        # docs at most once: one written again in the same call flushes first (``_begin_doc``).
        self.pending_revs: list[Any] = []
        self.pending_refs: list[Any] = []
        self.pending_docs: list[Any] = []

    def prefetch(self, doc_ids: Iterable[Any]) -> None:
        """Load the rows of these ids in a few queries (missing ids are remembered as None)."""
        # Ids in their given order, once each: SQLite looks them up faster in order than scattered.
        rows = self.rows
        wanted = [i for i in dict.fromkeys([i for i in doc_ids if isinstance(i, str)]) if i not in rows]
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            self.rows.update(dict.fromkeys(chunk))
            marks = ",".join("?" * len(chunk))
            for doc_id, tree_json, winner, deleted, seq in self.cur.execute(
                f"SELECT id, rev_tree, winning_rev, deleted, seq FROM docs WHERE id IN ({marks})", chunk
            ):
                self.rows[doc_id] = (_decode_tree(tree_json), winner, bool(deleted), seq)

    def _begin_doc(self, doc_id: str) -> None:
        # A document written earlier in this call: make its pending rows visible to the reads below.
        if doc_id in self.touched:
            self.flush()

    # Interactive edits -------------------------------------------------------------------------

    def write_all_interactive(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``write_interactive`` of each document, in order, with a fast path for new documents.

        Performance (bench/store_bench.py): most documents of a bulk write are new ones with a
        plain id and no ``_rev``, ``_deleted``, ``_attachments`` or other ``_`` field. For them,
        once the prefetch found no row and when there is no validator, every check of
        ``write_interactive`` is known to pass and the outcome is known: generation 1, a one-node
        tree, the same hash and rows. They are written here without the generic code; every other
        document goes through ``write_interactive``, exactly as before.
        """
        if self.db.validator is not None:
            return [self.write_interactive(doc) for doc in docs]
        results: list[dict[str, Any]] = []
        rows = self.rows
        touched = self.touched
        changes = self.changes
        pending_revs = self.pending_revs
        pending_docs = self.pending_docs
        seq = self.seq
        written = 0
        plain_names: dict[tuple, bool] = {}
        for doc in docs:
            doc_id = doc.get("_id")
            # ``rows`` holds None only for an id the prefetch did not find and this call did not
            # write yet (a written id leaves ``rows``, to be read back from the table if it comes
            # again). Then the fields: "_id" must be the only one that starts with "_".
            if type(doc_id) is str and doc_id and doc_id[0] != "_" and rows.get(doc_id, _ABSENT) is None:
                # The documents of one call mostly share their field names: each tuple of names is
                # checked once.
                names = tuple(doc)
                plain = plain_names.get(names)
                if plain is None:
                    try:
                        plain = plain_names[names] = [n[:1] == "_" for n in names].count(True) == 1
                    except TypeError:  # a name that is not a string: write_interactive raises as before
                        plain = False
                if plain:
                    body = doc.copy()
                    del body["_id"]
                    body_json, raw = _encode(body)
                    if raw is None:
                        raw = body_json.encode()
                    # _write_one's hash for a new live document without attachments.
                    new_hash = _sha1(b"\n0\n\n" + raw).hexdigest()[:32]
                    new_rev = "1-" + new_hash
                    seq += 1
                    written += 1
                    pending_revs += (doc_id, new_rev, 0, body_json)
                    pending_docs += (doc_id, _NEW_TREE_HEAD + new_hash + _NEW_TREE_TAIL, new_rev, 0, seq)
                    del rows[doc_id]
                    touched.add(doc_id)
                    changes.append((doc_id, new_rev, seq, False))
                    results.append({"ok": True, "id": doc_id, "rev": new_rev})
                    continue
            self.seq = seq
            results.append(self.write_interactive(doc))
            seq = self.seq
        self.seq = seq
        self.doc_count_delta += written
        return results

    def write_interactive(self, doc: dict[str, Any]) -> dict[str, Any]:
        doc_id = doc.get("_id")
        if doc_id is None:
            doc_id = uuid.uuid4().hex
        try:
            body = _checked_body(doc)
            validate_doc_id(doc_id)
            if doc_id.startswith(LOCAL_PREFIX):
                raise BadRequest("Use put_local for _local documents")
            if doc_id in self.touched:
                self.flush()  # see _begin_doc
            return self._write_one(doc_id, doc, body)
        except MissingStub:
            raise
        except StoreError as exc:
            return {"id": doc_id, "error": exc.error, "reason": exc.reason}

    def _write_one(self, doc_id: str, doc: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        row = self.rows[doc_id] if doc_id in self.rows else self._doc_row(doc_id)
        given_rev = doc.get("_rev")
        deleted = bool(doc.get("_deleted"))
        if given_rev is not None:
            try:
                revtree.parse_rev(given_rev)
            except ValueError as exc:
                raise BadRequest("Invalid rev format") from exc
        if row is None:
            if given_rev is not None:
                raise Conflict()
            tree: list = []
            parent_rev = None
            old_doc = None
            new_pos = 1
        else:
            tree, winner, winner_deleted, _ = row
            if given_rev is None:
                if not winner_deleted:
                    raise Conflict()
                parent_rev = winner  # recreate on top of the winning tombstone
            else:
                found = revtree.find_node(tree, given_rev)
                if found is None or not found[1]:
                    raise Conflict()
                parent_rev = given_rev
            old_doc = self._old_doc(doc_id, parent_rev)
            new_pos = revtree.parse_rev(parent_rev)[0] + 1
        att_digests: list[str] = []
        blobs: list[tuple[str, bytes]] = []
        if "_attachments" in body:
            body, att_digests, blobs = self._resolve_attachments(body, old_doc, new_pos=None)
            if deleted and "_attachments" in body and not body["_attachments"]:
                del body["_attachments"]
            # revpos of attachments that came with data is the new generation. (Set before the
            # validator runs: it used to see the internal ``_new`` marker instead of revpos.)
            for meta in (body.get("_attachments") or {}).values():
                if meta.pop("_new", False):
                    meta["revpos"] = new_pos
        if self.db.validator is not None:
            new_doc = {"_id": doc_id, **body}
            if deleted:
                new_doc["_deleted"] = True
            self.db.validator(new_doc, None if (old_doc is None or old_doc.get("_deleted")) else old_doc)
        body_json, raw = _encode(body)
        # The hash covers the parent rev, the deleted flag, the body and the attachment digests
        # (docs/protocol.md 1.2). Hashing the stored body text instead of a second, key-sorted
        # encoding saves one JSON encoding per write; identical edits still get identical revs.
        # SHA-1 cut to 128 bits rather than md5: the same 32 hex digits, at about 60% of the
        # cost of md5 for a 1 KB body (bench/store_bench.py). Revs are never recomputed, so revs
        # written with md5 by earlier versions stay valid.
        digests_text = " ".join(sorted(att_digests)) if att_digests else ""
        head = f"{parent_rev or ''}\n{int(deleted)}\n{digests_text}\n".encode()
        new_hash = _sha1(head + (raw if raw is not None else body_json.encode())).hexdigest()[:32]
        new_rev = f"{new_pos}-{new_hash}"
        if parent_rev is None:
            # A new document: its tree is this one revision (no merge, nothing to stem).
            self._apply_new(doc_id, new_hash, deleted, body_json, att_digests, blobs)
            return {"ok": True, "id": doc_id, "rev": new_rev}
        leaf_opts: dict[str, Any] = {"status": revtree.AVAILABLE}
        if deleted:
            leaf_opts["deleted"] = True
        ancestry = revtree.ancestry(tree, parent_rev)
        ids = [new_hash] + [node[0] for _, node in ancestry]
        path = revtree.path_to_branch(new_pos - len(ids) + 1, ids, leaf_opts)
        self._apply(doc_id, row, tree, path, new_rev, deleted, body_json, att_digests, blobs)
        return {"ok": True, "id": doc_id, "rev": new_rev}

    # Replicated writes -------------------------------------------------------------------------

    def write_replicated(self, doc: dict[str, Any]) -> dict[str, Any] | None:
        doc_id = doc["_id"]
        deleted = bool(doc.get("_deleted"))
        rev, start, ids = replicated_revision(doc)
        pos_root = start - len(ids) + 1
        self._begin_doc(doc_id)
        row = self._doc_row(doc_id)
        tree = row[0] if row else []
        known = revtree.find_node(tree, rev) if tree else None
        if known is not None and known[0][1].get("status") == revtree.AVAILABLE:
            # The revision and its body are already here: the content is neither validated nor
            # written again, but the path still merges (couch_key_tree:merge, pouchdb-merge),
            # which grafts the ancestors it brings onto a shorter stored history. A revision the
            # tree knows only as an ancestor, without a body, is written below like a new one.
            self._graft_known(doc_id, row, tree, revtree.path_to_branch(pos_root, ids, dict(known[0][1])))
            return None
        leaf_opts: dict[str, Any] = {"status": revtree.AVAILABLE}
        if deleted:
            leaf_opts["deleted"] = True
        path = revtree.path_to_branch(pos_root, ids, leaf_opts)
        # Nearest ancestor that still has a body: stubs resolve against it, validation sees it.
        ancestor_body = None
        for offset, ancestor_hash in enumerate(ids[1:], start=1):
            stored = self._body(doc_id, f"{start - offset}-{ancestor_hash}")
            if stored is not None:
                ancestor_body = stored
                break
        body = _body_of(doc)
        body, att_digests, blobs = self._resolve_attachments(body, ancestor_body, new_pos=start, replicated=True)
        if self.db.validator is not None:
            new_doc = {"_id": doc_id, **body}
            if deleted:
                new_doc["_deleted"] = True
            try:
                self.db.validator(new_doc, ancestor_body)
            except StoreError as exc:
                return {"id": doc_id, "rev": rev, "error": exc.error, "reason": exc.reason}
        self._apply(doc_id, row, tree, path, rev, deleted, _dumps(body), att_digests, blobs)
        return None

    # Shared --------------------------------------------------------------------------------

    def _doc_row(self, doc_id: str) -> tuple[list, str, bool, int] | None:
        if doc_id not in self.rows:
            self.rows[doc_id] = _Snapshot(self.cur.connection).doc_row(doc_id)
        return self.rows[doc_id]

    def _body(self, doc_id: str, rev: str) -> dict[str, Any] | None:
        stored = _Snapshot(self.cur.connection).body(doc_id, rev)
        return None if stored is None else stored[0]

    def _old_doc(self, doc_id: str, rev: str) -> dict[str, Any] | None:
        stored = _Snapshot(self.cur.connection).body(doc_id, rev)
        if stored is None:
            return None
        body, deleted = stored
        doc = {"_id": doc_id, "_rev": rev, **body}
        if deleted:
            doc["_deleted"] = True
        return doc

    def _resolve_attachments(
        self,
        body: dict[str, Any],
        parent: dict[str, Any] | None,
        new_pos: int | None,
        replicated: bool = False,
    ) -> tuple[dict[str, Any], list[str], list[tuple[str, bytes]]]:
        """Check and describe the attachments; return (body, digests, new blobs to store).

        Nothing is written here: the blobs are stored by ``_apply`` once the document passed every
        check (a refused document used to leave its attachment data behind, unreferenced).
        """
        atts = body.get("_attachments")
        if not atts:
            body.pop("_attachments", None)
            return body, [], []
        if not isinstance(atts, dict):
            raise BadRequest("_attachments must be an object")
        parent_atts = (parent or {}).get("_attachments") or {}
        stored: dict[str, Any] = {}
        digests: list[str] = []
        blobs: list[tuple[str, bytes]] = []
        for name, meta in atts.items():
            if not isinstance(meta, dict):
                raise BadRequest(f"Attachment {name!r} must be an object")
            if meta.get("stub"):
                known = parent_atts.get(name)
                # Fix: a replicated stub that carries revpos must match the ancestor's attachment of
                # that name (couch_att merge_stubs); a different revpos names other content, which
                # used to be silently replaced by the ancestor's bytes.
                if known is not None and replicated and "revpos" in meta and known.get("revpos") != meta["revpos"]:
                    known = None
                by_digest = False
                if known is None and replicated:
                    known = self._stub_by_digest(meta.get("digest"), blobs)
                    by_digest = known is not None
                if known is None:
                    raise MissingStub(f"Attachment {name!r} is a stub but no earlier revision has it")
                entry = {k: v for k, v in known.items() if k not in ("stub", "data")}
                # Fix: content found by digest has no metadata of its own; keep the stub's content_type
                # (it used to become application/octet-stream).
                if by_digest and isinstance(meta.get("content_type"), str):
                    entry["content_type"] = meta["content_type"]
                if replicated and "revpos" in meta:
                    entry["revpos"] = meta["revpos"]
                stored[name] = entry
                digests.append(entry["digest"])
                continue
            data_b64 = meta.get("data")
            if not isinstance(data_b64, str):
                raise BadRequest(f"Attachment {name!r} needs base64 `data` or `stub: true`")
            try:
                data = base64.b64decode(data_b64, validate=True)
            except (ValueError, TypeError) as exc:
                raise BadRequest(f"Attachment {name!r} data is not valid base64") from exc
            digest = attachment_digest(data)
            blobs.append((digest, data))
            entry = {
                "content_type": meta.get("content_type") or "application/octet-stream",
                "digest": digest,
                "length": len(data),
            }
            if replicated:
                entry["revpos"] = meta.get("revpos") or new_pos or 1
            else:
                entry["_new"] = True
            stored[name] = entry
            digests.append(digest)
        body["_attachments"] = stored
        return body, digests, blobs

    def _stub_by_digest(self, digest: Any, blobs: list[tuple[str, bytes]]) -> dict[str, Any] | None:
        if not isinstance(digest, str):
            return None
        for known_digest, data in blobs:  # data that came with this same document
            if known_digest == digest:
                return {"digest": digest, "length": len(data), "content_type": "application/octet-stream"}
        row = self.cur.execute("SELECT length FROM attachments WHERE digest = ?", (digest,)).fetchone()
        if row is None:
            return None
        return {"digest": digest, "length": row[0], "content_type": "application/octet-stream"}

    def _apply(
        self,
        doc_id: str,
        row: tuple | None,
        tree: list,
        path: dict[str, Any],
        new_rev: str,
        deleted: bool,
        body_json: str,
        att_digests: list[str],
        blobs: list[tuple[str, bytes]],
    ) -> None:
        if not tree and not path["ids"][2]:
            # A new document with a one-revision path: the merge result is the path itself.
            new_tree: list = [path]
            stemmed: list[str] = []
            winner = revtree.Leaf(path["pos"], path["ids"][0], deleted)
        else:
            new_tree, _, stemmed = revtree.merge(tree, path, self.db.revs_limit)
            winner = revtree.winning_leaf(new_tree)
        for digest, data in blobs:
            self.cur.execute("INSERT OR IGNORE INTO attachments VALUES (?, ?, ?)", (digest, data, len(data)))
        self.pending_revs += (doc_id, new_rev, int(deleted), body_json)
        for digest in set(att_digests):
            self.pending_refs += (digest, doc_id, new_rev)
        self._store_tree(doc_id, row, new_tree, stemmed, winner)

    def _graft_known(self, doc_id: str, row: tuple, tree: list, path: dict[str, Any]) -> None:
        """Merge the path of a revision whose body is stored; a no-op unless the tree changes.

        The path's leaf carries the stored node's opts, so the merge writes no body: it adds the
        ancestors and links the tree lacked, and stemming then drops what the longer paths push
        past the limit (revisions that still had a body among them).
        """
        new_tree, _, stemmed = revtree.merge(tree, path, self.db.revs_limit)
        if revtree.same_tree(new_tree, tree):
            return  # nothing new: no seq, no change row, no notification
        self._store_tree(doc_id, row, new_tree, stemmed, revtree.winning_leaf(new_tree))

    def _store_tree(
        self, doc_id: str, row: tuple | None, new_tree: list, stemmed: list[str], winner: revtree.Leaf
    ) -> None:
        """Write a document's new tree with a new seq, and drop what stemming cut from it."""
        if stemmed:
            self.flush()
            for gone in stemmed:
                self.cur.execute("DELETE FROM revs WHERE doc_id = ? AND rev = ?", (doc_id, gone))
                for (digest,) in self.cur.execute(
                    "SELECT digest FROM att_refs WHERE doc_id = ? AND rev = ?", (doc_id, gone)
                ).fetchall():
                    self.dirty_digests.add(digest)
                self.cur.execute("DELETE FROM att_refs WHERE doc_id = ? AND rev = ?", (doc_id, gone))
        self.seq += 1
        was_live = row is not None and not row[2]
        is_live = not winner.deleted
        if row is None:
            self.doc_count_delta += int(is_live)
            self.del_count_delta += int(not is_live)
        elif was_live != is_live:
            self.doc_count_delta += 1 if is_live else -1
            self.del_count_delta += -1 if is_live else 1
        self.rows[doc_id] = (new_tree, winner.rev, winner.deleted, self.seq)
        self.touched.add(doc_id)
        self.pending_docs += (doc_id, _encode_tree(new_tree), winner.rev, int(winner.deleted), self.seq)
        self.changes.append((doc_id, winner.rev, self.seq, winner.deleted))

    def _apply_new(
        self,
        doc_id: str,
        new_hash: str,
        deleted: bool,
        body_json: str,
        att_digests: list[str],
        blobs: list[tuple[str, bytes]],
    ) -> None:
        """``_apply`` for a document that did not exist: a one-node tree, written without a merge."""
        opts: dict[str, Any] = {"status": revtree.AVAILABLE}
        if deleted:
            opts["deleted"] = True
        new_rev = f"1-{new_hash}"
        for digest, data in blobs:
            self.cur.execute("INSERT OR IGNORE INTO attachments VALUES (?, ?, ?)", (digest, data, len(data)))
        self.pending_revs += (doc_id, new_rev, int(deleted), body_json)
        for digest in set(att_digests):
            self.pending_refs += (digest, doc_id, new_rev)
        self.seq += 1
        if deleted:
            self.del_count_delta += 1
        else:
            self.doc_count_delta += 1
        # new_hash is 32 hex characters, so the tree's JSON can be written directly.
        tree_json = _NEW_TREE_DELETED if deleted else _NEW_TREE_LIVE
        self.rows[doc_id] = ([{"pos": 1, "ids": [new_hash, opts, []]}], new_rev, deleted, self.seq)
        self.touched.add(doc_id)
        self.pending_docs += (doc_id, tree_json % new_hash, new_rev, int(deleted), self.seq)
        self.changes.append((doc_id, new_rev, self.seq, deleted))

    def flush(self) -> None:
        """Write the collected rows."""
        # The lists are emptied in place: write_all_interactive holds on to them.
        if self.pending_revs:
            _insert_rows(self.cur, "INSERT OR REPLACE INTO revs", 4, self.pending_revs)
            self.pending_revs.clear()
        if self.pending_refs:
            _insert_rows(self.cur, "INSERT OR IGNORE INTO att_refs", 3, self.pending_refs)
            self.pending_refs.clear()
        if self.pending_docs:
            _insert_rows(self.cur, "INSERT OR REPLACE INTO docs", 5, self.pending_docs)
            self.pending_docs.clear()
        self.touched.clear()

    def finish(self) -> None:
        self.flush()
        for digest in self.dirty_digests:
            still = self.cur.execute("SELECT 1 FROM att_refs WHERE digest = ? LIMIT 1", (digest,)).fetchone()
            if still is None:
                self.cur.execute("DELETE FROM attachments WHERE digest = ?", (digest,))
        if not self.changes:
            return
        self.cur.execute("UPDATE meta SET value = ? WHERE key = 'update_seq'", (str(self.seq),))
        if self.doc_count_delta:
            self.cur.execute(
                "UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'doc_count'", (self.doc_count_delta,)
            )
        if self.del_count_delta:
            self.cur.execute(
                "UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'doc_del_count'",
                (self.del_count_delta,),
            )
