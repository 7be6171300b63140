"""One look for every window: Fusion with our own light and dark palettes, one spacing scale,
and a small stylesheet for what a palette cannot say (hairline borders, headings, banners).

Widgets ask :func:`colors` for the current palette's named colours and use the spacing
constants (4, 8, 12, 16, 24 px) for every margin and gap, so the app stays calm and even.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QIcon, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleHintReturn, QStyleOption, QWidget

# The spacing scale: every margin, gap and padding is one of these.
XS = 4
S = 8
M = 12
L = 16
XL = 24


@dataclass(frozen=True)
class ThemeColors:
    dark: bool
    window: str  # the app's background
    surface: str  # lists, editors, inputs
    surface_alt: str  # alternate rows, sidebars, hover
    border: str  # hairlines between areas
    text: str
    muted: str  # secondary text, captions
    disabled: str
    accent: str  # the one accent colour: selection, primary buttons, focus
    accent_text: str
    danger: str
    warning: str
    success: str


LIGHT = ThemeColors(
    dark=False, window="#f6f6f8", surface="#ffffff", surface_alt="#f0f0f3", border="#e0e0e6",
    text="#1c1c21", muted="#6a6a75", disabled="#a8a8b2", accent="#5457d6", accent_text="#ffffff",
    danger="#c93a3a", warning="#a86a00", success="#2a8a55",
)
DARK = ThemeColors(
    dark=True, window="#1c1c20", surface="#232328", surface_alt="#2a2a30", border="#34343b",
    text="#e9e9ee", muted="#9d9daa", disabled="#5f5f6a", accent="#7477f0", accent_text="#ffffff",
    danger="#f07070", warning="#e5a73a", success="#4cc285",
)

_current: ThemeColors = LIGHT


def colors() -> ThemeColors:
    """The colours of the theme in use."""
    return _current


def system_prefers_dark() -> bool:
    """Whether the system's colour scheme is dark (Qt 6.5+ reads it from the platform)."""
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def palette(theme: ThemeColors) -> QPalette:
    """A full QPalette from the theme (Fusion draws every widget from it)."""
    pal = QPalette()
    role = QPalette.ColorRole
    group = QPalette.ColorGroup
    for g in (group.Active, group.Inactive):
        pal.setColor(g, role.Window, QColor(theme.window))
        pal.setColor(g, role.WindowText, QColor(theme.text))
        pal.setColor(g, role.Base, QColor(theme.surface))
        pal.setColor(g, role.AlternateBase, QColor(theme.surface_alt))
        pal.setColor(g, role.Text, QColor(theme.text))
        pal.setColor(g, role.PlaceholderText, QColor(theme.muted))
        pal.setColor(g, role.Button, QColor(theme.surface))
        pal.setColor(g, role.ButtonText, QColor(theme.text))
        pal.setColor(g, role.BrightText, QColor(theme.danger))
        pal.setColor(g, role.ToolTipBase, QColor(theme.surface_alt))
        pal.setColor(g, role.ToolTipText, QColor(theme.text))
        pal.setColor(g, role.Link, QColor(theme.accent))
        pal.setColor(g, role.LinkVisited, QColor(theme.accent))
        pal.setColor(g, role.Highlight, QColor(theme.accent))
        pal.setColor(g, role.HighlightedText, QColor(theme.accent_text))
        pal.setColor(g, role.Light, QColor(theme.surface))
        pal.setColor(g, role.Midlight, QColor(theme.surface_alt))
        pal.setColor(g, role.Mid, QColor(theme.border))
        pal.setColor(g, role.Dark, QColor(theme.border))
        pal.setColor(g, role.Shadow, QColor("#000000"))
    # An unfocused window keeps its selection visible, a little quieter.
    inactive_highlight = QColor(theme.accent)
    inactive_highlight.setAlpha(170)
    pal.setColor(group.Inactive, role.Highlight, inactive_highlight)
    for r in (role.WindowText, role.Text, role.ButtonText, role.PlaceholderText):
        pal.setColor(group.Disabled, r, QColor(theme.disabled))
    for r, value in ((role.Window, theme.window), (role.Base, theme.window), (role.Button, theme.window),
                     (role.Highlight, theme.border), (role.HighlightedText, theme.muted)):
        pal.setColor(group.Disabled, r, QColor(value))
    return pal


def stylesheet(theme: ThemeColors) -> str:
    """The few rules a palette cannot express; widgets opt in by object name or property."""
    t = theme
    return f"""
QToolTip {{ color: {t.text}; background: {t.surface_alt}; border: 1px solid {t.border}; padding: {XS}px; }}
QLabel[role="title"] {{ font-size: 20pt; font-weight: 600; }}
QLabel[role="heading"] {{ font-size: 13pt; font-weight: 600; }}
QLabel[role="caption"] {{ color: {t.muted}; }}
QLabel[role="error"] {{ color: {t.danger}; }}
QFrame[role="sidebar"] {{ background: {t.surface_alt}; border-right: 1px solid {t.border}; }}
QFrame[role="banner"] {{ background: {t.surface}; border: 1px solid {t.border}; border-radius: 6px; }}
QFrame[role="banner"][level="error"] {{ border-color: {t.danger}; }}
QFrame[role="banner"][level="success"] {{ border-color: {t.success}; }}
QTableView, QListView, QTreeView {{ border: 1px solid {t.border}; border-radius: 6px; }}
QTableView::item {{ padding: 0px {S}px; }}
QHeaderView::section {{ background: {t.surface}; color: {t.muted}; border: none;
    border-bottom: 1px solid {t.border}; padding: {S}px {S}px; font-weight: 600; }}
QPushButton {{ padding: 6px {M}px; border: 1px solid {t.border}; border-radius: 6px; background: {t.surface}; }}
QPushButton:hover {{ background: {t.surface_alt}; }}
QPushButton:disabled {{ color: {t.disabled}; }}
QPushButton[primary="true"] {{ background: {t.accent}; color: {t.accent_text}; border-color: {t.accent}; }}
QPushButton[flat="true"] {{ border: none; background: transparent; text-align: left; }}
QPushButton[flat="true"]:hover {{ background: {t.border}; }}
QLineEdit, QPlainTextEdit, QTextEdit {{ border: 1px solid {t.border}; border-radius: 6px; padding: {XS}px; }}
QLineEdit:focus, QPlainTextEdit:focus, QTextEdit:focus {{ border-color: {t.accent}; }}
QLineEdit[invalid="true"] {{ border-color: {t.danger}; }}
"""


# The check and radio indicators Fusion draws take their outline from the window colour made
# darker, which vanishes on a dark window; they get the theme's muted colour instead.
_INDICATORS = (
    QStyle.PrimitiveElement.PE_IndicatorCheckBox,
    QStyle.PrimitiveElement.PE_IndicatorRadioButton,
    QStyle.PrimitiveElement.PE_IndicatorItemViewItemCheck,
)


_SP = QStyle.StandardPixmap
# A desktop theme's icons on standard buttons (a floppy on Save, a red X on Cancel or Close)
# clash with the app's own: standard buttons carry words only.
_NO_ICONS = frozenset((
    _SP.SP_DialogSaveButton, _SP.SP_DialogCancelButton, _SP.SP_DialogCloseButton, _SP.SP_DialogDiscardButton,
    _SP.SP_DialogOkButton, _SP.SP_DialogApplyButton, _SP.SP_DialogResetButton, _SP.SP_DialogHelpButton,
    _SP.SP_DialogYesButton, _SP.SP_DialogNoButton, _SP.SP_DialogOpenButton, _SP.SP_DialogAbortButton,
    _SP.SP_DialogRetryButton, _SP.SP_DialogIgnoreButton, _SP.SP_DialogYesToAllButton, _SP.SP_DialogNoToAllButton,
    _SP.SP_DialogSaveAllButton,
))
# Message boxes show the app's Phosphor icons in the theme's colours (the icon, the colour's name).
_MESSAGE_ICONS = {
    _SP.SP_MessageBoxWarning: ("ph.warning", "warning"),
    _SP.SP_MessageBoxCritical: ("ph.warning-circle", "danger"),
    _SP.SP_MessageBoxInformation: ("ph.info", "accent"),
    _SP.SP_MessageBoxQuestion: ("ph.question", "accent"),
}


class ThemeStyle(QProxyStyle):
    """Fusion, with indicators whose outline stays visible in the dark theme, the app's own
    icons in message boxes and none on standard dialog buttons."""

    def styleHint(self, hint: QStyle.StyleHint, option: QStyleOption | None = None,
                  widget: QWidget | None = None, returnData: QStyleHintReturn | None = None) -> int:
        if hint == QStyle.StyleHint.SH_DialogButtonBox_ButtonsHaveIcons:
            return 0
        return super().styleHint(hint, option, widget, returnData)

    def standardIcon(self, standardIcon: QStyle.StandardPixmap, option: QStyleOption | None = None,
                     widget: QWidget | None = None) -> QIcon:
        if standardIcon in _NO_ICONS:
            return QIcon()
        if standardIcon in _MESSAGE_ICONS:
            import qtawesome

            name, colour = _MESSAGE_ICONS[standardIcon]
            return qtawesome.icon(name, color=getattr(_current, colour))
        return super().standardIcon(standardIcon, option, widget)

    def drawPrimitive(self, element: QStyle.PrimitiveElement, option: QStyleOption,
                      painter: QPainter, widget: QWidget | None = None) -> None:
        if element in _INDICATORS and _current.dark:
            option = type(option)(option)
            pal = QPalette(option.palette)
            pal.setColor(QPalette.ColorRole.Window, QColor(_current.muted).lighter(125))
            option.palette = pal
        super().drawPrimitive(element, option, painter, widget)


def apply_theme(app: QApplication, dark: bool | None = None) -> ThemeColors:
    """Fusion, our palette (``dark`` or, when None, the system's scheme) and the stylesheet;
    qtawesome's default icon colour follows the text colour. Returns the theme applied."""
    global _current
    theme = DARK if (system_prefers_dark() if dark is None else dark) else LIGHT
    _current = theme
    app.setStyle(ThemeStyle("Fusion"))
    app.setPalette(palette(theme))
    app.setStyleSheet(stylesheet(theme))
    try:
        import qtawesome

        qtawesome.reset_cache()
        qtawesome.set_defaults(color=theme.text, color_disabled=theme.disabled)
    except Exception:  # noqa: BLE001 - icons keep their previous colour; never stop the app for that
        pass
    return theme


def scaled_font(base: QFont, points: float = 0, bold: bool = False) -> QFont:
    """``base`` made ``points`` larger (type hierarchy by size and weight, not by boxes)."""
    font = QFont(base)
    if points:
        font.setPointSizeF(max(base.pointSizeF() + points, 6))
    if bold:
        font.setWeight(QFont.Weight.DemiBold)
    return font
