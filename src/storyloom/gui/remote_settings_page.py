"""Project Settings > Remote Replication: where and how this machine syncs the project, and the
server's own report.

The page shows the fields of :mod:`storyloom.app.views.remote_form` (checked as they are typed: the
server URL's scheme, the database name's characters with their position and the lowercase
conversion) and saves them as ``storyloom remote set`` does; then the session follows them
(``session.remote_settings_changed()``) and sync starts. "Check server", "Set up" and "Invite
teammate…" run ``remote check``, ``remote setup`` and ``remote invite`` on a worker thread
(:class:`~storyloom.gui.tasks.Task`); the report is a list of lines with an icon each (ok,
warning, failure) and the fix under it; a refusal says its cause and what to do.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDoubleSpinBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from storyloom.app import ProjectSession
from storyloom.app.views import explain
from storyloom.app.views import remote_form as form
from storyloom.errors import StoryloomError
from storyloom.gui import icons, theme
from storyloom.gui.host import WindowHost
from storyloom.gui.sidebar import SETTINGS
from storyloom.gui.tasks import Task
from storyloom.gui.widgets import Banner, set_role
from storyloom.project import default_database_name
from storyloom.words import counted

#: A fix longer than this is shortened in the list (Copy report copies it whole).
MAX_FIX_SHOWN = 320
_STATUS_ICON = {"ok": "success", "warn": "warning", "fail": "error"}
_RUNNING: set[Task] = set()  # tasks whose page went away before they ended


class _Relay(QObject):
    """Carries a set-up step from the worker thread to the page (queued to the GUI thread)."""

    step = Signal(object)


def _label(text: str, name: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName(name)
    label.setWordWrap(True)
    return label


def shorten(text: str, limit: int = MAX_FIX_SHOWN) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "… (Copy report has it whole)"


class ReportView(QFrame):
    """A readable report: a heading with Copy, then one row per line (status icon, title,
    detail, and the fix under it when the line is not ok)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("remoteReport")
        colours = theme.colors()
        self.setStyleSheet(f"#remoteReport {{ background: {colours.surface}; border: 1px solid {colours.border};"
                           f" border-radius: 6px; }} #remoteReport QLabel {{ background: transparent; }}"
                           f" #reportFix {{ color: {colours.muted}; }}"
                           f" #reportRule {{ background: {colours.border}; border: none; }}")
        self.lines: list[form.ReportLine] = []
        self.full_text = ""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(theme.L, theme.M, theme.L, theme.M)
        layout.setSpacing(theme.S)
        header = QHBoxLayout()
        self.heading = QLabel()
        self.heading.setFont(theme.scaled_font(self.heading.font(), 1, bold=True))
        self.summary = set_role(QLabel(), "caption")
        self.copy_button = QPushButton(icons.icon("document"), "Copy report")
        self.copy_button.setToolTip("Copy the whole report as text (to send to a server admin)")
        self.copy_button.clicked.connect(self.copy)
        header.addWidget(self.heading)
        header.addSpacing(theme.S)
        header.addWidget(self.summary, 1)
        header.addWidget(self.copy_button)
        layout.addLayout(header)
        self.rows = QVBoxLayout()
        self.rows.setSpacing(0)
        layout.addLayout(self.rows)
        self.hide()

    def show_lines(self, heading: str, lines: list[form.ReportLine], full_text: str = "") -> None:
        self.clear()
        self.heading.setText(heading)
        for line in lines:
            self.add_line(line)
        self.full_text = full_text or "\n".join(line.to_text() for line in lines)
        self.show()

    def start(self, heading: str) -> None:
        """An empty report that lines are added to as they come (the set-up's steps)."""
        self.clear()
        self.heading.setText(heading)
        self.show()

    def clear(self) -> None:
        self.lines = []
        self.full_text = ""
        while self.rows.count():
            item = self.rows.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self._update_summary()

    def add_line(self, line: form.ReportLine) -> None:
        if self.lines:
            rule = QFrame()
            rule.setObjectName("reportRule")
            rule.setFixedHeight(1)
            self.rows.addWidget(rule)
        self.lines.append(line)
        self.full_text = "\n".join(item.to_text() for item in self.lines)
        row = QWidget()
        row.setObjectName(f"reportLine-{line.name}")
        box = QHBoxLayout(row)
        box.setContentsMargins(0, theme.S, 0, theme.S)
        box.setSpacing(theme.M)
        icon = QLabel()
        icon.setPixmap(icons.icon(_STATUS_ICON.get(line.status, "info")).pixmap(QSize(18, 18)))
        icon.setToolTip({"ok": "OK", "warn": "Warning", "fail": "Failure"}.get(line.status, line.status))
        box.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)
        title = QLabel(line.title)
        title.setFont(theme.scaled_font(title.font(), 0, bold=True))
        title.setFixedWidth(150)
        title.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        box.addWidget(title, 0, Qt.AlignmentFlag.AlignTop)
        text = QVBoxLayout()
        text.setSpacing(2)
        detail = _label(line.detail, "reportDetail")
        detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        text.addWidget(detail)
        if line.fix and line.status != "ok":
            fix = _label(f"→ {shorten(line.fix)}", "reportFix")
            fix.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            fix.setToolTip(line.fix if len(line.fix) < 2000 else "")
            text.addWidget(fix)
        box.addLayout(text, 1)
        self.rows.addWidget(row)
        self._update_summary()

    def _update_summary(self) -> None:
        counts = {status: sum(1 for line in self.lines if line.status == status) for status in ("ok", "warn", "fail")}
        parts = [f"{counts['ok']} ok"] if counts["ok"] else []
        if counts["warn"]:
            parts.append(counted(counts['warn'], "warning"))
        if counts["fail"]:
            parts.append(counted(counts['fail'], "failure"))
        self.summary.setText(" · ".join(parts))

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.full_text)


class RemoteSettingsPage(QScrollArea):
    """The Remote Replication page of ``session``'s project. ``saved`` fires after the settings
    were kept; ``task`` is the server work running now (None when idle)."""

    saved = Signal()

    def __init__(self, session: ProjectSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("remoteSettingsPage")
        self.session = session
        self.task: Task | None = None
        self.messages: dict[str, QLabel] = {}
        self._tried_save = False
        self._password_note = ""
        self._kept = form.password_kept(session)
        self.refusal: explain.Explanation | None = None
        #: The server admin's account for Set up and invitations: in memory while the page is open, never kept.
        self.admin: form.AdminLogin | None = None
        self.admin_dialog: Any = None
        self._loaded = form.RemoteValues()
        self._relay = _Relay(self)
        self._relay.step.connect(self._step_done)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        page = QWidget()
        page.setObjectName("settingsForm")
        outer = QHBoxLayout(page)
        outer.setContentsMargins(0, 0, 0, 0)
        content = QWidget()
        content.setMaximumWidth(960)
        outer.addWidget(content, 1)
        outer.addStretch(0)
        self.box = QVBoxLayout(content)
        self.box.setContentsMargins(theme.XL, theme.L, theme.XL, theme.XL)
        self.box.setSpacing(theme.S)
        title = QLabel("Remote Replication")
        title.setObjectName("welcomeTitle")
        self.box.addWidget(title)
        self.box.addWidget(_label("Share this project with your team through a CouchDB server. These settings are "
                                  "kept on this machine only; the password goes to the system keyring (or a file "
                                  "only you can read).", "fieldHint"))
        self.box.addSpacing(theme.S)
        self.enabled = QCheckBox("Sync this project with a server")
        self.enabled.setObjectName("remoteEnabled")
        self.enabled.toggled.connect(self._changed)
        self.box.addWidget(self.enabled)
        self.fields = QWidget()
        fields = QVBoxLayout(self.fields)
        fields.setContentsMargins(0, 0, 0, 0)
        fields.setSpacing(theme.S)
        self._account(fields)
        self._mode(fields)
        self._timing(fields)
        self.box.addWidget(self.fields)
        self._save_row()
        self._server_section()
        self.box.addStretch(1)
        self.setWidget(page)
        self.load()

    # ------------------------------------------------------------------ building
    def _heading(self, layout: QVBoxLayout, text: str) -> None:
        layout.addSpacing(theme.L)
        heading = QLabel(text)
        heading.setObjectName("settingsSection")
        heading.setFont(theme.scaled_font(heading.font(), 2, bold=True))
        layout.addWidget(heading)
        line = QFrame()
        line.setFrameShape(QFrame.Shape.HLine)
        line.setFrameShadow(QFrame.Shadow.Sunken)
        layout.addWidget(line)

    def _field(self, layout: QVBoxLayout | QGridLayout, key: str, caption: str, widget: QWidget,
               at: tuple[int, int] | None = None) -> None:
        message = _label("", "fieldMessage")
        message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        message.hide()
        self.messages[key] = message
        label = _label(caption, "fieldLabel")
        label.setBuddy(widget)
        if isinstance(layout, QGridLayout) and at is not None:
            row, column = at
            layout.addWidget(label, row, column)
            layout.addWidget(widget, row + 1, column)
            layout.addWidget(message, row + 2, column, Qt.AlignmentFlag.AlignTop)
        else:
            assert isinstance(layout, QVBoxLayout)
            layout.addWidget(label)
            layout.addWidget(widget)
            layout.addWidget(message)

    def _account(self, layout: QVBoxLayout) -> None:
        self._heading(layout, "Server and account")
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(theme.L)
        grid.setVerticalSpacing(theme.XS)
        self.server = QLineEdit()
        self.server.setObjectName("remoteServer")
        self.server.setPlaceholderText("https://couch.example.com")
        self._field(grid, "server", "&Server URL", self.server, (0, 0))
        self.database = QLineEdit()
        self.database.setObjectName("remoteDatabase")
        self.database.setPlaceholderText(default_database_name(self.session.name))
        self._field(grid, "database", "&Database name", self.database, (0, 1))
        self.username = QLineEdit()
        self.username.setObjectName("remoteUsername")
        self.username.setPlaceholderText("your user name on the server")
        self.password = QLineEdit()
        self.password.setObjectName("remotePassword")
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self._field(grid, "username", "&User name", self.username, (3, 0))
        self._field(grid, "password", "&Password", self.password, (3, 1))
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)
        for edit in (self.server, self.database, self.username, self.password):
            edit.textEdited.connect(self._changed)

    def _mode(self, layout: QVBoxLayout) -> None:
        self._heading(layout, "Mode")
        self.mode_buttons: dict[str, QRadioButton] = {}
        self.mode_group = QButtonGroup(self)
        for mode in ("easy", "advanced"):
            button = QRadioButton(form.MODE_LABELS[mode])
            button.setObjectName(f"remoteMode-{mode}")
            self.mode_group.addButton(button)
            self.mode_buttons[mode] = button
            layout.addWidget(button)
            hint = _label(form.sentence(form.MODE_TEXT[mode].split(": ", 1)[1]), "fieldHint")
            hint.setContentsMargins(theme.XL, 0, 0, theme.XS)
            layout.addWidget(hint)
            button.toggled.connect(self._changed)
        self.messages["mode"] = _label("", "fieldMessage")
        self.messages["mode"].hide()
        layout.addWidget(self.messages["mode"])

    def _timing(self, layout: QVBoxLayout) -> None:
        self._heading(layout, "Timing")
        self.live = QCheckBox("Live: follow the server's changes as they happen")
        self.live.setObjectName("remoteLive")
        self.live.toggled.connect(self._changed)
        layout.addWidget(self.live)
        row = QHBoxLayout()
        row.setSpacing(theme.S)
        self.interval_label = QLabel("Otherwise, pull the team's changes every")
        self.interval = QDoubleSpinBox()
        self.interval.setObjectName("remoteInterval")
        self.interval.setDecimals(0)
        self.interval.setRange(form.MIN_INTERVAL, 24 * 3600)
        self.interval.setSuffix(" seconds")
        self.interval.setMinimumWidth(140)
        self.interval.valueChanged.connect(self._changed)
        row.addWidget(self.interval_label)
        row.addWidget(self.interval)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addWidget(_label("Your own changes are sent as soon as you make them, in both cases.", "fieldHint"))
        self.messages["interval"] = _label("", "fieldMessage")
        self.messages["interval"].hide()
        layout.addWidget(self.messages["interval"])

    def _save_row(self) -> None:
        self.box.addSpacing(theme.L)
        row = QHBoxLayout()
        row.setSpacing(theme.S)
        self.save_button = QPushButton("Save")
        self.save_button.setObjectName("remoteSave")
        self.save_button.setProperty("primary", "true")
        self.save_button.clicked.connect(self.save)
        self.revert_button = QPushButton("Revert")
        self.revert_button.clicked.connect(self.load)
        self.state = set_role(QLabel(""), "caption")
        row.addWidget(self.save_button)
        row.addWidget(self.revert_button)
        row.addSpacing(theme.S)
        row.addWidget(self.state, 1)
        self.box.addLayout(row)

    def _server_section(self) -> None:
        self._heading(self.box, "Server")
        self.box.addWidget(_label("Check the server and the database, set the database up for the team, and "
                                  "invite teammates. Unsaved changes above are saved first.", "fieldHint"))
        row = QHBoxLayout()
        row.setSpacing(theme.S)
        self.check_button = QPushButton(icons.icon("search"), "Check server")
        self.check_button.setObjectName("remoteCheck")
        self.check_button.clicked.connect(self.check_server)
        self.setup_button = QPushButton(icons.icon("settings"), "Set up")
        self.setup_button.setObjectName("remoteSetup")
        self.setup_button.clicked.connect(self.set_up)
        self.invite_button = QPushButton(icons.icon("new"), "Invite teammate…")
        self.invite_button.setObjectName("remoteInvite")
        self.invite_button.clicked.connect(self.invite)
        self.probe = QCheckBox("Measure the body limit")
        self.probe.setToolTip("Also send one private test document of growing size (64 KB to 4 MB) to find the "
                              "largest request the server and its proxy accept; it is deleted after")
        for widget in (self.check_button, self.setup_button, self.invite_button):
            row.addWidget(widget)
        row.addSpacing(theme.M)
        row.addWidget(self.probe)
        row.addStretch(1)
        self.box.addLayout(row)
        # Browser-based teammates (Drafft) need the server to allow their origin (CORS); Set up
        # turns it on for the origins typed here (easy mode). Not kept: a server setting.
        self.cors_caption = QLabel("Drafft teammates: allow their app's &origin (CORS) when setting up")
        self.cors_origins = QLineEdit()
        self.cors_origins.setObjectName("remoteCorsOrigins")
        self.cors_origins.setPlaceholderText("e.g. file:// (leave empty to leave the server's CORS as it is)")
        self.cors_origins.setMaximumWidth(560)
        self.cors_origins.textChanged.connect(self._origins_typed)
        self.cors_caption.setBuddy(self.cors_origins)
        self.cors_error = _label("", "fieldError")
        self.cors_error.hide()
        self.box.addSpacing(theme.XS)
        self.box.addWidget(self.cors_caption)
        self.box.addWidget(self.cors_origins)
        self.box.addWidget(self.cors_error)
        self.box.addSpacing(theme.XS)
        self.banner = Banner()
        self.banner.setObjectName("remoteBanner")
        self.box.addWidget(self.banner)
        self.report = ReportView()
        self.box.addWidget(self.report)

    # ------------------------------------------------------------------ values
    def load(self) -> None:
        """Show the kept settings (what was typed is dropped)."""
        settings = self.session.remote.settings
        values = form.values_of(settings)
        if settings is None:
            values.enabled = False
        self._loaded = values
        self._tried_save = False
        widgets = (self.enabled, self.server, self.database, self.username, self.password, self.live,
                   self.interval, *self.mode_buttons.values())
        for widget in widgets:
            widget.blockSignals(True)
        try:
            self.enabled.setChecked(values.enabled)
            self.server.setText(values.server)
            self.database.setText(values.database)
            self.username.setText(values.username)
            self.password.clear()
            self.mode_buttons[values.mode].setChecked(True)
            self.live.setChecked(values.live)
            self.interval.setValue(values.interval)
        finally:
            for widget in widgets:
                widget.blockSignals(False)
        self._kept = form.password_kept(self.session)
        note = form.password_note(self.session)
        self.password.setPlaceholderText("kept — type to replace" if note else "")
        self._password_note = note
        self._changed()

    def values(self) -> form.RemoteValues:
        """What the form shows, as typed."""
        mode = next((m for m, button in self.mode_buttons.items() if button.isChecked()), "easy")
        return form.RemoteValues(enabled=self.enabled.isChecked(), server=self.server.text(),
                                 database=self.database.text(), username=self.username.text(),
                                 password=self.password.text(), mode=mode, interval=float(self.interval.value()),
                                 live=self.live.isChecked())

    @property
    def dirty(self) -> bool:
        return self.values() != self._loaded

    def _changed(self, *_args: Any) -> None:
        enabled = self.enabled.isChecked()
        self.fields.setEnabled(enabled)
        self.interval.setEnabled(not self.live.isChecked())
        self.interval_label.setEnabled(not self.live.isChecked())
        self.show_check(form.check_values(self.session.name, self.values(), self._kept))
        self._update_buttons()

    def show_check(self, check: form.FormCheck) -> None:
        """Each field's message under it: errors and warnings at once, an empty field only after
        a Save was tried, and notes (the default name, a lowercase conversion) in grey."""
        colours = theme.colors()
        for key, label in self.messages.items():
            message = check.messages.get(key)
            if key == "password" and message is None and self._password_note and not self.password.text():
                message = form.FieldMessage("note", self._password_note)
            if message is None or (message.level == "required" and not self._tried_save):
                label.clear()
                label.hide()
                continue
            colour = {"error": colours.danger, "required": colours.danger, "warning": colours.warning}.get(
                message.level, colours.muted)
            label.setStyleSheet(f"color: {colour};")
            label.setProperty("level", message.level)
            label.setText(message.text)
            label.show()
        for key, edit in (("server", self.server), ("database", self.database), ("username", self.username),
                          ("password", self.password)):
            message = check.messages.get(key)
            bad = message is not None and (message.level == "error" or
                                           (message.level == "required" and self._tried_save))
            edit.setProperty("invalid", "true" if bad else "false")
            edit.style().unpolish(edit)
            edit.style().polish(edit)

    def _update_buttons(self) -> None:
        dirty = self.dirty
        busy = self.task is not None
        self.save_button.setEnabled(dirty and not busy)
        self.save_button.setProperty("primary", "true" if dirty and not busy else "false")
        self.save_button.style().unpolish(self.save_button)
        self.save_button.style().polish(self.save_button)
        self.revert_button.setEnabled(dirty and not busy)
        configured = self.session.remote.configured or (dirty and self.enabled.isChecked())
        for button in (self.check_button, self.setup_button):
            button.setEnabled(configured and not busy)
        easy = self.values().mode == "easy"
        origins_wrong = bool(form.check_origins(self.cors_origins.text())[1])
        self.setup_button.setEnabled(configured and not busy and not (easy and origins_wrong))
        for widget in (self.cors_caption, self.cors_origins):
            widget.setVisible(easy)
        self.invite_button.setEnabled(configured and not busy and self.values().mode == "easy")
        self.invite_button.setToolTip("" if self.values().mode == "easy" else
                                      "Inviting needs easy mode: in advanced mode an admin creates the accounts")
        self.setup_button.setToolTip("Create your user, the database, its members and the lock rules with a server "
                                     "admin's account, and send the project (easy mode)"
                                     if self.values().mode == "easy" else
                                     "List what is missing on the server and the requests for an admin")
        if busy:
            return
        self.state.setText("Unsaved changes" if dirty else "")

    # ------------------------------------------------------------------ saving
    def save(self) -> bool:
        """Keep the settings (and a typed password); False when a field is wrong (it says why)."""
        self._tried_save = True
        values = self.values()
        if not values.enabled and self.session.remote.settings is None:
            self.load()
            self.state.setText("Nothing to save: remote sync is off")
            return True
        try:
            check = form.save_values(self.session, values)
        except StoryloomError as exc:  # the password store refused (a locked keyring)
            self._refused(explain.explain(exc, project=self.session.name, on_page=True))
            return False
        self.show_check(check)
        if not check.ok:
            self.state.setText("Not saved: see the fields marked above")
            return False
        self.load()
        settings = check.settings
        assert settings is not None
        self.state.setText(f"Saved. Syncing with {settings.database_url}" if settings.enabled
                           else "Saved. Remote sync is off")
        self.saved.emit()
        return True

    def _save_first(self) -> bool:
        return not self.dirty or self.save()

    # ------------------------------------------------------------------ the server
    def _start(self, label: str, fn: Any, done: Any) -> Task | None:
        if self.task is not None or not self._save_first():
            return None
        task = Task(fn, label)
        _RUNNING.add(task)
        task.succeeded.connect(done)
        task.failed.connect(self._failed)
        task.finished.connect(self._task_finished)
        self.task = task
        self.banner.show_message("busy", label)
        self.state.setText("")
        self._update_buttons()
        task.start()
        return task

    def _task_finished(self) -> None:
        task, self.task = self.task, None
        if task is not None:
            task.release()
            _RUNNING.discard(task)
        self._update_buttons()

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, form.AdminNeeded):
            self.admin = None
            self.report.clear()
            self.report.hide()
            self.banner.show_message("info", "Set up needs a server admin's account: type it in the dialog.")
            self.ask_admin(explain.sentence(explain.say(exc, project=self.session.name, on_page=True)))
            return
        settings = self.session.remote.settings
        self._refused(explain.explain(exc, project=self.session.name, on_page=True,
                                      username=settings.username if settings else None,
                                      database=settings.database if settings else None))

    def _refused(self, refusal: explain.Explanation) -> None:
        self.refusal = refusal
        self.banner.show_message("error", refusal.to_text())

    def check_server(self) -> Task | None:
        """Run the server report (``storyloom remote check``) on a worker thread."""
        session, probe = self.session, self.probe.isChecked()
        return self._start("Checking the server…", lambda: form.run_check(session, probe_body_limit=probe),
                           self._checked)

    def _checked(self, lines: list[form.ReportLine]) -> None:
        settings = self.session.remote.settings
        url = settings.database_url if settings else ""
        failed = sum(1 for line in lines if line.status == "fail")
        if failed:
            self.banner.show_message("error", f"The server check found {counted(failed, 'problem')}: "
                                     "each says what to do under it.")
        else:
            self.banner.show_message("success", "The server and the database are ready for the team.")
        self.report.show_lines("Server check", lines, form.report_text(url, lines))

    def _origins_typed(self, text: str) -> None:
        _origins, problem = form.check_origins(text)
        self.cors_error.setText(problem)
        self.cors_error.setStyleSheet(f"color: {theme.colors().danger};")
        self.cors_error.setVisible(bool(problem))
        self._update_buttons()

    def set_up(self) -> Task | None:
        """Easy mode: create your user, the database, its members and the lock rules with a
        server admin's account (asked for when needed, kept in memory only), step by step, and
        send the project; advanced mode: list what is missing and the requests for an admin."""
        session, relay, admin = self.session, self._relay, self.admin
        origins, problem = form.check_origins(self.cors_origins.text())
        if problem or self.task is not None or not self._save_first():
            return None
        if self.values().mode == "easy":
            self.report.start("Set-up")
        return self._start("Setting up the database…" if self.values().mode == "easy" else
                           "Looking for what an admin must set up…",
                           lambda: form.run_setup(session, relay.step.emit, admin, origins), self._set_up)

    def ask_admin(self, message: str = "") -> Any:
        """The server admin's account for Set up: a dialog; accepted, the set-up runs again."""
        from storyloom.gui.remote_dialogs import AdminLoginDialog

        dialog = AdminLoginDialog("Setting up the server", self, message=message)
        dialog.fields.set_login(self.admin)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def accepted() -> None:
            self.admin = dialog.login()
            self.set_up()

        dialog.accepted.connect(accepted)
        dialog.open()
        self.admin_dialog = dialog
        return dialog

    def _step_done(self, line: form.ReportLine) -> None:
        self.report.add_line(line)

    def _set_up(self, outcome: form.SetupOutcome) -> None:
        if outcome.report is not None:
            changed = outcome.report.changed
            self.banner.show_message("success", "Set-up complete: the database is ready for the team. "
                                     + ("" if changed else "Nothing needed changing. ")
                                     + "Invite teammates with Invite teammate…."
                                     + "".join(f" {notice}" for notice in outcome.notices))
            return
        check = outcome.advanced
        assert check is not None
        if check.ok:
            self.banner.show_message("success", form.sentence(check.explain()))
            self.report.clear()
            self.report.hide()
            return
        lines = [form.ReportLine("missing", "Missing", "fail", form.sentence(item)) for item in check.missing]
        lines.append(form.ReportLine("requests", "For an admin", "warn",
                                     "Ask a server admin to run these requests (curl asks for the admin's password; "
                                     "in the _security request, keep the names of members already listed). Copy "
                                     "report copies them whole.", "\n".join(check.requests)))
        self.banner.show_message("error", "The database is not ready for advanced mode: an admin must finish it.")
        self.report.show_lines("What an admin must set up", lines, check.explain())

    def invite(self) -> Any:
        """Invite teammate…: a dialog asks the name, creates the account and shows how to join."""
        if not self._save_first():
            return None
        from storyloom.gui.remote_dialogs import InviteDialog

        dialog = InviteDialog(self.session, self, admin=self.admin)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: setattr(self, "admin", dialog.admin or self.admin))
        dialog.open()
        return dialog

    def stop_work(self) -> None:
        """Wait for the server work in progress (the window is closing)."""
        if self.task is not None:
            self.task.wait()


def show_remote_settings(window: WindowHost) -> RemoteSettingsPage | None:
    """Open Project Settings on its Remote Replication page in ``window``."""
    window.select_collection(SETTINGS)
    editor = window.tabs.current_editor()
    show = getattr(editor, "show_remote_page", None)
    if show is None:
        return None
    show()
    page = getattr(editor, "remote_page", None)
    return page if isinstance(page, RemoteSettingsPage) else None


def remote_settings_action(window: WindowHost) -> QAction:
    """Team > Remote Replication… (first in the Team menu): the page, where sync is set up."""
    action = window.add_action("Remote Replication…", lambda: show_remote_settings(window), menu="&Team")
    action.setIcon(icons.icon("sync"))
    action.setToolTip("Where this project syncs: server, database, account, mode; check and set up the server")
    window.menu("&Team").addSeparator()
    return action
