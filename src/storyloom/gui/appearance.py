"""The writer's appearance options, applied live: the theme (light, dark or the system's) and
the font of every text and code editor.

The choices live in :class:`storyloom.app.AppOptions` (``theme``, ``editor_font_family``,
``editor_font_size``); :func:`apply_appearance` applies them to the running app at once: the
palette and the style sheets of every open window, and the font of every editor that asked for
the editor font with :func:`use_editor_font`, the colours of every highlighter registered
with :func:`follow_theme`, and every window registered with :func:`restyle_with_theme` (one that
paints its own colours, like the player). A change of the system's scheme is followed only while the theme
is "system" (:func:`system_scheme_changed`)."""

from __future__ import annotations

import weakref
from typing import Any

import shiboken6
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import QApplication, QWidget

from storyloom.app import AppOptions
from storyloom.gui import theme

# The editors and highlighters that follow the options, held weakly: they are found here, not by
# walking QApplication.allWidgets(), which wraps every widget of the process (those of closed
# windows waiting for deletion too) and aborted the process once in a long run.
_font_followers: weakref.WeakSet[QWidget] = weakref.WeakSet()
_theme_followers: weakref.WeakKeyDictionary[Any, QWidget] = weakref.WeakKeyDictionary()
_restyled: weakref.WeakSet[QWidget] = weakref.WeakSet()

_theme_choice = "system"
_family = ""
_size = 0


def theme_choice() -> str:
    """The theme the options chose: ``"system"``, ``"light"`` or ``"dark"``."""
    return _theme_choice


def editor_font() -> QFont:
    """The editors' font: the chosen family and size over the system's monospace font."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    if _family:
        font.setFamilies([_family, *font.families()])  # the system's monospace if the family is gone
        font.setStyleHint(QFont.StyleHint.Monospace)
    if _size:
        font.setPointSize(_size)
    return font


def use_editor_font(widget: QWidget) -> None:
    """Give ``widget`` the editor font now and whenever the options change it."""
    widget.setFont(editor_font())
    _font_followers.add(widget)


def editor_widgets() -> list[QWidget]:
    """Every live widget that uses the editor font."""
    return [w for w in list(_font_followers) if shiboken6.isValid(w)]


def follow_theme(editor: QWidget, highlighter: Any) -> None:
    """Give ``highlighter`` (one with ``set_dark``) of ``editor``'s text the theme's colours
    whenever the theme changes."""
    _theme_followers[highlighter] = editor


def restyle_with_theme(window: QWidget) -> None:
    """Call ``window.restyle()`` (its style sheet, icons and drawn colours from
    :func:`storyloom.gui.theme.colors`) whenever the theme changes while it is open."""
    _restyled.add(window)


def _dark(choice: str) -> bool | None:
    return {"light": False, "dark": True}.get(choice)


def apply_theme_choice(app: QApplication, choice: str) -> theme.ThemeColors:
    """Apply ``choice`` (``system``, ``light``, ``dark``) and restyle every open window."""
    global _theme_choice
    _theme_choice = choice
    colours = theme.apply_theme(app, _dark(choice))
    restyle_windows()
    recolour_highlighters(colours.dark)
    return colours


def recolour_highlighters(dark: bool) -> None:
    """Give every open editor's highlighter that follows the theme (:func:`follow_theme`) the
    theme's colours. The editor's signals are held meanwhile: new colours are no edit of its
    text (a rehighlight would otherwise read as typing and mark the document unsaved).

    The followers are copied first, and each is recoloured only while it and its editor still
    exist: a rehighlight runs the app's handlers, which may delete other editors."""
    for highlighter, editor in list(_theme_followers.items()):
        if not (shiboken6.isValid(editor) and shiboken6.isValid(highlighter)):
            continue
        held = editor.blockSignals(True)
        try:
            highlighter.set_dark(dark)
        finally:
            editor.blockSignals(held)


def restyle_windows() -> None:
    """Restyle every window registered with :func:`restyle_with_theme` (the project windows, the
    player): each sets its style sheet, icons and drawn colours from the current theme."""
    for window in list(_restyled):  # copied: a restyle runs handlers that may close windows
        if shiboken6.isValid(window):
            window.restyle()  # type: ignore[attr-defined]


def apply_editor_font(family: str, size: int) -> QFont:
    global _family, _size
    _family, _size = family.strip(), size
    font = editor_font()
    for widget in editor_widgets():
        if shiboken6.isValid(widget):  # a font change runs handlers that may delete widgets
            widget.setFont(font)
    return font


def apply_look(theme_name: str, family: str, size: int, app: QApplication | None = None) -> None:
    """Apply a theme choice and an editor font to the running app (what changed only)."""
    instance = app or QApplication.instance()
    if not isinstance(instance, QApplication):
        return
    if theme_name != _theme_choice or theme.colors().dark != _expected_dark(theme_name):
        apply_theme_choice(instance, theme_name)
    if (family.strip(), size) != (_family, _size):
        apply_editor_font(family, size)


def apply_appearance(options: AppOptions, app: QApplication | None = None) -> None:
    """Apply ``options``' theme and editor font to the running app."""
    apply_look(options.theme, options.editor_font_family, options.editor_font_size, app)


def _expected_dark(choice: str) -> bool:
    dark = _dark(choice)
    return theme.system_prefers_dark() if dark is None else dark


def system_scheme_changed(app: QApplication) -> None:
    """The system went light or dark: follow it while the options say "system"."""
    if _theme_choice == "system":
        apply_theme_choice(app, "system")


def connect_system_scheme(app: QApplication) -> None:
    """Follow the system's scheme changes (Qt 6.5+; an older platform keeps its palette)."""
    QGuiApplication.styleHints().colorSchemeChanged.connect(lambda _scheme: system_scheme_changed(app))
