"""File > Print / Export Document…: the current document (or the whole GDD, or all scripts) to a
.pdf, .docx, .html or .fountain file.

The choices come from :func:`storyloom.app.print_files.print_targets`; the work is
:func:`storyloom.app.print_files.print_documents`, the one ``storyloom print`` runs, on a worker
thread (:class:`~storyloom.gui.tasks.Task`) with the PDF drawn by
:func:`storyloom.gui.pdf_writer.html_to_pdf`. The dialog only shows the choices and the result."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QCloseEvent, QDesktopServices
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QWidget,
)

from storyloom.app import ProjectSession
from storyloom.app.print_files import (
    FORMATS,
    PrintResult,
    PrintTarget,
    output_for,
    print_documents,
    print_targets,
)
from storyloom.app.views.explain import say
from storyloom.errors import StoryloomError
from storyloom.gui import theme
from storyloom.gui.pdf_writer import html_to_pdf
from storyloom.gui.tasks import Task
from storyloom.gui.widgets import dialog_layout, set_role
from storyloom.outputs.formats import FORMAT_LABELS
from storyloom.words import counted

_INTRO = ("Scripts print as a screenplay (speakers as cues, @if branches marked), GDD pages with their "
          "headings, lists, tables and images: the same files `storyloom print` writes.")


class PrintDialog(QDialog):
    """Print ``current`` (a document id, or ``None``) or a whole collection of ``session``."""

    def __init__(self, session: ProjectSession, current: str | None = None, parent: QWidget | None = None,
                 folder: str | Path | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("printDialog")
        self.setWindowTitle("Print / Export Document")
        self.setMinimumWidth(560)
        self.session = session
        self.folder = Path(folder) if folder is not None else Path.home()
        self.task: Task | None = None
        self.printed: PrintResult | None = None
        self.targets = print_targets(session, current)
        layout, _heading = dialog_layout(self, "Print / Export Document", _INTRO.replace("`", ""))
        layout.addSpacing(theme.S)
        layout.addWidget(self._section("Print"))
        self.group = QButtonGroup(self)
        for index, target in enumerate(self.targets):
            button = QRadioButton(target.label)
            button.setObjectName(f"print-{target.key}")
            self.group.addButton(button, index)
            layout.addWidget(button)
        self.group.idToggled.connect(self._toggled)
        if not self.targets:
            layout.addWidget(set_role(QLabel("Nothing here prints: open a script or a GDD page first."), "caption"))
        layout.addSpacing(theme.M)
        layout.addWidget(self._section("Format"))
        self.format = QComboBox()
        self.format.currentIndexChanged.connect(self._format_changed)
        layout.addWidget(self.format)
        layout.addSpacing(theme.M)
        layout.addWidget(self._section("Save to"))
        row = QHBoxLayout()
        row.setSpacing(theme.S)
        self.output = QLineEdit()
        self.output.setObjectName("printOutput")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self.browse)
        row.addWidget(self.output, 1)
        row.addWidget(browse)
        layout.addLayout(row)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.setTextVisible(False)
        self.progress.setFixedHeight(6)
        self.progress.hide()
        layout.addWidget(self.progress)
        self.message = QLabel("")
        self.message.setObjectName("printMessage")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        layout.addStretch(1)
        buttons = QHBoxLayout()
        buttons.setSpacing(theme.S)
        self.show_folder = QPushButton("Show in Folder")
        self.show_folder.clicked.connect(self.open_folder)
        self.show_folder.hide()
        buttons.addWidget(self.show_folder)
        buttons.addStretch(1)
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.reject)
        self.print_button = QPushButton("Print")
        self.print_button.setProperty("primary", "true")
        self.print_button.setDefault(True)
        self.print_button.clicked.connect(self.start)
        self.print_button.setEnabled(bool(self.targets))
        buttons.addWidget(self.close_button)
        buttons.addWidget(self.print_button)
        layout.addLayout(buttons)
        if self.targets:
            self.group.button(0).setChecked(True)

    def _section(self, text: str) -> QLabel:
        label = QLabel(text)
        label.setFont(theme.scaled_font(label.font(), 0.5, bold=True))
        return label

    # ------------------------------------------------------------------ the form
    def target(self) -> PrintTarget | None:
        index = self.group.checkedId()
        return self.targets[index] if 0 <= index < len(self.targets) else None

    def _toggled(self, _index: int, on: bool) -> None:
        if on:
            self._target_changed()

    def _target_changed(self) -> None:
        target = self.target()
        if target is None:
            return
        chosen = self.format.currentData()
        self.format.blockSignals(True)
        self.format.clear()
        for fmt in target.formats:
            extension = next(ext for ext, name in FORMATS.items() if name == fmt)
            self.format.addItem(f"{FORMAT_LABELS[fmt]} ({extension})", fmt)
        self.format.setCurrentIndex(max(0, self.format.findData(chosen)))
        self.format.blockSignals(False)
        self._format_changed()

    def _format_changed(self) -> None:
        target, fmt = self.target(), self.format.currentData()
        if target is None or fmt is None:
            return
        current = self.output.text().strip()
        folder = Path(current).parent if current else self.folder
        self.output.setText(str(output_for(folder, target, fmt)))

    def browse(self) -> None:
        fmt = self.format.currentData() or "pdf"
        extension = next(ext for ext, name in FORMATS.items() if name == fmt)
        file, _ = QFileDialog.getSaveFileName(self, "Print to", self.output.text(),
                                              f"{FORMAT_LABELS[fmt]} (*{extension})")
        if file:
            self.output.setText(file)

    # ------------------------------------------------------------------ running
    def start(self) -> Task | None:
        """Print on a worker thread; ``None`` when nothing is chosen or a print runs."""
        target, output = self.target(), self.output.text().strip()
        if self.task is not None or target is None or not output:
            return None
        session = self.session

        def work() -> PrintResult:
            return print_documents(session, output, target.doc_ids, collection=target.collection, pdf=html_to_pdf)

        task = Task(work, "Print", self)
        task.succeeded.connect(self._done)
        task.failed.connect(self._failed)
        self.task = task
        self.print_button.setEnabled(False)
        self.progress.show()
        set_role(self.message, "caption").setText(f"Writing {Path(output).name}…")
        task.start()
        return task

    def _finish(self) -> None:
        if self.task is not None:
            self.task.release()
        self.task = None
        self.progress.hide()
        self.print_button.setEnabled(True)

    def _done(self, result: PrintResult) -> None:
        self._finish()
        self.printed = result
        count = counted(result.documents, "document", grouped=False)
        text = f"Wrote {result.path.name} ({count}) in {result.path.parent}."
        if result.missing_images:
            text += "\nNot in the file: " + "; ".join(result.missing_images)
        set_role(self.message, "caption").setText(text)
        self.show_folder.show()

    def _failed(self, exc: BaseException) -> None:
        self._finish()
        if isinstance(exc, StoryloomError | OSError):
            set_role(self.message, "error").setText(f"Not printed: {say(exc)}")
        else:
            set_role(self.message, "error").setText(f"Not printed: an internal error stopped it ({type(exc).__name__}: "
                                                    f"{exc}). This is a bug; please report it.")

    def open_folder(self) -> None:
        if self.printed is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.printed.path.parent)))

    def closeEvent(self, event: QCloseEvent) -> None:
        self._wait()
        super().closeEvent(event)

    def reject(self) -> None:
        self._wait()
        super().reject()

    def _wait(self) -> None:
        # A print is one quick write: the dialog waits for it rather than leave a thread behind.
        if self.task is not None:
            self.task.wait()
