"""A Drafft import refuses attachments whose bytes do not match the digest the backup recorded
with them, naming each, and creates nothing; with accept_damaged (``--accept-damaged``) it
imports them as they are, with a warning for each. The real Drafft samples are read in place; a
damaged copy is written to the test's temporary folder."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from storyloom import paths
from storyloom.cli.explain import say as cli_say
from storyloom.drafft import DamagedDrafftBackupError, DrafftImportError, import_backup
from storyloom.project.attachment_digests import damaged_attachments, md5_digest
from storyloom.project.manager import ProjectManager

from .conftest import FIXTURE_FILES, fixture_dump

BELLE = "85c4fa08-9e40-4baf-ad15-4b9fcceb4250"  # an Actor of one-bullet with an expression image


@pytest.mark.parametrize("key", sorted(FIXTURE_FILES))
def test_every_attachment_of_the_real_samples_matches_its_digest(key: str) -> None:
    docs = [row["doc"] for row in fixture_dump(key)["rows"] if isinstance(row.get("doc"), dict)]
    assert any("_attachments" in doc for doc in docs)
    assert [item for doc in docs for item in damaged_attachments(doc)] == []


def damaged_copy(tmp_path: Path, data: bytes) -> tuple[Path, str]:
    """one-bullet with Belle's expression image replaced by ``data`` (its digest kept)."""
    dump = json.loads(json.dumps(fixture_dump("one-bullet")))
    [row] = [row for row in dump["rows"] if row["id"] == BELLE]
    image = row["doc"]["_attachments"]["expression_default"]
    image["data"] = base64.b64encode(data).decode()
    file = tmp_path / "one-bullet-damaged.json"
    file.write_text(json.dumps(dump), encoding="utf-8")
    return file, image["digest"]


def test_a_damaged_attachment_is_refused_and_named(manager: ProjectManager, tmp_path: Path) -> None:
    damaged = b"\x89PNG\r\n\x1a\n a damaged image"
    file, recorded = damaged_copy(tmp_path, damaged)
    with pytest.raises(DamagedDrafftBackupError) as info:
        import_backup(manager, file)
    assert isinstance(info.value, DrafftImportError)
    [item] = info.value.damaged
    assert (item.doc_id, item.name, item.recorded, item.actual) == (BELLE, "expression_default", recorded,
                                                                    md5_digest(damaged))
    message = cli_say(info.value)  # the fix as the command line says it
    assert f"attachment 'expression_default' of document '{BELLE}' (Actor “Belle”)" in message
    assert "so nothing was imported" in message and "pass --accept-damaged to import it as it is" in message
    assert manager.list() == [] and list(paths.projects_dir().iterdir()) == []


def test_accept_damaged_imports_it_as_it_is_with_a_warning(manager: ProjectManager, tmp_path: Path) -> None:
    damaged = b"\x89PNG\r\n\x1a\n a damaged image"
    file, recorded = damaged_copy(tmp_path, damaged)
    project, report = import_backup(manager, file, accept_damaged=True)
    with project:
        [item] = report.damaged_attachments
        assert item.doc_id == BELLE
        assert [w for w in report.warnings if "does not match the digest" in w] == [
            f"attachment 'expression_default' of document '{BELLE}' (Actor “Belle”) does not match the digest "
            f"recorded with it ({recorded}); kept as it is, with the digest of its bytes, "
            f"{md5_digest(damaged)}"
        ]
        assert report.to_dict()["damagedAttachments"] == [
            {"docId": BELLE, "name": "expression_default", "recordedDigest": recorded, "digest": md5_digest(damaged)}
        ]
        # The expression became an Attachment document holding the damaged bytes.
        belle = project.db.get(BELLE)
        [expression] = belle["content"]["expressions"]
        image = project.db.get(expression["_id"])
        assert project.db.get_attachment(image["_id"], "blob") == damaged
        assert image["_attachments"]["blob"]["digest"] == md5_digest(damaged)


@pytest.mark.integration
def test_the_cli_refuses_and_accepts_with_the_option(storyloom_home: Path, tmp_path: Path) -> None:
    file, _ = damaged_copy(tmp_path, b"damaged")

    def storyloom(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "storyloom", *args], capture_output=True, text=True,
                              timeout=120, check=False)

    refused = storyloom("import", str(file))
    assert refused.returncode == 1 and refused.stdout == ""
    assert f"attachment 'expression_default' of document '{BELLE}'" in refused.stderr
    assert "--accept-damaged" in refused.stderr and "Traceback" not in refused.stderr
    assert storyloom("list", "--json").stdout.strip() == "[]"
    accepted = storyloom("import", str(file), "--accept-damaged", "--json")
    assert accepted.returncode == 0, accepted.stderr
    report = json.loads(accepted.stdout)
    assert [d["docId"] for d in report["damagedAttachments"]] == [BELLE]
    assert any("does not match the digest" in w for w in report["warnings"])
