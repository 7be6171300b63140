"""The main window's style sheet: spacing, calm greys, one accent, for light and dark.

Only the window's own parts are styled here (by object name); the application's palette and
fonts come from :mod:`storyloom.gui.application`."""

from __future__ import annotations

from PySide6.QtGui import QColor

from storyloom.gui import theme

_BANNERS = {
    False: {"error_bg": "#fdecec", "error_fg": "#a1161b", "warning_bg": "#fff6db", "warning_fg": "#7a5a00",
            "info_bg": "#e9f2fe", "info_fg": "#1c4f9c"},
    True: {"error_bg": "#4a1f22", "error_fg": "#ffb3b3", "warning_bg": "#453a12", "warning_fg": "#f7dc8a",
           "info_bg": "#1d3350", "info_fg": "#a9cbff"},
}


def window_style() -> str:
    """The style sheet of the main window for the theme in use (:func:`storyloom.gui.theme.colors`)."""
    colours = theme.colors()
    selected = QColor(colours.accent)
    selected.setAlphaF(0.18 if colours.dark else 0.14)
    c = {
        "rail": colours.surface_alt, "panel": colours.window, "border": colours.border, "muted": colours.muted,
        "text": colours.text, "hover": colours.border, "accent": colours.accent,
        "selected": selected.name(QColor.NameFormat.HexArgb), **_BANNERS[colours.dark],
        # A sidebar's scrollbar: a thin handle in the theme's colours (with the rail styled by
        # this sheet, Qt otherwise paints its scrollbar's unstyled parts solid black).
        "handle": QColor(colours.muted).lighter(150 if not colours.dark else 80).name(),
    }
    return f"""
#sidebar {{ background: {c['rail']}; border-right: 1px solid {c['border']}; }}
#sidebarTitle {{ color: {c['text']}; }}
#collectionRail {{ background: transparent; outline: 0; border: 0; }}
#collectionRail::item {{ padding: 0 12px; margin: 0 8px; border-radius: 6px; color: {c['text']}; }}
#collectionRail::item:hover {{ background: {c['hover']}; }}
#collectionRail::item:selected {{ background: {c['selected']}; color: {c['text']}; }}
#favouritesHeading {{ color: {c['muted']}; font-size: 8pt; font-weight: 600; letter-spacing: 1px; }}
#favouritesHint {{ color: {c['muted']}; }}
#favouritesList {{ background: transparent; outline: 0; border: 0; }}
#favouritesList::item {{ padding: 0 12px; margin: 0 8px; border-radius: 6px; color: {c['text']}; }}
#favouritesList::item:hover {{ background: {c['hover']}; }}
#favouritesList::item:selected {{ background: transparent; color: {c['text']}; }}
#favouriteStar, #favouriteStar:checked {{ background: transparent; border: 0; padding: 4px; }}
#favouriteStar:hover {{ background: {c['hover']}; border-radius: 6px; }}
#explorer {{ background: {c['panel']}; border-right: 1px solid {c['border']}; }}
#explorerTitle {{ color: {c['muted']}; letter-spacing: 1px; }}
#explorerMessage {{ background: {c['error_bg']}; color: {c['error_fg']}; }}
#collectionTree {{ background: transparent; outline: 0; border: 0; show-decoration-selected: 0; }}
#collectionTree::branch:selected {{ background: transparent; }}
#collectionTree::item {{ padding: 4px 4px; border-radius: 4px; }}
#collectionTree::item:hover {{ background: {c['hover']}; }}
#collectionTree::item:selected {{ background: {c['selected']}; color: {c['text']}; }}
#emptyState, #welcomeHint, #placeholderNote, #fieldHint, #docKind, #cursorPosition {{ color: {c['muted']}; }}
#welcomeTitle {{ font-size: 16pt; font-weight: 600; color: {c['text']}; }}
#documentTabs::pane {{ border: 0; border-top: 1px solid {c['border']}; }}
#documentTabs QTabBar::tab {{ padding: 8px 12px; border: 0; border-right: 1px solid {c['border']};
    background: {c['rail']}; color: {c['muted']}; min-width: 80px; }}
#documentTabs QTabBar::tab:selected {{ background: palette(base); color: {c['text']};
    border-bottom: 2px solid {c['accent']}; }}
#docTitle {{ background: transparent; color: {c['text']}; border: 0; padding: 0; }}
#codeEditor {{ border: 0; }}
#fieldLabel {{ color: {c['muted']}; font-weight: 600; padding-top: 8px; }}
#fieldError {{ color: {c['error_fg']}; }}
#optionsNav {{ background: transparent; outline: 0; border: 0; border-right: 1px solid {c['border']};
    border-radius: 0; }}
#optionsNav::item {{ padding: 0 8px; border-radius: 6px; color: {c['text']}; }}
#optionsNav::item:hover {{ background: {c['hover']}; }}
#optionsNav::item:selected {{ background: {c['selected']}; color: {c['text']}; }}
#optionsScroll, #optionsPage {{ background: transparent; }}
#optionLabel {{ color: {c['text']}; font-weight: 600; }}
#themeChoice QToolButton {{ padding: 6px 12px; border: 1px solid {c['border']}; border-radius: 6px; }}
#themeChoice QToolButton:checked {{ background: {c['selected']}; border-color: {c['accent']}; }}
#editorFontSample {{ background: palette(base); }}
#optionsResult {{ background: {c['error_bg']}; color: {c['error_fg']}; padding: 8px 12px; border-radius: 6px; }}
#banner[kind="error"] {{ background: {c['error_bg']}; }}
#banner[kind="error"] QLabel {{ color: {c['error_fg']}; }}
#banner[kind="warning"] {{ background: {c['warning_bg']}; }}
#banner[kind="warning"] QLabel {{ color: {c['warning_fg']}; }}
#banner[kind="info"] {{ background: {c['info_bg']}; }}
#banner[kind="info"] QLabel {{ color: {c['info_fg']}; }}
#problemsSummary {{ color: {c['muted']}; text-align: left; border: 0; padding: 4px 0; }}
#statusBar {{ background: {c['rail']}; border-top: 1px solid {c['border']}; color: {c['muted']}; }}
#statusBar QLabel {{ color: {c['muted']}; }}
#statusBar QLabel[state="failed"] {{ color: {c['error_fg']}; }}
#collectionRail QScrollBar:vertical, #collectionTree QScrollBar:vertical {{ background: transparent;
    width: 8px; margin: 2px 1px; border: 0; }}
#collectionRail QScrollBar::handle:vertical, #collectionTree QScrollBar::handle:vertical {{
    background: {c['handle']}; border-radius: 3px; min-height: 24px; }}
#collectionRail QScrollBar::handle:vertical:hover, #collectionTree QScrollBar::handle:vertical:hover {{
    background: {c['muted']}; }}
#collectionRail QScrollBar::add-line, #collectionRail QScrollBar::sub-line,
#collectionTree QScrollBar::add-line, #collectionTree QScrollBar::sub-line {{ height: 0; width: 0; border: 0; }}
#collectionRail QScrollBar::add-page, #collectionRail QScrollBar::sub-page,
#collectionTree QScrollBar::add-page, #collectionTree QScrollBar::sub-page {{ background: transparent; }}
#mainSplitter::handle {{ background: {c['border']}; }}
#quickOpenList {{ border: 0; }}
#quickOpenList::item {{ padding: 6px 8px; border-radius: 4px; }}
#quickOpenList::item:selected {{ background: {c['selected']}; color: {c['text']}; }}
"""
