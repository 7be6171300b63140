"""The theme: controls stay visible in both palettes."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QCheckBox, QRadioButton, QStyle, QStyleOptionButton

from storyloom.gui.theme import apply_theme

pytestmark = pytest.mark.slow  # renders every indicator and compares pixels: seconds a test


def _lightness(color: QColor) -> int:
    return color.lightness()


@pytest.mark.parametrize("dark", [False, True])
@pytest.mark.parametrize("kind", [QCheckBox, QRadioButton])
def test_an_unchecked_indicator_stands_out_from_the_window(qtbot, dark: bool, kind: type) -> None:
    app = QApplication.instance()
    theme = apply_theme(app, dark=dark)
    try:
        box = kind("Live sync")
        qtbot.addWidget(box)
        box.resize(160, 32)
        box.show()
        image = box.grab().toImage()
        option = QStyleOptionButton()
        box.initStyleOption(option)
        element = (QStyle.SubElement.SE_CheckBoxIndicator if kind is QCheckBox
                   else QStyle.SubElement.SE_RadioButtonIndicator)
        rect = box.style().subElementRect(element, option, box)
        background = _lightness(QColor(theme.window))
        indicator = [image.pixelColor(x, y) for x in range(rect.left(), rect.right() + 1)
                     for y in range(rect.top(), rect.bottom() + 1)]
        contrast = max(abs(_lightness(c) - background) for c in indicator)
        assert contrast >= 40, f"the indicator's outline is {contrast} lightness steps from the window"
    finally:
        apply_theme(app, dark=False)
