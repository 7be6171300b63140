"""``_all_docs``: its options, parsed and checked as CouchDB parses them, and its rows, read from
one snapshot (a range walk or a list of keys), whole or as streamed JSON text."""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import Callable, Container, Iterator
from typing import Any

from storyloom.store import revtree
from storyloom.store.codec import DIGITS_AS_ZERO, dumps, has_unusual_float, may_hold_long_integer
from storyloom.store.errors import (
    BadRequest,
    Damaged,
    NotFound,
)
from storyloom.store.integrity import checked_body, translate, verify_body
from storyloom.store.readers import Snapshot


class AllDocsOptions:
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
    def parse(cls, options: dict[str, Any]) -> AllDocsOptions:
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


def all_docs_around_damage(db: Any, options: dict[str, Any]) -> dict[str, Any]:
    """``db.all_docs(**options)`` with each document read on its own and a damaged one as an
    error row ``{"id", "key", "error": "damaged", "reason"}``. Not one snapshot: the rare path
    after damage was met, for readers that go on around it (``all_docs(skip_damaged=True)``)."""
    opts = AllDocsOptions.parse(options)
    listing = db.all_docs(**{**options, "include_docs": False})
    rows = []
    for row in listing["rows"]:
        if "error" in row or not opts.include_docs or row["value"].get("deleted"):
            rows.append(row if "error" in row or not opts.include_docs else {**row, "doc": None})
            continue
        try:
            doc = db.get(row["id"], conflicts=opts.conflicts, attachments=opts.attachments)
        except Damaged as exc:
            rows.append({"id": row["id"], "key": row["key"], "error": "damaged", "reason": exc.reason})
            continue
        except NotFound:  # deleted since the listing
            continue
        rows.append({**row, "doc": doc})
    return {**listing, "rows": rows}


def stream_chunks(
    conn: sqlite3.Connection, header: dict[str, Any], rows: Iterator[dict[str, Any]], opts: AllDocsOptions,
    store: str,
) -> Iterator[str]:
    """The JSON text of an ``all_docs`` answer, chunk by chunk. Damage met on the way raises
    :class:`~storyloom.store.errors.Damaged` between chunks: the text so far is not complete
    JSON, and a reader must treat the answer as failed."""
    try:
        yield f'{{"total_rows":{header["total_rows"]},"offset":{dumps(header["offset"])},"rows":['
        first = True
        for row in rows:
            yield ("" if first else ",\n") + dumps(row)
            first = False
        tail = "]"
        if opts.update_seq:
            tail += f',"update_seq":{header["update_seq"]}'
        yield tail + "}\n"
    except sqlite3.Error as exc:
        raise (translate(exc, store, writing=False) or exc) from None
    finally:
        conn.close()

def all_docs_rows(snap: Snapshot, opts: AllDocsOptions) -> tuple[dict[str, Any], Iterator[dict[str, Any]]]:
    total_rows = int(snap.meta("doc_count", "0") or 0)
    update_seq = int(snap.meta("update_seq", "0") or 0)
    if opts.keys is not None:
        keys = list(opts.keys)
        if opts.descending:
            keys.reverse()
        keys = keys[opts.skip:]
        if opts.limit is not None:
            keys = keys[: opts.limit]
        # CouchDB answers a keys request with "offset": null (fabric_view_all_docs.erl), where
        # PouchDB's allDocsKeysQuery reports the skip.
        header = {"total_rows": total_rows, "offset": None, "update_seq": update_seq}
        return header, _key_rows(snap, keys, opts)
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
    body_column = "r.body, r.deleted, r.crc" if opts.include_docs else "NULL, NULL, NULL"
    join = "LEFT JOIN revs r ON r.doc_id = d.id AND r.rev = d.winning_rev " if opts.include_docs else ""
    query = (
        f"SELECT d.id, d.winning_rev, {body_column} FROM docs d {join}"
        f"WHERE {' AND '.join(clauses)} ORDER BY d.id {order} LIMIT ? OFFSET ?"
    )
    cursor = snap.conn.execute(query, (*params, limit, opts.skip))
    return header, _range_rows(snap, cursor, opts)

def _range_rows(snap: Snapshot, cursor: sqlite3.Cursor, opts: AllDocsOptions) -> Iterator[dict[str, Any]]:
    for doc_id, rev, body_json, deleted, crc in cursor:
        row: dict[str, Any] = {"id": doc_id, "key": doc_id, "value": {"rev": rev}}
        if opts.include_docs:
            body = None if body_json is None else checked_body(snap.store, doc_id, rev, deleted, body_json, crc)
            row["doc"] = _doc_for_listing(snap, doc_id, rev, body, opts)
        yield row

def _doc_for_listing(
    snap: Snapshot, doc_id: str, rev: str, body: dict[str, Any] | None, opts: AllDocsOptions
) -> dict[str, Any] | None:
    if body is None:
        return None
    doc: dict[str, Any] = {"_id": doc_id, "_rev": rev}
    doc.update(body)
    atts = doc.get("_attachments")
    if atts:
        out_atts = {}
        for name, meta in atts.items():
            entry = {k: v for k, v in meta.items() if k not in ("stub", "data")}
            if opts.attachments:
                entry["data"] = base64.b64encode(snap.attachment_data(meta["digest"], doc_id, name)).decode()
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

def _key_rows(snap: Snapshot, keys: list[str], opts: AllDocsOptions) -> Iterator[dict[str, Any]]:
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
            out["doc"] = _doc_for_listing(snap, key, winner, stored[0] if stored else None, opts)
        yield out


# --------------------------------------------------------------------------------------
# Reading every document one at a time (the exports), memory bounded

try:
    import orjson

    _fast_loads: Callable[[str | bytes], Any] | None = orjson.loads
except ImportError:  # pragma: no cover - orjson is a dependency
    _fast_loads = None


def decode_body(text: str | bytes) -> tuple[Any, bool]:
    """``(body, exact)``: a stored body (or ``json_extract``'s array of fields) decoded by orjson
    (several times faster than the stdlib), else by the stdlib decoder. orjson refuses what the
    stdlib accepts beyond JSON (``NaN``, ``Infinity``, numbers that overflow a double, lone
    surrogates) and reads an integer beyond 64 bits as a float; such a body (any holding 19 digits
    in a row) is decoded by the stdlib as before and ``exact`` is False: it may hold non-finite
    floats."""
    if _fast_loads is not None and not may_hold_long_integer(text):
        try:
            return _fast_loads(text), True
        except ValueError:  # orjson.JSONDecodeError
            pass
    return json.loads(text), False


def checked_decode(store: str, doc_id: str, rev: str, raw: bytes, crc: int | None,
                   deleted: int = 0) -> tuple[dict[str, Any], bool]:
    """``decode_body`` of a stored revision once it matches its checksum; a body that does not
    decode to an object raises :class:`Damaged` naming the document."""
    verify_body(store, doc_id, rev, deleted, raw, crc)
    try:
        body, exact = decode_body(raw)
    except (ValueError, RecursionError):
        raise Damaged(store, doc_id=doc_id, detail=f"revision {rev} is not readable JSON") from None
    if not isinstance(body, dict):
        raise Damaged(store, doc_id=doc_id, detail=f"revision {rev} is not a JSON object")
    return body, exact


def _malformed_body(snap: Snapshot, exc: sqlite3.OperationalError, doc_id: str | None = None) -> Exception:
    """What SQLite's "malformed JSON" from ``json_extract`` means: the first document whose
    winning body neither SQLite nor the stdlib reads (nor matches its checksum) is damaged. A
    body only the stdlib reads (``NaN``) is not damage: ``exc`` is returned as it is."""
    if "malformed JSON" not in str(exc):
        return exc
    where = "" if doc_id is None else "AND d.id = ? "
    suspects = snap.conn.execute(
        "SELECT d.id, d.winning_rev, CAST(r.body AS BLOB), r.crc FROM docs d JOIN revs r ON r.doc_id = d.id "
        f"AND r.rev = d.winning_rev WHERE d.deleted = 0 {where}AND NOT json_valid(r.body) ORDER BY d.id",
        () if doc_id is None else (doc_id,))
    for found_id, rev, raw, crc in suspects:
        try:
            checked_decode(snap.store, found_id, rev, raw, crc)
        except Damaged as damage:
            return damage
    return exc


def _may_hold_unusual_float(raw: bytes) -> bool:
    """A quick look at a stored body's text: a float outside ``1e-4 <= |x| < 1e16`` is written
    with an exponent (a digit then ``e``) or as ``0.0000…``; text without either holds none."""
    if b"0.0000" in raw:
        return True
    digits = raw.translate(DIGITS_AS_ZERO)
    return b"0e" in digits or b"0E" in digits


def live_documents(
    snap: Snapshot, only: Container[str] | None = None
) -> Iterator[tuple[dict[str, Any], bool]]:
    """``(doc, plain)`` for every live document but design documents, in ``_id`` order: the winning
    revision with ``_id``, ``_rev`` and attachment stubs, as ``all_docs(include_docs=True)`` gives
    it. One cursor walks the store and each document is decoded when it is reached, so a caller
    that keeps no document holds one at a time. ``plain`` is True when the document holds no
    float that orjson spells differently from the stdlib encoder
    (:func:`storyloom.store.codec.has_unusual_float`, looked for only when the body's text may
    hold one). With ``only``, the documents whose ids are not in it are skipped undecoded."""
    cursor = snap.conn.execute(
        "SELECT d.id, d.winning_rev, CAST(r.body AS BLOB), r.crc FROM docs d "
        "JOIN revs r ON r.doc_id = d.id AND r.rev = d.winning_rev WHERE d.deleted = 0 ORDER BY d.id"
    )
    store = snap.store
    for doc_id, rev, raw, crc in cursor:
        if doc_id.startswith("_design/") or raw is None or (only is not None and doc_id not in only):
            continue
        body, exact = checked_decode(store, doc_id, rev, raw, crc)
        doc: dict[str, Any] = {"_id": doc_id, "_rev": rev}
        doc.update(body)
        atts = doc.get("_attachments")
        if atts:
            doc["_attachments"] = {
                name: {**{k: v for k, v in meta.items() if k not in ("stub", "data")}, "stub": True}
                for name, meta in atts.items()
            }
        plain = exact and not (_may_hold_unusual_float(raw) and has_unusual_float(body))
        yield doc, plain


def live_revisions(snap: Snapshot) -> Iterator[tuple[str, str]]:
    """``(id, winning rev)`` of every document :func:`live_documents` gives, in the same ``_id``
    order, without reading their bodies: a reader that already holds what it needs of most
    revisions (the export's per-revision memo) reads the others with :func:`live_document`."""
    cursor = snap.conn.execute(
        "SELECT d.id, d.winning_rev FROM docs d "
        "JOIN revs r ON r.doc_id = d.id AND r.rev = d.winning_rev WHERE d.deleted = 0 ORDER BY d.id"
    )
    for doc_id, rev in cursor:
        if not doc_id.startswith("_design/"):
            yield doc_id, rev


def live_document(snap: Snapshot, doc_id: str, rev: str | None = None) -> tuple[dict[str, Any], bool] | None:
    """``(doc, plain)`` of revision ``rev`` of ``doc_id`` (``None``: its winning revision, when
    the document is live) exactly as :func:`live_documents` gives it; ``None`` when the store
    holds no such revision."""
    if rev is None:
        row = snap.conn.execute(
            "SELECT d.winning_rev, CAST(r.body AS BLOB), r.crc, r.deleted FROM docs d JOIN revs r ON r.doc_id = d.id "
            "AND r.rev = d.winning_rev WHERE d.id = ? AND d.deleted = 0", (doc_id,)
        ).fetchone()
    else:
        row = snap.conn.execute(
            "SELECT rev, CAST(body AS BLOB), crc, deleted FROM revs WHERE doc_id = ? AND rev = ?", (doc_id, rev)
        ).fetchone()
    if row is None or row[1] is None:
        return None
    rev, raw, crc, deleted = row
    # The same steps as the loop of live_documents, which keeps them inline: it is the walk the
    # export benchmark's reference times, and a call per document there would slow it.
    body, exact = checked_decode(snap.store, doc_id, rev, raw, crc, deleted)
    doc: dict[str, Any] = {"_id": doc_id, "_rev": rev}
    doc.update(body)
    atts = doc.get("_attachments")
    if atts:
        doc["_attachments"] = {
            name: {**{k: v for k, v in meta.items() if k not in ("stub", "data")}, "stub": True}
            for name, meta in atts.items()
        }
    return doc, exact and not (_may_hold_unusual_float(raw) and has_unusual_float(body))


def fields_extract(fields: tuple[str, ...], column: str, caller: str) -> str:
    """The SQL that reads ``fields`` (top-level names) of the JSON in ``column`` as one JSON array
    (``json_extract`` with one path gives the bare value, so a single field is wrapped)."""
    if not fields or not all(name.isidentifier() for name in fields):
        raise ValueError(f"{caller}: plain field names expected, got {fields!r}")
    paths = ", ".join(f"'$.{name}'" for name in fields)
    return f"json_extract({column}, {paths})" if len(fields) > 1 else f"json_array(json_extract({column}, {paths}))"


def document_fields(snap: Snapshot, fields: tuple[str, ...]) -> Iterator[tuple[str, list[Any]]]:
    """``(id, [value of each top-level field or None])`` for every live document but design
    documents, in ``_id`` order, without decoding whole bodies (SQLite's ``json_extract`` reads the
    few fields in C): the light first pass of a streamed export."""
    extract = fields_extract(fields, "r.body", "document_fields")
    cursor = snap.conn.execute(
        f"SELECT d.id, {extract} FROM docs d JOIN revs r ON r.doc_id = d.id AND r.rev = d.winning_rev "
        "WHERE d.deleted = 0 ORDER BY d.id"
    )
    try:
        for doc_id, values in cursor:
            if doc_id.startswith("_design/") or values is None:
                continue
            yield doc_id, decode_body(values)[0]
    except sqlite3.OperationalError as exc:
        raise _malformed_body(snap, exc) from exc


def revision_fields(snap: Snapshot, doc_id: str, rev: str, fields: tuple[str, ...]) -> list[Any] | None:
    """The values :func:`document_fields` gives for revision ``rev`` of ``doc_id`` (``None`` when the
    store holds no such revision): the same fields of the few documents a reader has not kept."""
    extract = fields_extract(fields, "body", "revision_fields")
    try:
        row = snap.conn.execute(f"SELECT {extract} FROM revs WHERE doc_id = ? AND rev = ?", (doc_id, rev)).fetchone()
    except sqlite3.OperationalError as exc:
        raise _malformed_body(snap, exc, doc_id) from exc
    if row is None or row[0] is None:
        return None
    values: list[Any] = decode_body(row[0])[0]  # fields_extract's SQL reads one JSON array
    return values
