"""Dialogs use the app's own Phosphor icons: no desktop-theme icons on standard buttons (a
floppy on Save, a red X on Cancel) and message boxes show the app's warning, error, question
and information icons in the theme's colours."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QMessageBox, QStyle

from storyloom.gui import theme

SP = QStyle.StandardPixmap


def _ink(pixmap) -> QColor:  # type: ignore[no-untyped-def]
    """The colour of a pixmap's most opaque pixels (an icon's strokes)."""
    image = pixmap.toImage()
    best = QColor(0, 0, 0, 0)
    for x in range(image.width()):
        for y in range(image.height()):
            colour = image.pixelColor(x, y)
            if colour.alpha() > best.alpha():
                best = colour
    return best


def _close(a: QColor, b: QColor) -> bool:
    return abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue()) < 60


def test_standard_buttons_carry_no_desktop_icons(qapp) -> None:  # type: ignore[no-untyped-def]
    assert QApplication.style().styleHint(QStyle.StyleHint.SH_DialogButtonBox_ButtonsHaveIcons) == 0
    box = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Discard
                           | QDialogButtonBox.StandardButton.Cancel | QDialogButtonBox.StandardButton.Close)
    assert all(button.icon().isNull() for button in box.buttons())
    for pixmap in (SP.SP_DialogSaveButton, SP.SP_DialogCancelButton, SP.SP_DialogCloseButton,
                   SP.SP_DialogDiscardButton):
        assert QApplication.style().standardIcon(pixmap).isNull(), pixmap


@pytest.mark.parametrize(("kind", "colour"), [
    (QMessageBox.Icon.Warning, "warning"), (QMessageBox.Icon.Critical, "danger"),
    (QMessageBox.Icon.Information, "accent"), (QMessageBox.Icon.Question, "accent"),
])
def test_message_boxes_show_the_apps_icons(qtbot, kind, colour: str) -> None:  # type: ignore[no-untyped-def]
    box = QMessageBox(kind, "Unsaved changes", "Close anyway?")
    qtbot.addWidget(box)
    ink = _ink(box.iconPixmap())
    assert _close(ink, QColor(getattr(theme.colors(), colour))), f"{ink.name()} is not the theme's {colour}"
