"""The acceptance test's eyes inside the app: a read-only probe that says where things are.

An X client outside the app (xdotool) cannot see inside a Qt window: where the palette's "Choice"
entry is drawn, where a node's output port sits after zooming, what the player's transcript
shows. The probe answers those questions over a Unix socket (one JSON request a line, one JSON
answer a line), on the GUI thread, and nothing else: it never clicks, types, calls an intent or
changes a widget. Every input the test gives still arrives as a real X event through the window
manager, as a writer's would (this is how object-aware GUI test tools locate widgets).

Installed by ``launch_app.py`` on the app's QApplication before the first window shows.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QObject, QRect
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QGraphicsView,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QTabWidget,
    QTextEdit,
    QWidget,
)


def _rect(widget: QWidget, local: QRect | None = None) -> list[int]:
    """``local`` (the whole widget by default) in global screen coordinates: x, y, width, height."""
    area = local if local is not None else widget.rect()
    top_left = widget.mapToGlobal(area.topLeft())
    return [top_left.x(), top_left.y(), area.width(), area.height()]


def _text(widget: QWidget) -> str | None:
    if isinstance(widget, QLineEdit):
        return widget.text()
    if isinstance(widget, (QPlainTextEdit, QTextEdit)):
        return widget.toPlainText()
    if isinstance(widget, (QLabel, QAbstractButton)):
        return widget.text()
    if isinstance(widget, QComboBox):
        return widget.currentText()
    return None


def _describe(widget: QWidget) -> dict[str, Any]:
    window = widget.window()
    answer: dict[str, Any] = {
        "name": widget.objectName(), "class": type(widget).__name__, "rect": _rect(widget),
        "text": _text(widget), "enabled": widget.isEnabled(), "focus": widget.hasFocus(),
        "window": window.windowTitle(),
    }
    if isinstance(widget, QAbstractButton) and widget.isCheckable():
        answer["checked"] = widget.isChecked()
    if isinstance(widget, QTabWidget):
        answer["tabs"] = [widget.tabText(i) for i in range(widget.count())]
        answer["current"] = widget.currentIndex()
    return answer


def _visible(name: str) -> list[QWidget]:
    found = []
    for top in QApplication.topLevelWidgets():
        candidates = [top, *top.findChildren(QWidget, name)] if top.objectName() == name else \
            top.findChildren(QWidget, name)
        found.extend(w for w in candidates if w.isVisible() and w.objectName() == name)
    return found


def _windows() -> list[dict[str, Any]]:
    active = QApplication.activeWindow()
    return [{"title": w.windowTitle(), "name": w.objectName(), "class": type(w).__name__, "rect": _rect(w),
             "active": w is active, "modal": w.isModal()}
            for w in QApplication.topLevelWidgets() if w.isVisible() and w.isWindow()]


def _items(name: str) -> list[dict[str, Any]]:
    rows = []
    for view in _visible(name):
        if not isinstance(view, QAbstractItemView):
            continue
        model = view.model()
        for row in range(model.rowCount()):
            index = model.index(row, 0)
            box = view.visualRect(index)
            if isinstance(view, QListWidget) and view.item(row) is not None and view.item(row).isHidden():
                continue
            rows.append({"text": index.data(), "rect": _rect(view.viewport(), box)})
    return rows


def _graph() -> dict[str, Any] | None:
    """The visible dialogue graph: its viewport, and each node's box, title and ports on screen."""
    from storyloom.project.dialogue_graph import kind_of, label_of, ports

    views = [v for v in _visible("dialogueGraphView") if isinstance(v, QGraphicsView)]
    if not views:
        return None
    view = views[0]
    viewport = view.viewport()

    def on_screen(scene_point: Any) -> list[int]:
        point = viewport.mapToGlobal(view.mapFromScene(scene_point))
        return [point.x(), point.y()]

    nodes = []
    for node_id, item in getattr(view.scene(), "node_items", {}).items():
        box = view.mapFromScene(item.mapRectToScene(item.boundingRect())).boundingRect()
        title = item.label_rect().center()
        nodes.append({
            "id": node_id, "type": kind_of(item.node).type, "label": label_of(item.node),
            "selected": item.isSelected(), "rect": _rect(viewport, box), "title": on_screen(title),
            "inputs": {h["id"]: on_screen(item.port_point(h["id"])) for h in ports(item.node, "target")},
            "outputs": [{"id": h["id"], "label": h.get("label"), "point": on_screen(item.port_point(h["id"]))}
                        for h in ports(item.node, "source")],
        })
    edges = len(getattr(view.scene(), "edge_items", {}))
    return {"viewport": _rect(viewport), "nodes": nodes, "edges": edges}


def _focus() -> dict[str, Any]:
    widget = QApplication.focusWidget()
    window = QApplication.activeWindow()
    return {"name": widget.objectName() if widget else None, "class": type(widget).__name__ if widget else None,
            "window": window.windowTitle() if window else None}


def answer(request: dict[str, Any]) -> Any:
    """What ``request`` asks: ``windows``, ``widgets`` (by object name), ``items`` (of a list by
    object name), ``graph`` or ``focus``."""
    query = request.get("q")
    if query == "windows":
        return _windows()
    if query == "widgets":
        return [_describe(w) for w in _visible(str(request["name"]))]
    if query == "items":
        return _items(str(request["name"]))
    if query == "graph":
        return _graph()
    if query == "focus":
        return _focus()
    raise ValueError(f"unknown query {query!r}")


class Probe(QObject):
    """Listens on ``path``; answers each line it reads with one line."""

    def __init__(self, path: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.server = QLocalServer(self)
        QLocalServer.removeServer(path)
        if not self.server.listen(path):
            raise RuntimeError(f"the probe cannot listen on {path}: {self.server.errorString()}")
        self.server.newConnection.connect(self._connected)

    def _connected(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(socket.deleteLater)

    def _read(self, socket: QLocalSocket) -> None:
        while socket.canReadLine():
            line = bytes(socket.readLine().data()).decode("utf-8")
            try:
                reply: dict[str, Any] = {"ok": answer(json.loads(line))}
            except Exception as exc:  # the test reads the error; the app goes on
                reply = {"error": f"{type(exc).__name__}: {exc}"}
            socket.write((json.dumps(reply) + "\n").encode("utf-8"))
            socket.flush()


__all__ = ["Probe", "answer"]
