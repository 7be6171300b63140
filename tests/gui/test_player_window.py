"""The player window on the built-in sample: F5 plays the current tab, Continue and the choice
buttons walk "The Interview" line by line, the side table lists the changed variables, Step
back and Restart undo, the starting state comes from a Scenario, "Write changes to the Live
state" writes Live, and Open line / a transcript link open the script at the line played;
Shift+F5 plays a script from the cursor's line."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QUrl

from storyloom.gui.player import open_player
from storyloom.gui.player.window import PlayerWindow
from storyloom.play.live_state import read_live
from storyloom.project.sample import SAMPLE_NAME, create_sample_project


@pytest.fixture
def sample(qtbot, workspace):  # type: ignore[no-untyped-def]
    from storyloom.gui.main_window import open_project_window

    create_sample_project(workspace.manager).close()
    win = open_project_window(workspace, SAMPLE_NAME)
    qtbot.addWidget(win)
    yield win
    if not win.session.closed:
        win.close()


def _named(window, doc_type: str, name: str) -> str:  # type: ignore[no-untyped-def]
    return next(s.id for s in window.session.index.summaries() if s.type == doc_type and s.name == name)


def _menu_action(window, text: str):  # type: ignore[no-untyped-def]
    for menu_action in window.menuBar().actions():
        for action in menu_action.menu().actions():
            if action.text() == text:
                return action
    raise AssertionError(f"no menu action {text!r}")


def _players(window) -> list[PlayerWindow]:  # type: ignore[no-untyped-def]
    return [w for w in window.findChildren(PlayerWindow) if w.isVisible()]


def _transcript(player: PlayerWindow) -> str:
    return player.transcript.toPlainText()


def _changed(player: PlayerWindow) -> dict[str, tuple[str, str]]:
    table = player.changes_table
    return {table.item(r, 0).text(): (table.item(r, 1).text(), table.item(r, 2).text())
            for r in range(table.rowCount())}


def _choose(qtbot, player: PlayerWindow, label: str) -> None:  # type: ignore[no-untyped-def]
    button = next(b for b in player.choice_buttons if b.text().endswith(label))
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


@pytest.mark.slow
def test_f5_plays_the_dialogue_line_by_line(qtbot, sample) -> None:  # type: ignore[no-untyped-def]
    sample.navigate_to("", _named(sample, "Dialogue", "The Interview"))
    action = _menu_action(sample, "Play")
    assert action.shortcut().toString() == "F5"
    action.trigger()
    (player,) = _players(sample)
    assert player.windowTitle().startswith("Play: The Interview")
    assert "Press Continue" in _transcript(player) and not player.back_button.isEnabled()
    qtbot.mouseClick(player.continue_button, Qt.MouseButton.LeftButton)
    assert "Tobias Marsh · defensive" in _transcript(player)
    assert "Ask what you like. I've nothing to hide." in _transcript(player)
    assert "Then you won't mind" not in _transcript(player)
    player.activateWindow()
    qtbot.waitUntil(player.isActiveWindow)
    qtbot.keyClick(player.transcript, Qt.Key.Key_Space)  # Space continues too
    assert "Wren Hale · determined" in _transcript(player) and "Then you won't mind" in _transcript(player)
    qtbot.mouseClick(player.continue_button, Qt.MouseButton.LeftButton)
    assert [b.text() for b in player.choice_buttons] == [
        "1   Ask about the logbook", "2   Examine the wick", "3   Find Maud", "4   Take the morning boat"]
    assert player.continue_button.isHidden() and player.where_node.text() == "Where does Wren press?"
    assert player.changes_table.rowCount() == 0 and not player.no_changes.isHidden()
    _choose(qtbot, player, "Ask about the logbook")
    assert "→ Ask about the logbook" in _transcript(player)
    assert '<ShowItem("keepers_logbook")>' in _transcript(player)
    assert player.where_line.text() == "The logbook, line 3"
    player.play_on()
    assert "That makes 1 things tonight that don't add up." in _transcript(player)  # ${} evaluated
    assert _changed(player) == {"island.clues.logbook": ("false", "true"), "player.clues": ("0", "1"),
                                "player.lastQuestion": ('""', '"logbook"')}
    assert player.changes_heading.text() == "Changed variables (3)"
    # The defaults and the Live state are untouched: the play ran on a scratch copy.
    assert sample.session.index.states()["player"]["clues"] == 0 and not read_live(sample.session.db).exists
    qtbot.mouseClick(player.back_button, Qt.MouseButton.LeftButton)  # the step back to the choice
    qtbot.mouseClick(player.back_button, Qt.MouseButton.LeftButton)  # the line after "@set clues += 1"
    assert "That makes 1 things" not in _transcript(player) and "player.clues" not in _changed(player)
    assert "Edda cuts out the pages" in _transcript(player)
    qtbot.mouseClick(player.restart_button, Qt.MouseButton.LeftButton)
    assert "Press Continue" in _transcript(player) and _changed(player) == {}
    sample.close()  # the player closes with its project's window
    assert not _players(sample)


def test_a_scenario_as_the_starting_state_and_writing_to_live(qtbot, sample) -> None:  # type: ignore[no-untyped-def]
    player = open_player(sample, _named(sample, "Dialogue", "The Interview"))
    assert player is not None
    combo = player.source_combo
    labels = [combo.itemText(i) for i in range(combo.count())]
    assert labels[:2] == ["Defaults", "Live state"] and "Scenario: Midpoint: two clues found" in labels
    combo.setCurrentIndex(labels.index("Scenario: Midpoint: two clues found"))
    combo.activated.emit(combo.currentIndex())
    assert "from Midpoint: two clues found" in player.subtitle.text()
    player.write_live.setChecked(True)
    assert read_live(sample.session.db).states["player"]["clues"] == 2  # Live follows at once
    player.play_on()
    _choose(qtbot, player, "Ask about the logbook")
    player.play_on()
    assert "That makes 3 things tonight" in _transcript(player)
    assert "Miss Vane? Edda!" in _transcript(player)
    assert read_live(sample.session.db).states["player"]["clues"] == 3
    assert read_live(sample.session.db).scenario == _named(sample, "Scenario", "Midpoint: two clues found")
    player.play_on()
    assert "— End: The Light Restored —" in _transcript(player)
    assert player.continue_button.text() == "Finished" and not player.continue_button.isEnabled()
    assert read_live(sample.session.db).states["island"]["lampLit"] is True
    player.close()


def test_open_line_and_transcript_links_open_the_script(qtbot, sample) -> None:  # type: ignore[no-untyped-def]
    player = open_player(sample, _named(sample, "Dialogue", "The Interview"))
    assert player is not None
    player.play_on()
    _choose(qtbot, player, "Examine the wick")
    qtbot.mouseClick(player.open_line_button, Qt.MouseButton.LeftButton)
    editor = sample.tabs.current_editor()
    assert editor.doc_id == _named(sample, "Script", "The wick")
    assert editor.text.textCursor().blockNumber() + 1 == 3  # "[#wick_001] ... cut down to nothing"
    first = next(i for i, e in enumerate(player.transcript.entries) if e.kind == "speech")
    player.transcript.anchorClicked.emit(QUrl(f"entry:{first}"))
    editor = sample.tabs.current_editor()
    assert editor.doc_id == _named(sample, "Script", "Tobias opens")
    assert editor.text.textCursor().blockNumber() + 1 == 2
    assert player.open_node_button.isEnabled()
    qtbot.mouseClick(player.open_node_button, Qt.MouseButton.LeftButton)
    assert sample.tabs.current_editor().doc_id == _named(sample, "Dialogue", "The Interview")
    player.close()


def test_shift_f5_plays_a_script_from_the_cursor(qtbot, sample) -> None:  # type: ignore[no-untyped-def]
    sample.navigate_to("", _named(sample, "Script", "02 The Lamp Room"))
    editor = sample.tabs.current_editor()
    editor.focus_line(13)
    action = _menu_action(sample, "Play from Here")
    assert action.shortcut().toString() == "Shift+F5"
    action.trigger()
    (player,) = _players(sample)
    player.advance()
    assert "And yet the lamp went out." in _transcript(player) and "One hundred and twelve" not in _transcript(player)
    player.play_on()
    assert "It is 20 o'clock. The tide is rising." in _transcript(player)
    assert _changed(player) == {"island.lampRoomVisited": ("false", "true")}
    player.close()
    sample.navigate_to("", _named(sample, "Actor", "Maud Pell"))
    _menu_action(sample, "Play").trigger()
    assert not _players(sample) and "Open a script" in sample.statusBar().currentMessage()


def test_the_editors_play_the_script_and_from_the_selected_node(qtbot, sample) -> None:  # type: ignore[no-untyped-def]
    sample.navigate_to("", _named(sample, "Script", "The logbook"))
    script_editor = sample.tabs.current_editor()
    qtbot.mouseClick(script_editor.play_button, Qt.MouseButton.LeftButton)  # the script editor's Play
    (player,) = _players(sample)
    player.advance()
    assert '<ShowItem("keepers_logbook")>' in _transcript(player) and "Dialogue" not in player.subtitle.text()
    player.close()
    dialogue = _named(sample, "Dialogue", "The Interview")
    sample.navigate_to("", dialogue)
    graph_editor = sample.tabs.current_editor()
    doc = sample.session.db.get(dialogue)
    wick = next(n["id"] for n in doc["content"]["tree"]["nodes"] if n["data"]["label"] == "The wick")
    graph_editor.scene.select_nodes([wick])
    _menu_action(sample, "Play from Here").trigger()
    (player,) = _players(sample)
    player.advance()
    assert "This wick has been cut down to nothing" in _transcript(player)
    assert "Ask what you like" not in _transcript(player)
    assert player.where_node.text() == "The wick"
    graph_editor.scene.select_nodes([])
    qtbot.mouseClick(player.open_node_button, Qt.MouseButton.LeftButton)  # shows the node in the graph
    assert sample.tabs.current_editor() is graph_editor and graph_editor.scene.selected_node_ids() == [wick]
    player.close()


def test_the_player_follows_a_live_theme_switch(qtbot, sample, qapp) -> None:  # type: ignore[no-untyped-def]
    """Options > theme while the player is open: its style sheet, its transcript and its
    header's icon take the new theme's colours at once, without reopening it."""
    from storyloom.gui import appearance, theme

    appearance.apply_look("light", "", 0, qapp)
    try:
        player = open_player(sample, _named(sample, "Dialogue", "The Interview"))
        assert player is not None
        qtbot.mouseClick(player.continue_button, Qt.MouseButton.LeftButton)
        assert theme.LIGHT.window in player.styleSheet() and theme.LIGHT.text in player.transcript.toHtml()
        appearance.apply_look("dark", "", 0, qapp)
        sheet = player.styleSheet()
        assert theme.DARK.window in sheet and theme.DARK.surface in sheet
        assert theme.LIGHT.window not in sheet and theme.LIGHT.surface not in sheet
        assert theme.DARK.text in player.transcript.toHtml() and theme.LIGHT.text not in player.transcript.toHtml()
        grabbed = player.grab().toImage()
        assert grabbed.pixelColor(grabbed.width() // 2, 4).lightness() < 128  # the header is dark
    finally:
        appearance.apply_look("system", "", 0, qapp)
