"""Read-only: a few top-level fields of every live document's winning revision, read in SQLite.

``json_extract`` reads the fields in C, so a caller that needs a handful of fields of every
document (the project index building from nothing) does not decode whole bodies in Python."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from storyloom.store.all_docs import decode_body, fields_extract
from storyloom.store.readers import Snapshot


def winning_fields(snap: Snapshot, fields: tuple[str, ...]) -> Iterator[tuple[str, str, list[Any]]]:
    """``(id, winning rev, [value of each field, None when missing])`` for every live document
    (design documents included), in ``_id`` order, within the snapshot ``snap``
    (``with db.snapshot() as snap``). Raises ``sqlite3.Error`` when a body is not JSON that
    SQLite reads (the stdlib's ``NaN``): the caller then reads the documents whole."""
    extract = fields_extract(fields, "r.body", "winning_fields")
    cursor = snap.conn.execute(
        f"SELECT d.id, d.winning_rev, {extract} FROM docs d JOIN revs r ON r.doc_id = d.id AND r.rev = d.winning_rev "
        "WHERE d.deleted = 0 ORDER BY d.id"
    )
    for doc_id, rev, values in cursor:
        if values is not None:
            yield doc_id, rev, decode_body(values)[0]
