"""A restore refuses attachments whose bytes do not match the digest the backup recorded with
them, naming each, and writes nothing; with accept_damaged (``--accept-damaged``) it restores
them as they are, with a warning for each."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from storyloom import paths
from storyloom.cli.explain import say as cli_say
from storyloom.project.attachment_digests import digest_matches, md5_digest
from storyloom.project.manager import BackupError, DamagedBackupError, ProjectManager

PORTRAIT = bytes.fromhex("89504e470d0a1a0a") + b"portrait" * 100
MAP = bytes.fromhex("89504e470d0a1a0a") + b"map" * 100
# From PouchDB's test suite: CouchDB stores text/plain gzipped and records the digest of the
# gzipped bytes; PouchDB (and the store) record the md5 of the bytes themselves.
TEXT = b"This is a base64 encoded text"
COUCHDB_TEXT_DIGEST = "md5-qUUYqS41RhwF0TrCsTAxFg=="


def attachment(data: bytes, content_type: str = "image/png") -> dict:
    return {"blob": {"content_type": content_type, "data": base64.b64encode(data).decode()}}


@pytest.fixture
def backup(manager: ProjectManager, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A backup of a project with three attachments, and their documents' ids by name."""
    with manager.create("Atlas") as project:
        editor = project.editor
        ids = {
            "portrait": editor.create("Attachment", "portrait", mimeType="image/png",
                                      _attachments=attachment(PORTRAIT)).id,
            "map": editor.create("Attachment", "map", mimeType="image/png", _attachments=attachment(MAP)).id,
            "notes": editor.create("Attachment", "notes", mimeType="text/plain",
                                   _attachments=attachment(TEXT, "text/plain")).id,
        }
        file = manager.backup(project, tmp_path / "atlas.json")
    manager.delete("Atlas")
    return file, ids


def alter(file: Path, doc_id: str, data: bytes) -> str:
    """Replace the bytes of ``doc_id``'s attachment in the backup, keeping its recorded digest."""
    dump = json.loads(file.read_text(encoding="utf-8"))
    [row] = [row for row in dump["rows"] if row["id"] == doc_id]
    blob = row["doc"]["_attachments"]["blob"]
    blob["data"] = base64.b64encode(data).decode()
    file.write_text(json.dumps(dump), encoding="utf-8")
    return blob["digest"]


def test_a_damaged_attachment_is_refused_and_named_and_nothing_is_restored(
        manager: ProjectManager, backup: tuple[Path, dict[str, str]]) -> None:
    file, ids = backup
    damaged = PORTRAIT.replace(b"portrait", b"porTrait", 1)  # one flipped bit, the same length
    recorded = alter(file, ids["portrait"], damaged)
    with pytest.raises(DamagedBackupError) as info:
        manager.restore(file)
    assert isinstance(info.value, BackupError)
    [item] = info.value.damaged
    assert (item.doc_id, item.name, item.recorded, item.actual) == (ids["portrait"], "blob", recorded,
                                                                    md5_digest(damaged))
    message = cli_say(info.value)  # the fix as the command line says it
    assert message.splitlines() == [
        f"{file}: 1 attachment of the backup does not match the digest recorded with it (the bytes were "
        "changed after the backup was made), so nothing was restored:",
        f"  attachment 'blob' of document '{ids['portrait']}' (Attachment “portrait”): recorded digest "
        f"{recorded}, its bytes' {md5_digest(damaged)}",
        "Restore another backup, or pass --accept-damaged to restore it as it is (each is listed in a warning).",
    ]
    assert manager.list() == [] and list(paths.projects_dir().iterdir()) == []


def test_accept_damaged_restores_them_as_they_are_with_a_warning(manager: ProjectManager,
                                                                 backup: tuple[Path, dict[str, str]]) -> None:
    file, ids = backup
    damaged = b"not the portrait at all"
    recorded = alter(file, ids["portrait"], damaged)
    warnings: list[str] = []
    with manager.restore(file, accept_damaged=True, on_warning=warnings.append) as project:
        assert project.db.get_attachment(ids["portrait"], "blob") == damaged
        stub = project.db.get(ids["portrait"])["_attachments"]["blob"]
        assert stub["digest"] == md5_digest(damaged) and stub["length"] == len(damaged)
        assert project.db.get_attachment(ids["map"], "blob") == MAP
    assert warnings == [
        f"attachment 'blob' of document '{ids['portrait']}' (Attachment “portrait”) does not match the digest "
        f"recorded with it ({recorded}); kept as it is, with the digest of its bytes, "
        f"{md5_digest(damaged)}"
    ]


def test_couchdbs_digest_of_a_compressed_type_is_a_match(manager: ProjectManager,
                                                         backup: tuple[Path, dict[str, str]]) -> None:
    assert digest_matches(COUCHDB_TEXT_DIGEST, TEXT, "text/plain")
    assert digest_matches(md5_digest(TEXT), TEXT, "text/plain")
    assert not digest_matches(COUCHDB_TEXT_DIGEST, TEXT, "image/png")  # CouchDB compresses only some types
    assert not digest_matches(COUCHDB_TEXT_DIGEST, TEXT + b"!", "text/plain")
    assert digest_matches("sha256-anything", TEXT)  # another algorithm: not compared
    file, ids = backup
    dump = json.loads(file.read_text(encoding="utf-8"))
    [row] = [row for row in dump["rows"] if row["id"] == ids["notes"]]
    row["doc"]["_attachments"]["blob"]["digest"] = COUCHDB_TEXT_DIGEST  # as a dump from CouchDB holds it
    file.write_text(json.dumps(dump), encoding="utf-8")
    with manager.restore(file) as project:
        assert project.db.get_attachment(ids["notes"], "blob") == TEXT


@pytest.mark.integration
def test_the_cli_refuses_names_and_accepts_with_the_option(storyloom_home: Path,
                                                           backup: tuple[Path, dict[str, str]]) -> None:
    file, ids = backup
    alter(file, ids["portrait"], b"damaged portrait")
    alter(file, ids["map"], b"damaged map")

    def storyloom(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "storyloom", *args], capture_output=True, text=True,
                              timeout=120, check=False)

    refused = storyloom("restore", str(file))
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.startswith(f"storyloom: error: {file}: 2 attachments of the backup do not match")
    for doc_id in (ids["portrait"], ids["map"]):
        assert f"attachment 'blob' of document '{doc_id}'" in refused.stderr
    assert "--accept-damaged" in refused.stderr and "Traceback" not in refused.stderr
    assert storyloom("list", "--json").stdout.strip() == "[]"

    accepted = storyloom("restore", str(file), "--accept-damaged")
    assert accepted.returncode == 0 and "Restored project 'Atlas'" in accepted.stdout
    lines = accepted.stderr.splitlines()
    assert len([line for line in lines if line.startswith("storyloom: warning: attachment 'blob'")]) == 2
    with ProjectManager().open("Atlas") as project:
        assert project.db.get_attachment(ids["map"], "blob") == b"damaged map"
