"""A damaged project in the app: the window still opens and warns of the damaged documents with
the ways back; the project manager offers salvage and the newest automatic backup when a
project does not open at all. Real damage: bytes changed in the store file."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication

from storyloom.app import Workspace
from storyloom.app.auto_backups import take_backup
from storyloom.app.views.recovery import recovery_for, salvage_summary
from storyloom.gui.damaged_project import DamagedProjectDialog
from storyloom.project.salvage import SalvageReport

SECRET = "the-lighthouse-keeper-lies"


def _project(workspace: Workspace, name: str = "Harbour") -> Path:
    project = workspace.manager.create(name)
    project.store.bulk_docs([{"_id": f"script-{i}", "type": "Script", "collection": "Script", "name": f"Scene {i}",
                              "parent": None, "sortKey": str(i + 1), "content": {"script": f"{SECRET} {i}"}}
                             for i in range(4)])
    path = project.path / "store.sqlite3"
    project.close()
    return path


def _damage_text(path: Path, number: int) -> None:
    data = path.read_bytes()
    needle = f"{SECRET} {number}".encode()
    assert data.count(needle) == 1
    path.write_bytes(data.replace(needle, needle.replace(b"keeper", b"keepet")))


def _dialog(qtbot) -> DamagedProjectDialog:  # type: ignore[no-untyped-def]
    found: list[DamagedProjectDialog] = []

    def shown() -> bool:
        found[:] = [w for w in QApplication.topLevelWidgets() if isinstance(w, DamagedProjectDialog) and w.isVisible()]
        return bool(found)

    qtbot.waitUntil(shown, timeout=5000)
    return found[0]


def test_the_offer_in_words(workspace: Workspace) -> None:
    _project(workspace)
    info = workspace.manager.find("Harbour")
    recovery = recovery_for(workspace.manager, info, "document 'script-1' cannot be read")
    assert recovery.salvage_name == "Harbour (salvaged)" and recovery.newest_backup is None
    assert "“Harbour” is damaged: document 'script-1' cannot be read." in recovery.text
    assert "team server" in recovery.text and "automatic backup" not in recovery.text
    report = SalvageReport(copied=3, lost=["document 'script-1': ..."])
    assert salvage_summary("Copy", report) == "Salvaged 3 documents into “Copy”; 1 item could not be read."
    assert salvage_summary("Copy", SalvageReport(copied=4)) == "Salvaged every document into “Copy”."


def test_a_window_opens_around_a_damaged_document_and_offers_salvage(qtbot, workspace: Workspace) -> None:
    from storyloom.gui.main_window import open_project_window

    _damage_text(_project(workspace), 1)
    window = open_project_window(workspace, "Harbour")
    qtbot.addWidget(window)
    try:
        notice = window.damage_notice
        assert window.tabs.open("script-2") is not None
        assert window.tabs.open("script-1") is None  # no editor on a damaged document, no crash
        assert notice.damaged == {"script-1"} and notice.button.isVisible()
        assert notice.button.text() == "1 damaged document"
        notice.offer()
        dialog = _dialog(qtbot)
        assert "script-1" in dialog.text.text() and SECRET not in dialog.text.text()
        assert dialog.restore_button is None  # no automatic backup yet
        dialog.salvage_button.click()
        qtbot.waitUntil(lambda: notice.task is None and "Harbour (salvaged)" in
                        [p.name for p in workspace.manager.list()], timeout=15000)
        copy = workspace.manager.open("Harbour (salvaged)")
        try:
            assert copy.db.get("script-2")["content"]["script"] == f"{SECRET} 2"
            assert copy.db.get("script-1")["content"]["script"].startswith("the-lighthouse")
        finally:
            copy.close()
        assert "Harbour (salvaged)" in notice.said and "review them" in notice.said
    finally:
        window.close()


def test_the_project_manager_offers_the_newest_backup_when_a_project_does_not_open(qtbot, workspace) -> None:
    from storyloom.gui.project_manager import ProjectManagerWindow

    path = _project(workspace)
    project = workspace.manager.open("Harbour")
    take_backup(project, keep=10)
    project.close()
    data = bytearray(path.read_bytes())
    data[0:16] = b"SQLite format 4\x00"  # the header: the store does not open at all
    path.write_bytes(bytes(data))
    manager = ProjectManagerWindow(workspace)
    qtbot.addWidget(manager)
    manager.show()
    assert manager.open_project("Harbour") is False
    dialog = _dialog(qtbot)
    assert "“Harbour” is damaged" in dialog.text.text() and "newest automatic backup" in dialog.text.text()
    assert dialog.restore_button is not None
    dialog.restore_button.click()
    qtbot.waitUntil(lambda: manager.task is None and any(p.name.startswith("Harbour (backup ")
                                                         for p in workspace.manager.list()), timeout=15000)
    restored = next(p for p in workspace.manager.list() if p.name.startswith("Harbour (backup "))
    with workspace.manager.open(restored.id) as copy:
        assert copy.db.get("script-3")["content"]["script"] == f"{SECRET} 3"
    assert "Restored the backup" in manager.banner.label.text()
