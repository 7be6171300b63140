"""The status bar: project, user, the local API's state, sync and automatic backups, in a few words."""

from __future__ import annotations

from urllib.parse import urlsplit

import qtawesome as qta
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStatusBar, QWidget

from storyloom.api.controller import ApiStatus
from storyloom.gui.widgets import ElidedLabel

#: The most an item of the status bar takes; its text elides beyond.
MAX_ITEM_WIDTH = 360


class _Item(QWidget):
    """An icon and a text."""

    def __init__(self, icon: str, text: str = "") -> None:
        super().__init__()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 0, 8, 0)
        layout.setSpacing(4)
        self.icon = QLabel()
        # A long state (a sync failure, a long project name) elides; the full text is the tooltip.
        # A plain label would ask the status bar, and so the window, for its whole width.
        self.label = ElidedLabel(text)
        self.label.setMaximumWidth(MAX_ITEM_WIDTH)
        layout.addWidget(self.icon)
        layout.addWidget(self.label)
        self.set_icon(icon)

    def set_icon(self, name: str, color: str = "#8a94a0") -> None:
        self.icon.setPixmap(qta.icon(name, color=color).pixmap(QSize(14, 14)))

    def set_text(self, text: str, tip: str = "") -> None:
        self.label.setText(text)
        self.setToolTip(tip or text)


class ClickableItem(_Item):
    """An item that opens something when clicked (``clicked``): the sync state opens the sync panel."""

    clicked = Signal()

    def __init__(self, icon: str, text: str = "") -> None:
        super().__init__(icon, text)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mousePressEvent(event)


def api_text(status: ApiStatus, enabled: bool) -> tuple[str, str]:
    """The status bar's words for the API state, and its tooltip."""
    if status.running and status.url:
        port = urlsplit(status.url).port
        return f"API serving on port {port}", f"The local REST API is serving this project at {status.url}"
    if status.error:
        return "API failed", f"The local REST API could not start: {status.error}. Change the port in Options."
    if enabled:
        return "API starting…", "The local REST API is starting"
    return "API off", "The local REST API is off; turn it on in Options (Ctrl+,)"


class StatusBar(QStatusBar):
    def __init__(self, project: str, user: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("statusBar")
        self.setSizeGripEnabled(False)
        self.project = _Item("ph.folder-simple", project)
        self.user = _Item("ph.user-circle", user)
        self.api = _Item("ph.broadcast", "API off")
        self.sync = ClickableItem("ph.cloud-slash", "Sync off")
        self.sync.setObjectName("syncStatus")
        self.sync.setToolTip("This project is not replicated to a server")
        self.backup = _Item("ph.clock-clockwise")
        self.backup.setObjectName("backupStatus")
        self.backup.hide()  # until there is a backup to speak of
        self.addWidget(self.project)
        self.addWidget(self.user)
        self.addPermanentWidget(self.backup)
        self.addPermanentWidget(self.sync)
        self.addPermanentWidget(self.api)

    def set_user(self, user: str) -> None:
        self.user.set_text(user, f"Edits are signed {user}")

    def set_api(self, status: ApiStatus, enabled: bool) -> None:
        text, tip = api_text(status, enabled)
        self.api.set_text(text, tip)
        color = "#3fa36b" if status.running else ("#e5484d" if status.error else "#8a94a0")
        self.api.set_icon("ph.broadcast", color)
        self.api.label.setProperty("state", "failed" if status.error else ("on" if status.running else "off"))

    def set_backup(self, visible: bool, text: str, tip: str, icon: str, color: str) -> None:
        """The automatic backups' words (see :func:`storyloom.app.auto_backups.status_view`)."""
        self.backup.setVisible(visible)
        self.backup.set_text(text, tip)
        self.backup.set_icon(icon, color)

    def set_sync(self, text: str, tip: str, icon: str, color: str) -> None:
        """The sync state's words, tooltip, icon and colour (see :mod:`storyloom.app.views.sync_activity`)."""
        self.sync.set_text(text, tip)
        self.sync.set_icon(icon, color)
