"""Render the app's icon (the window icon :func:`storyloom.gui.application.create_application`
sets: a qtawesome glyph drawn at run time) to a PNG, for the .desktop file and the bundle.

Usage: python packaging/render_icon.py OUT.png [SIZE]

It draws with the same call the app makes, offscreen, so the launcher's icon is the window's.
"""

from __future__ import annotations

import os
import sys


def render(path: str, size: int = 256) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from storyloom.gui import icons, theme

    app = QApplication.instance() or QApplication([sys.argv[0]])
    theme.apply_theme(app)  # the light theme's accent, as on a fresh machine
    pixmap = icons.icon("app", theme.colors().accent).pixmap(size, size)
    if pixmap.isNull() or not pixmap.save(path, "PNG"):
        raise SystemExit(f"render_icon: could not write {path}")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    render(sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 256)
