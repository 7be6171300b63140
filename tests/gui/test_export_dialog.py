"""File > Export Game Content (Ctrl+E) and Export Schema on the Drafft garden sample: the dialog
writes the file ``storyloom export`` writes for the same selection, off the GUI thread, then sums
up with the warnings; a bad choice is said in the form; a cancelled export writes nothing."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from storyloom.cli.main import main


def _json(path: Path) -> dict:  # type: ignore[type-arg]
    data = json.loads(path.read_text(encoding="utf-8"))
    for key in ("exportedAt", "exportedBy"):  # the moment, and the user the CLI reads from the options file
        data.get("_meta", {}).pop(key, None)
    return data


def _action(window, text: str):  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QMenu

    for menu in window.menuBar().findChildren(QMenu):
        for action in menu.actions():
            if action.text() == text:
                return action
    raise AssertionError(text)


def _choose(dialog, names: list[str], output: Path) -> None:  # type: ignore[no-untyped-def]
    dialog.tick_all(False)
    for name in names:
        dialog.boxes[name].setChecked(True)
    dialog.output.setText(str(output))


def test_ctrl_e_opens_the_dialog_with_the_project_s_sections(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QKeySequence

    from storyloom.gui.export_dialog import ExportDialog

    action = _action(window, "Export Game Content…")
    assert action.shortcut() == QKeySequence("Ctrl+E")
    assert _action(window, "Export Schema…").shortcut() == QKeySequence("Ctrl+Shift+E")
    action.trigger()
    dialog = window.findChild(ExportDialog)
    assert dialog is not None and dialog.isVisible() and dialog.windowTitle() == "Export Game Content"
    ticked = [name for name, box in dialog.boxes.items() if box.isChecked()]
    assert ticked == dialog.defaults and "GDD" not in ticked and "Scripts" in ticked
    assert dialog.boxes["Scripts"].text() == "Scripts  9"
    assert dialog.output.text().endswith("garden.json") and dialog.export_button.isEnabled()
    dialog.tick_all(False)
    assert not dialog.export_button.isEnabled() and dialog.error.text() == "Tick at least one collection to export."
    dialog.boxes["Items"].setChecked(True)
    dialog.output.setText("")
    assert not dialog.export_button.isEnabled() and "Choose the file" in dialog.error.text()
    dialog.output.setText(str(tmp_path / "missing" / "game.json"))
    assert dialog.export_button.isEnabled()
    dialog.export_button.click()
    qtbot.waitUntil(lambda: dialog.task is None, timeout=10_000)
    assert "does not exist" in dialog.error.text() and dialog.pages.currentWidget() is dialog.form
    dialog.reject()


def test_the_dialog_writes_what_the_cli_writes(window, qtbot, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    dialog = window.show_export()
    out = tmp_path / "app" / "garden.json"
    out.parent.mkdir()
    _choose(dialog, ["Scripts", "Items", "Variables"], out)
    dialog.sidecar.setChecked(True)
    with qtbot.waitSignal(dialog.finished_export, timeout=20_000):
        task = dialog.start()
        assert task is not None and not dialog.form.isEnabled() and dialog.progress.isVisible()
    cli = tmp_path / "cli" / "garden.json"
    cli.parent.mkdir()
    assert main(["export", "Garden", "--collections", "Items,Scripts,Variables", "-o", str(cli),
                 "--schema-sidecar"]) == 0
    capsys.readouterr()
    assert _json(out) == _json(cli)
    assert json.loads(out.read_text(encoding="utf-8"))["_meta"]["exportedBy"] == "tester"
    assert out.with_name("garden.schema.json").read_bytes() == cli.with_name("garden.schema.json").read_bytes()
    # the summary: what was written, and the warnings by document name
    assert dialog.pages.currentWidget() is dialog.summary and dialog.show_folder.isVisible()
    assert dialog.headline.text().startswith("Exported ") and "with its JSON Schema beside it" in dialog.headline.text()
    assert "garden.json" in dialog.files_label.text() and "garden.schema.json" in dialog.files_label.text()
    assert dialog.warnings_title.text().startswith("3 warnings")
    assert dialog.warnings.count() == 3
    first = dialog.warnings.item(0).text()
    assert first.startswith("Script “Garden Meeting - Path Response”, content.script, line 1:5\n")
    assert dialog.cancel_button.text() == "Close" and not dialog.export_button.isVisible()
    # the choices are remembered for the next export of this project
    again = window.show_export()
    assert again.output.text() == str(out) and again.sidecar.isChecked()
    assert [n for n, b in again.boxes.items() if b.isChecked()] == ["Scripts", "Items", "Variables"]
    again.reject()
    # a warning opens its document at the line
    item = dialog.warnings.item(1)
    assert dialog.open_warning(item)
    editor = window.tabs.current_editor()
    assert editor.base["name"] == "Garden Meeting - Path Response"
    assert editor.text.textCursor().blockNumber() + 1 == 7


def test_export_schema_writes_what_the_cli_writes(window, qtbot, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    _action(window, "Export Schema…").trigger()
    from storyloom.gui.export_dialog import ExportDialog

    dialog = window.findChild(ExportDialog)
    assert dialog.windowTitle() == "Export Schema" and not dialog.sidecar.isVisibleTo(dialog)
    assert dialog.output.text().endswith(".schema.json")
    out = tmp_path / "mine.schema.json"
    _choose(dialog, ["Actors", "Grids"], out)
    dialog.pretty.setChecked(True)
    with qtbot.waitSignal(dialog.finished_export, timeout=20_000):
        dialog.export_button.click()
    cli = tmp_path / "cli.schema.json"
    assert main(["schema", "Garden", "--collections", "Actors,Grids", "--pretty", "-o", str(cli)]) == 0
    capsys.readouterr()
    assert out.read_bytes() == cli.read_bytes()
    assert dialog.headline.text() == "Wrote the JSON Schema of 2 collections."
    assert not dialog.warnings.isVisibleTo(dialog)


def test_a_cancelled_export_writes_nothing(window, qtbot, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui import export_dialog

    gate = threading.Event()
    real = export_dialog.export_game_content

    def slow(*args, **kwargs):  # type: ignore[no-untyped-def]
        gate.wait(10)  # the export is still running when the user cancels
        return real(*args, **kwargs)

    monkeypatch.setattr(export_dialog, "export_game_content", slow)
    dialog = window.show_export()
    out = tmp_path / "game.json"
    dialog.output.setText(str(out))
    task = dialog.start()
    assert task is not None
    with qtbot.waitSignal(task.finished, timeout=20_000):
        dialog.cancel()
        assert dialog.progress_text.text() == "Cancelling after the current step…"
        gate.set()
    qtbot.waitUntil(lambda: dialog.task is None, timeout=5000)
    assert dialog.error.text() == "Export cancelled; no file was written."
    assert not out.exists() and list(tmp_path.iterdir()) == []
    assert dialog.form.isEnabled() and dialog.export_button.isEnabled()


def test_the_screenshots_are_registered() -> None:
    from tools import screenshots

    assert {"attachments", "export-dialog", "export-summary", "gdd"} <= set(screenshots.registered())


def test_closing_the_window_during_an_export_stops_it_first(window, qtbot, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui import export_dialog

    real = export_dialog.export_game_content

    def slow(*args, **kwargs):  # type: ignore[no-untyped-def]
        threading.Event().wait(0.3)  # still building when the window closes
        return real(*args, **kwargs)

    monkeypatch.setattr(export_dialog, "export_game_content", slow)
    dialog = window.show_export()
    out = tmp_path / "game.json"
    dialog.output.setText(str(out))
    task = dialog.start()
    assert task is not None and task.isRunning()
    window.close()
    assert window.session.closed and not task.isRunning()
    assert not out.exists()


def _translated_to_french(window) -> tuple[dict, str]:  # type: ignore[no-untyped-def]
    """French and Brazilian Portuguese as the target locales, and a script's first line translated
    to French from a source that changed since (so it is to review): the script and that line's id."""
    from storyloom.l10n.translations import write_entry
    from storyloom.project import script_line_ids

    editor = window.session.editor
    editor.update_settings({"targetLocales": ["fr", "pt-BR"]})
    script = next(d for d in (editor.get(s.id) for s in editor.index.summaries() if s.type == "Script")
                  if script_line_ids(d))
    first = script_line_ids(script)[0]
    write_entry(editor, "fr", script["_id"], script["name"], first, "Bonjour, jardin.", "whatever it was")
    return script, first


def test_choosing_a_language_writes_the_localized_export(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    script, first = _translated_to_french(window)
    dialog = window.show_export()
    assert dialog.language.isVisibleTo(dialog)
    assert [dialog.language.itemText(i) for i in range(dialog.language.count())] == [
        "Source text (en)", "fr", "pt-BR", "Source text, and a string table per language (fr, pt-BR)"]
    out = tmp_path / "garden.fr.json"
    _choose(dialog, ["Scripts"], out)
    dialog.language.setCurrentIndex(dialog.language.findData("fr"))
    with qtbot.waitSignal(dialog.finished_export, timeout=20_000):
        dialog.export_button.click()
    exported = json.loads(out.read_text(encoding="utf-8"))
    localization = exported["_meta"]["localization"]
    assert localization["locale"] == "fr" and localization["translated"] == 1 and localization["needsReview"] == 1
    [doc] = [d for d in exported["scripts"] if d["_id"] == script["_id"]]
    speech = [line for line in doc["content"]["lines"] if line["type"] == "speech"]
    assert speech[0]["lineId"] == first and speech[0]["text"] == "Bonjour, jardin."
    assert "Text in fr: 1 of" in dialog.headline.text() and "1 to review" in dialog.headline.text()
    again = window.show_export()  # the language is remembered with the other choices
    assert again.language.currentData() == "fr"
    again.reject()


def test_every_language_writes_the_source_export_and_a_string_table_per_locale(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from storyloom.app.export_files import ALL_LOCALES

    _translated_to_french(window)
    dialog = window.show_export()
    out = tmp_path / "garden.json"
    _choose(dialog, ["Scripts"], out)
    dialog.language.setCurrentIndex(dialog.language.findData(ALL_LOCALES))
    with qtbot.waitSignal(dialog.finished_export, timeout=20_000):
        dialog.export_button.click()
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert "localization" not in exported["_meta"]  # the source text
    french = json.loads((tmp_path / "garden.fr.json").read_text(encoding="utf-8"))
    assert "Bonjour, jardin." in json.dumps(french, ensure_ascii=False)
    assert (tmp_path / "garden.pt-BR.json").is_file()
    assert "garden.fr.json" in dialog.files_label.text() and "garden.pt-BR.json" in dialog.files_label.text()
    assert "String tables: fr, pt-BR." in dialog.headline.text()
    again = window.show_export()  # remembered
    assert again.language.currentData() == ALL_LOCALES
    again.reject()
