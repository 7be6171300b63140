"""What a fetch of missing revisions gives, and how the answers are matched to the requests
(``_bulk_get``, ``open_revs``, documents a changes page carried with ``include_docs``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class FetchResult:
    docs: list[dict[str, Any]] = field(default_factory=list)
    #: ``(id, rev, error, reason)`` for requested revisions the source did not return.
    unresolved: list[tuple[str, str, str, str]] = field(default_factory=list)


def rev_ancestry(doc: dict[str, Any]) -> set[str]:
    """The revs a fetched document proves (its ``_rev`` and its ``_revisions`` path)."""
    revs = {doc.get("_rev", "")}
    revisions = doc.get("_revisions")
    if isinstance(revisions, dict):
        start = revisions.get("start")
        ids = revisions.get("ids") or []
        if isinstance(start, int):
            revs.update(f"{start - i}-{h}" for i, h in enumerate(ids))
    return revs


def match_fetched(
    requested: dict[str, list[str]],
    found: Iterable[tuple[str, dict[str, Any]]],
    errors: dict[tuple[str, str], tuple[str, str]],
) -> FetchResult:
    """Match fetched documents to the requested ``(id, rev)`` pairs by id and rev.

    A request is satisfied by a document with that rev or, because fetches use
    ``latest=true``, by a newer leaf whose history contains it. Duplicates are dropped.
    """
    by_key: dict[tuple[str, str], dict[str, Any]] = {}
    ancestry: dict[str, set[str]] = {}
    for doc_id, doc in found:
        key = (doc_id, doc.get("_rev", ""))
        if key in by_key:
            continue
        by_key[key] = doc
        ancestry.setdefault(doc_id, set()).update(rev_ancestry(doc))
    result = FetchResult(docs=list(by_key.values()))
    for doc_id, revs in requested.items():
        proven = ancestry.get(doc_id, set())
        for rev in revs:
            if rev not in proven:
                error, reason = errors.get((doc_id, rev), errors.get((doc_id, ""), ("not_found", "missing")))
                result.unresolved.append((doc_id, rev, error, reason))
    return result


def take_included_docs(rows: list[dict[str, Any]], missing: dict[str, list[str]]) -> list[dict[str, Any]]:
    """The missing revisions that a changes page read with ``include_docs`` holds already,
    ready to write; they leave ``missing`` (a document whose revisions all came this way
    leaves it altogether). Every row loses its ``doc``, so a batch keeps no second copy.

    Only a first-generation revision that is live, has no attachments and is the row's
    winning revision qualifies: its history is the revision itself, so it is exactly what
    ``_bulk_get?revs=true`` would return. Everything else (later generations, tombstones,
    attachments, losing conflict leaves) is fetched as usual.

    Performance (bench/sync_bench.py): on pouchdb-server a ``_changes`` page of 1,000 rows
    with its documents costs the server about a third of ``_changes`` plus ``_bulk_get``.
    """
    found: list[dict[str, Any]] = []
    for row in rows:
        doc = row.pop("doc", None)
        if not isinstance(doc, dict):
            continue
        doc_id = row.get("id")
        if not isinstance(doc_id, str):
            continue
        revs = missing.get(doc_id)
        rev = doc.get("_rev")
        if (not revs or not isinstance(rev, str) or rev not in revs or not rev.startswith("1-")
                or doc.get("_deleted") or "_attachments" in doc or doc.get("_id") != doc_id):
            continue
        doc["_revisions"] = {"start": 1, "ids": [rev[2:]]}
        found.append(clean_doc(doc))
        revs.remove(rev)
        if not revs:
            del missing[doc_id]
    return found


def clean_doc(doc: dict[str, Any]) -> dict[str, Any]:
    """Drop the read-only meta fields a peer may add; keep what ``new_edits=false`` needs."""
    for key in ("_conflicts", "_deleted_conflicts", "_revs_info", "_local_seq"):
        doc.pop(key, None)
    return doc


def collect_bulk_get(missing: dict[str, list[str]], reply: dict[str, Any]) -> FetchResult:
    found: list[tuple[str, dict[str, Any]]] = []
    errors: dict[tuple[str, str], tuple[str, str]] = {}
    for item in reply.get("results") or []:
        doc_id = item.get("id")
        for entry in item.get("docs") or []:
            if "ok" in entry and isinstance(entry["ok"], dict):
                doc = entry["ok"]
                found.append((doc.get("_id", doc_id), clean_doc(doc)))
            elif "error" in entry and isinstance(entry["error"], dict):
                err = entry["error"]
                errors[(err.get("id", doc_id), err.get("rev") or "")] = (
                    str(err.get("error", "error")),
                    str(err.get("reason", "")),
                )
            elif "missing" in entry:
                errors[(doc_id, str(entry["missing"]))] = ("not_found", "missing")
            # ``{}``: pouchdb-server's answer for a missing document; matched as unresolved.
    return match_fetched(missing, found, errors)
