"""The Localization dock (View ▸ Localization, Ctrl+Alt+L): a project's lines for each target
locale, source and translation side by side, translated in place; File ▸ Export Translations… and
Import Translations… The rules live in :mod:`storyloom.app.views.localization`.

A dock, like Problems and Search, rather than a tab: the window's tabs are documents (saved,
locked, closed as documents), and a translator keeps the view open while opening a line's
document at the line beside it. It sits at the bottom, tabbed with Problems and Search: the
window's full width, so the source and the translation each get half of it.

Reading the lines of a big project takes seconds (4.4 s at 10,000 documents), so the view reads
them on a worker thread (:class:`~storyloom.gui.tasks.Task`) when it is first shown, with a busy
state meanwhile, then follows the session's changes by reading again only the documents
changed (one read at a time; changes that arrive meanwhile are read after it). Rows already
shown stay in their place when an edit or a change moves them out of the filter, until the
filter, the search or the locale changes: the table never jumps under the translator.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qtawesome as qta
from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
)
from PySide6.QtGui import QColor, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from storyloom.app import DocumentChanged
from storyloom.app.views import localization as lv
from storyloom.gui import icons, theme
from storyloom.gui.host import WindowHost
from storyloom.gui.tasks import Task
from storyloom.gui.widgets import Banner, EmptyState, set_role

log = logging.getLogger(__name__)

SHORTCUT = "Ctrl+Alt+L"
#: The translation files the dialogs offer (storyloom.l10n.formats.TRANSLATION_EXTENSIONS).
FILE_FILTER = "Translation files (*.po *.xlf *.xliff *.csv);;gettext PO (*.po);;XLIFF (*.xlf *.xliff);;CSV (*.csv)"
WHERE, SPEAKER, SOURCE, TRANSLATION = range(4)
ROW_HEIGHT = 28
SEARCH_MS = 200
_Index = QModelIndex | QPersistentModelIndex


class LinesModel(QAbstractTableModel):
    """The rows shown: where, speaker, source, translation (editable)."""

    def __init__(self, state: lv.LocalizationState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.rows: list[lv.Row] = []
        #: Called with (row, text) when a translation is typed; returns whether it was saved.
        self.on_edit: Callable[[lv.Row, str], bool] = lambda _row, _text: False
        self._icons: dict[str, Any] = {}

    def set_rows(self, rows: list[lv.Row]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def update_rows(self, rows: list[lv.Row], editing: int = -1) -> None:
        """Same rows (by line id), newer values: the rows that changed are repainted without a
        reset (selection and scroll stay). Row ``editing``'s translation cell is left alone: Qt
        puts the model's value back into an open editor of a cell that changed."""
        old, self.rows = self.rows, rows
        for at, (before, after) in enumerate(zip(old, rows, strict=False)):
            if before != after:
                last = SOURCE if at == editing else TRANSLATION
                self.dataChanged.emit(self.index(at, 0), self.index(at, last))

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else 4

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        return ("Where", "Speaker", f"Source ({self.state.source_locale})",
                f"Translation ({self.state.locale or '—'})")[section]

    def flags(self, index: _Index) -> Qt.ItemFlag:
        base = super().flags(index)
        return base | Qt.ItemFlag.ItemIsEditable if index.column() == TRANSLATION else base

    def _icon(self, state: str) -> Any:
        c = theme.colors()
        key = f"{state}-{c.dark}"  # the theme may change while the view is open
        if key not in self._icons:
            self._icons[key] = {
                lv.UNTRANSLATED: qta.icon("ph.circle-dashed", color=c.muted),
                lv.REVIEW: qta.icon("ph.warning", color=c.warning),
                lv.TRANSLATED: qta.icon("ph.check-circle", color=c.success),
                "draft": qta.icon("ph.lock-simple", color=c.danger),
            }[state]
        return self._icons[key]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        row = self.rows[index.row()]
        column = index.column()
        draft = self.state.draft(row)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            if column == WHERE:  # the document's name (its folders in the tooltip) and line
                name = row.document.rsplit("/", 1)[-1]
                return f"{name}:{row.location}" if row.line else f"{name} (choice)"
            if column == SPEAKER:
                return row.speaker or ("choice" if row.kind == "option" else "")
            if column == SOURCE:
                return _one_line(row.source) if role == Qt.ItemDataRole.DisplayRole else row.source
            return (draft or row.translation or "") if role == Qt.ItemDataRole.EditRole else _one_line(
                self.state.shown_text(row))
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == SOURCE:
                was = f"\n\nTranslated from:\n{row.previous_source}" if row.previous_source else ""
                notes = "\n\nNotes:\n" + "\n".join(row.notes) if row.notes else ""
                return f"{row.source}{was}{notes}"
            if column == TRANSLATION:
                if draft:
                    return f"Not saved (locked):\n{draft}"
                if row.translation is None:
                    return "Untranslated: double-click or press Enter to translate"
                label = lv.STATE_LABELS[row.state]
                return f"{label}:\n{row.translation}"
            if column == WHERE:
                return f"{row.document}, line {row.location}  ·  id {row.line_id}" if row.line else (
                    f"{row.document}, choice {row.location}  ·  id {row.line_id}")
        if role == Qt.ItemDataRole.DecorationRole and column == TRANSLATION:
            return self._icon("draft" if draft else row.state)
        if role == Qt.ItemDataRole.ForegroundRole:
            c = theme.colors()
            if column in (WHERE, SPEAKER):
                return QColor(c.muted)
            if column == TRANSLATION and draft:
                return QColor(c.danger)
        return None

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or index.column() != TRANSLATION or index.row() >= len(self.rows):
            return False
        row = self.rows[index.row()]
        text = str(value)
        if text == (row.translation or "") and not self.state.draft(row):
            return False  # nothing typed
        self.on_edit(row, text)
        self.dataChanged.emit(index, index)
        return True


def _one_line(text: str) -> str:
    return " ⏎ ".join(part for part in text.splitlines()) if "\n" in text else text


class TranslationDelegate(QStyledItemDelegate):
    """The translation's editor: Enter saves, Shift+Enter breaks the line (a dialogue node's
    text may hold line breaks), Escape cancels, Tab saves and goes to the next untranslated
    line. It grows over the rows below to show every line of the text."""

    def __init__(self, tabbed: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tabbed = tabbed

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:
        editor = QPlainTextEdit(parent)
        editor.setObjectName("translationEditor")
        editor.setFrameShape(QFrame.Shape.NoFrame)
        editor.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        editor.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        editor.setPlaceholderText("Type the translation; Enter saves, Shift+Enter breaks the line, Escape cancels, "
                                  "Tab goes to the next")
        editor.document().setDocumentMargin(4)
        editor.textChanged.connect(lambda: self._fit(editor))
        return editor

    def setEditorData(self, editor: QWidget, index: _Index) -> None:
        if isinstance(editor, QPlainTextEdit):
            editor.setPlainText(str(index.data(Qt.ItemDataRole.EditRole) or ""))
            editor.selectAll()
            return
        super().setEditorData(editor, index)

    def setModelData(self, editor: QWidget, model: Any, index: _Index) -> None:
        if isinstance(editor, QPlainTextEdit):
            model.setData(index, editor.toPlainText(), Qt.ItemDataRole.EditRole)
            return
        super().setModelData(editor, model, index)

    def updateEditorGeometry(self, editor: QWidget, option: QStyleOptionViewItem, index: _Index) -> None:
        editor.setProperty("rowRect", option.rect)
        self._fit(editor)

    def _fit(self, editor: QWidget) -> None:
        """The cell's rectangle, as tall as the text's lines (up to six, then it scrolls)."""
        rect = editor.property("rowRect")
        if not isinstance(editor, QPlainTextEdit) or rect is None:
            return
        lines = min(max(editor.document().blockCount(), 1), 6)
        margins = editor.contentsMargins()
        chrome = 2 * int(editor.document().documentMargin()) + margins.top() + margins.bottom() + 4
        height = max(rect.height(), lines * editor.fontMetrics().lineSpacing() + chrome)
        editor.setGeometry(rect.x(), rect.y(), rect.width(), height)

    def eventFilter(self, editor: QObject, event: QEvent) -> bool:
        if isinstance(editor, QWidget) and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = event.key()
            if key in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
                self.commitData.emit(editor)
                self.closeEditor.emit(editor, QStyledItemDelegate.EndEditHint.NoHint)
                QTimer.singleShot(0, self._tabbed)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and isinstance(editor, QPlainTextEdit):
                if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                    editor.insertPlainText("\n")
                else:
                    self.commitData.emit(editor)
                    self.closeEditor.emit(editor, QStyledItemDelegate.EndEditHint.NoHint)
                return True
        return super().eventFilter(editor, event)


class LocalizationView(QDockWidget):
    """The dock; built with its window's host (:data:`storyloom.gui.panels.PANELS`)."""

    def __init__(self, host: WindowHost, parent: QWidget | None = None) -> None:
        super().__init__("Localization", parent)
        self.setObjectName("localizationDock")
        self.host = host
        self.session = host.session
        self.state = lv.LocalizationState()
        self._task: Task | None = None
        self._io: Task | None = None  # an import or export running
        self._reload_wanted = False
        self._queued: set[str] = set()
        self._early: list[DocumentChanged] = []  # changes during the first read, followed after it
        self._stopped = False
        self._shown_keys: set[tuple[str, str]] = set()

        self.model = LinesModel(self.state, self)
        self.model.on_edit = self._edited
        self.banner = Banner(self)
        self.banner.setObjectName("localizationBanner")

        bar = self._build_bar()
        self._build_table()
        actions = self._build_actions()
        self._build_pages(bar, actions)
        self._show_detail()
        self.bar.setEnabled(False)
        self.pages.setCurrentWidget(self.busy_page)

        host.bridge.documents_changed.connect(self.apply)
        self.visibilityChanged.connect(self._visible)
        self._file_actions(host)

    def _build_bar(self) -> QHBoxLayout:
        """The locale picker with its progress, the filters, the search."""
        self.locale_box = QComboBox()
        self.locale_box.setObjectName("localizationLocale")
        self.locale_box.setMinimumWidth(260)
        self.locale_box.setToolTip("The target locale shown (Project Settings ▸ Localization lists them)")
        self.locale_box.currentIndexChanged.connect(self._locale_chosen)
        self.progress = QProgressBar()
        self.progress.setObjectName("localizationProgress")
        self.progress.setRange(0, 100)
        self.progress.setFixedWidth(160)
        self.progress.setFixedHeight(8)
        self.progress.setTextVisible(False)
        self.filters = QButtonGroup(self)
        self.filter_buttons: dict[str, QToolButton] = {}
        self.search = QLineEdit()
        self.search.setObjectName("localizationSearch")
        self.search.setPlaceholderText("Search lines, speakers, documents")
        self.search.setClearButtonEnabled(True)
        self.search.addAction(icons.icon("search"), QLineEdit.ActionPosition.LeadingPosition)
        self.search.setMinimumWidth(280)
        self.search.setMaximumWidth(360)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_MS)
        self._search_timer.timeout.connect(self._search_changed)
        self.search.textChanged.connect(lambda _text: self._search_timer.start())
        bar = QHBoxLayout()
        bar.setContentsMargins(theme.M, theme.S, theme.M, theme.S)
        bar.setSpacing(theme.S)
        bar.addWidget(self.locale_box)
        bar.addWidget(self.progress)
        bar.addSpacing(theme.M)
        for key in lv.FILTERS:
            button = QToolButton()
            button.setObjectName(f"localizationFilter-{key}")
            button.setCheckable(True)
            button.setAutoRaise(True)
            button.setText(lv.FILTER_LABELS[key])
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            self.filters.addButton(button)
            self.filter_buttons[key] = button
            button.clicked.connect(lambda _checked=False, k=key: self.set_filter(k))
            bar.addWidget(button)
        self.filter_buttons[lv.ALL].setChecked(True)
        bar.addStretch(1)
        bar.addWidget(self.search)
        return bar

    def _build_table(self) -> None:
        self.view = QTableView()
        self.view.setObjectName("localizationTable")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                  | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.view.setTabKeyNavigation(False)
        self.view.setShowGrid(False)
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.view.setAlternatingRowColors(True)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.view.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
        header = self.view.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(WHERE, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(SPEAKER, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(SOURCE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(TRANSLATION, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(WHERE, 180)
        header.resizeSection(SPEAKER, 110)
        self.delegate = TranslationDelegate(self._tab_to_next, self.view)
        self.view.setItemDelegateForColumn(TRANSLATION, self.delegate)
        self._fill_wanted: str | None = None  # rows to show again once the editor closes
        self.delegate.closeEditor.connect(lambda *_args: QTimer.singleShot(0, self._editor_closed))
        self.view.activated.connect(self._activated)
        self.view.doubleClicked.connect(self._double_clicked)
        self.view.selectionModel().currentRowChanged.connect(lambda *_args: self._show_detail())

    def _build_actions(self) -> QHBoxLayout:
        """Under the table: the selected line's review (previous and new source), its actions."""
        self.detail = QLabel("")
        self.detail.setObjectName("localizationDetail")
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setWordWrap(True)
        set_role(self.detail, "caption")
        self.review_button = QPushButton(icons.icon("success"), "Mark Reviewed")
        self.review_button.setObjectName("localizationMarkReviewed")
        self.review_button.setToolTip("Keep this translation for the new source text (clears “to review”)")
        self.review_button.clicked.connect(self.mark_selected_reviewed)
        self.open_button = QPushButton(icons.icon("external"), "Open Line")
        self.open_button.setObjectName("localizationOpenLine")
        self.open_button.setToolTip("Open the line's document at the line (or double-click its source)")
        self.open_button.clicked.connect(self.open_selected)
        actions = QHBoxLayout()
        actions.setContentsMargins(theme.M, theme.XS, theme.M, theme.S)
        actions.setSpacing(theme.S)
        actions.addWidget(self.detail, 1)
        actions.addWidget(self.review_button, 0, Qt.AlignmentFlag.AlignTop)
        actions.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignTop)
        return actions

    def _build_pages(self, bar: QHBoxLayout, actions: QHBoxLayout) -> None:
        table_page = QWidget()
        table_layout = QVBoxLayout(table_page)
        table_layout.setContentsMargins(0, 0, 0, 0)
        table_layout.setSpacing(0)
        table_layout.addWidget(self.view, 1)
        table_layout.addLayout(actions)
        self.table_page = table_page

        self.busy_page = EmptyState(qta.icon("ph.translate", color=theme.colors().muted),
                                    "Reading the project's lines…", "Every speech line and choice option, "
                                    "with its translations. A big project takes a few seconds.")
        self.busy_page.setObjectName("localizationBusy")
        busy_bar = QProgressBar()
        busy_bar.setRange(0, 0)
        busy_bar.setTextVisible(False)
        busy_bar.setFixedSize(200, 6)
        self.busy_page.buttons.insertWidget(1, busy_bar)
        self.busy_page.buttons.insertStretch(2, 1)

        self.empty_page = EmptyState(
            qta.icon("ph.translate", color=theme.colors().muted), "No target locales yet",
            "Name the languages this project is translated into in Project Settings ▸ Localization ▸ "
            "Target locales (for example: fr, de, pt-BR). Their lines then show here.")
        self.empty_page.setObjectName("localizationEmpty")
        self.settings_button = QPushButton(icons.icon("settings"), "Open Project Settings")
        self.settings_button.setObjectName("localizationOpenSettings")
        self.settings_button.setProperty("primary", "true")
        self.settings_button.clicked.connect(self.open_settings)
        self.empty_page.buttons.insertWidget(1, self.settings_button)
        self.empty_page.buttons.insertStretch(2, 1)

        self.nothing_page = EmptyState(qta.icon("ph.chat-text", color=theme.colors().muted),
                                       "No lines match", "")
        self.nothing_page.setObjectName("localizationNothing")

        self.pages = QStackedWidget()
        for page in (self.busy_page, self.empty_page, self.table_page, self.nothing_page):
            self.pages.addWidget(page)
        body = QWidget()
        body.setObjectName("localizationBody")
        layout = QVBoxLayout(body)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.bar = QWidget()
        self.bar.setLayout(bar)
        layout.addWidget(self.bar)
        banner_row = QHBoxLayout()
        banner_row.setContentsMargins(theme.M, 0, theme.M, theme.S)
        banner_row.addWidget(self.banner)
        layout.addLayout(banner_row)
        layout.addWidget(self.pages, 1)
        self.setWidget(body)
        self.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable
                         | QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable)

    # ------------------------------------------------------------------ the File menu
    def _file_actions(self, host: WindowHost) -> None:
        """File ▸ Export Translations… and Import Translations…, after the other exports."""
        file_menu = host.menu("&File")
        self.export_action = host.add_action("Export Translations…", self.choose_export_file,
                                             icon="ph.upload-simple")
        self.import_action = host.add_action("Import Translations…", self.choose_import_file,
                                             icon="ph.download-simple")
        self.export_action.setToolTip("Write the lines of a target locale to a .po, .xlf or .csv file for translators")
        self.import_action.setToolTip("Store the translations of a .po, .xlf or .csv file and show what was stored")
        actions = file_menu.actions()
        close_tab = next((a for a in actions if a.text().startswith("Close Tab")), None)
        at = actions.index(close_tab) if close_tab is not None else len(actions)
        before = actions[at - 1] if at > 0 and actions[at - 1].isSeparator() else close_tab
        if before is None:
            file_menu.addSeparator()
            file_menu.addActions([self.export_action, self.import_action])
        else:
            file_menu.insertSeparator(before)
            file_menu.insertActions(before, [self.export_action, self.import_action])

    # ------------------------------------------------------------------ reading
    def _visible(self, visible: bool) -> None:
        if visible and not self.state.loaded and self._task is None:
            self.reload()

    def reload(self) -> None:
        """Read every line again on a worker thread (the busy state meanwhile, the first time)."""
        if self._stopped or self.session.closed:
            return
        if self._task is not None:
            self._reload_wanted = True
            return
        if not self.state.loaded:
            self.pages.setCurrentWidget(self.busy_page)
        self._start(self.state.reader(self.session.project), "Reading the lines to translate")

    def _start(self, work: Callable[[], object], label: str) -> None:
        self._task = Task(work, label, self)
        self._task.succeeded.connect(self._read)
        self._task.failed.connect(self._read)
        self._task.start()

    @property
    def reading(self) -> bool:
        return self._task is not None

    def wait_until_read(self) -> None:
        """Block until the reads running or waiting are done and shown (tests, screenshots)."""
        while self._task is not None or self._io is not None:
            for task in (self._task, self._io):
                if task is not None:
                    task.wait()
            QCoreApplication.sendPostedEvents()
            QCoreApplication.processEvents()

    def _read(self, result: object) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.release()
        if self._stopped or self.session.closed:
            return
        if isinstance(result, lv.Loaded):
            first = not self.state.loaded
            self.state.take(result)
            self._show(reset=first or result.doc_ids is None)
        elif isinstance(result, Exception):
            log.error("reading the lines to translate failed: %s", result)
            self.banner.show_message("error", f"The lines could not be read: {result}")
            if not self.state.loaded:
                self.pages.setCurrentWidget(self.table_page)
        early, self._early = self._early, []
        if early and self.state.loaded:
            affected = self.state.affected(early)
            self._reload_wanted = self._reload_wanted or affected.everything
            self._queued.update(affected.doc_ids)
        if self._reload_wanted:
            self._reload_wanted = False
            self._queued.clear()
            self.reload()
        elif self._queued:
            ids, self._queued = frozenset(self._queued), set()
            self._start(self.state.reader(self.session.project, ids), "Reading the changed lines")

    def apply(self, changes: list[DocumentChanged]) -> None:
        """Follow a batch of the session's changes (the bridge's ``documents_changed``)."""
        if self._stopped or self.session.closed:
            return
        if not self.state.loaded:  # the first read runs (or has not started: it will see them)
            if self._task is not None:
                self._early.extend(changes)
            return
        affected = self.state.affected(changes)
        if not affected:
            return
        if affected.everything:
            self.reload()
            return
        if self._task is not None:
            self._queued.update(affected.doc_ids)
            return
        self._start(self.state.reader(self.session.project, affected.doc_ids), "Reading the changed lines")

    def stop(self) -> None:
        """Before the session closes: wait for the work in progress, follow nothing more."""
        self._stopped = True
        for task in (self._task, self._io):
            if task is not None:
                task.wait()

    # ------------------------------------------------------------------ showing
    def _show(self, *, reset: bool) -> None:
        """Show the state: the locales and their progress, then the rows (re-filtered when
        ``reset``; else the rows shown keep their places)."""
        state = self.state
        self.locale_box.blockSignals(True)
        self.locale_box.clear()
        for locale in state.locales:
            self.locale_box.addItem(state.progress(locale).label(), locale)
        if state.locale in state.locales:
            self.locale_box.setCurrentIndex(state.locales.index(state.locale))
        self.locale_box.blockSignals(False)
        if not state.locales:
            self.bar.setVisible(False)  # nothing to pick or filter: the empty state says what to do
            self.pages.setCurrentWidget(self.empty_page)
            self.setWindowTitle("Localization")
            return
        self.bar.setVisible(True)
        self.bar.setEnabled(True)
        self._show_progress()
        self._fill(reset=reset)

    def _show_progress(self) -> None:
        progress = self.state.progress()
        self.progress.setValue(progress.percent)
        self.progress.setToolTip(f"{progress.label()}, {progress.untranslated} untranslated")
        if self.locale_box.currentIndex() >= 0:
            self.locale_box.setItemText(self.locale_box.currentIndex(), progress.label())
        counts = {lv.ALL: progress.lines, lv.UNTRANSLATED: progress.untranslated, lv.REVIEW: progress.review}
        for key, button in self.filter_buttons.items():
            button.setText(f"{lv.FILTER_LABELS[key]}  {counts[key]}")
        self.setWindowTitle(f"Localization ({progress.locale} {progress.percent}%)")

    def _fill(self, *, reset: bool) -> None:
        key_of = self._key
        editing = self.view.state() == QAbstractItemView.State.EditingState
        if editing and not reset:
            same = [r for r in self.state.all_rows() if key_of(r) in self._shown_keys]
            if [key_of(r) for r in same] == [key_of(r) for r in self.model.rows]:
                self.model.update_rows(same, self.view.currentIndex().row())  # the editor stays open
                self._show_detail()
                return
        if editing:
            # a translation being typed: the rows change when its editor closes (a reset now would
            # close it and lose the text)
            self._fill_wanted = "reset" if reset or self._fill_wanted == "reset" else "keep"
            return
        if reset:
            rows = self.state.rows()
            self._shown_keys = {key_of(r) for r in rows}
            self.model.set_rows(rows)
        else:
            matching = {key_of(r) for r in self.state.rows()}
            rows = [r for r in self.state.all_rows() if key_of(r) in matching or key_of(r) in self._shown_keys]
            if [key_of(r) for r in rows] == [key_of(r) for r in self.model.rows]:
                self.model.update_rows(rows)
            else:
                selected = self.selected_row()
                scroll = self.view.verticalScrollBar().value()
                self.model.set_rows(rows)
                self.view.verticalScrollBar().setValue(scroll)
                if selected is not None:
                    self.select_line(selected.line_id)
            self._shown_keys = {key_of(r) for r in rows}
        self.model.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, TRANSLATION)
        if rows:
            self.pages.setCurrentWidget(self.table_page)
        else:
            self.nothing_page.title.setText(_nothing_title(self.state))
            self.nothing_page.text.setText("Change the filter or the search above." if self.state.all_rows()
                                           else "This project has no speech lines or choice options yet.")
            self.pages.setCurrentWidget(self.nothing_page)
        self._show_detail()

    @staticmethod
    def _key(row: lv.Row) -> tuple[str, str]:
        return row.document_id, row.line_id

    def _locale_chosen(self, index: int) -> None:
        locale = self.locale_box.itemData(index)
        if isinstance(locale, str) and locale != self.state.locale:
            self.state.locale = locale
            self.banner.clear()
            self._show_progress()
            self._fill(reset=True)

    def set_locale(self, locale: str) -> None:
        self.locale_box.setCurrentIndex(self.state.locales.index(locale))

    def set_filter(self, key: str) -> None:
        self.state.filter = key
        self.filter_buttons[key].setChecked(True)
        self._fill(reset=True)

    def _search_changed(self) -> None:
        self.state.search = self.search.text()
        self._fill(reset=True)

    def set_search(self, text: str) -> None:
        self.search.setText(text)
        self._search_timer.stop()
        self._search_changed()

    # ------------------------------------------------------------------ the selection
    def selected_row(self) -> lv.Row | None:
        current = self.view.currentIndex()
        if current.isValid() and current.row() < len(self.model.rows):
            return self.model.rows[current.row()]
        return None

    def select_line(self, line_id: str) -> int | None:
        for at, row in enumerate(self.model.rows):
            if row.line_id == line_id:
                self.view.setCurrentIndex(self.model.index(at, TRANSLATION))
                return at
        return None

    def _show_detail(self) -> None:
        row = self.selected_row()
        self.open_button.setEnabled(row is not None)
        self.review_button.setVisible(row is not None and row.state == lv.REVIEW)
        if row is None:
            self.detail.setText("Select a line: Enter or a double-click edits its translation, Tab goes to "
                                "the next untranslated line.")
        elif row.state == lv.REVIEW:
            was = row.previous_source if row.previous_source is not None else row.source
            self.detail.setText(f"To review: the source changed since the translation.\nWas: {was}\n"
                                f"Now: {row.source}")
        else:
            notes = f"  ·  Notes: {' / '.join(row.notes)}" if row.notes else ""
            self.detail.setText(f"{row.document}  ·  {'line ' + row.location if row.line else 'choice option'}"
                                f"  ·  id {row.line_id}{notes}")

    # ------------------------------------------------------------------ editing
    def edit_row(self, at: int) -> None:
        """Start editing the translation of the shown row ``at``."""
        index = self.model.index(at, TRANSLATION)
        self.view.setCurrentIndex(index)
        self.view.scrollTo(index)
        self.view.edit(index)

    def _activated(self, index: QModelIndex) -> None:
        if index.isValid() and self.view.state() != QAbstractItemView.State.EditingState:
            self.edit_row(index.row())

    def _double_clicked(self, index: QModelIndex) -> None:
        if index.isValid() and index.column() != TRANSLATION:
            self.open_selected()

    def _edited(self, row: lv.Row, text: str) -> bool:
        outcome = self.state.edit(self.session.editor, row, text)
        self._after_write(row, outcome)
        return outcome.saved

    def translate(self, row: lv.Row, text: str) -> lv.EditOutcome:
        """Save ``text`` as ``row``'s translation, as typing it in place does."""
        outcome = self.state.edit(self.session.editor, row, text)
        self._after_write(row, outcome)
        return outcome

    def _after_write(self, row: lv.Row, outcome: lv.EditOutcome) -> None:
        if outcome.saved:
            self.banner.clear()
        else:
            self.banner.show_message("error" if outcome.holder else "warning", outcome.message)
        self._show_progress()
        self._fill(reset=False)
        self.select_line(row.line_id)

    def _editor_closed(self) -> None:
        wanted, self._fill_wanted = self._fill_wanted, None
        if wanted is not None and self.view.state() != QAbstractItemView.State.EditingState:
            self._fill(reset=wanted == "reset")

    def _tab_to_next(self) -> None:
        self._editor_closed()  # the rows as they are now, before the next editor opens
        current = self.view.currentIndex().row()
        at = self.state.next_untranslated(self.model.rows, current if current >= 0 else -1)
        if at is not None:
            self.edit_row(at)

    def mark_selected_reviewed(self) -> None:
        row = self.selected_row()
        if row is not None:
            outcome = self.state.mark_reviewed(self.session.editor, row)
            self._after_write(row, outcome)

    def open_selected(self) -> None:
        row = self.selected_row()
        if row is not None and not self.host.open_at(row.document_id, row.line):
            self.banner.show_message("warning", f"“{row.document}” no longer exists.")

    def open_settings(self) -> None:
        """Project Settings, at its Localization section's Target locales field."""
        from storyloom.project import SETTINGS_ID

        self.host.select_collection(SETTINGS_ID)
        editor = self.host.tabs.editor(SETTINGS_ID)
        field = getattr(editor, "target_locales", None)
        scroll = getattr(editor, "form_scroll", None)
        if isinstance(field, QWidget):
            if scroll is not None:
                QTimer.singleShot(0, lambda: scroll.ensureWidgetVisible(field))
            field.setFocus()

    # ------------------------------------------------------------------ files
    def current_locale(self) -> str | None:
        if self.state.locale:
            return self.state.locale
        from storyloom.project import target_locales

        targets = target_locales(self.session.settings())
        return targets[0] if targets else None

    def choose_export_file(self) -> None:
        """File ▸ Export Translations…: where to write the locale shown."""
        locale = self.current_locale()
        if locale is None:
            self._reveal()
            self.banner.show_message("warning", "This project has no target locale to export yet: add one in "
                                     "Project Settings ▸ Localization.", ("Open Project Settings", self.open_settings))
            return
        suggested = str(Path.home() / f"{self.session.name}.{locale}.po")
        path, _chosen = QFileDialog.getSaveFileName(self.host.widget, f"Export {locale} Translations", suggested,
                                                    FILE_FILTER)
        if path:
            self.export_to(path, locale)

    def choose_import_file(self) -> None:
        """File ▸ Import Translations…: the file to read."""
        path, _chosen = QFileDialog.getOpenFileName(self.host.widget, "Import Translations", str(Path.home()),
                                                    FILE_FILTER)
        if path:
            self.import_from(path)

    def export_to(self, path: str | Path, locale: str | None = None) -> None:
        """Write ``locale``'s catalog (the one shown when None) to ``path`` on a worker thread."""
        from storyloom.app.l10n_files import export_catalog

        chosen = locale or self.current_locale()
        if chosen is None or self._io is not None:
            return
        project = self.session.project
        self._reveal()
        self.banner.show_message("busy", f"Exporting the {chosen} lines to {Path(path).name}…")
        self._run_io(lambda: export_catalog(project, chosen, path), f"Exporting {chosen} translations",
                     lambda result: self.banner.show_message("success", lv.export_summary(result)))

    def import_from(self, path: str | Path) -> None:
        """Import the translation file at ``path`` on a worker thread; its report shows above
        the lines (the locale: the file's, else the one shown)."""
        from storyloom.app.l10n_files import import_file
        from storyloom.l10n.importing import LocaleNotGiven

        if self._io is not None:
            return
        project = self.session.project
        shown = self.current_locale()
        name = Path(path).name

        def work() -> object:
            try:
                return import_file(project, path)
            except LocaleNotGiven:
                if shown is None:
                    raise
                return import_file(project, path, locale=shown)

        def done(report: Any) -> None:
            heading, text = lv.import_summary(report, name)
            self.banner.show_message("warning" if report.refused else "success", f"{heading}\n{text}")
            if report.locale in self.state.locales:
                self.set_locale(report.locale)

        self._reveal()
        self.banner.show_message("busy", f"Importing {name}…")
        self._run_io(work, f"Importing {name}", done)

    def _run_io(self, work: Callable[[], object], label: str, done: Callable[[Any], None]) -> None:
        task = self._io = Task(work, label, self)

        def finished(result: object) -> None:
            self._io = None
            task.release()
            if self._stopped:
                return
            if isinstance(result, Exception):
                self.banner.show_message("error", f"{label} failed: {result}")
            else:
                done(result)

        task.succeeded.connect(finished)
        task.failed.connect(finished)
        task.start()

    def _reveal(self) -> None:
        self.show()
        self.raise_()

    def reveal(self) -> None:
        """View ▸ Localization: shown in front, a third of the window high at least, the
        search focused."""
        self._reveal()
        window = self.host.widget
        resize = getattr(window, "resizeDocks", None)
        if callable(resize) and self.height() < window.height() // 3:
            resize([self], [window.height() * 2 // 5], Qt.Orientation.Vertical)
        self.search.setFocus()


def _nothing_title(state: lv.LocalizationState) -> str:
    if not state.all_rows():
        return "No lines to translate"
    if state.search.strip():
        return f"No lines match “{state.search.strip()}”"
    if state.filter == lv.UNTRANSLATED:
        return "Every line is translated"
    if state.filter == lv.REVIEW:
        return "Nothing to review"
    return "No lines match"
