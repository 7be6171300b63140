"""The project manager's back-up, import and restore meet the same rules as the CLI: a backup
replaces a file only once the person confirmed it, and a backup with damaged attachments is
refused with an offer to import (or restore) it anyway."""

from __future__ import annotations

import base64
import json

from PySide6.QtWidgets import QDialogButtonBox

from storyloom.gui.project_manager_dialogs import ImportReportDialog
from tests.drafft.test_import_digests import BELLE
from tests.gui.test_project_manager import opener, when_modal, window  # noqa: F401 - fixtures
from tests.support.fixtures import DRAFFT_PROJECTS


def wait(qtbot, window) -> None:  # noqa: F811 - the fixture's name
    qtbot.waitUntil(lambda: window.task is None, timeout=60_000)


def test_a_backup_replaces_a_file_only_when_confirmed(window, workspace, qtbot, tmp_path):  # noqa: F811
    project = workspace.manager.create("Saga")
    project.close()
    window.refresh()
    target = tmp_path / "saga.json"
    target.write_text("last week's backup")
    window.start_backup(project.id, target)
    wait(qtbot, window)
    assert window.banner.kind == "error"
    assert f"{target} exists already" in window.banner.label.text()
    assert target.read_text() == "last week's backup"
    window.start_backup(project.id, target, force=True)  # as after the save dialog's confirmation
    wait(qtbot, window)
    assert window.banner.kind == "success"
    assert json.loads(target.read_text(encoding="utf-8"))["rows"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["saga.json"]


def test_a_damaged_drafft_backup_is_refused_then_imported_anyway(window, workspace, qtbot, tmp_path):  # noqa: F811
    dump = json.loads((DRAFFT_PROJECTS / "v1" / "one-bullet.json").read_text(encoding="utf-8"))
    [row] = [row for row in dump["rows"] if row["id"] == BELLE]
    row["doc"]["_attachments"]["expression_default"]["data"] = base64.b64encode(b"damaged").decode()
    file = tmp_path / "one-bullet.json"
    file.write_text(json.dumps(dump), encoding="utf-8")

    window.start_import(file)
    wait(qtbot, window)
    assert window.banner.kind == "error" and window.banner.action.text() == "Import anyway"
    text = window.banner.label.text()
    assert text.startswith("Nothing was imported: 1 attachment of one-bullet.json does not match")
    assert f"attachment 'expression_default' of document '{BELLE}' (Actor “Belle”)" in text
    assert "--accept-damaged" not in text and workspace.manager.list() == []

    reports = []

    def close_report(dialog):
        assert isinstance(dialog, ImportReportDialog)
        reports.append(dialog.details.toPlainText())
        dialog.buttons.button(QDialogButtonBox.StandardButton.Close).click()

    when_modal(qtbot, close_report)
    window.banner.action.click()
    qtbot.waitUntil(lambda: bool(reports), timeout=60_000)
    assert f"attachment 'expression_default' of document '{BELLE}' (Actor “Belle”) does not match" in reports[0]
    [info] = workspace.manager.list()
    assert info.name == "One Bullet"


def test_a_damaged_backup_is_refused_then_restored_anyway(window, workspace, qtbot, tmp_path):  # noqa: F811
    with workspace.manager.create("Atlas") as project:
        image = project.editor.create("Attachment", "map", mimeType="image/png", _attachments={
            "blob": {"content_type": "image/png", "data": base64.b64encode(b"\x89PNG map").decode()}}).id
        file = workspace.manager.backup(project, tmp_path / "atlas.json")
    workspace.manager.delete("Atlas")
    dump = json.loads(file.read_text(encoding="utf-8"))
    [row] = [row for row in dump["rows"] if row["id"] == image]
    row["doc"]["_attachments"]["blob"]["data"] = base64.b64encode(b"\x89PNG pam").decode()
    file.write_text(json.dumps(dump), encoding="utf-8")
    window.refresh()

    window.start_restore(file)
    wait(qtbot, window)
    assert window.banner.kind == "error" and window.banner.action.text() == "Restore anyway"
    assert window.banner.label.text().startswith("Nothing was restored: 1 attachment of atlas.json does not match")
    assert workspace.manager.list() == []
    window.banner.action.click()
    wait(qtbot, window)
    assert window.banner.kind == "success"
    assert "Restored “Atlas”. Kept as they were: 1 damaged attachment;" in window.banner.label.text()
    with workspace.manager.open("Atlas") as restored:
        assert restored.db.get_attachment(image, "blob") == b"\x89PNG pam"
