"""The parts of a project window, in the order the window builds them: :data:`PANELS`.

Each :class:`PanelSpec` names a part (the window's attribute that holds it), says how to build
it from the window's :class:`~storyloom.gui.host.WindowHost` and, for a dock, where the dock goes
and the menu entry that shows it (its title, icon and shortcut). The window builds the list in
one loop (:meth:`storyloom.gui.main_window.MainWindow.build_panels`) and stops the parts that
have a ``stop()`` before its session closes. A part reaches the window only through the host;
a part built later may ask for an earlier one (``host.part(name)``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget

from storyloom.gui import localization_view, problems_panel, search_panel
from storyloom.gui.backup_status import AutoBackupController
from storyloom.gui.command_palette import command_palette_action
from storyloom.gui.conflict_marks import ConflictMarks
from storyloom.gui.damaged_project import DamageNotice
from storyloom.gui.favourites import Favourites
from storyloom.gui.host import WindowHost
from storyloom.gui.info_drawer import SHORTCUT as INFO_SHORTCUT
from storyloom.gui.info_drawer import InfoDrawer
from storyloom.gui.locks_dashboard import LocksDashboard
from storyloom.gui.locks_ui import LockController
from storyloom.gui.player import play_actions
from storyloom.gui.remote_settings_page import remote_settings_action
from storyloom.gui.sync_panel import PANEL_SHORTCUT, SyncStatus

BOTTOM = Qt.DockWidgetArea.BottomDockWidgetArea
RIGHT = Qt.DockWidgetArea.RightDockWidgetArea


@dataclass(frozen=True)
class PanelSpec:
    """One part of a project window. With a ``title`` the part is (or has, see ``dock``) a dock
    in ``area``, hidden until its entry in ``menu`` (with ``icon`` and ``shortcut``) shows it or
    runs ``entry``; the entry comes before what the part puts in that menu itself."""

    name: str
    factory: Callable[[WindowHost], object]
    title: str = ""
    icon: str | None = None
    shortcut: str | None = None
    menu: str = "&View"
    area: Qt.DockWidgetArea = RIGHT
    #: The dock this one shares its place with (tabbed), by name.
    tab_with: str | None = None
    #: The part's dock when the part is not a dock itself.
    dock: Callable[[Any], QDockWidget] | None = None
    #: What the menu entry does instead of showing or hiding the dock.
    entry: Callable[[Any], object] | None = None
    #: A separator before the entry.
    separator: bool = False


def _info_drawer(host: WindowHost) -> InfoDrawer:
    """The Document Info drawer, showing the conflict marks' flags and opening their merge view."""
    marks = host.part("conflict_marks")
    if not isinstance(marks, ConflictMarks):
        raise TypeError("the Document Info drawer is built after the conflict marks")
    drawer = InfoDrawer(host, marks.flags)
    drawer.merge_requested.connect(marks.open_merge)
    marks.changed.connect(drawer.refresh)
    return drawer


PANELS: tuple[PanelSpec, ...] = (
    PanelSpec("play_actions", play_actions),  # the Play menu: F5, Shift+F5
    PanelSpec("command_palette", command_palette_action),  # View > Command Palette…, Ctrl+Shift+P
    PanelSpec("problems_panel", problems_panel.ProblemsPanel, "Problems", shortcut=problems_panel.SHORTCUT,
              area=BOTTOM),
    PanelSpec("search_panel", search_panel.SearchPanel, "Search in Project…", icon="ph.magnifying-glass",
              shortcut=search_panel.SHORTCUT, area=BOTTOM, tab_with="problems_panel",
              entry=lambda panel: panel.focus_query()),
    # a bottom dock beside Problems and Search (the window's width: source and translation side
    # by side); File ▸ Export Translations… and Import Translations…
    PanelSpec("localization_view", localization_view.LocalizationView, "Localization", icon="ph.translate",
              shortcut=localization_view.SHORTCUT, area=BOTTOM, tab_with="problems_panel",
              entry=lambda view: view.reveal()),
    PanelSpec("conflict_marks", ConflictMarks),  # conflicts flagged in the tree, the tabs, the editors
    PanelSpec("info_drawer", _info_drawer, "Document Info", shortcut=INFO_SHORTCUT),
    PanelSpec("remote_settings_action", remote_settings_action),  # Team > Remote Replication…
    PanelSpec("lock_ui", lambda host: LockController(host, dashboard=LocksDashboard)),  # locks; F2
    PanelSpec("sync_status", SyncStatus, "Sync Panel", shortcut=PANEL_SHORTCUT, menu="&Team",
              dock=lambda status: status.panel, separator=True),
    PanelSpec("auto_backups", AutoBackupController),  # a backup per hour of edits
    PanelSpec("damage_notice", DamageNotice),  # damaged documents, the way back
    PanelSpec("favourites", Favourites),  # starred documents atop the sidebar; Ctrl+Alt+F
)
