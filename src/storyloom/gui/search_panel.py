"""The Search dock (Ctrl+Shift+F): names and content of the whole project, results grouped by
document, each hit with its line, column and the line's text, the match highlighted.

The rules live in :mod:`storyloom.app.views.search` (:class:`~storyloom.app.views.search.ProjectSearch`).
The project's text is read once, on a worker thread, the first time the dock is shown; then it
follows the session's changes (the bridge's ``documents_changed``) and searches again while a
query is shown. Typing searches after a short pause; Enter searches now. Activating a hit opens
its document with the match selected (``MainWindow.open_at``, the Problems dock's path);
activating a document opens it.

Built with its window's host (:data:`storyloom.gui.panels.PANELS`: a bottom dock tabbed with the
Problems dock, View ▸ Search in Project…, which shows it with the query selected).
"""

from __future__ import annotations

import logging
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QKeySequence, QPainter, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)
from superqt.utils import qdebounced

from storyloom.app import DocumentChanged
from storyloom.app.views.search import DocumentHits, ProjectSearch, SearchError, SearchHit, SearchOptions, SearchResults
from storyloom.gui import icons, theme
from storyloom.gui.host import WindowHost
from storyloom.gui.sidebar import collection_label
from storyloom.gui.tasks import Task
from storyloom.words import counted

log = logging.getLogger(__name__)

SHORTCUT = "Ctrl+Shift+F"
SEARCH_MS = 200
_Index = QModelIndex | QPersistentModelIndex
_GROUP = 0  # internalId of a document row; a hit row's is its document's row + 1


class SearchModel(QAbstractItemModel):
    """Documents (top level) and their hits (children) of one :class:`SearchResults`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.groups: list[DocumentHits] = []
        self._icons: dict[str, Any] = {}

    def set_results(self, results: SearchResults | None) -> None:
        self.beginResetModel()
        self.groups = list(results.groups) if results is not None else []
        self.endResetModel()

    def group(self, index: _Index) -> DocumentHits | None:
        if not index.isValid():
            return None
        row = index.row() if index.internalId() == _GROUP else index.internalId() - 1
        return self.groups[row] if 0 <= row < len(self.groups) else None

    def hit(self, index: _Index) -> SearchHit | None:
        if not index.isValid() or index.internalId() == _GROUP:
            return None
        group = self.group(index)
        return group.hits[index.row()] if group is not None and index.row() < len(group.hits) else None

    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:
        if column != 0 or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, 0, _GROUP) if row < len(self.groups) else QModelIndex()
        if parent.internalId() != _GROUP:
            return QModelIndex()
        group = self.groups[parent.row()]
        return self.createIndex(row, 0, parent.row() + 1) if row < len(group.hits) else QModelIndex()

    def parent(self, index: _Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not index.isValid() or index.internalId() == _GROUP:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, _GROUP)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        if not parent.isValid():
            return len(self.groups)
        if parent.internalId() == _GROUP and parent.row() < len(self.groups):
            return len(self.groups[parent.row()].hits)
        return 0

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 1

    def _icon(self, collection: str) -> Any:
        if collection not in self._icons:
            try:
                self._icons[collection] = icons.collection_icon(collection)
            except KeyError:
                self._icons[collection] = icons.icon("document")
        return self._icons[collection]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        group = self.group(index)
        if group is None:
            return None
        hit = self.hit(index)
        if hit is None:
            if role == Qt.ItemDataRole.DisplayRole:
                return group.name
            if role == Qt.ItemDataRole.DecorationRole:
                return self._icon(group.collection or group.doc_type)
            if role == Qt.ItemDataRole.ToolTipRole:
                more = f" ({group.more} more not listed)" if group.more else ""
                return f"{group.name} — {collection_label(group.collection)}: {counted(group.count, 'result')}{more}"
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return hit.preview
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{hit.field_label}, line {hit.line}, column {hit.column}\n{hit.preview}"
        return None


class HitDelegate(QStyledItemDelegate):
    """Paints a document row (name, collection, count) and a hit row (line, the line's text with
    the match highlighted, the field when it is not the document's main text)."""

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        size = super().sizeHint(option, index)
        return QSize(size.width(), max(size.height(), 26))

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        model = index.model()
        if not isinstance(model, SearchModel):
            super().paint(painter, option, index)
            return
        group, hit = model.group(index), model.hit(index)
        if group is None:
            return
        colours = theme.colors()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        text_colour = QColor(colours.accent_text if selected else colours.text)
        muted = QColor(colours.accent_text if selected else colours.muted)
        painter.save()
        style = option.widget.style() if option.widget else None
        plain = QStyleOptionViewItem(option)
        self.initStyleOption(plain, index)
        plain.text = ""
        rect: QRect = option.rect.adjusted(theme.XS, 0, -theme.S, 0)
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, plain, painter, option.widget)
            if hit is None:  # the text goes where the style puts an item's text (after the icon)
                text_rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, plain, option.widget)
                rect.setLeft(text_rect.left() + theme.XS)
        font = QFont(option.font)
        if hit is None:
            bold = QFont(font)
            bold.setWeight(QFont.Weight.DemiBold)
            x = self._draw(painter, rect, rect.left(), group.name, bold, text_colour)
            detail = f"  {collection_label(group.collection)} · {counted(group.count, 'result')}"
            self._draw(painter, rect, x, detail, font, muted)
        else:
            x = rect.left()
            number = f"{hit.line}:{hit.column}"
            metrics = QFontMetrics(font)
            width = max(metrics.horizontalAdvance("0000:00"), metrics.horizontalAdvance(number))
            painter.setFont(font)
            painter.setPen(muted)
            painter.drawText(QRect(x, rect.top(), width, rect.height()),
                             int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), number)
            x += width + theme.M
            field = "" if hit.field in ("content.script", "content.gdd") else hit.field_label
            if field:
                right = metrics.horizontalAdvance(field) + theme.M
                painter.drawText(QRect(rect.right() - right, rect.top(), right, rect.height()),
                                 int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), field)
                rect.setRight(rect.right() - right - theme.S)
            before, match, after = hit.preview[:hit.start], hit.matched, hit.preview[hit.start + hit.shown:]
            x = self._draw(painter, rect, x, before, font, text_colour)
            bold = QFont(font)
            bold.setWeight(QFont.Weight.DemiBold)
            match_width = QFontMetrics(bold).horizontalAdvance(match)
            if x < rect.right():
                mark = QColor(colours.accent_text if selected else colours.accent)
                mark.setAlphaF(0.35 if selected else (0.28 if colours.dark else 0.16))
                width = min(match_width + 2, rect.right() - x)
                painter.fillRect(QRect(x - 1, rect.top() + 4, width, rect.height() - 8), mark)
            x = self._draw(painter, rect, x, match, bold, text_colour)
            self._draw(painter, rect, x, after, font, text_colour)
        painter.restore()

    @staticmethod
    def _draw(painter: QPainter, rect: QRect, x: int, text: str, font: QFont, colour: QColor) -> int:
        """Draw ``text`` from ``x`` (elided at the rect's right); returns where it ended."""
        if not text or x >= rect.right():
            return x
        metrics = QFontMetrics(font)
        room = rect.right() - x
        shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, room)
        painter.setFont(font)
        painter.setPen(colour)
        painter.drawText(QRect(x, rect.top(), room, rect.height()),
                         int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), shown)
        return x + metrics.horizontalAdvance(shown)


class SearchPanel(QDockWidget):
    """The dock. ``open_requested(doc_id, field, line, column, length)`` when a row is activated
    (a document row gives an empty field and line 0)."""

    open_requested = Signal(str, str, int, int, int)
    searched = Signal(object)  # the SearchResults shown

    def __init__(self, host: WindowHost, parent: QWidget | None = None) -> None:
        super().__init__("Search", parent)
        self.setObjectName("searchDock")
        session = self.session = host.session
        self.search = ProjectSearch(session.db)
        self.results: SearchResults | None = None
        self._task: Task | None = None
        self._stopped = False
        self._search_later = qdebounced(self.run_search, timeout=SEARCH_MS, parent=self)
        body = QWidget()
        body.setObjectName("searchBody")
        layout = QVBoxLayout(body)
        layout.setContentsMargins(theme.S, theme.S, theme.S, theme.XS)
        layout.setSpacing(theme.S)
        row = QHBoxLayout()
        row.setSpacing(theme.XS)
        self.query = QLineEdit()
        self.query.setObjectName("searchQuery")
        self.query.setPlaceholderText("Search names and content of every document")
        self.query.setClearButtonEnabled(True)
        self.query.addAction(icons.icon("search", theme.colors().muted), QLineEdit.ActionPosition.LeadingPosition)
        self.query.textChanged.connect(lambda _text: self._search_later())
        self.query.returnPressed.connect(self.run_search)
        row.addWidget(self.query, 1)
        self.case = self._toggle("msc.case-sensitive", "Match case (Alt+C)", "Alt+C")
        self.whole_word = self._toggle("msc.whole-word", "Whole word (Alt+W)", "Alt+W")
        self.regex = self._toggle("msc.regex", "Regular expression (Alt+R)", "Alt+R")
        for button in (self.case, self.whole_word, self.regex):
            row.addWidget(button)
        layout.addLayout(row)
        self.status = QLabel("Type to search every name, script, page, property and dialogue line.")
        self.status.setObjectName("searchStatus")
        self.status.setProperty("role", "caption")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.model = SearchModel(self)
        self.view = QTreeView()
        self.view.setObjectName("searchResults")
        self.view.setModel(self.model)
        self.view.setHeaderHidden(True)
        self.view.setUniformRowHeights(True)
        self.view.setItemDelegate(HitDelegate(self.view))
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setIndentation(theme.L)
        self.view.activated.connect(self._activated)
        self.view.doubleClicked.connect(self._activated)
        self.view.clicked.connect(self._clicked)
        layout.addWidget(self.view, 1)
        self.setWidget(body)
        self.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable
                         | QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self.open_requested.connect(
            lambda doc_id, field, line, column, length: host.open_at(doc_id, line, column, field=field or None,
                                                                      length=length))
        host.bridge.documents_changed.connect(self.apply)

    def _toggle(self, icon: str, tip: str, keys: str) -> QToolButton:
        button = QToolButton()
        button.setCheckable(True)
        button.setAutoRaise(True)
        button.setIcon(qta.icon(icon, color=theme.colors().text, color_on=theme.colors().accent))
        button.setIconSize(QSize(18, 18))
        button.setToolTip(tip)
        button.toggled.connect(lambda _on: self.run_search())
        # only while the dock has the focus (Alt+letters elsewhere belong to the menus)
        shortcut = QShortcut(QKeySequence(keys), self)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(button.toggle)
        return button

    # ------------------------------------------------------------------ the project's text
    def ensure_built(self, *, wait: bool = False) -> None:
        """Read the project's text (once, on a worker thread); ``wait`` blocks until it is read."""
        if self.search.built or self._stopped:
            return
        if self._task is None:
            self.status.setText("Reading the project…")
            self._task = Task(self.search.rebuild, "Reading the project for search", self)
            self._task.succeeded.connect(self._built)
            self._task.failed.connect(self._build_failed)
            self._task.start()
        if wait:
            self._task.wait()
            from PySide6.QtCore import QCoreApplication

            QCoreApplication.sendPostedEvents(self._task)
            QCoreApplication.processEvents()

    def _built(self, _count: object) -> None:
        self._release_task()
        if self._stopped:
            return
        self.run_search()

    def _build_failed(self, exc: object) -> None:
        self._release_task()
        if not self._stopped:
            self.status.setText(f"The project could not be read for search: {exc}")

    def _release_task(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.release()

    def stop(self) -> None:
        """Before the session closes: wait for a read in progress, follow nothing more."""
        self._stopped = True
        self._search_later.cancel()
        if self._task is not None:
            self._task.wait()

    def apply(self, changes: list[DocumentChanged]) -> None:
        """Follow a batch of the session's changes; search again when a query is shown."""
        if self._stopped or self.session.closed:
            return
        try:
            self.search.apply(changes)
        except Exception:  # a help for the user: never a traceback
            log.exception("updating the search text failed")
            return
        if self.search.built and self.query.text() and self.isVisible():
            self._search_later()

    # ------------------------------------------------------------------ searching
    def options(self) -> SearchOptions:
        return SearchOptions(self.query.text(), self.case.isChecked(), self.whole_word.isChecked(),
                             self.regex.isChecked())

    def run_search(self) -> SearchResults | None:
        """Search now with what the fields say (the project's text is read first if needed)."""
        self._search_later.cancel()
        if not self.search.built:
            self.ensure_built()
            return None
        options = self.options()
        self.query.setProperty("invalid", False)
        try:
            results = self.search.search(options)
        except SearchError as exc:
            self.query.setProperty("invalid", True)
            self._repolish()
            self.status.setText(str(exc))
            self.status.setProperty("role", "error")
            self._repolish(self.status)
            return None
        self._repolish()
        self.status.setProperty("role", "caption")
        self._repolish(self.status)
        self.results = results
        self.model.set_results(results if options.query else None)
        if not options.query:
            self.status.setText("Type to search every name, script, page, property and dialogue line.")
        else:
            self.status.setText(results.summary())
            if len(results.groups) <= 20:
                self.view.expandAll()
            else:  # the first documents open, the rest a click away
                for row in range(min(20, len(results.groups))):
                    self.view.expand(self.model.index(row, 0))
        self.searched.emit(results)
        return results

    def _repolish(self, widget: QWidget | None = None) -> None:
        target = widget or self.query
        target.style().unpolish(target)
        target.style().polish(target)

    def focus_query(self) -> None:
        self.show()
        self.raise_()
        self.query.setFocus()
        self.query.selectAll()
        self.ensure_built()

    # ------------------------------------------------------------------ opening
    def _clicked(self, index: QModelIndex) -> None:
        if self.model.hit(index) is not None:
            self._activated(index)

    def _activated(self, index: QModelIndex) -> None:
        group, hit = self.model.group(index), self.model.hit(index)
        if hit is not None:
            self.open_requested.emit(hit.doc_id, hit.field, hit.line, hit.column, hit.length)
        elif group is not None:
            self.open_requested.emit(group.doc_id, "", 0, 0, 0)

    def activate(self, group: int, hit: int | None = None) -> None:
        """Activate a document row, or one of its hits (as a double click would)."""
        parent = self.model.index(group, 0)
        self._activated(parent if hit is None else self.model.index(hit, 0, parent))
