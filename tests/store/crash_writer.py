"""Child process for test_crash_safety.py: writes to a file Database in a loop until killed.

Usage: python crash_writer.py <db path> <seed>

Prints, flushed, one JSON line per event:
* ``{"ready": true}`` once the database is open;
* ``{"begin": n}`` just before write call n (so the parent can tell a kill hit a call in flight);
* one ``{"ack": ...}`` line per acknowledged write, printed only AFTER the call returned:
  ``{"id", "rev", "parent" (rev or null), "w" (the body's counter), "deleted", "atts" ({name: md5})}``.

Writes mix ``bulk_docs`` batches (new docs and updates), single ``put``s with and without
attachments (new data, or stubs that keep the parent's), deletions, recreations, and replicated
(``new_edits=False``) writes that extend a doc or add a conflicting branch. revs_limit is small so
stemming (and with it the removal of old bodies and attachment references) happens under load too.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import sys
import uuid
from typing import Any

from storyloom.store import Database

REVS_LIMIT = 4


def emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> None:
    path, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    db = Database(path, revs_limit=REVS_LIMIT)
    # The revs this writer will extend: every live doc's winner. Attachment md5s per doc.
    revs: dict[str, str] = {row["id"]: row["value"]["rev"] for row in db.all_docs()["rows"]}
    atts: dict[str, dict[str, str]] = {}
    for doc_id, rev in revs.items():
        # Our digests are md5 of the raw bytes (docs/protocol.md 2.1): no need to fetch the data.
        doc = db.get(doc_id, rev=rev)
        atts[doc_id] = {
            name: base64.b64decode(meta["digest"].removeprefix("md5-")).hex()
            for name, meta in (doc.get("_attachments") or {}).items()
        }
    # Other live leaves (conflicts) per doc: removing the writer's leaf leaves such a doc alive.
    branches: dict[str, list[str]] = {}
    for doc_id in revs:
        branches[doc_id] = db.get(doc_id, conflicts=True).get("_conflicts", [])
    deleted = [row["id"] for row in db.changes()["results"] if row.get("deleted")]
    counter = seed * 1_000_000
    calls = 0
    emit({"ready": True})

    def body(doc_id: str) -> dict[str, Any]:
        nonlocal counter
        counter += 1
        return {"_id": doc_id, "w": counter, "text": "x" * rng.randint(0, 2000)}

    def new_id() -> str:
        return f"s{seed}-{uuid.UUID(int=rng.getrandbits(128)).hex[:12]}"

    def with_attachments(doc: dict[str, Any], doc_id: str, stubs: bool) -> dict[str, str]:
        """Maybe add attachments; return the expected {name: md5} of the new revision."""
        expected = dict(atts.get(doc_id, {})) if stubs else {}
        if expected and rng.random() < 0.5:  # keep the parent's attachments as stubs
            doc["_attachments"] = {name: {"stub": True} for name in expected}
        else:
            expected = {}
        if rng.random() < 0.4:
            name = rng.choice(["a.bin", "b.bin", "notes/c.txt"])
            data = rng.randbytes(rng.randint(0, 8_000))
            doc.setdefault("_attachments", {})[name] = {
                "content_type": "application/octet-stream",
                "data": base64.b64encode(data).decode(),
            }
            expected[name] = hashlib.md5(data).hexdigest()
        return expected

    def ack(doc_id: str, rev: str, parent: str | None, w: int, is_deleted: bool, att: dict[str, str]) -> None:
        emit({"ack": {"id": doc_id, "rev": rev, "parent": parent, "w": w, "deleted": is_deleted, "atts": att}})

    while True:
        op = rng.random()
        calls += 1
        if op < 0.4:
            # bulk_docs: new docs and updates of existing ones, one transaction.
            docs, meta = [], []
            for _ in range(rng.randint(1, 12)):
                if revs and rng.random() < 0.5:
                    doc_id = rng.choice(sorted(revs))
                    if any(d["_id"] == doc_id for d in docs):
                        continue
                    doc = body(doc_id)
                    doc["_rev"] = revs[doc_id]
                else:
                    doc_id = new_id()
                    doc = body(doc_id)
                expected = with_attachments(doc, doc_id, stubs="_rev" in doc)
                docs.append(doc)
                meta.append((doc_id, doc.get("_rev"), doc["w"], expected))
            emit({"begin": calls})
            results = db.bulk_docs(docs)
            for (doc_id, parent, w, expected), result in zip(meta, results, strict=True):
                if result.get("ok"):
                    revs[doc_id] = result["rev"]
                    atts[doc_id] = expected
                    ack(doc_id, result["rev"], parent, w, False, expected)
        elif op < 0.75:
            # A single put: create, update, or recreate a deleted doc.
            recreated_from = None
            if deleted and rng.random() < 0.2:
                doc_id = deleted.pop(rng.randrange(len(deleted)))
                parent = None
                # The new revision grafts onto the winning tombstone: report that as its parent.
                recreated_from = db.all_docs(keys=[doc_id])["rows"][0]["value"]["rev"]
            elif revs and rng.random() < 0.6:
                doc_id = rng.choice(sorted(revs))
                parent = revs[doc_id]
            else:
                doc_id, parent = new_id(), None
            doc = body(doc_id)
            if parent:
                doc["_rev"] = parent
            expected = with_attachments(doc, doc_id, stubs=parent is not None)
            emit({"begin": calls})
            result = db.put(doc)
            revs[doc_id] = result["rev"]
            atts[doc_id] = expected
            ack(doc_id, result["rev"], parent or recreated_from, doc["w"], False, expected)
        elif op < 0.87 and revs:
            # Delete a doc.
            doc_id = rng.choice(sorted(revs))
            parent = revs.pop(doc_id)
            atts.pop(doc_id, None)
            emit({"begin": calls})
            result = db.remove(doc_id, parent)
            if branches.get(doc_id):
                revs[doc_id] = branches[doc_id].pop()  # still alive: carry on with another leaf
                atts[doc_id] = {}
            else:
                deleted.append(doc_id)
            ack(doc_id, result["rev"], parent, 0, True, {})
        elif revs:
            # Replicated write: extend the doc, or add a conflicting branch (a new root).
            doc_id = rng.choice(sorted(revs))
            parent = revs[doc_id]
            pos, parent_hash = parent.split("-", 1)
            new_hash = uuid.UUID(int=rng.getrandbits(128)).hex
            doc = body(doc_id)
            if rng.random() < 0.5:
                rev, ids, ancestor = f"{int(pos) + 1}-{new_hash}", [new_hash, parent_hash], parent
            else:
                rev, ids, ancestor = f"{pos}-{new_hash}", [new_hash], None
            doc["_rev"] = rev
            doc["_revisions"] = {"start": int(rev.split("-")[0]), "ids": ids}
            emit({"begin": calls})
            assert db.bulk_docs([doc], new_edits=False) == []
            if ancestor:
                revs[doc_id] = rev
                atts[doc_id] = {}
            else:
                branches.setdefault(doc_id, []).append(rev)
            ack(doc_id, rev, ancestor, doc["w"], False, {})


if __name__ == "__main__":
    main()
