"""A zoomable, pannable ``QGraphicsView`` for the board editors (canvas, dialogue, map): zoom with
the wheel (under the pointer) or the keys, pan with the middle button, Space+drag or Shift+wheel,
a dot grid on the background, and a view of any rectangle (``fit``). ``hint`` says what a gesture
would do; the main window's Edit ▸ Undo and Redo reach the editor (``undo_target``) through the
view while it has the focus. Subclasses add their tools."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent, QMouseEvent, QPainter, QWheelEvent
from PySide6.QtWidgets import QFrame, QGraphicsScene, QGraphicsView, QWidget

from storyloom.gui import theme
from storyloom.gui.editors.dot_grid import dot_pen, draw_dot_grid


class SurfaceView(QGraphicsView):
    zoom_changed = Signal(float)
    hint = Signal(str)
    #: What Edit ▸ Undo and Redo call while the view has the focus (its editor).
    undo_target: Any = None

    def __init__(self, scene: QGraphicsScene, min_zoom: float = 0.1, max_zoom: float = 4.0,
                 parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.min_zoom, self.max_zoom = min_zoom, max_zoom
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing
                            | QPainter.RenderHint.SmoothPixmapTransform)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self._pan_from: QPoint | None = None
        self._space = False
        self.apply_theme()

    def apply_theme(self) -> None:
        """The theme's window colour with a dot grid (:meth:`drawBackground`)."""
        colors = theme.colors()
        self._paper = QColor(colors.window)
        self._dot_pen = dot_pen(colors.border)
        self.setBackgroundBrush(self._paper)
        self.resetCachedContent()
        self.viewport().update()

    def drawBackground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        """The dot grid in scene units at whole pixels (:func:`~storyloom.gui.editors.dot_grid.draw_dot_grid`):
        evenly spaced single dots at every zoom."""
        draw_dot_grid(painter, rect, self._paper, self._dot_pen)

    # ------------------------------------------------------------------ zoom
    def zoom(self) -> float:
        return self.transform().m11()

    def set_zoom(self, level: float, under_mouse: bool = False) -> None:
        level = max(self.min_zoom, min(self.max_zoom, level))
        factor = level / self.zoom()
        if abs(factor - 1) < 1e-6:
            return
        if not under_mouse:
            self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.scale(factor, factor)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.zoom_changed.emit(self.zoom())

    def zoom_in(self) -> None:
        self.set_zoom(self.zoom() * 1.25)

    def zoom_out(self) -> None:
        self.set_zoom(self.zoom() / 1.25)

    def fit(self, rect: QRectF, margin: float = 48, max_zoom: float = 1.0, min_zoom: float = 0.0) -> None:
        """Show ``rect`` whole (never larger than ``max_zoom``, never smaller than ``min_zoom``:
        then its middle), in the middle of the view."""
        if rect.isEmpty():
            self.set_zoom(1.0)
            self.centerOn(0, 0)
            return
        view = self.viewport().rect()
        rect = rect.adjusted(-margin, -margin, margin, margin)
        level = max(min(view.width() / rect.width(), view.height() / rect.height(), max_zoom), min_zoom)
        self.set_zoom(level)
        self.ensure_room(rect)
        self.centerOn(rect.center())

    def ensure_room(self, rect: QRectF) -> None:
        """Let the view scroll over ``rect`` and well beyond it (an infinite surface)."""
        room = rect.adjusted(-20000, -20000, 20000, 20000)
        self.setSceneRect(self.sceneRect().united(room))

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.AltModifier):
            delta = event.angleDelta()
            bar = self.horizontalScrollBar() if event.modifiers() & Qt.KeyboardModifier.ShiftModifier \
                else self.verticalScrollBar()
            bar.setValue(bar.value() - (delta.y() or delta.x()) // 2)
            event.accept()
            return
        steps = event.angleDelta().y() / 120 or event.pixelDelta().y() / 60
        if steps:
            self.set_zoom(self.zoom() * (1.15 ** steps), under_mouse=True)
        event.accept()

    # ------------------------------------------------------------------ pan
    def pan_by(self, dx: float, dy: float) -> None:
        """Move the view by ``dx``, ``dy`` pixels (what a drag with the middle button does)."""
        self.horizontalScrollBar().setValue(round(self.horizontalScrollBar().value() - dx))
        self.verticalScrollBar().setValue(round(self.verticalScrollBar().value() - dy))

    def start_pan(self, event: QMouseEvent) -> bool:
        """Begin a pan for a middle press or Space+left press; True when it did."""
        if event.button() == Qt.MouseButton.MiddleButton or (
                event.button() == Qt.MouseButton.LeftButton and self._space):
            self._pan_from = event.position().toPoint()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return True
        return False

    def panning(self, event: QMouseEvent) -> bool:
        if self._pan_from is None:
            return False
        delta = event.position().toPoint() - self._pan_from
        self._pan_from = event.position().toPoint()
        self.pan_by(delta.x(), delta.y())
        event.accept()
        return True

    def end_pan(self, event: QMouseEvent) -> bool:
        if self._pan_from is None:
            return False
        self._pan_from = None
        self.viewport().setCursor(Qt.CursorShape.OpenHandCursor if self._space else self.tool_cursor())
        event.accept()
        return True

    def tool_cursor(self) -> Qt.CursorShape:
        return Qt.CursorShape.ArrowCursor

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
            event.accept()
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
            self.viewport().setCursor(self.tool_cursor())
            event.accept()
            return
        super().keyReleaseEvent(event)

    def focusOutEvent(self, event: Any) -> None:
        self._space = False
        super().focusOutEvent(event)

    # ------------------------------------------------------------------ the main window's Edit menu
    def undo(self) -> None:
        if self.undo_target is not None:
            self.undo_target.undo()

    def redo(self) -> None:
        if self.undo_target is not None:
            self.undo_target.redo()
