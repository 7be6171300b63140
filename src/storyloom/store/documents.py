"""The rules of documents as the store sees them: ids, special fields, replicated revisions,
attachment digests, and the error a failed write result maps to."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from storyloom.store import revtree
from storyloom.store.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    MissingStub,
    NotFound,
    StoreError,
)

LOCAL_PREFIX = "_local/"


DESIGN_PREFIX = "_design/"

#: Ids of the test documents ``storyloom remote check`` and set-up write and remove on a server
#: (``storyloom.sync.write_probe``): not part of any project, skipped by the project layer.
PROBE_PREFIX = "storyloom-probe-"


# Top-level fields a document may carry; any other ``_`` field is refused (couch_doc.erl).
_SPECIAL_FIELDS_KEPT = {"_id", "_rev", "_deleted", "_attachments", "_revisions"}


_SPECIAL_FIELDS_IGNORED = {"_conflicts", "_deleted_conflicts", "_revs_info", "_local_seq"}


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


def local_key(doc_id: str) -> str:
    key = doc_id[len(LOCAL_PREFIX):] if doc_id.startswith(LOCAL_PREFIX) else doc_id
    if not key:
        raise BadRequest("Local document id must not be empty", error="illegal_docid")
    return key


def check_special_fields(doc: dict[str, Any]) -> None:
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


def checked_body(doc: dict[str, Any]) -> dict[str, Any]:
    """``check_special_fields`` and ``body_of`` in one pass over the document (write hot path)."""
    body = {}
    for key, value in doc.items():
        if key[:1] != "_" or key == "_attachments":
            body[key] = value
        elif key not in _SPECIAL_FIELDS_KEPT and key not in _SPECIAL_FIELDS_IGNORED:
            raise BadRequest(f"Bad special document member: {key}", error="doc_validation")
        elif key == "_deleted":
            _check_deleted_flag(value)
    return body


def body_of(doc: dict[str, Any]) -> dict[str, Any]:
    """The stored body: the document without the fields the store manages itself."""
    return {k: v for k, v in doc.items() if not k.startswith("_") or k == "_attachments"}


def safe_pos(rev: str) -> int:
    try:
        return revtree.parse_rev(rev)[0]
    except ValueError:
        return 0


def error_from_result(result: dict[str, Any]) -> StoreError:
    error = result.get("error")
    reason = result.get("reason", "")
    for cls in (Conflict, BadRequest, Forbidden, MissingStub):
        if cls.error == error:
            return cls(reason) if reason else cls()
    if error == "not_found":
        return NotFound(reason or "missing")
    # CouchDB's 400s that carry their own error names (an invalid id, a bad special field) are
    # bad requests, not server errors.
    if error in ("illegal_docid", "doc_validation"):
        return BadRequest(reason, error=error)
    return StoreError(reason, error=error, status=int(result.get("status", 500)))
