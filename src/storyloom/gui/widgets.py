"""Small widgets every window shares: an inline :class:`Banner` for errors, successes and busy
work where they happened, an :class:`EmptyState` that says what to do next, the
:class:`ActionButton` of sidebars (icon, label, shortcut), and the toolbar actions and view
shortcuts of the visual editors (:func:`toolbar_action`, :func:`add_view_shortcuts`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from storyloom.gui import icons, theme


def set_role(widget: QWidget, role: str, **props: str) -> QWidget:
    """Give a widget a stylesheet role (``title``, ``heading``, ``caption``, ``banner``...)."""
    widget.setProperty("role", role)
    for key, value in props.items():
        widget.setProperty(key, value)
    widget.style().unpolish(widget)
    widget.style().polish(widget)
    return widget


class Banner(QFrame):
    """A one-line message over the content: ``info``, ``success``, ``error`` or ``busy`` (with an
    indeterminate progress bar). One optional action button; errors and successes can be closed."""

    action_triggered = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        set_role(self, "banner", level="info")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(theme.M, theme.S, theme.S, theme.S)
        layout.setSpacing(theme.M)
        self._icon = QLabel()
        self._icon.setFixedSize(20, 20)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # busy: the work cannot say how far it is
        self.progress.setTextVisible(False)
        self.progress.setFixedWidth(160)
        self.progress.setFixedHeight(6)
        self.action = QPushButton()
        self.action.clicked.connect(self.action_triggered)
        self.close_button = QToolButton()
        self.close_button.setAutoRaise(True)
        self.close_button.setIcon(icons.icon("close"))
        self.close_button.setToolTip("Dismiss (Esc)")
        self.close_button.clicked.connect(self.hide)
        layout.addWidget(self._icon, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.action)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self.level = "info"
        self.hide()

    def show_message(self, level: str, text: str, action: str | None = None) -> None:
        """Show ``text`` as ``level`` (``info``, ``success``, ``error``, ``busy``), with an action button
        labelled ``action`` when given (its clicks come out as :attr:`action_triggered`)."""
        self.level = level
        set_role(self, "banner", level=level)
        role = {"busy": "info"}.get(level, level)
        self._icon.setPixmap(icons.icon(role).pixmap(QSize(20, 20)))
        self.text.setText(text)
        self.progress.setVisible(level == "busy")
        self.action.setVisible(action is not None)
        self.action.setText(action or "")
        self.close_button.setVisible(level != "busy")
        self.show()

    def clear(self) -> None:
        self.hide()


class EmptyState(QWidget):
    """A large icon, a title, what to do next, and buttons for it: what a list shows when empty."""

    def __init__(self, icon: QIcon, title: str, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setSpacing(theme.M)
        layout.addStretch(2)
        picture = QLabel()
        picture.setPixmap(icon.pixmap(QSize(56, 56)))
        picture.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.title = set_role(QLabel(title), "heading")
        self.title.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.text = set_role(QLabel(text), "caption")
        self.text.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.text.setWordWrap(True)
        self.buttons = QHBoxLayout()
        self.buttons.setSpacing(theme.S)
        self.buttons.addStretch(1)
        layout.addWidget(picture)
        layout.addWidget(self.title)
        layout.addWidget(self.text)
        layout.addSpacing(theme.S)
        layout.addLayout(self.buttons)
        layout.addStretch(3)
        self._added = 0

    def add_button(self, action: QAction, primary: bool = False) -> QPushButton:
        button = QPushButton(action.icon(), action.text().replace("&", "").rstrip("."))
        if primary:
            button.setProperty("primary", "true")
            button.setIcon(icons.icon(_role_of(action), theme.colors().accent_text))
        shortcut = action.shortcut().toString()
        if shortcut:
            button.setToolTip(f"{action.toolTip()} ({shortcut})")
        button.clicked.connect(action.trigger)
        self.buttons.insertWidget(1 + self._added, button)
        self._added += 1
        if self._added == 1:
            self.buttons.addStretch(1)
        return button


def _role_of(action: QAction) -> str:
    role = action.property("iconRole")
    return str(role) if role else "new"


class ActionButton(QPushButton):
    """A flat sidebar row for an action: its icon, its text and, right-aligned, its shortcut."""

    def __init__(self, action: QAction, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setProperty("flat", "true")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setMinimumHeight(32)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(theme.S, 0, theme.S, 0)
        layout.setSpacing(theme.S)
        icon = QLabel()
        icon.setPixmap(action.icon().pixmap(QSize(18, 18)))
        icon.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.label = QLabel(action.text().replace("&", ""))
        self.label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        shortcut = set_role(QLabel(action.shortcut().toString(format=action.shortcut().SequenceFormat.NativeText)),
                            "caption")
        shortcut.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        layout.addWidget(icon)
        layout.addWidget(self.label, 1)
        layout.addWidget(shortcut)
        self.setToolTip(action.toolTip())
        self.clicked.connect(action.trigger)
        action.enabledChanged.connect(self.setEnabled)
        self.setEnabled(action.isEnabled())


def toolbar_action(owner: QWidget, toolbar: QToolBar, icon: str, text: str, keys: Any,
                   slot: Callable[[], object], *, icon_only: bool = False) -> QAction:
    """An action on ``toolbar`` whose shortcut works anywhere in ``owner`` (an editor) and whose
    tooltip names the shortcut; ``icon_only`` drops the text beside the icon."""
    action = QAction(qta.icon(icon), text, owner)
    action.setShortcut(QKeySequence(keys))
    action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    action.setToolTip(f"{text} ({QKeySequence(keys).toString(QKeySequence.SequenceFormat.NativeText)})")
    action.triggered.connect(lambda _checked=False: slot())
    toolbar.addAction(action)
    if icon_only:
        button = toolbar.widgetForAction(action)
        if button is not None:
            button.setProperty("iconOnly", True)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)  # type: ignore[attr-defined]
    owner.addAction(action)
    return action


def add_view_shortcuts(view: QWidget, shortcuts: Iterable[tuple[str, Any, Callable[[], object]]]) -> None:
    """Shortcuts (text, keys, slot) that act only while ``view`` has the focus, so Delete or
    Ctrl+A in a side panel's text field stay the field's."""
    for text, keys, slot in shortcuts:
        action = QAction(text, view)
        action.setShortcut(QKeySequence(keys))
        action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        action.triggered.connect(lambda _checked=False, s=slot: s())
        view.addAction(action)
