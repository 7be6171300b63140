"""File > Print / Export Document… on the Drafft garden sample: the current script prints as a
screenplay PDF off the GUI thread (read back with pypdf), the whole GDD as a Word file, and a
page offers no .fountain."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import docx
from pypdf import PdfReader

from tests.gui.support import first_document


def _action(window, text: str):  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QMenu

    for menu in window.menuBar().findChildren(QMenu):
        for action in menu.actions():
            if action.text() == text:
                return action
    raise AssertionError(text)


def _script(window, name: str) -> str:  # type: ignore[no-untyped-def]
    return next(s.id for s in window.session.index.summaries() if s.name == name)


def test_the_current_script_prints_to_pdf_off_the_gui_thread(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.print_dialog import PrintDialog

    window.tabs.open(_script(window, "Reflection (Ending)"))
    _action(window, "Print / Export Document…").trigger()
    dialog = window.findChild(PrintDialog)
    assert dialog is not None and dialog.isVisible()
    assert [t.key for t in dialog.targets] == ["document", "gdd", "scripts"]
    assert dialog.group.button(0).isChecked() and dialog.group.button(0).text() == (
        "This script, as a screenplay: Reflection (Ending)")
    assert [dialog.format.itemData(i) for i in range(dialog.format.count())] == ["pdf", "docx", "html", "fountain"]
    assert dialog.output.text().endswith("reflection-ending.pdf")
    target = tmp_path / "reflection.pdf"
    dialog.output.setText(str(target))
    task = dialog.start()
    assert task is not None and not dialog.print_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.printed is not None, timeout=20_000)
    assert dialog.message.text().startswith("Wrote reflection.pdf (1 document)")
    assert dialog.show_folder.isVisible()
    # Compared without spaces: pypdf guesses the spaces of monospaced text from glyph positions
    # ("p ocket"), and reads "fi" as the ligature Qt writes.
    text = "".join(unicodedata.normalize("NFKC", "\n".join(p.extract_text() for p in PdfReader(target).pages)).split())
    assert "REFLECTION(ENDING)" in text and "WOMANIknewyouwouldcomeback." in text
    assert 'ELSE(notvariables.woman.final_response_type=="open")' in text


def test_the_whole_gdd_prints_to_word_and_a_page_has_no_fountain(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.print_dialog import PrintDialog

    window.tabs.open(first_document(window, "Gdd"))
    dialog = window.show_print()
    assert isinstance(dialog, PrintDialog)
    assert dialog.group.button(0).text() == "This page: Master GDD"
    assert [dialog.format.itemData(i) for i in range(dialog.format.count())] == ["pdf", "docx", "html"]
    dialog.group.button(1).setChecked(True)  # the whole GDD
    dialog.format.setCurrentIndex(dialog.format.findData("docx"))
    assert dialog.output.text().endswith("garden-gdd.docx")
    dialog.output.setText(str(tmp_path / "gdd.docx"))
    dialog.start()
    qtbot.waitUntil(lambda: dialog.printed is not None, timeout=20_000)
    headings = [p.text for p in docx.Document(str(tmp_path / "gdd.docx")).paragraphs
                if p.style.name == "Heading 1"]
    assert headings[:1] == ["Master GDD"]


def test_a_refused_file_is_said_in_the_dialog(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    dialog = window.show_print()
    assert [t.key for t in dialog.targets] == ["gdd", "scripts"]  # no document open: the collections
    dialog.output.setText(str(tmp_path / "gdd.txt"))
    dialog.start()
    qtbot.waitUntil(lambda: dialog.task is None and dialog.message.text().startswith("Not printed"), timeout=10_000)
    assert ".pdf, .docx, .html or .fountain" in dialog.message.text()
    assert not list(tmp_path.iterdir())


def test_a_page_s_images_are_in_the_pdf(window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from storyloom.app.print_files import print_documents
    from storyloom.gui.pdf_writer import html_to_pdf

    page = window.session.editor.create("Gdd", "Portraits", content={
        "gdd": "# Portraits\n\n![woman](drafft://image/c862720e-11b5-4ad9-a684-ad069e4e10e9)\n\n"
               "| Who | Mood |\n| --- | --- |\n| Woman | warm |\n"}).doc
    target = tmp_path / "portraits.pdf"
    result = print_documents(window.session, target, [page["_id"]], pdf=html_to_pdf)
    assert result.missing_images == []
    (first,) = PdfReader(target).pages
    assert len(first.images) == 1 and first.images[0].image.size[0] > 100
    assert PdfReader(target).metadata.title == "Portraits"
    text = "".join(first.extract_text().split())
    assert text.startswith("PortraitsPortraits") and "WhoMood" in text and "Womanwarm" in text
