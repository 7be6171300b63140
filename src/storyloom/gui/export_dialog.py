"""File > Export Game Content… (Ctrl+E) and File > Export Schema… (Ctrl+Shift+E).

One dialog for both: the collections to export (ticked as the project's export sections say,
with their document counts), the JSON Schema beside the export, the compatibility mode,
indentation, and the file (the system's save dialog). The export runs on a worker thread
(:class:`~storyloom.gui.tasks.Task`) with its steps shown under a progress bar, and can be
cancelled until its files are written; then the dialog shows what was written and the export's
warnings. It calls the functions ``storyloom export`` and ``storyloom schema`` call
(:mod:`storyloom.app.export_files`), so the file is the command line's for the same selection.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt, QUrl, Signal
from PySide6.QtGui import QCloseEvent, QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from storyloom import words
from storyloom.app import ProjectSession
from storyloom.app.attachments import human_size
from storyloom.app.export_files import (
    ALL_LOCALES,
    GAME,
    MAX_WARNING_LINES,
    SCHEMA,
    CollectionChoice,
    ExportCancelled,
    ExportChoices,
    ExportResult,
    collection_choices,
    default_output,
    describe_warning,
    export_game_content,
    export_schema,
    format_warning,
    language_choices,
    load_choices,
    save_choices,
    selection,
)
from storyloom.app.views.explain import say
from storyloom.errors import StoryloomError
from storyloom.export import default_collections
from storyloom.gui import theme
from storyloom.gui.tasks import Task
from storyloom.gui.widgets import dialog_layout, set_role
from storyloom.progress import Progress
from storyloom.project import EXPORT_COMPAT
from storyloom.words import counted

_TEXT = {
    GAME: ("Export Game Content", "The JSON your game engine reads: the same file `storyloom export` writes.",
           "Export"),
    SCHEMA: ("Export Schema", "The JSON Schema (draft 2020-12) of the game export, as `storyloom schema` writes it.",
             "Export Schema"),
}
_COMPAT = (("As the project settings say", None), ("Drafft engine importers (adds _meta.drafftVersion)", "drafft"),
           ("Plain Storyloom export", "none"))


class _Progress(QObject):
    """Carries a step's text from the worker thread to the dialog (queued to the GUI thread)."""

    step = Signal(str)


class ExportDialog(QDialog):
    """The export dialog for ``kind`` (``"game"`` or ``"schema"``). ``finished_export(result)``
    fires after files were written."""

    finished_export = Signal(object)

    def __init__(self, session: ProjectSession, user: str | None, kind: str = GAME,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("exportDialog")
        self.session = session
        self.user = user
        self.kind = kind
        self.task: Task | None = None
        self.result: ExportResult | None = None
        self._cancel = False
        self._choices: ExportChoices | None = None
        title, intro, accept = _TEXT[kind]
        self.setWindowTitle(title)
        self.setMinimumWidth(620)
        layout, _heading = dialog_layout(self, title, intro.replace("`", ""))
        layout.addSpacing(theme.S)
        self.pages = QStackedWidget()
        self.form = self._form()
        self.summary = self._summary()
        self.pages.addWidget(self.form)
        self.pages.addWidget(self.summary)
        layout.addWidget(self.pages, 1)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.setTextVisible(False)
        self.progress.setFixedHeight(6)
        self.progress_text = set_role(QLabel(""), "caption")
        self.progress.hide()
        self.progress_text.hide()
        layout.addWidget(self.progress)
        layout.addWidget(self.progress_text)
        layout.addSpacing(theme.S)
        buttons = QHBoxLayout()
        buttons.setSpacing(theme.S)
        self.show_folder = QPushButton("Show in Folder")
        self.show_folder.clicked.connect(self.open_folder)
        self.show_folder.hide()
        buttons.addWidget(self.show_folder)
        buttons.addStretch(1)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.export_button = QPushButton(accept)
        self.export_button.setProperty("primary", "true")
        self.export_button.setDefault(True)
        self.export_button.clicked.connect(self.start)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.export_button)
        layout.addLayout(buttons)
        self._progress = _Progress(self)
        self._progress.step.connect(self.progress_text.setText)
        self._fill(load_choices(session.db, kind))

    # ------------------------------------------------------------------ building
    def _form(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(theme.S)
        header = QHBoxLayout()
        header.addWidget(self._section("Collections"))
        header.addStretch(1)
        for text, slot in (("Project’s sections", self.tick_defaults), ("All", lambda: self.tick_all(True)),
                           ("None", lambda: self.tick_all(False))):
            link = QPushButton(text)
            link.setProperty("flat", "true")
            link.setCursor(Qt.CursorShape.PointingHandCursor)
            link.clicked.connect(slot)
            header.addWidget(link)
        layout.addLayout(header)
        grid = QGridLayout()
        grid.setHorizontalSpacing(theme.L)
        grid.setVerticalSpacing(theme.XS)
        self.choices: list[CollectionChoice] = collection_choices(self.session.settings() or {},
                                                                  self.session.index.summaries())
        self.defaults = default_collections(self.session.settings() or {})
        self.boxes: dict[str, QCheckBox] = {}
        columns = 3
        rows = (len(self.choices) + columns - 1) // columns
        for index, choice in enumerate(self.choices):
            count = f"{choice.documents}" if choice.export_name != "ProjectSettings" else ""
            box = QCheckBox(f"{choice.label}  {count}".rstrip())
            box.setObjectName(f"collection-{choice.export_name}")
            box.setToolTip(f"{choice.label}: {counted(choice.documents, 'document')}"
                           + (" (one of the project’s export sections)" if choice.default else ""))
            box.toggled.connect(self._validate)
            grid.addWidget(box, index % rows, index // rows)
            self.boxes[choice.export_name] = box
        layout.addLayout(grid)
        layout.addSpacing(theme.M)
        layout.addWidget(self._section("Options"))
        self.sidecar = QCheckBox("Write the JSON Schema beside it (game.json → game.schema.json)")
        self.sidecar.setVisible(self.kind == GAME)
        layout.addWidget(self.sidecar)
        self.pretty = QCheckBox("Indent the JSON (easier to read, larger)")
        layout.addWidget(self.pretty)
        # Compatibility and Language share a grid, so their boxes line up whatever the labels' widths.
        choices = QGridLayout()
        choices.setHorizontalSpacing(theme.S)
        choices.setColumnStretch(1, 1)
        choices.addWidget(QLabel("Compatibility"), 0, 0)
        self.compat = QComboBox()
        for text, value in _COMPAT:
            if value is None:
                mode = (self.session.settings() or {}).get(EXPORT_COMPAT)
                text += f" ({'Drafft' if mode == 'drafft' else 'plain'})"
            self.compat.addItem(text, value)
        choices.addWidget(self.compat, 0, 1)
        self.language_label = QLabel("Language")
        self.language = QComboBox()
        self.language.setToolTip("The text of the export: the source, or a target locale's translations in place "
                                 "(untranslated lines keep the source; _meta.localization counts them), or the "
                                 "source with a string table per language beside it (game.fr.json…) for a game "
                                 "that switches language while it runs")
        for text, value in language_choices(self.session.settings() or {}):
            self.language.addItem(text, value)
        choices.addWidget(self.language_label, 1, 0)
        choices.addWidget(self.language, 1, 1)
        shown = self.kind == GAME and self.language.count() > 1  # a project without target locales: no choice
        self.language_label.setVisible(shown)
        self.language.setVisible(shown)
        layout.addLayout(choices)
        layout.addSpacing(theme.M)
        layout.addWidget(self._section("Save to"))
        path_row = QHBoxLayout()
        path_row.setSpacing(theme.S)
        self.output = QLineEdit()
        self.output.setPlaceholderText("/path/to/game.json")
        self.output.textChanged.connect(self._validate)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self.browse)
        path_row.addWidget(self.output, 1)
        path_row.addWidget(browse)
        layout.addLayout(path_row)
        self.error = set_role(QLabel(""), "error")
        self.error.setWordWrap(True)
        layout.addWidget(self.error)
        layout.addStretch(1)
        return page

    def _summary(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(theme.S)
        self.headline = QLabel()
        self.headline.setObjectName("exportHeadline")
        self.headline.setWordWrap(True)
        self.headline.setFont(theme.scaled_font(self.headline.font(), 1, bold=True))
        self.files_label = QLabel()
        self.files_label.setObjectName("exportFiles")
        self.files_label.setWordWrap(True)
        self.files_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.folder_label = set_role(QLabel(), "caption")
        self.folder_label.setWordWrap(True)
        self.folder_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.warnings_title = self._section("")
        self.warnings = QListWidget()
        self.warnings.setObjectName("exportWarnings")
        self.warnings.setWordWrap(True)
        self.warnings.setAlternatingRowColors(True)
        self.warnings.setStyleSheet(f"QListWidget::item {{ padding: {theme.XS + 2}px {theme.S}px; }}")
        self.warnings.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.warnings.setToolTip("Double-click (or Enter) a warning to open its document at the line")
        self.warnings.itemActivated.connect(self.open_warning)
        self.warnings.setMinimumHeight(160)
        layout.addWidget(self.headline)
        layout.addSpacing(theme.XS)
        layout.addWidget(self.files_label)
        layout.addWidget(self.folder_label)
        layout.addSpacing(theme.M)
        layout.addWidget(self.warnings_title)
        layout.addWidget(self.warnings, 1)
        return page

    def _section(self, text: str) -> QLabel:
        label = QLabel(text)
        label.setFont(theme.scaled_font(label.font(), 0.5, bold=True))
        return label

    def _fill(self, saved: ExportChoices | None) -> None:
        chosen = set(saved.collections) if saved is not None and saved.collections else set(self.defaults)
        for name, box in self.boxes.items():
            box.setChecked(name in chosen)
        output = saved.output if saved is not None and saved.output else ""
        self.output.setText(output or default_output(self.session.name, self.kind, Path.home()))
        if saved is not None:
            self.sidecar.setChecked(saved.schema_sidecar)
            self.pretty.setChecked(saved.pretty)
            self.compat.setCurrentIndex(max(self.compat.findData(saved.compat), 0))
            language = ALL_LOCALES if saved.all_locales else saved.locale
            self.language.setCurrentIndex(max(self.language.findData(language), 0))
        self._validate()

    # ------------------------------------------------------------------ the form
    def checked(self) -> list[str]:
        return [name for name, box in self.boxes.items() if box.isChecked()]

    def tick_defaults(self) -> None:
        for name, box in self.boxes.items():
            box.setChecked(name in self.defaults)

    def tick_all(self, on: bool) -> None:
        for box in self.boxes.values():
            box.setChecked(on)

    def browse(self) -> None:
        what = "JSON Schema" if self.kind == SCHEMA else "game export"
        file, _ = QFileDialog.getSaveFileName(self, f"Save the {what}", self.output.text() or str(Path.home()),
                                              "JSON files (*.json);;All files (*)")
        if file:
            self.output.setText(file)

    def choices_now(self) -> ExportChoices:
        """The choices the form shows (raises the export's errors for an impossible one)."""
        language = self.language.currentData()
        return ExportChoices(output=self.output.text().strip(), collections=selection(self.checked(), self.defaults),
                             schema_sidecar=self.kind == GAME and self.sidecar.isChecked(),
                             compat=self.compat.currentData(), pretty=self.pretty.isChecked(),
                             locale=language if self.kind == GAME and language != ALL_LOCALES else None,
                             all_locales=self.kind == GAME and language == ALL_LOCALES)

    def _validate(self) -> bool:
        problem = ""
        if not self.checked():
            problem = "Tick at least one collection to export."
        elif not self.output.text().strip():
            problem = "Choose the file to write (Browse…)."
        self.error.setText(problem)
        self.export_button.setEnabled(not problem and self.task is None)
        return not problem

    # ------------------------------------------------------------------ running
    def start(self) -> Task | None:
        """Export on a worker thread with the form's choices; ``None`` when a choice is wrong
        (the form says which)."""
        if self.task is not None or not self._validate():
            return None
        try:
            choices = self.choices_now()
        except StoryloomError as exc:
            self.error.setText(str(exc))
            return None
        self._choices = choices
        self._cancel = False
        project, user, progress = self.session.project, self.user, self._progress.step.emit

        def counted(event: Progress) -> None:  # documents done of the total, thinned by the reporter
            if event.total and not event.finished:
                progress(f"{event.done:,} of {words.counted(event.total, 'document')}…")

        def work() -> ExportResult:
            if self.kind == SCHEMA:
                return export_schema(project, choices, progress=progress, cancelled=lambda: self._cancel,
                                     on_progress=counted)
            return export_game_content(project, choices, exported_by=user, progress=progress,
                                       cancelled=lambda: self._cancel, on_progress=counted)

        task = Task(work, _TEXT[self.kind][0], self)
        task.succeeded.connect(self._done)
        task.failed.connect(self._failed)
        self.task = task
        self._running(True)
        task.start()
        return task

    def _running(self, running: bool) -> None:
        self.form.setEnabled(not running)
        self.progress.setVisible(running)
        self.progress_text.setVisible(running)
        self.export_button.setEnabled(not running)
        if running:
            self.error.setText("")
            self.progress_text.setText("Starting…")

    def _finish(self) -> None:
        if self.task is not None:
            self.task.release()
        self.task = None
        self._running(False)

    def _done(self, result: ExportResult) -> None:
        self._finish()
        self.result = result
        if self._choices is not None:
            try:
                save_choices(self.session.editor, self.kind, self._choices)
            except StoryloomError:  # remembering the choices is a convenience, never a failure
                pass
        self.headline.setText(result.headline())
        self.files_label.setText("\n".join(f"{Path(path).name}  ·  {human_size(size)}" for path, size in result.files))
        if result.files:
            self.folder_label.setText(f"In {Path(result.files[0][0]).parent}")
        self.warnings.clear()
        if result.kind == GAME:
            self.warnings_title.setText(result.warnings_title())
            self._fill_warnings(result)
            self.warnings.setVisible(bool(result.warnings))
        else:
            self.warnings_title.setText("")
            self.warnings.hide()
        self.pages.setCurrentWidget(self.summary)
        self.show_folder.show()
        self.export_button.hide()
        self.cancel_button.setText("Close")
        self.cancel_button.setDefault(True)
        self.finished_export.emit(result)

    def _failed(self, exc: BaseException) -> None:
        self._finish()
        if isinstance(exc, ExportCancelled):
            self.error.setText(str(exc))
        elif isinstance(exc, StoryloomError | OSError):
            self.error.setText(f"Not exported: {say(exc)}")
        else:
            self.error.setText(f"Not exported: an internal error stopped it ({type(exc).__name__}: {exc}). "
                               "This is a bug; please report it.")

    def _fill_warnings(self, result: ExportResult) -> None:
        def name_of(doc_id: str) -> str | None:
            summary = self.session.index.get(doc_id)
            return summary.name if summary is not None and isinstance(summary.name, str) else None

        for warning in result.warnings[:MAX_WARNING_LINES]:
            where, message = describe_warning(warning, name_of)
            item = QListWidgetItem(f"{where}\n{message}" if where else message)
            item.setToolTip(format_warning(warning))
            item.setData(Qt.ItemDataRole.UserRole, (warning.get("docId"), warning.get("line") or 0))
            self.warnings.addItem(item)
        if len(result.warnings) > MAX_WARNING_LINES:
            rest = len(result.warnings) - MAX_WARNING_LINES
            more = QListWidgetItem(f"… and {rest} more in the file's _meta.warnings")
            more.setFlags(Qt.ItemFlag.NoItemFlags)
            self.warnings.addItem(more)

    def open_warning(self, item: QListWidgetItem) -> bool:
        """Close the dialog and open the warning's document at its line (in the project window)."""
        doc_id, line = item.data(Qt.ItemDataRole.UserRole) or (None, 0)
        window = self.parentWidget().window() if self.parentWidget() is not None else None
        if not isinstance(doc_id, str) or window is None or not hasattr(window, "navigate_to"):
            return False
        self.accept()
        window.navigate_to("", doc_id)
        editor = window.tabs.editor(doc_id) if hasattr(window, "tabs") else None
        if editor is not None and isinstance(line, int) and line > 0:
            editor.focus_line(line)
        return True

    def cancel(self) -> None:
        """Cancel a running export (before its files are written), else close the dialog."""
        if self.task is not None:
            self._cancel = True
            self.progress_text.setText("Cancelling after the current step…")
            return
        self.reject()

    def open_folder(self) -> None:
        if self.result is not None and self.result.files:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(Path(self.result.files[0][0]).parent)))

    def closeEvent(self, event: QCloseEvent) -> None:
        self.stop_work()
        super().closeEvent(event)

    def reject(self) -> None:
        self.stop_work()
        super().reject()

    def stop_work(self) -> None:
        """Stop a running export before it writes and wait for it (the dialog or the window goes)."""
        if self.task is not None:
            self._cancel = True
            self.task.wait()
