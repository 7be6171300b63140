"""A document changed remotely (or elsewhere) while its editor holds unsaved text: what the
editor's banner offers besides "Keep mine" and "Take theirs".

- :func:`show_changes`: a dialog with what they changed (from the revision the editor started
  from to the one that arrived) beside what the user changed, field by field;
- :func:`merge_unsaved`: the merge view over the two versions; its result goes back into the
  editor as unsaved text, saved by the editor like typing.

Nothing typed is lost on the way: the editor keeps its text until the user picks one of these.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from storyloom.app import ProjectSession
from storyloom.app.views.merge_form import unsaved_form
from storyloom.gui import theme
from storyloom.gui.diff_view import DiffView
from storyloom.gui.merge_view import MergeView
from storyloom.gui.widgets import dialog_layout, set_role
from storyloom.project import diff_documents, when_text


def their_name(doc: dict[str, Any] | None) -> str:
    who = (doc or {}).get("modifiedBy")
    return who if isinstance(who, str) and who else "Someone"


class ChangesDialog(QDialog):
    """Their changes and the user's unsaved changes, each from the revision the editor started from."""

    def __init__(self, base: dict[str, Any], theirs: dict[str, Any], mine: dict[str, Any],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("changesDialog")
        self.setWindowTitle("Changed remotely")
        self.resize(1000, 640)
        layout, _heading = dialog_layout(self, "What changed on both sides", "Both columns start from the version "
                                         "you opened. Your text stays in the editor until you choose Keep mine, Take "
                                         "theirs or Merge in its banner.", spacing=theme.M)
        columns = QHBoxLayout()
        columns.setSpacing(theme.L)
        self.theirs = DiffView()
        self.mine = DiffView()
        self.theirs.show_diffs(diff_documents(base, theirs), old_label="Before", new_label="Theirs",
                               empty="They changed nothing you can see (only the lock or the stamps).")
        self.mine.show_diffs(diff_documents(base, mine), old_label="Before", new_label="Yours",
                             empty="You have not changed anything yet.")
        for title, view in ((f"{their_name(theirs)}'s changes", self.theirs), ("Your unsaved changes", self.mine)):
            column = QVBoxLayout()
            column.setSpacing(theme.XS)
            column.addWidget(set_role(QLabel(title), "caption"))
            column.addWidget(view, 1)
            columns.addLayout(column, 1)
        layout.addLayout(columns, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)


def show_changes(base: dict[str, Any], theirs: dict[str, Any], mine: dict[str, Any],
                 parent: QWidget) -> ChangesDialog:
    """What changed from ``base`` to ``theirs`` beside what changed from it to ``mine`` (the
    editor's unsaved version)."""
    dialog = ChangesDialog(base, theirs, mine, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


def merge_unsaved(session: ProjectSession, base: dict[str, Any], theirs: dict[str, Any], mine: dict[str, Any],
                  merged: Callable[[dict[str, Any] | None], None], parent: QWidget) -> MergeView:
    """Open the merge view of the unsaved version ``mine`` with ``theirs`` (both from ``base``);
    its result is handed to ``merged``."""
    form = unsaved_form(base, theirs, mine,
                        theirs_label=f"{their_name(theirs)} · {when_text(theirs.get('modified'))}",
                        mine_label="You · unsaved")
    view = MergeView(session, form, mode="unsaved", parent=parent)
    view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    view.merged.connect(merged)
    view.open()
    return view
