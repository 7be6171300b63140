"""Pointer gestures on a graphics view for the canvas and map tests: real mouse events sent to
the view's viewport (press, moves with the button held, release), at scene points."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QGraphicsView


def _send(view: QGraphicsView, kind: QEvent.Type, scene_point: QPointF, button: Qt.MouseButton,
          buttons: Qt.MouseButton, modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    local = QPointF(view.mapFromScene(scene_point))
    global_point = QPointF(view.viewport().mapToGlobal(local.toPoint()))
    event = QMouseEvent(kind, local, global_point, button, buttons, modifiers)
    QApplication.sendEvent(view.viewport(), event)


def drag(view: QGraphicsView, start: QPointF, end: QPointF, steps: int = 6,
         button: Qt.MouseButton = Qt.MouseButton.LeftButton) -> None:
    """Press at ``start``, move to ``end`` in ``steps`` with the button held, release."""
    _send(view, QEvent.Type.MouseButtonPress, start, button, button)
    for step in range(1, steps + 1):
        point = start + (end - start) * (step / steps)
        _send(view, QEvent.Type.MouseMove, point, Qt.MouseButton.NoButton, button)
    _send(view, QEvent.Type.MouseButtonRelease, end, button, Qt.MouseButton.NoButton)


def click(view: QGraphicsView, point: QPointF, button: Qt.MouseButton = Qt.MouseButton.LeftButton,
          modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    _send(view, QEvent.Type.MouseButtonPress, point, button, button, modifiers)
    _send(view, QEvent.Type.MouseButtonRelease, point, button, Qt.MouseButton.NoButton, modifiers)


def double_click(view: QGraphicsView, point: QPointF) -> None:
    click(view, point)
    _send(view, QEvent.Type.MouseButtonDblClick, point, Qt.MouseButton.LeftButton, Qt.MouseButton.LeftButton)
    _send(view, QEvent.Type.MouseButtonRelease, point, Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton)
