"""The Attachments editor's rules without Qt: what is shown of an Attachment document, adding and
replacing files through the gate, who uses an attachment, and how a preview's image sources
resolve (on the Drafft garden sample and the built-in sample)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from storyloom.app import AppOptions, Workspace
from storyloom.app import attachments as att
from storyloom.drafft import import_backup
from storyloom.project.sample import create_sample_project, png_image
from storyloom.store import Conflict
from tests.support.fixtures import DRAFFT_PROJECTS

GARDEN = DRAFFT_PROJECTS / "v2" / "the-garden-of-fading-memories.json"
WARM = "04c9348b-09ae-4c70-9f60-ad5839b388d4"  # woman_expression_warm, a JPEG the actor Woman shows


@pytest.fixture
def session(storyloom_home: Path):  # type: ignore[no-untyped-def]
    workspace = Workspace(storyloom_home / "projects", options=AppOptions(username="tester"))
    project, _report = import_backup(workspace.manager, GARDEN, name="Garden")
    project.close()
    opened = workspace.open_session("Garden")
    yield opened
    opened.close()
    workspace.close()


def _png(tmp_path: Path, name: str, rgb: tuple[int, int, int] = (10, 120, 200), size: int = 16) -> Path:
    path = tmp_path / name
    path.write_bytes(png_image(rgb, size))
    return path


def test_the_info_and_details_of_a_drafft_image(session) -> None:  # type: ignore[no-untyped-def]
    doc = session.db.get(WARM)
    info = att.attachment_info(doc)
    assert (info.name, info.mime_type, info.is_image, info.has_blob) == ("woman_expression_warm", "image/jpeg",
                                                                          True, True)
    data = att.read_blob(session.db, WARM)
    assert data is not None and info.length == len(data) and data[:3] == b"\xff\xd8\xff"
    rows = dict(att.detail_rows(info, (511, 511)))
    assert rows["Type"] == "image/jpeg"
    assert rows["Size"] == f"{att.human_size(len(data))} ({len(data):,} bytes)"
    assert rows["Dimensions"] == "511 × 511 px"
    import hashlib

    assert rows["Digest"] == f"MD5 {hashlib.md5(data).hexdigest()}"
    assert rows["Permalink"] == f"drafft://image/{WARM}"
    assert rows["Revision"].startswith("1 · 2026-02-19")


def test_sizes_digests_and_file_names() -> None:
    assert att.human_size(None) == "unknown"
    assert att.human_size(1) == "1 byte"
    assert att.human_size(1023) == "1023 bytes"
    assert att.human_size(2048) == "2.0 KB"
    assert att.human_size(2_501_176) == "2.4 MB"
    assert att.digest_text("md5-XUFAKrxLKna5cZ2REBfFkg==") == "MD5 5d41402abc4b2a76b9719d911017c592"
    assert att.digest_text("") == "—"
    info = att.attachment_info({"_id": "a", "name": "cover: art?", "mimeType": "image/jpeg"})
    assert att.suggested_file_name(info) == "cover_ art_.jpg"
    assert not info.has_blob and info.length is None


def test_the_type_of_a_file_comes_from_its_bytes_then_its_name() -> None:
    assert att.guess_type("x.bin", png_image((1, 2, 3))) == "image/png"
    assert att.guess_type("photo.png", b"\xff\xd8\xff\xe0rest") == "image/jpeg"
    assert att.guess_type("a.webp", b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert att.guess_type("logo", b"  <svg xmlns='http://www.w3.org/2000/svg'/>") == "image/svg+xml"
    assert att.guess_type("notes.txt", b"hello") == "text/plain"
    assert att.guess_type("mystery", b"\x00\x01") == att.OCTET_STREAM


def test_adding_files_creates_attachment_documents_through_the_gate(session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    good = _png(tmp_path, "lighthouse_at_dusk.png")
    text = tmp_path / "credits.txt"
    text.write_text("Art by Ada", encoding="utf-8")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    results = att.add_files(session.editor, [good, tmp_path / "gone.png", empty, text])
    assert [r.path.name for r in results] == ["lighthouse_at_dusk.png", "gone.png", "empty.png", "credits.txt"]
    added = [r for r in results if r.doc_id]
    assert [r.path.name for r in added] == ["lighthouse_at_dusk.png", "credits.txt"]
    assert "cannot read gone.png" in str(results[1].error) and "empty" in str(results[2].error)
    doc = session.db.get(added[0].doc_id)
    assert (doc["type"], doc["name"], doc["mimeType"]) == ("Attachment", "lighthouse_at_dusk", "image/png")
    assert doc["permalink"] == f"storyloom://image/{doc['_id']}" and doc["createdBy"] == "tester"
    assert att.read_blob(session.db, doc["_id"]) == good.read_bytes()
    assert session.db.get(added[1].doc_id)["mimeType"] == "text/plain"
    assert session.index.get(added[0].doc_id) is not None
    summary = att.added_summary(results)
    assert summary.startswith("Added 2 files. Not added: cannot read gone.png") and "(and 1 more)" in summary


def test_a_file_too_large_is_refused_with_the_limit(session, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(att, "MAX_FILE_BYTES", 100)
    big = tmp_path / "big.bin"
    big.write_bytes(b"x" * 101)
    [result] = att.add_files(session.editor, [big])
    assert result.doc_id is None and "limited to 100 bytes" in str(result.error)
    with pytest.raises(att.AttachmentFileError, match="not a file"):
        att.read_file(tmp_path)


def test_replacing_a_file_makes_a_new_revision(session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    before = session.db.get(WARM)
    replacement = _png(tmp_path, "warm_v2.png", (200, 40, 40), 24)
    result = att.replace_file(session.editor, WARM, replacement, rev=before["_rev"])
    after = session.db.get(WARM)
    assert result.rev == after["_rev"] and after["_rev"].startswith("2-")
    assert after["mimeType"] == "image/png" and after["name"] == "woman_expression_warm"
    assert att.read_blob(session.db, WARM) == replacement.read_bytes()
    assert att.read_blob(session.db, WARM, before["_rev"])[:3] == b"\xff\xd8\xff"  # the old revision keeps its file
    assert att.attachment_info(after).revision == 2
    with pytest.raises(Conflict):  # based on the revision the user saw: a change meanwhile is not overwritten
        att.replace_file(session.editor, WARM, replacement, rev=before["_rev"])


def test_who_uses_an_attachment(session) -> None:  # type: ignore[no-untyped-def]
    users = att.users_of(session.db, session.index, WARM)
    assert [(u.name, u.collection, u.how) for u in users] == [("Woman", "Actor", "expression image")]
    gdd = session.index.ids_of_type("Gdd")[0]
    page = session.db.get(gdd)
    session.editor.patch(gdd, {"content": {**page["content"],
                                           "gdd": page["content"]["gdd"] + f"\n![warm](drafft://image/{WARM})\n"}})
    users = att.users_of(session.db, session.index, WARM)
    assert [(u.name, u.how) for u in users] == [("Master GDD", "image in the page"), ("Woman", "expression image")]


def test_preview_image_sources_resolve_to_attachments(session) -> None:  # type: ignore[no-untyped-def]
    images = att.AttachmentImages(session.db, session.index)
    for source in (f"drafft://image/{WARM}", f"storyloom://image/{WARM}", WARM, "woman_expression_warm",
                   "Woman_Expression_Warm.jpg", "images/woman_expression_warm.png"):
        found = images.resolve(source)
        assert (found.kind, found.doc_id) == ("attachment", WARM), source
    loaded = images.load(f"drafft://image/{WARM}")
    assert loaded.data == att.read_blob(session.db, WARM) and loaded.rev == session.db.get(WARM)["_rev"]
    missing = images.resolve("drafft://image/no-such-id")
    assert missing.kind == "missing" and missing.placeholder == "Image not shown: no attachment with id “no-such-id”"
    assert images.resolve("concept art.png").placeholder == "Image not shown: no attachment named “concept art.png”"
    assert images.resolve("https://example.org/a.png").kind == "external"
    assert "not loaded" in images.resolve("https://example.org/a.png").placeholder
    data = base64.b64encode(png_image((1, 2, 3))).decode()
    inline = images.resolve(f"data:image/png;base64,{data}")
    assert inline.kind == "data" and inline.data == png_image((1, 2, 3))
    assert images.resolve("data:image/png;base64,@@@").kind == "missing"
    assert images.resolve("").kind == "missing"


def test_the_built_in_sample_shows_its_concept_art(storyloom_home: Path) -> None:
    workspace = Workspace(storyloom_home / "projects", options=AppOptions(username="tester"))
    with create_sample_project(workspace.manager, "Sample"):
        pass
    session = workspace.open_session("Sample")
    try:
        overview = next(s.id for s in session.index.summaries() if s.type == "Gdd" and s.name == "Overview")
        text = session.db.get(overview)["content"]["gdd"]
        source = text.split("](", 1)[1].split(")", 1)[0]
        assert source.startswith("storyloom://image/")
        found = att.AttachmentImages(session.db, session.index).load(source)
        assert found.kind == "attachment" and found.data is not None and found.data.startswith(b"\x89PNG")
        art = session.db.get(found.doc_id)
        assert [u.name for u in att.users_of(session.db, session.index, art["_id"])] == ["Overview"]
    finally:
        session.close()
        workspace.close()
