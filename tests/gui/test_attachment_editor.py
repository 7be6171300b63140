"""The Attachments editor and images in the markdown preview, on real projects (the Drafft garden
sample, with its nine JPEG/PNG attachments, and the built-in sample): the rail's Attachments
entry lists them and opens them, files are added (dialog and desktop drops) and replaced (a new
revision through the gate), and GDD previews draw attachments inline or a readable placeholder."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from storyloom.project.sample import png_image

WARM = "04c9348b-09ae-4c70-9f60-ad5839b388d4"  # woman_expression_warm.jpg, 511 x 511, shown by the actor Woman


def _png(folder: Path, name: str, size: int = 24, rgb: tuple[int, int, int] = (200, 40, 40)) -> Path:
    path = folder / name
    path.write_bytes(png_image(rgb, size))
    return path


def _names(model) -> list[str]:  # type: ignore[no-untyped-def]
    return [model.index(row, 0).data() for row in range(model.rowCount())]


def _open_attachment(window, doc_id: str):  # type: ignore[no-untyped-def]
    from storyloom.gui.sidebar import ATTACHMENTS

    window.sidebar.select(ATTACHMENTS)
    index = window.explorer.model.index_of(doc_id)
    assert index.isValid()
    window.explorer.view.activated.emit(index)  # what a double click or Enter sends
    return window.tabs.current_editor()


@pytest.mark.slow
def test_the_rail_lists_the_attachments_and_opens_one_in_its_editor(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.editors import AttachmentEditor

    editor = _open_attachment(window, WARM)
    names = _names(window.explorer.model)
    assert len(names) == 9 and "woman_expression_warm" in names
    assert isinstance(editor, AttachmentEditor) and editor.doc_id == WARM
    assert editor.image_view.isVisibleTo(editor) and not editor.no_preview.isVisibleTo(editor)
    assert (editor.image_view.image.width(), editor.image_view.image.height()) == (511, 511)
    details = {editor.details.itemAt(row, editor.details.ItemRole.LabelRole).widget().text():
               editor.details.itemAt(row, editor.details.ItemRole.FieldRole).widget().text().replace("\u200b", "")
               for row in range(editor.details.rowCount())}
    assert details["Type"] == "image/jpeg" and details["Dimensions"] == "511 × 511 px"
    assert details["Size"].endswith(f"({len(window.session.db.get_attachment(WARM, 'blob')):,} bytes)")
    assert details["Permalink"] == f"drafft://image/{WARM}" and details["Digest"].startswith("MD5 ")
    assert [u.name for u in editor.users] == ["Woman"]
    button = editor.users_box.itemAt(0).widget()
    assert button.text() == "Woman — expression image"
    button.click()
    assert window.tabs.current_editor().base["name"] == "Woman"


@pytest.mark.slow
def test_notes_and_name_autosave_through_the_gate(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _open_attachment(window, WARM)
    qtbot.keyClicks(editor.notes, "Painted for the demo; CC BY-NC-SA.")
    assert editor.dirty
    qtbot.waitUntil(lambda: not editor.dirty, timeout=5000)
    doc = window.session.db.get(WARM)
    assert doc["content"]["notes"] == "Painted for the demo; CC BY-NC-SA."
    assert doc["modifiedBy"] == "tester" and doc["_attachments"]["blob"]["length"] > 100_000  # the file stays
    revision = editor.details.itemAt(4, editor.details.ItemRole.FieldRole).widget().text()
    assert revision.startswith("2 · ") and revision.endswith("by tester")  # the details follow the save


def test_replacing_the_file_makes_a_new_revision(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    editor = _open_attachment(window, WARM)
    assert editor.replace_with(_png(tmp_path, "warm_redrawn.png", 24))
    doc = window.session.db.get(WARM)
    assert doc["_rev"].startswith("2-") and doc["mimeType"] == "image/png"
    assert window.session.db.get_attachment(WARM, "blob") == (tmp_path / "warm_redrawn.png").read_bytes()
    assert editor.banner.isVisibleTo(editor)
    assert editor.banner.label.text() == "Replaced the file with warm_redrawn.png (revision 2)."
    assert (editor.image_view.image.width(), editor.dimensions) == (24, (24, 24))
    assert editor.info is not None and editor.info.revision == 2 and not editor.dirty and not editor.invalid
    # the change event of our own revision does not reload or warn
    qtbot.wait(400)
    assert editor.banner.label.text().startswith("Replaced")


def test_a_replacement_over_a_change_made_elsewhere_is_not_silent(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    editor = _open_attachment(window, WARM)
    window.session.editor.rename(WARM, "warm (renamed elsewhere)")  # another writer, before our event arrives
    assert not editor.replace_with(_png(tmp_path, "mine.png"))
    assert "changed elsewhere" in editor.banner.label.text()
    assert editor.name_edit.text() == "warm (renamed elsewhere)"
    assert window.session.db.get(WARM)["mimeType"] == "image/jpeg"  # not overwritten
    assert editor.replace_with(_png(tmp_path, "mine.png"))  # now based on the current revision
    assert window.session.db.get(WARM)["_rev"].startswith("3-")


def test_an_unreadable_file_is_refused_in_the_banner(window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    editor = _open_attachment(window, WARM)
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    assert not editor.replace_with(empty)
    assert editor.banner.kind == "error" and "empty.png is empty" in editor.banner.label.text()
    assert window.session.db.get(WARM)["_rev"].startswith("1-")


def test_add_files_from_the_dialog_creates_documents_and_opens_the_first(window, qtbot, tmp_path: Path,
                                                                         monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QFileDialog

    from storyloom.gui.editors import AttachmentEditor
    from storyloom.gui.sidebar import ATTACHMENTS

    files = [_png(tmp_path, "lighthouse.png", 32), tmp_path / "missing.png"]
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: ([str(f) for f in files], ""))
    window.sidebar.select(ATTACHMENTS)
    assert window.explorer.new_button.isVisible() and "Add files" in window.explorer.new_button.toolTip()
    window.explorer.new_button.click()
    created = [s for s in window.session.index.summaries() if s.type == "Attachment" and s.name == "lighthouse"]
    assert len(created) == 1
    assert "lighthouse" in _names(window.explorer.model)
    editor = window.tabs.current_editor()
    assert isinstance(editor, AttachmentEditor) and editor.doc_id == created[0].id
    assert editor.dimensions == (32, 32)
    assert window.explorer.message.isVisibleTo(window.explorer)
    assert "Not added: cannot read missing.png" in window.explorer.message.text()
    assert window.session.db.get(created[0].id)["createdBy"] == "tester"


def test_files_dropped_from_the_desktop_are_added(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    from storyloom.gui.sidebar import ATTACHMENTS

    window.sidebar.select(ATTACHMENTS)
    dropped = [_png(tmp_path, "map_sketch.png"), tmp_path / "credits.txt"]
    dropped[1].write_text("Art: Ada", encoding="utf-8")
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(p)) for p in dropped])
    viewport = window.explorer.view.viewport()
    enter = QDragEnterEvent(viewport.rect().center(), Qt.DropAction.CopyAction, data, Qt.MouseButton.NoButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(viewport, enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(viewport.rect().center()), Qt.DropAction.CopyAction, data, Qt.MouseButton.NoButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(viewport, drop)
    assert drop.isAccepted()
    names = {s.name: s.id for s in window.session.index.summaries() if s.type == "Attachment"}
    assert {"map_sketch", "credits"} <= set(names)
    assert window.session.db.get(names["credits"])["mimeType"] == "text/plain"
    editor = window.tabs.current_editor()
    assert editor.doc_id == names["map_sketch"]
    # a text file has no preview: its type is said instead
    text_editor = _open_attachment(window, names["credits"])
    assert text_editor.no_preview.isVisibleTo(text_editor) and not text_editor.image_view.isVisibleTo(text_editor)
    assert text_editor.no_preview_text.text().startswith("No preview for text/plain files")
    # outside the Attachments list a drop of files is not taken
    window.sidebar.select("Script")
    other = QDragEnterEvent(viewport.rect().center(), Qt.DropAction.CopyAction, data, Qt.MouseButton.NoButton,
                            Qt.KeyboardModifier.NoModifier)
    other.ignore()
    QApplication.sendEvent(window.explorer.view.viewport(), other)
    assert not other.isAccepted()


def test_save_a_copy_writes_the_bytes(window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    editor = _open_attachment(window, WARM)
    (tmp_path / "copy.jpg").write_bytes(b"an older copy")
    written = editor.save_copy(tmp_path / "copy.jpg")
    assert written is not None and written.read_bytes() == window.session.db.get_attachment(WARM, "blob")
    assert [p.name for p in tmp_path.iterdir()] == ["copy.jpg"]  # replaced atomically: no temporary file left


@pytest.fixture
def sample_window(qtbot, workspace):  # type: ignore[no-untyped-def]
    from storyloom.gui.main_window import open_project_window
    from storyloom.project.sample import create_sample_project

    with create_sample_project(workspace.manager, "Sample"):
        pass
    win = open_project_window(workspace, "Sample")
    qtbot.addWidget(win)
    yield win
    if not win.session.closed:
        win.close()


def test_the_built_in_sample_s_concept_art(sample_window) -> None:  # type: ignore[no-untyped-def]
    art = next(s.id for s in sample_window.session.index.summaries() if s.type == "Attachment"
               and s.name == "gullrock_concept")
    editor = _open_attachment(sample_window, art)
    assert editor.dimensions == (16, 16)
    editor.resize(1200, 800)
    assert editor.image_view.scale() == 8  # a tiny image is enlarged by a whole factor, crisp
    assert [u.name for u in editor.users] == ["Overview"]
    assert editor.notes.toPlainText() == "concept art placeholder: Gullrock at dusk"


# ---------------------------------------------------------------------------------- images in previews


def _resource(browser, source: str):  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QTextDocument

    return browser.document().resource(QTextDocument.ResourceType.ImageResource, QUrl(source))


def test_the_gdd_preview_draws_attachments_and_placeholders(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QImage

    from tests.gui.support import first_document

    editor = window.tabs.open(first_document(window, "Gdd"))
    editor.text.setPlainText(f"# Images\n\n![warm](drafft://image/{WARM})\n\n![by name](Woman_Expression_Warm.jpg)"
                             "\n\n![gone](drafft://image/nothing-here)\n\n![web](https://example.org/x.png)\n")
    assert editor.dirty  # as pasted by the user
    editor.pane.render_preview()
    preview = editor.preview
    assert preview.shown[f"drafft://image/{WARM}"] == "image"
    assert preview.shown["Woman_Expression_Warm.jpg"] == "image"
    assert preview.shown["drafft://image/nothing-here"] == "Image not shown: no attachment with id “nothing-here”"
    assert preview.shown["https://example.org/x.png"].startswith("Web image not loaded")
    image = _resource(preview, f"drafft://image/{WARM}")
    assert isinstance(image, QImage) and not image.isNull()
    width = image.width() / image.devicePixelRatio()
    assert 0 < width <= max(preview.available_width(), 511) and image.width() == image.height()
    placeholder = _resource(preview, "drafft://image/nothing-here")
    assert isinstance(placeholder, QImage) and not placeholder.isNull()  # a drawn box, not a broken icon
    assert placeholder.height() / placeholder.devicePixelRatio() >= 44
    # the page's source is what the user typed: the links are kept as they are
    assert editor.save()
    assert f"drafft://image/{WARM}" in window.session.db.get(editor.doc_id)["content"]["gdd"]


def test_a_replaced_attachment_shows_its_new_image_in_the_preview(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from storyloom.app.attachments import replace_file
    from tests.gui.support import first_document

    editor = window.tabs.open(first_document(window, "Gdd"))
    editor.pane.set_text(f"![warm](storyloom://image/{WARM})\n")
    assert _resource(editor.preview, f"storyloom://image/{WARM}").width() > 24
    replace_file(window.session.editor, WARM, _png(tmp_path, "small.png", 24))
    editor.pane.render_preview()
    assert _resource(editor.preview, f"storyloom://image/{WARM}").width() == 24


def test_a_rich_text_page_shows_its_inline_images(window) -> None:  # type: ignore[no-untyped-def]
    from tests.gui.support import first_document

    editor = window.tabs.open(first_document(window, "Gdd"))
    data = base64.b64encode(png_image((10, 200, 10), 20)).decode()
    editor.pane.html = True
    editor.pane.set_text(f'<p>Before</p><p><img src="data:image/png;base64,{data}"></p>'
                         f'<p><img src="drafft://image/{WARM}"></p>')
    assert set(editor.preview.shown.values()) == {"image"} and len(editor.preview.shown) == 2


def test_the_actor_bio_preview_draws_attachments_too(window) -> None:  # type: ignore[no-untyped-def]
    actor = next(s.id for s in window.session.index.summaries() if s.type == "Actor" and s.name == "Woman")
    editor = window.tabs.open(actor)
    assert editor.bio is not None
    editor.bio.set_text("![warm](woman_expression_warm)\n")
    assert editor.bio.preview.shown["woman_expression_warm"] == "image"
