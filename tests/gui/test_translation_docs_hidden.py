"""Translation documents (docs/localization.md) are no document a writer links to or opens: the
link pickers of the canvas, kanban and grid editors do not offer them."""

from __future__ import annotations

from storyloom.l10n.translations import translation_id, write_entry
from tests.gui.support import first_document


def test_no_link_picker_offers_a_translation_document(sample_window) -> None:  # type: ignore[no-untyped-def]
    session = sample_window.session
    session.editor.update_settings({"targetLocales": ["fr"]})
    script_id = first_document(sample_window, "Script")
    write_entry(session.editor, "fr", script_id, "Intro", "line_1", "Bonjour.", "Hello.")
    translated = translation_id("fr", script_id)
    assert session.index.get(translated) is not None  # the index knows it: the pickers must skip it

    kanban_id = first_document(sample_window, "Kanban")
    assert sample_window.open_document(kanban_id)
    kanban = sample_window.tabs.editor(kanban_id)
    offered = [doc_id for _label, doc_id in kanban.linkable_documents()]
    assert script_id in offered and translated not in offered

    grid_id = first_document(sample_window, "Grid")
    assert sample_window.open_document(grid_id)
    grid = sample_window.tabs.editor(grid_id)
    offered = [doc_id for _label, doc_id in grid._choices("document")]
    assert script_id in offered and translated not in offered

    canvas_id = first_document(sample_window, "Canvas")
    assert sample_window.open_document(canvas_id)
    canvas = sample_window.tabs.editor(canvas_id)
    offered = [doc[0] for doc in canvas.inspector.documents]
    assert script_id in offered and translated not in offered
