"""What the store keeps to notice its own damage, and how it names damage and disk faults.

SQLite finds a damaged page structure (``PRAGMA integrity_check``) but not a flipped bit inside a
value: the text of a body stays a string, often still valid JSON, with different content. So
every row a person's work lives in carries a CRC-32 of its values (``docs.crc``, ``revs.crc``,
``local_docs.crc``), written in the same transaction as the row and compared whenever the row is
read whole; attachments are checked against their own MD5 digest and length. A row written
before the checksums existed holds NULL and is only checked for decoding (``upgrade`` fills them
in at the first open by this version).

CRC-32 (zlib, in C) costs about a microsecond per kilobyte, a small part of decoding the same
body; see docs/benchmarks.md for what it costs ``dump`` and ``export``.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import sqlite3
import zlib
from collections.abc import Iterator
from typing import Any

from storyloom.store.codec import decode_tree
from storyloom.store.errors import Damaged, DiskFull, StoreError
from storyloom.store.revtree import Tree

# SQLite's primary result codes (the low byte of an extended code).
_SQLITE_CORRUPT = 11
_SQLITE_FULL = 13
_SQLITE_IOERR = 10
_SQLITE_NOTADB = 26
# Below this much free space, an I/O error on a write is the disk being full: SQLite reports a
# failed page write in the write-ahead log as SQLITE_IOERR, not SQLITE_FULL.
_NEARLY_FULL_BYTES = 1 << 20


def _utf8(text: str | bytes) -> bytes:
    # Values are formatted as they come: a value whose stored type a flipped bit changed
    # (an integer read back as text, text as a blob) no longer matches its checksum.
    if isinstance(text, bytes):
        return text
    return str(text).encode("utf-8", "surrogatepass")


def docs_crc(doc_id: str, tree_json: str, winning_rev: str, deleted: int, seq: int) -> int:
    """The checksum of a ``docs`` row."""
    return zlib.crc32(_utf8(f"{doc_id}\x00{tree_json}\x00{winning_rev}\x00{deleted}\x00{seq}"))


def revs_crc(doc_id: str, rev: str, deleted: int, body: str | bytes) -> int:
    """The checksum of a ``revs`` row (its body, then who it belongs to)."""
    return zlib.crc32(_utf8(f"\x00{doc_id}\x00{rev}\x00{deleted}"), zlib.crc32(_utf8(body)))


def local_crc(key: str, rev: int, body: str) -> int:
    """The checksum of a ``local_docs`` row."""
    return zlib.crc32(_utf8(f"{key}\x00{rev}\x00{body}"))


def decode_object(store: str, doc_id: str, text: str | bytes, what: str) -> dict[str, Any]:
    """Stored JSON text that must hold an object, or :class:`Damaged` naming the document."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError, UnicodeDecodeError):
        raise Damaged(store, doc_id=doc_id, detail=f"{what} is not readable JSON") from None
    if not isinstance(value, dict):
        raise Damaged(store, doc_id=doc_id, detail=f"{what} is not a JSON object")
    return value


def check_attachment(store: str, doc_id: str | None, name: str | None, digest: str,
                     data: bytes | None, length: int | None = None) -> bytes:
    """The attachment's bytes when they match their digest (and stored length), else
    :class:`Damaged` naming it."""
    if data is None:
        raise Damaged(store, doc_id=doc_id, attachment=name, detail="its data is missing")
    if not isinstance(data, bytes):
        raise Damaged(store, doc_id=doc_id, attachment=name, detail="its data is stored as the wrong type")
    if length is not None and length != len(data):
        raise Damaged(store, doc_id=doc_id, attachment=name,
                      detail=f"{len(data):,} bytes where {length:,} were stored")
    if digest.startswith("md5-"):
        actual = "md5-" + base64.b64encode(hashlib.md5(data, usedforsecurity=False).digest()).decode()
        if actual != digest:
            raise Damaged(store, doc_id=doc_id, attachment=name, detail="its bytes do not match their digest")
    return data


def translate(exc: sqlite3.Error, path: str, *, writing: bool) -> StoreError | None:
    """The store error an SQLite failure means, or None when it means neither damage nor a
    disk fault (a bug, a busy database: the caller lets it go on as it is)."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if primary is None and isinstance(exc, sqlite3.DatabaseError):
        message = str(exc).lower()
        if "malformed" in message:
            primary = _SQLITE_CORRUPT
        elif "disk is full" in message:
            primary = _SQLITE_FULL
        elif "disk i/o error" in message:
            primary = _SQLITE_IOERR
    if primary == _SQLITE_FULL or (primary == _SQLITE_IOERR and disk_nearly_full(path)):
        return DiskFull(path) if writing else DiskFull(path, reading=True)
    if primary == _SQLITE_IOERR:
        return StoreError(f"reading or writing {path} failed: the disk reported an I/O error ({exc}); "
                          "check the disk", error="io_error")
    if primary in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return Damaged(path, detail=f"SQLite: {exc}")
    if is_bad_text(exc):  # its message quotes the text: never pass it on
        return Damaged(path, detail="a row holds text that is not valid UTF-8")
    return None


def is_bad_text(exc: BaseException) -> bool:
    """Whether ``exc`` is sqlite3's failure to decode a stored text value as UTF-8."""
    return isinstance(exc, sqlite3.OperationalError) and str(exc).startswith("Could not decode to UTF-8")


def is_utf8(text: str) -> bool:
    """Whether ``text`` (read with :func:`lenient_text`) was valid UTF-8 as stored."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def lenient_text(raw: bytes) -> str:
    """A ``text_factory`` that reads any bytes: invalid UTF-8 becomes lone surrogates, which no
    checksum of a valid row matches, so the row is reported damaged instead of stopping a walk."""
    return raw.decode("utf-8", "surrogateescape")


@contextlib.contextmanager
def lenient_reading(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``conn`` reading text with :func:`lenient_text` for the block (the checks and the
    salvage walk past broken text), then as before (a pooled connection goes back as it was)."""
    usual = conn.text_factory
    conn.text_factory = lenient_text
    try:
        yield conn
    finally:
        conn.text_factory = usual


def disk_nearly_full(path: str) -> bool:
    """Whether the file system holding ``path`` has (almost) no space left for this user."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    try:
        stats = os.statvfs(folder)
    except (OSError, AttributeError):  # no statvfs (Windows): say what SQLite said
        return False
    return stats.f_bavail * stats.f_frsize < _NEARLY_FULL_BYTES


def checked_tree(store: str, doc_id: str, tree_json: str, winning_rev: str, deleted: int, seq: int,
                 crc: int | None) -> Tree:
    """A ``docs`` row's revision tree, decoded, once the row matches its checksum."""
    verify_tree(store, doc_id, tree_json, winning_rev, deleted, seq, crc)
    try:
        tree = decode_tree(tree_json)
    except (ValueError, TypeError, IndexError, KeyError, AttributeError, RecursionError):
        raise Damaged(store, doc_id=doc_id, detail="its revision tree is not readable") from None
    if not isinstance(tree, list) or not tree:
        raise Damaged(store, doc_id=doc_id, detail="its revision tree is empty or not a list")
    return tree


def checked_body(store: str, doc_id: str, rev: str, deleted: int, body: str | bytes, crc: int | None) -> dict[str, Any]:
    """A ``revs`` row's body, decoded, once the row matches its checksum."""
    verify_body(store, doc_id, rev, deleted, body, crc)
    return decode_object(store, doc_id, body, f"revision {rev}")


def checked_local(store: str, key: str, rev: int, body: str, crc: int | None) -> dict[str, Any]:
    """A ``local_docs`` row's body, decoded, once the row matches its checksum."""
    doc_id = f"_local/{key}"
    if crc is not None and crc != local_crc(key, rev, body):
        raise Damaged(store, doc_id=doc_id, detail="it does not match its checksum")
    return decode_object(store, doc_id, body, "its body")


def verify_body(store: str, doc_id: str, rev: str, deleted: int, body: str | bytes, crc: int | None) -> None:
    """Only the checksum of a ``revs`` row (for readers that decode the body their own way)."""
    if crc is not None and crc != revs_crc(doc_id, rev, deleted, body):
        raise Damaged(store, doc_id=doc_id, detail=f"revision {rev} does not match its checksum")


def verify_tree(store: str, doc_id: str, tree_json: str, winning_rev: str, deleted: int, seq: int,
                crc: int | None) -> None:
    """Only the checksum of a ``docs`` row (for readers that need not decode its tree)."""
    if crc is not None and crc != docs_crc(doc_id, tree_json, winning_rev, deleted, seq):
        raise Damaged(store, doc_id=doc_id, detail="its revision tree does not match its checksum")
