"""Small widgets every window shares: the one :class:`Banner` for errors, warnings, successes and
busy work where they happened (over an editor, or in a window), a dialog's heading
(:func:`dialog_layout`, :class:`DialogHeading`), labels and buttons whose text elides instead of
widening their window (:class:`ElidedLabel`, :class:`ElidedButton`), an :class:`EmptyState` that
says what to do next, the :class:`ActionButton` of sidebars (icon, label, shortcut), and the toolbar actions and view
shortcuts of the visual editors (:func:`toolbar_action`, :func:`add_view_shortcuts`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import qtawesome as qta
from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QAction, QIcon, QKeySequence, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QStyle,
    QStyleOptionButton,
    QStylePainter,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from storyloom.app.views.window_place import Rect, WindowPlaces, fit, place
from storyloom.gui import icons, theme

_Widget = TypeVar("_Widget", bound=QWidget)


def set_role(widget: _Widget, role: str, **props: str) -> _Widget:
    """Give a widget a stylesheet role (``title``, ``heading``, ``caption``, ``banner``...)."""
    widget.setProperty("role", role)
    for key, value in props.items():
        widget.setProperty(key, value)
    widget.style().unpolish(widget)
    widget.style().polish(widget)
    return widget


#: What a banner's button does when clicked.
BannerAction = tuple[str, Callable[[], object]]
_BANNER_BUTTONS = 4


class Banner(QFrame):
    """A message where it happened: ``info``, ``warning``, ``success``, ``error`` or ``busy`` (with
    an indeterminate progress bar), and up to four buttons, each a ``(label, callable)``.

    Over an editor (``strip``) it spans the editor's width, coloured by its kind; elsewhere it is
    a framed card with the kind's icon, which the user may dismiss unless it is busy."""

    def __init__(self, parent: QWidget | None = None, *, strip: bool = False) -> None:
        super().__init__(parent)
        self.strip = strip
        self.kind = ""
        if strip:
            self.setObjectName("banner")  # coloured by kind (the window's style sheet)
        else:
            set_role(self, "banner", level="info")
        layout = QHBoxLayout(self)
        if strip:
            layout.setContentsMargins(theme.L, theme.S, theme.M, theme.S)
            layout.setSpacing(theme.S)
        else:
            layout.setContentsMargins(theme.M, theme.S, theme.S, theme.S)
            layout.setSpacing(theme.M)
        self._icon = QLabel()
        self._icon.setFixedSize(20, 20)
        self._icon.setVisible(not strip)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # busy: the work cannot say how far it is
        self.progress.setTextVisible(False)
        self.progress.setFixedWidth(160)
        self.progress.setFixedHeight(6)
        self.progress.hide()
        self.buttons = [QPushButton() for _ in range(_BANNER_BUTTONS)]
        self._actions: list[BannerAction] = []
        self.close_button = QToolButton()
        self.close_button.setAutoRaise(True)
        self.close_button.setIcon(icons.icon("close"))
        self.close_button.setToolTip("Dismiss (Esc)")
        self.close_button.clicked.connect(self.clear)
        self.close_button.hide()
        layout.addWidget(self._icon, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.progress)
        for index, button in enumerate(self.buttons):
            button.hide()
            button.clicked.connect(lambda _checked=False, i=index: self._run(i))
            layout.addWidget(button)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    @property
    def action(self) -> QPushButton:
        """The first button (a card's one action)."""
        return self.buttons[0]

    def show_message(self, kind: str, text: str, *actions: BannerAction) -> None:
        """Show ``text`` as ``kind`` with a button per action (clicking it calls its callable)."""
        self.kind = kind
        if self.strip:
            self.setProperty("kind", kind)
            self.style().unpolish(self)
            self.style().polish(self)
        else:
            set_role(self, "banner", level=kind)
            self._icon.setPixmap(icons.icon("info" if kind == "busy" else kind).pixmap(QSize(20, 20)))
            self.close_button.setVisible(kind != "busy")
        self.label.setText(text)
        self.progress.setVisible(kind == "busy")
        self._actions = list(actions[:_BANNER_BUTTONS])
        for index, button in enumerate(self.buttons):
            if index < len(self._actions):
                button.setText(self._actions[index][0])
                button.show()
            else:
                button.hide()
        self.show()

    def _run(self, index: int) -> None:
        if index < len(self._actions):
            self._actions[index][1]()

    def clear(self) -> None:
        self.kind = ""
        self.hide()


class WrappedLabel(QLabel):
    """A word-wrapped label that asks for the width of its longest line (up to ``max_width``)
    rather than Qt's narrow guess for wrapped text, so a window sized to its contents is not made
    taller than the text needs."""

    def __init__(self, text: str = "", max_width: int = 560, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.max_width = max_width
        self.setWordWrap(True)

    def sizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        longest = max((metrics.horizontalAdvance(line) for line in self.text().splitlines()), default=0)
        width = min(longest + 2 * self.margin() + 2, self.max_width)
        return QSize(width, self.heightForWidth(width))


class ElidedLabel(QLabel):
    """One line of text that elides to the width it is given (the whole text stays its
    ``text()``; show it as a tooltip where it matters). It asks for its whole text as its size
    hint but for a few characters only as its minimum, so a long text never widens its window or
    pushes the panels beside it."""

    #: Characters of the text kept at the least (then an ellipsis).
    MIN_CHARS = 4

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        metrics = self.fontMetrics()
        margins = self.contentsMargins()
        least = metrics.horizontalAdvance(self.text()[: self.MIN_CHARS] + "…") + margins.left() + margins.right()
        return QSize(min(hint.width(), least), hint.height())

    def paintEvent(self, event: QPaintEvent) -> None:
        rect = self.contentsRect()
        text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, rect.width())
        if text == self.text():
            super().paintEvent(event)
            return
        painter = QPainter(self)
        self.style().drawItemText(painter, rect, int(self.alignment()), self.palette(), self.isEnabled(), text,
                                  self.foregroundRole())


class ElidedButton(QPushButton):
    """A flat button whose one line of text elides to the width its layout gives it (the whole
    text stays its ``text()`` and is its tooltip while elided). Its width is ignored by its
    layout (give it a stretch): a long text never widens its row, its window or the panels
    beside it, whatever it says."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def setText(self, text: str) -> None:
        super().setText(text)
        self._show_whole_text_as_tip()

    def shown_text(self) -> str:
        """The text as drawn: elided to the room the button's style leaves for it."""
        option = QStyleOptionButton()
        self.initStyleOption(option)
        room = self.style().subElementRect(QStyle.SubElement.SE_PushButtonContents, option, self).width()
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, max(room, 0))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._show_whole_text_as_tip()

    def paintEvent(self, event: QPaintEvent) -> None:
        option = QStyleOptionButton()
        self.initStyleOption(option)
        option.text = self.shown_text()
        QStylePainter(self).drawControl(QStyle.ControlElement.CE_PushButton, option)

    def _show_whole_text_as_tip(self) -> None:
        self.setToolTip(self.text() if self.shown_text() != self.text() else "")


class DialogHeading(QWidget):
    """The top of a dialog: its title, what it is for in a line or two (``intro``: a caption, or
    plain text when not ``muted``) and, when given, an icon beside them."""

    def __init__(self, title: str, intro: str = "", *, icon: QIcon | None = None, muted: bool = True,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(theme.M)
        if icon is not None:
            badge = QLabel()
            badge.setPixmap(icon.pixmap(QSize(28, 28)))
            row.addWidget(badge, 0, Qt.AlignmentFlag.AlignTop)
        column = QVBoxLayout()
        column.setSpacing(theme.XS)
        self.title = set_role(QLabel(title), "heading")
        self.intro = WrappedLabel(intro)
        if muted:
            set_role(self.intro, "caption")
        self.intro.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.intro.setVisible(bool(intro))
        column.addWidget(self.title)
        column.addWidget(self.intro)
        row.addLayout(column, 1)


def dialog_layout(dialog: QWidget, title: str, intro: str = "", *, icon: QIcon | None = None,
                  muted: bool = True, spacing: int = theme.S) -> tuple[QVBoxLayout, DialogHeading]:
    """The layout of ``dialog`` (the dialogs' margins, ``spacing`` between its parts), its
    :class:`DialogHeading` already at the top."""
    layout = QVBoxLayout(dialog)
    layout.setContentsMargins(theme.XL, theme.XL, theme.XL, theme.L)
    layout.setSpacing(spacing)
    heading = DialogHeading(title, intro, icon=icon, muted=muted)
    layout.addWidget(heading)
    return layout, heading


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


def tool_strip(name: str) -> QToolBar:
    """A row of tools over an editor that never pushes its window wider: what does not fit goes
    into the row's » menu (a plain row of buttons asks for the width of all of them)."""
    bar = QToolBar()
    bar.setObjectName(name)
    bar.setMovable(False)
    bar.setFloatable(False)
    return bar


def add_stretch(bar: QToolBar) -> QWidget:
    """A gap in ``bar`` that takes the room left, pushing what follows to the right."""
    gap = QWidget()
    gap.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
    bar.addWidget(gap)
    return gap


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


def _rect(rect: QRect) -> Rect:
    return Rect(rect.x(), rect.y(), rect.width(), rect.height())


def place_window(window: QWidget, name: str, over: QWidget | None = None,
                 places: WindowPlaces | None = None) -> Rect:
    """Give the top-level ``window`` (not shown yet) its place: where the writer left the window
    ``name`` when that is still on a screen, else centred on ``over``; always whole on the
    screen's available area (:func:`storyloom.app.views.window_place.place`). Rectangles are
    the windows' client areas, the screen made smaller by ``over``'s frame (the window manager's
    title bar and borders, which ``window`` gets too)."""
    anchor = over.window() if over is not None else None
    screen = (anchor.screen() if anchor is not None else None) or QApplication.primaryScreen()
    frame = anchor.frameGeometry() if anchor is not None else QRect()
    inner = anchor.geometry() if anchor is not None else QRect()
    left, top = inner.x() - frame.x(), inner.y() - frame.y()
    right, bottom = frame.right() - inner.right(), frame.bottom() - inner.bottom()

    def usable(area: QRect) -> Rect:
        return Rect(area.x() + left, area.y() + top, area.width() - left - right, area.height() - top - bottom)

    screens = [usable(s.availableGeometry()) for s in QApplication.screens()]
    saved = (places or WindowPlaces()).get(name)
    rect = place((window.width(), window.height()), _rect(inner) if anchor is not None else usable(
        screen.availableGeometry()), usable(screen.availableGeometry()), saved, screens)
    window.setGeometry(QRect(rect.x, rect.y, rect.width, rect.height))
    return rect


def remember_place(window: QWidget, name: str, places: WindowPlaces | None = None) -> None:
    """Record where ``window`` is (its client area), for :func:`place_window` next time; a
    maximized window is recorded as such, with its place before (``normalGeometry``)."""
    if not window.isVisible() or window.isMinimized():
        return
    if window.isMaximized():
        normal = window.normalGeometry()
        if normal.isValid():
            (places or WindowPlaces()).remember(name, _rect(normal), maximized=True)
        return
    (places or WindowPlaces()).remember(name, _rect(window.geometry()))


def restore_place(window: QWidget, name: str, places: WindowPlaces | None = None) -> bool:
    """Give the top-level ``window`` (not shown yet) the place where the window ``name`` was
    left, fitted to a screen, maximized again if it was (:func:`place_window`); False, and the
    window keeps its own place, when none is remembered."""
    places = places or WindowPlaces()
    if places.get(name) is None:
        return False
    place_window(window, name, None, places)
    if places.maximized(name):
        window.setWindowState(window.windowState() | Qt.WindowState.WindowMaximized)
    return True


def keep_on_screen(window: QWidget) -> None:
    """Pull the shown top-level ``window``, frame and all, whole onto the screen it is on (its
    frame is known only once it is shown: a place fitted before counted its client area)."""
    if window.isMaximized() or window.isFullScreen() or window.isMinimized():
        return
    screen = window.screen() or QApplication.primaryScreen()
    frame, inner = window.frameGeometry(), window.geometry()
    area = _rect(screen.availableGeometry())
    fitted = fit(_rect(frame), area)
    if fitted != _rect(frame):
        extra_w, extra_h = frame.width() - inner.width(), frame.height() - inner.height()
        window.setGeometry(QRect(fitted.x + inner.x() - frame.x(), fitted.y + inner.y() - frame.y(),
                                 fitted.width - extra_w, fitted.height - extra_h))
