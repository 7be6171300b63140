"""The board editors' dot grid, drawn in scene units at whole pixels.

A tiled brush scaled with the view's zoom drew clumps of dots and gaps (and, zoomed out, smudges
or nothing); here each dot is a point of a cosmetic pen at a whole pixel, every
:data:`DOT_SPACING` scene units (doubled while the dots would be closer than
:data:`MIN_DOT_GAP` pixels), so any exposed strip draws the same dots a fresh paint would.
:class:`~storyloom.gui.editors.surface_view.SurfaceView` (the canvas and map editors) draws
its background with it."""

from __future__ import annotations

import math

from PySide6.QtCore import QPoint, QRect, QRectF
from PySide6.QtGui import QColor, QPainter, QPen, QPolygon

DOT_SPACING = 24  # scene units between the background's dots
MIN_DOT_GAP = 12  # pixels: zoomed out, every other dot goes


def dot_pen(colour: QColor | str, width: int = 2) -> QPen:
    """The pen of the dots: ``width`` pixels at every zoom."""
    pen = QPen(QColor(colour), width)
    pen.setCosmetic(True)
    return pen


def draw_dot_grid(painter: QPainter, rect: QRectF | QRect, paper: QColor, pen: QPen,
                  spacing: float = DOT_SPACING, min_gap: float = MIN_DOT_GAP) -> None:
    """Fill ``rect`` (scene units, as ``QGraphicsView.drawBackground`` gives it) with ``paper``
    and draw the dots of the grid in it with ``pen``. A rotated view gets the paper only."""
    rect = QRectF(rect)
    painter.fillRect(rect, paper)
    transform = painter.worldTransform()
    scale, dx, dy = transform.m11(), transform.dx(), transform.dy()
    if scale <= 0 or transform.isRotating() or spacing <= 0:
        return
    while spacing * scale < min_gap:
        spacing *= 2
    first_x = math.floor(rect.left() / spacing) * spacing
    first_y = math.floor(rect.top() / spacing) * spacing
    columns = int((rect.right() - first_x) // spacing) + 1
    rows = int((rect.bottom() - first_y) // spacing) + 1
    row = QPolygon([QPoint(round((first_x + n * spacing) * scale + dx), 0) for n in range(columns)])
    painter.save()
    painter.resetTransform()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    painter.setPen(pen)
    for n in range(rows):
        painter.drawPoints(row.translated(0, round((first_y + n * spacing) * scale + dy)))
    painter.restore()
