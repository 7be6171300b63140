"""Damage is found and named: flipped bits in copies of a real store, damaged bodies,
attachments and text, and a store written before the checksums existed.

Every bit-flip run is checked one of two ways: ``verify`` names damage (and every read then
either succeeds or raises ``Damaged``, never another error), or the copy's content is provably
the original's (every document, revision, attachment, local document and change compared)."""

from __future__ import annotations

import base64
import json
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from storyloom.store import Damaged, Database, NotAStore
from storyloom.store.verify import verify

SECRET = "the-lighthouse-keeper-lies"  # text that must never appear in an error message
PNG = bytes(range(256)) * 8


def _rich_store(path: Path) -> None:
    """Documents with edits, deletions, a conflict, attachments and local documents."""
    db = Database(path)
    try:
        for i in range(60):
            db.put({"_id": f"script-{i:03d}", "type": "Script", "name": f"Script {i}",
                    "content": f"::Mara:: {SECRET} {i}\n" * (1 + i % 7)})
        for i in range(0, 60, 3):  # a second and third revision of some
            doc = db.get(f"script-{i:03d}")
            doc["name"] += " (edited)"
            db.put(doc)
            doc = db.get(f"script-{i:03d}")
            doc["content"] += "@set x = 1\n"
            db.put(doc)
        for i in range(0, 60, 10):
            doc = db.get(f"script-{i:03d}")
            db.remove(doc["_id"], doc["_rev"])
        db.bulk_docs([{"_id": "script-001", "_rev": "2-" + "ab" * 16, "name": "their edit", "type": "Script",
                       "_revisions": {"start": 2, "ids": ["ab" * 16, db.get("script-001")["_rev"].split("-")[1]]}}],
                     new_edits=False)
        for i in range(4):
            db.put({"_id": f"attachment-{i}", "type": "Attachment",
                    "_attachments": {"image.png": {"content_type": "image/png",
                                                   "data": base64.b64encode(PNG[i:] + bytes([i])).decode()}}})
        db.put_local({"_id": "_local/storyloom-open-tabs", "tabs": ["script-002"]})
        db.put_local({"_id": "_local/checkpoint", "last_seq": 42})
    finally:
        db.close()


def _content(db: Database) -> str:
    """Everything a person's work is made of, as one comparable text."""
    rows = db.all_docs(include_docs=True, attachments=True, conflicts=True)["rows"]
    leaves = {row["id"]: db.get(row["id"], open_revs="all", revs=True, attachments=True) for row in rows}
    everything = db.changes(style="all_docs")
    deleted = sorted(r["id"] for r in everything["results"] if r.get("deleted"))
    tombstones = {doc_id: db.get(doc_id, open_revs="all", revs=True) for doc_id in deleted}
    local = db.local_docs(include_docs=True)["rows"]
    return json.dumps([rows, leaves, everything, tombstones, local, db.info()], sort_keys=True)


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("damage") / "store.sqlite3"
    _rich_store(path)
    db = Database(path)
    try:
        assert verify(db) == []
        content = _content(db)
    finally:
        db.close()
    return path, content


def _flip(path: Path, seed: int, bits: int) -> None:
    rnd = random.Random(seed)
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        for _ in range(bits):
            offset = rnd.randrange(size)
            handle.seek(offset)
            byte = handle.read(1)[0]
            handle.seek(offset)
            handle.write(bytes([byte ^ (1 << rnd.randrange(8))]))


def _reads_everything_or_says_damaged(db: Database) -> None:
    try:
        _content(db)
    except Damaged as exc:
        assert "damaged" in str(exc) and SECRET not in str(exc)


@pytest.mark.parametrize("bits", [1, 3, 30])
@pytest.mark.parametrize("seed", range(12))
def test_flipped_bits_are_named_by_verify_or_change_nothing(original, tmp_path: Path, seed: int, bits: int) -> None:
    source, content = original
    copy = tmp_path / "store.sqlite3"
    shutil.copy(source, copy)
    _flip(copy, seed * 1000 + bits, bits)
    try:
        db = Database(copy)
    except (Damaged, NotAStore) as exc:  # the header itself: named at open, not served
        assert SECRET not in str(exc)
        return
    try:
        damage = verify(db)
        if damage:
            for item in damage:
                assert item.detail and SECRET not in str(item)
            _reads_everything_or_says_damaged(db)
        else:
            assert _content(db) == content, "verify found nothing, yet the content changed"
    finally:
        db.close()


def _store_with(path: Path, body: str) -> None:
    db = Database(path)
    db.put({"_id": "intro", "type": "Script", "content": body})
    db.put({"_id": "other", "type": "Script", "content": "fine"})
    db.close()


def _patch_file(path: Path, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    assert data.count(old) == 1, "the test's text must be in the file once"
    path.write_bytes(data.replace(old, new))


def test_a_changed_character_in_a_body_is_named_on_every_read(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    _store_with(path, f"::Mara:: {SECRET}")
    _patch_file(path, SECRET.encode(), SECRET.replace("keeper", "keepet").encode())  # still valid JSON
    db = Database(path)
    try:
        with pytest.raises(Damaged) as caught:
            db.get("intro")
        assert caught.value.doc_id == "intro" and str(path) in str(caught.value)
        assert "keepet" not in str(caught.value)
        assert db.get("other")["content"] == "fine"  # the rest still reads
        with pytest.raises(Damaged, match="'intro'"):
            db.all_docs(include_docs=True)
        with pytest.raises(Damaged, match="'intro'"):
            "".join(db.all_docs_stream(include_docs=True))
        with pytest.raises(Damaged, match="'intro'"):
            db.changes(include_docs=True)
        with pytest.raises(Damaged, match="'intro'"):
            db.bulk_get([{"id": "intro"}])
        [damage] = verify(db)
        assert (damage.doc_id, damage.attachment) == ("intro", None)
        assert "checksum" in damage.detail
    finally:
        db.close()


def test_invalid_utf8_in_a_body_is_damage_and_the_text_is_never_quoted(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    _store_with(path, f"{SECRET}")
    _patch_file(path, b"lighthouse", b"lighth\xffuse")
    db = Database(path)
    try:
        with pytest.raises(Damaged) as caught:
            db.get("intro")
        assert caught.value.doc_id == "intro" and "lighth" not in str(caught.value)
        with pytest.raises(Damaged) as walked:
            db.all_docs(include_docs=True)
        assert "lighth" not in str(walked.value) and walked.value.__cause__ is None
        assert [d.doc_id for d in verify(db)] == ["intro"]
    finally:
        db.close()


def test_attachment_bytes_are_checked_against_their_digest(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    db = Database(path)
    marker = random.Random(7).randbytes(4096)
    db.put({"_id": "mara", "_attachments": {"face.png": {"content_type": "image/png",
                                                         "data": base64.b64encode(marker).decode()}}})
    db.close()
    _patch_file(path, marker[:200], marker[:100] + bytes([marker[100] ^ 1]) + marker[101:200])
    db = Database(path)
    try:
        assert db.get("mara")["_attachments"]["face.png"]["stub"] is True  # stubs read fine
        with pytest.raises(Damaged) as caught:
            db.get_attachment("mara", "face.png")
        assert (caught.value.doc_id, caught.value.attachment) == ("mara", "face.png")
        assert "digest" in caught.value.detail
        with pytest.raises(Damaged):
            db.get("mara", attachments=True)
        [damage] = verify(db)
        assert (damage.doc_id, damage.attachment) == ("mara", "face.png")
    finally:
        db.close()


def test_a_store_from_before_the_checksums_gets_them_at_its_first_open(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    _store_with(path, f"::Mara:: {SECRET}")
    db = Database(path)
    db.put_local({"_id": "_local/tabs", "open": ["intro"]})
    db.close()
    conn = sqlite3.connect(path)
    for table in ("docs", "revs", "local_docs"):
        conn.execute(f"ALTER TABLE {table} DROP COLUMN crc")  # the layout before this version
    conn.commit()
    conn.close()
    db = Database(path)
    try:
        assert db.get("intro")["content"] == f"::Mara:: {SECRET}"
        assert verify(db) == []
        missing = db._writer.execute("SELECT COUNT(*) FROM revs WHERE crc IS NULL").fetchone()[0]
        assert missing == 0
    finally:
        db.close()
    _patch_file(path, b"Mara", b"Mira")
    db = Database(path)
    try:
        assert [d.doc_id for d in verify(db)] == ["intro"]
    finally:
        db.close()


def test_a_store_whose_header_is_damaged_says_damaged_when_its_project_opens(tmp_path: Path) -> None:
    from storyloom.project.manager import ProjectManager

    manager = ProjectManager(tmp_path / "home", username="t")
    project = manager.create("garden")
    store = project.path / "store.sqlite3"
    project.close()
    data = bytearray(store.read_bytes())
    data[0:16] = b"SQLite format 4\x00"
    store.write_bytes(bytes(data))
    with pytest.raises(Damaged) as caught:
        manager.open("garden")
    assert "damaged" in str(caught.value) and "bug" not in str(caught.value)
    [damage] = manager.verify("garden")
    assert damage.doc_id is None
