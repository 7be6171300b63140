"""A probe of replicated writes: does the server keep a revision written with ``new_edits:false``?

Replication writes every revision with ``_bulk_docs`` and ``new_edits:false``. For such a
write, CouchDB and PouchDB answer ``201`` with no entry for a document they kept, so the
answer alone proves nothing; pouchdb-server 4.2's validation plug-in answers the same while
keeping nothing once the database has a validate function (Storyloom's lock rules are one;
docs/protocol.md section 6). The push checks every batch afterwards (``Replicator``'s write
verification); this probe tells before anyone pushes: ``remote check`` shows it as the
"replicated writes" line and easy set-up refuses a server that drops it.

What it writes: one document ``storyloom-probe-<uuid>`` with a plain body (no lock fields, no
type), first generation 1 and then generation 2 on top of it, both replicated writes (the
second is an update, which is what pouchdb-server drops; a first revision is kept). It asks
``_revs_diff`` for both revisions, then deletes the document. Where the user may (a CouchDB
server or database admin) the document is then purged; otherwise its tombstone stays in the
database. Clients ignore it: a tombstone of an unknown document is no document (the project
layer also skips :data:`PROBE_PREFIX` ids, for a teammate who pulls the probe in the moment
between its write and its deletion).
"""

from __future__ import annotations

import datetime as _dt
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from storyloom.errors import Fix, advice
from storyloom.store.documents import PROBE_PREFIX
from storyloom.sync.errors import DROPPED_WRITES_CAUSE, RemoteNotFound, SyncError
from storyloom.sync.remote import RemoteDatabase

if TYPE_CHECKING:
    from storyloom.sync.server_terms import CheckLine, SetupStep

#: Where easy set-up records a kept probe (see :func:`replicated_writes_step`).
RECORD_ID = "_local/storyloom-write-probe"
#: The lock rules' design document (as ``server_setup.LOCK_DESIGN_ID``, which imports this module).
LOCK_DESIGN_ID = "_design/storyloom"
#: The name of the check line and of the set-up step.
PROBE_NAME = "replicated writes"
#: Seconds to wait before asking again about a probe revision found missing (a cluster that
#: answered 202 may need a moment before every replica has it).
RECHECK_DELAY = 0.5

Outcome = Literal["kept", "dropped", "refused"]


@dataclass(frozen=True)
class ProbeResult:
    """What the probe found: ``kept`` (both revisions are on the server), ``dropped`` (the
    server answered 201 but lacks ``missing``) or ``refused`` (it answered with an error:
    ``detail``). ``cleanup`` says what became of the probe document: ``purged``, ``deleted``
    (a tombstone stays), ``left`` (it could not be removed) or ``none`` (nothing was written)."""

    outcome: Outcome
    doc_id: str
    missing: tuple[str, ...] = ()
    detail: str = ""
    cleanup: str = "left"

    @property
    def kept(self) -> bool:
        return self.outcome == "kept"


def probe_replicated_writes(remote: RemoteDatabase) -> ProbeResult:
    """Write a probe document as replication does, read it back with ``_revs_diff`` and remove
    it (see the module). Network errors and database-level refusals (401/403/404) are raised as
    they are (after removing what was written); a per-document refusal is a ``refused``
    result."""
    doc_id = PROBE_PREFIX + uuid.uuid4().hex
    first, second = uuid.uuid4().hex, uuid.uuid4().hex
    revs = [f"1-{first}", f"2-{second}"]
    body: dict[str, Any] = {"storyloomProbe": PROBE_NAME, "note": "written and removed by storyloom remote check/setup"}
    outcome: Outcome = "refused"
    missing: list[str] = []
    detail = ""
    written = False
    try:
        for rev, ids in ((revs[0], [first]), (revs[1], [second, first])):
            doc = {"_id": doc_id, "_rev": rev, "_revisions": {"start": len(ids), "ids": ids}, **body}
            errors = [r for r in remote.bulk_docs([doc], new_edits=False) if isinstance(r, dict) and r.get("error")]
            if errors:
                detail = f"{errors[0].get('error')}: {errors[0].get('reason') or ''}".strip(": ")
                break
            written = True
        else:
            missing = _missing(remote, doc_id, revs)
            if missing:
                time.sleep(RECHECK_DELAY)
                missing = _missing(remote, doc_id, missing)
            outcome = "dropped" if missing else "kept"
    except BaseException:
        if written:
            _remove(remote, doc_id)
        raise
    cleanup = _remove(remote, doc_id) if written else "none"
    return ProbeResult(outcome, doc_id, tuple(missing), detail, cleanup)


def _missing(remote: RemoteDatabase, doc_id: str, revs: list[str]) -> list[str]:
    entry = remote.revs_diff({doc_id: revs}).get(doc_id)
    return [str(r) for r in (entry.get("missing") or [])] if isinstance(entry, dict) else []


def _remove(remote: RemoteDatabase, doc_id: str) -> str:
    """Delete the probe document (whatever revision won), then purge it where the user may."""
    try:
        current = remote.get(doc_id)
        deleted = remote.remove(doc_id, current["_rev"])
    except SyncError:
        return "left"
    if _is_pouchdb_server(remote):
        # pouchdb-server 4.2 has no _purge (and crashes on some requests it lacks).
        return "deleted"
    try:
        remote.request("POST", "_purge", json_body={doc_id: [deleted["rev"]]})
    except SyncError:
        return "deleted"  # only admins may purge (and not every server can): the tombstone stays
    return "purged"


def _is_pouchdb_server(remote: RemoteDatabase) -> bool:
    try:
        welcome = remote.server_info()
    except SyncError:
        return False
    return isinstance(welcome, dict) and "express-pouchdb" in welcome


def dropped_message(remote: RemoteDatabase, result: ProbeResult) -> str:
    return (
        f"{remote.server_url} answered 201 to a replicated write (_bulk_docs with new_edits:false) of a test "
        f"document but did not keep {len(result.missing)} of its 2 revisions. Known cause: {DROPPED_WRITES_CAUSE}"
    )


def replicated_writes_line(remote: RemoteDatabase, lines: list[CheckLine]) -> CheckLine:
    """The "replicated writes" line of ``remote check`` (after the database lines in ``lines``)."""
    from storyloom.sync.server_terms import CheckLine

    member = next((line for line in lines if line.name == "member"), None)
    if member is None or member.status != "ok":
        return CheckLine(PROBE_NAME, "warn", "not probed: the user cannot write to the database",
                         advice("fix the database and the membership first"))
    rules = next((line for line in lines if line.name == "lock rules"), None)
    try:
        result = probe_replicated_writes(remote)
    except SyncError as exc:
        return CheckLine(PROBE_NAME, "warn", f"could not probe: {exc}", advice("check again"))
    if result.outcome == "refused":
        return CheckLine(PROBE_NAME, "warn", f"the server refused the test document ({result.detail})",
                         advice("check the database's validate functions: they must accept a plain new document"))
    if result.outcome == "dropped":
        return CheckLine(PROBE_NAME, "fail", dropped_message(remote, result),
                         advice("Upgrade or fix the server (a CouchDB keeps replicated writes); until then pushes "
                                "stop with an error and nothing is lost"))
    detail = "a test document written as replication writes it was kept"
    if rules is not None and rules.status != "ok":
        detail += " (tested without current lock rules: check again once they are installed)"
    return CheckLine(PROBE_NAME, "ok", f"{detail}; {_cleanup_words(result.cleanup)}")


def replicated_writes_step(remote: RemoteDatabase) -> SetupStep:
    """The "replicated writes" step of easy set-up: raises :class:`SetupError` naming it when
    the server drops (or refuses) a replicated write.

    A kept probe is recorded in :data:`RECORD_ID` (a ``_local`` document: never replicated, and
    it leaves the database's ``update_seq`` alone) with the server's version and the lock
    rules' revision; a later set-up on the same server and rules trusts the record instead of
    writing another probe, so running set-up twice still changes nothing in the database."""
    from storyloom.sync.server_terms import SetupError, SetupStep

    fingerprint = _fingerprint(remote)
    record = remote.get_local(RECORD_ID)
    if record is not None and record.get("kept") is True and record.get("fingerprint") == fingerprint:
        return SetupStep(PROBE_NAME, False, f"the server keeps replicated writes (tested {record.get('at')})")
    result = probe_replicated_writes(remote)
    if result.outcome == "dropped":
        raise SetupError(
            f"replicated writes: {dropped_message(remote, result)}. Storyloom cannot sync through this server; the "
            "database and its lock rules are set up", fix=Fix("upgrade_server", then=Fix("run_setup")),
        )
    if result.outcome == "refused":
        raise SetupError(
            f"replicated writes: {remote.server_url} refused a plain test document ({result.detail})",
            fix=advice("check the database's validate functions", then=Fix("run_setup")),
        )
    at = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    doc: dict[str, Any] = {"_id": RECORD_ID, "kept": True, "fingerprint": fingerprint, "at": at}
    if record is not None and record.get("_rev"):
        doc["_rev"] = record["_rev"]
    try:
        remote.put_local(doc)
    except SyncError:
        pass  # without the record the next set-up probes again
    return SetupStep(PROBE_NAME, False, f"the server keeps replicated writes; {_cleanup_words(result.cleanup)}")


def _fingerprint(remote: RemoteDatabase) -> dict[str, Any]:
    """What a kept probe depends on: the server (uuid, product and version) and the database's
    lock rules (a validate function is what pouchdb-server 4.2 trips over)."""
    welcome = remote.server_info(refresh=True)
    try:
        rules_rev = remote.get(LOCK_DESIGN_ID).get("_rev")
    except RemoteNotFound:
        rules_rev = None
    vendor = welcome.get("vendor")
    if not isinstance(vendor, dict):
        vendor = {}
    return {
        "uuid": welcome.get("uuid"),
        "version": welcome.get("version"),
        "product": "pouchdb-server" if "express-pouchdb" in welcome else str(vendor.get("name") or "couchdb"),
        "rules": rules_rev,
    }


def _cleanup_words(cleanup: str) -> str:
    if cleanup == "purged":
        return "the test document was removed (purged)"
    if cleanup == "deleted":
        return f"the test document was deleted (its tombstone, {PROBE_PREFIX}..., is ignored by clients)"
    return f"the test document could not be removed ({PROBE_PREFIX}...; clients ignore it)"


__all__ = [
    "PROBE_NAME",
    "PROBE_PREFIX",
    "ProbeResult",
    "probe_replicated_writes",
    "replicated_writes_line",
    "replicated_writes_step",
]
