"""The spools an import and a restore keep their documents in: the file spool keeps each
document's place in a temporary SQLite database, and behaves as the dict spool does."""

from __future__ import annotations

import math
import tracemalloc

import pytest

from storyloom.project.spool import DiskMapping, FileSpool, MemorySpool


@pytest.mark.parametrize("spool_class", [MemorySpool, FileSpool])
def test_a_spool_keeps_documents_in_the_order_first_put_and_their_newest_versions(spool_class) -> None:  # type: ignore[no-untyped-def]
    spool = spool_class()
    try:
        for n in range(2500):  # more than a page of places
            spool.put({"_id": f"doc{n}", "n": n})
        spool.put({"_id": "doc7", "n": "seven", "odd": math.inf})  # a newer version keeps its place
        assert len(spool) == 2500
        assert "doc7" in spool and "nope" not in spool and 7 not in spool
        assert spool.get("doc7") == {"_id": "doc7", "n": "seven", "odd": math.inf}
        with pytest.raises(KeyError):
            spool.get("nope")
        walked = []
        for doc in spool.values():
            walked.append(doc["_id"])
            if doc["_id"] == "doc0":
                spool.put({"_id": "late", "n": -1})  # put during the walk: not met by it
                spool.put({"_id": "doc2", "n": "two"})  # a newer version: met by it
        assert walked == [f"doc{n}" for n in range(2500)]
        assert spool.get("doc2")["n"] == "two" and "late" in spool and len(spool) == 2501
    finally:
        spool.close()


def test_the_file_spool_holds_no_place_per_document_in_memory() -> None:
    """What a document costs the Python heap once spooled: well under the 0.2 KB per document of
    issue 28 (a dict of places: 136 bytes here, 0.4 KB in a
    restore, with the ids its parser made)."""
    spool = FileSpool()
    try:
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for n in range(20_000):
            spool.put({"_id": f"{n:032x}", "type": "Script", "content": {"script": "::Ann:: Hello.\n"}})
        grown = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        assert grown / 20_000 < 50, f"{grown / 20_000:.0f} bytes per document"
    finally:
        spool.close()


def test_a_disk_mapping_keeps_its_order_and_gives_copies() -> None:
    summaries = DiskMapping()
    labels = DiskMapping(like=summaries)
    try:
        for i in (3, 1, 2):
            summaries[f"d{i}"] = {"_id": f"d{i}", "parent": None}
        labels["d1"] = "Script"
        doc = summaries["d1"]
        doc["parent"] = "f"
        assert summaries["d1"]["parent"] is None  # a copy: set it again to keep it
        summaries["d1"] = doc
        assert list(summaries) == ["d3", "d1", "d2"] and len(summaries) == 3  # set again: same place
        assert [v["parent"] for v in summaries.values()] == [None, "f", None]
        assert "d1" in summaries and "d9" not in summaries and 1 not in summaries
        assert dict(labels.items()) == {"d1": "Script"} and summaries.get("d9") is None
        del summaries["d3"]
        assert list(summaries) == ["d1", "d2"] and len(summaries) == 2
        with pytest.raises(KeyError):
            summaries["d3"]
        summaries.clear()
        assert len(summaries) == 0 and not list(summaries) and labels["d1"] == "Script"
    finally:
        summaries.close()
