"""The team dialogs: the server admin's account (asked for by Set up and Invite teammate… in easy
mode, used for that and never kept), Invite teammate… (from Project Settings > Remote
Replication) and, in the project manager, Join a project from a server….

Both run the domain's functions on a worker thread (:class:`~storyloom.gui.tasks.Task`):
``storyloom remote invite``'s :func:`~storyloom.sync.server_setup.invite` through
:func:`storyloom.app.views.remote_form.invite_teammate`, and ``storyloom clone``'s
:func:`storyloom.app.clone.clone_project`, whose first pull shows its progress and can be
cancelled (nothing is kept then). A refusal says its cause and what to do, in the dialog.
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QCloseEvent, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from storyloom.app import ProjectSession, Workspace
from storyloom.app.clone import CloneResult, clone_project
from storyloom.app.team_setup import AdminLogin, AdminNeeded
from storyloom.app.views import explain
from storyloom.app.views import remote_form as form
from storyloom.gui import icons, theme
from storyloom.gui.tasks import Task
from storyloom.gui.widgets import dialog_layout, set_role
from storyloom.sync.server_setup import Invitation


def _field(layout: QVBoxLayout, caption: str, edit: QLineEdit) -> QLabel:
    label = QLabel(caption)
    label.setBuddy(edit)
    layout.addWidget(label)
    layout.addWidget(edit)
    error = set_role(QLabel(""), "error")
    error.setWordWrap(True)
    error.hide()
    layout.addWidget(error)
    layout.addSpacing(theme.S)
    return error


def _show(label: QLabel, text: str) -> None:
    label.setText(text)
    label.setVisible(bool(text))


def _mark(edit: QLineEdit, bad: bool) -> None:
    edit.setProperty("invalid", "true" if bad else "false")
    edit.style().unpolish(edit)
    edit.style().polish(edit)


class AdminFields(QWidget):
    """A server admin's name and password, with what they are for: set-up and invitations only,
    never kept (the page holds them in memory while it is open)."""

    def __init__(self, purpose: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(theme.S)
        note = set_role(QLabel(f"{purpose} needs a server admin's account. It is used for this only and never "
                               "kept: you keep syncing as your own user."), "caption")
        note.setObjectName("adminNote")
        note.setWordWrap(True)
        box.addWidget(note)
        box.addSpacing(theme.XS)
        self.name = QLineEdit()
        self.name.setObjectName("adminName")
        self.name.setPlaceholderText("e.g. admin")
        self.name_error = _field(box, "Server &admin", self.name)
        self.password = QLineEdit()
        self.password.setObjectName("adminPassword")
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password_error = _field(box, "Admin &password", self.password)

    def problem(self) -> str:
        """What is missing or wrong ("" when the fields can be used)."""
        name = self.name.text().strip()
        if not name:
            return "Type the server admin's user name."
        problem = form.check_invitee(name)
        if problem:
            return problem.replace("teammate's", "admin's")
        if not self.password.text():
            return "Type the server admin's password."
        return ""

    def login(self) -> AdminLogin | None:
        """The account typed, or None while something is missing."""
        if self.problem():
            return None
        return AdminLogin(self.name.text().strip(), self.password.text())

    def set_login(self, login: AdminLogin | None) -> None:
        if login is not None:
            self.name.setText(login.username)
            self.password.setText(login.password)


class AdminLoginDialog(QDialog):
    """Asks for the server admin's account for one set-up (easy mode)."""

    def __init__(self, purpose: str, parent: QWidget | None = None, *, message: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("adminLoginDialog")
        self.setWindowTitle("Server admin account")
        self.setMinimumWidth(520)
        layout, _heading = dialog_layout(self, "Server admin account")
        self.message = set_role(QLabel(message), "error")
        self.message.setObjectName("adminMessage")
        self.message.setWordWrap(True)
        self.message.setVisible(bool(message))
        layout.addWidget(self.message)
        self.fields = AdminFields(purpose)
        layout.addWidget(self.fields)
        buttons = QHBoxLayout()
        buttons.setSpacing(theme.S)
        buttons.addStretch(1)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        self.continue_button = QPushButton("Continue")
        self.continue_button.setObjectName("adminContinue")
        self.continue_button.setProperty("primary", "true")
        self.continue_button.setDefault(True)
        self.continue_button.clicked.connect(self.accept)
        buttons.addWidget(cancel)
        buttons.addWidget(self.continue_button)
        layout.addLayout(buttons)
        for edit in (self.fields.name, self.fields.password):
            edit.textChanged.connect(self._check)
        self._check()

    def _check(self) -> None:
        self.continue_button.setEnabled(not self.fields.problem())

    def login(self) -> AdminLogin | None:
        return self.fields.login()

    def accept(self) -> None:
        if self.fields.login() is None:
            return
        super().accept()


class _Progress(QObject):
    """The first pull's progress, from the worker thread to the dialog (queued)."""

    moved = Signal(int, object)


class InviteDialog(QDialog):
    """Invite a teammate: their user name, then (after the server made the account) the join
    instructions with the password, shown once, and a Copy button."""

    def __init__(self, session: ProjectSession, parent: QWidget | None = None, *,
                 admin: AdminLogin | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("inviteDialog")
        #: The server admin's account (in memory only); shown to be typed when the server needs it.
        self.admin = admin
        self.setWindowTitle("Invite a teammate")
        self.setMinimumWidth(760)
        self.session = session
        self.task: Task | None = None
        self.invitation: Invitation | None = None
        self.instructions = ""
        settings = session.remote.settings
        database = settings.database if settings else "the database"
        layout, heading = dialog_layout(self, "Invite a teammate")
        self.heading = heading.title
        self.pages = QStackedWidget()
        layout.addWidget(self.pages, 1)

        ask = QWidget()
        box = QVBoxLayout(ask)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(theme.S)
        intro = set_role(QLabel(f"Storyloom creates an account for them on the server, with a new password, and "
                                f"makes them a member of {database!r}. An account that exists already keeps its "
                                "password."), "caption")
        intro.setWordWrap(True)
        box.addWidget(intro)
        box.addSpacing(theme.S)
        self.username = QLineEdit()
        self.username.setObjectName("inviteUsername")
        self.username.setPlaceholderText("e.g. bob")
        self.username.textChanged.connect(self._check)
        self.error = _field(box, "Their &user name on the server", self.username)
        self.reset = QCheckBox("Give an existing account a new password (the old one stops working)")
        self.reset.setObjectName("inviteReset")
        self.reset.setToolTip("For a teammate who lost their invitation: a new password is made and shown once")
        box.addWidget(self.reset)
        self.drafft = QCheckBox("They use Drafft: say what to enter in Drafft")
        self.drafft.setObjectName("inviteDrafft")
        self.drafft.setToolTip("Adds the server, database and the Drafft user name its locks need "
                               "(exactly the server user name)")
        box.addWidget(self.drafft)
        box.addSpacing(theme.S)
        self.admin_fields = AdminFields("Inviting a teammate")
        self.admin_fields.setObjectName("inviteAdmin")
        self.admin_fields.set_login(admin)
        self.admin_fields.hide()
        for edit in (self.admin_fields.name, self.admin_fields.password):
            edit.textChanged.connect(self._check)
        box.addWidget(self.admin_fields)
        box.addStretch(1)
        self.pages.addWidget(ask)

        done = QWidget()
        box = QVBoxLayout(done)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(theme.S)
        self.result_label = QLabel()
        self.result_label.setObjectName("inviteResult")
        self.result_label.setWordWrap(True)
        box.addWidget(self.result_label)
        self.once = set_role(QLabel("The password is shown only now: copy the instructions and send them to your "
                                    "teammate privately (not in a public channel)."), "caption")
        self.once.setWordWrap(True)
        box.addWidget(self.once)
        self.text = QPlainTextEdit()
        self.text.setObjectName("joinInstructions")
        self.text.setReadOnly(True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setMinimumHeight(170)
        box.addWidget(self.text, 1)
        self.pages.addWidget(done)

        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.setTextVisible(False)
        self.progress.setFixedHeight(6)
        self.progress.hide()
        layout.addWidget(self.progress)
        buttons = QHBoxLayout()
        buttons.setSpacing(theme.S)
        buttons.addStretch(1)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.reject)
        self.copy_button = QPushButton(icons.icon("document"), "Copy")
        self.copy_button.setObjectName("inviteCopy")
        self.copy_button.clicked.connect(self.copy)
        self.copy_button.hide()
        self.invite_button = QPushButton("Invite")
        self.invite_button.setObjectName("inviteStart")
        self.invite_button.setProperty("primary", "true")
        self.invite_button.setDefault(True)
        self.invite_button.clicked.connect(self.start)
        for button in (self.cancel_button, self.copy_button, self.invite_button):
            buttons.addWidget(button)
        layout.addLayout(buttons)
        self._check()

    def _check(self) -> str:
        problem = form.check_invitee(self.username.text())
        typed = bool(self.username.text())
        _show(self.error, problem if typed else "")
        _mark(self.username, bool(problem) and typed)
        problem = problem or self._admin_problem()
        self.invite_button.setEnabled(not problem and self.task is None)
        return problem

    def _admin_problem(self) -> str:
        """What the admin's fields lack, while they are shown ("" otherwise)."""
        return self.admin_fields.problem() if self.admin_fields.isVisible() else ""

    def ask_admin(self, message: str = "") -> None:
        """Show the server admin's fields (the server needs an admin's account to invite)."""
        self.admin_fields.show()
        self._check()  # before the message: checking the user name clears the line it shares
        _show(self.error, message)
        (self.admin_fields.name if not self.admin_fields.name.text() else self.admin_fields.password).setFocus()

    def start(self) -> Task | None:
        """Create the account on a worker thread."""
        if self.invitation is not None:
            self.accept()
            return None
        if self.task is not None or self._check():
            return None
        if self.admin_fields.isVisible():
            self.admin = self.admin_fields.login()
        session, username, admin, reset = self.session, self.username.text(), self.admin, self.reset.isChecked()
        task = Task(lambda: form.invite_teammate(session, username, admin, reset_password=reset),
                    "Inviting a teammate", self)
        task.succeeded.connect(self._invited)
        task.failed.connect(self._failed)
        self.task = task
        self.username.setEnabled(False)
        self.invite_button.setEnabled(False)
        self.progress.show()
        task.start()
        return task

    def _finish(self) -> None:
        if self.task is not None:
            self.task.release()
        self.task = None
        self.progress.hide()
        self.username.setEnabled(True)

    def _invited(self, invitation: Invitation) -> None:
        self._finish()
        self.invitation = invitation
        settings = self.session.remote.settings
        database = settings.database if settings else "the database"
        if invitation.reset:
            self.result_label.setText(f"Gave {invitation.username!r} a new password (the old one no longer works); "
                                      f"they are a member of {database!r}.")
        elif invitation.password is not None:
            self.result_label.setText(f"Created the account {invitation.username!r} on the server and made it a "
                                      f"member of {database!r}.")
        else:
            self.result_label.setText(f"{invitation.username!r} already has an account on the server (its password "
                                      f"is unchanged); they are now a member of {database!r}.")
            self.once.setText("Send them these instructions; they sign in with the password they already have.")
        self.instructions = form.join_instructions(invitation, self.session.name)
        if self.drafft.isChecked():
            from storyloom.sync.drafft_join import drafft_instructions

            settings = self.session.remote.settings
            if settings is not None:
                self.instructions += "\n\n" + drafft_instructions(
                    invitation, server=settings.server, database=settings.database,
                    say=lambda fix: explain.fix_words(fix, project=self.session.name))
        self.text.setPlainText(self.instructions)
        self.heading.setText("Invitation ready")
        self.pages.setCurrentIndex(1)
        self.copy_button.show()
        self.cancel_button.hide()
        self.invite_button.setText("Done")
        self.invite_button.setEnabled(True)

    def _failed(self, exc: BaseException) -> None:
        self._finish()
        if isinstance(exc, AdminNeeded):
            self.admin = None
            self.ask_admin("Type a server admin's account to invite (used for this only, never kept).")
            return
        _show(self.error, explain.explain(exc, project=self.session.name, username=self.username.text()).to_text())
        self._check_button()

    def _check_button(self) -> None:
        self.invite_button.setEnabled(not (form.check_invitee(self.username.text()) or self._admin_problem()))

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.instructions)
        self.copy_button.setText("Copied")

    def stop_work(self) -> None:
        if self.task is not None:
            self.task.wait()

    def reject(self) -> None:
        self.stop_work()
        super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.stop_work()
        super().closeEvent(event)


class JoinDialog(QDialog):
    """Join a project from a server: the database URL, the user name and password of the
    invitation, and the name here; the first pull runs with its progress. ``joined(result)``
    fires with the :class:`~storyloom.app.clone.CloneResult` when the project is on this machine."""

    joined = Signal(object)

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("joinDialog")
        self.setWindowTitle("Join a project from a server")
        self.setMinimumWidth(580)
        self.workspace = workspace
        self.task: Task | None = None
        self.result: CloneResult | None = None
        self.refusal: explain.Explanation | None = None
        self._cancel = threading.Event()
        layout, _heading = dialog_layout(
            self, "Join a project from a server", "Copies a team's project from its server database to this machine "
            "and keeps it in sync. The invitation you received has the URL, your user name and your password.")
        layout.addSpacing(theme.S)
        self.form = QWidget()
        box = QVBoxLayout(self.form)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(theme.XS)
        self.url = QLineEdit()
        self.url.setObjectName("joinUrl")
        self.url.setPlaceholderText("https://couch.example.com/app_v2_story")
        self.username = QLineEdit()
        self.username.setObjectName("joinUsername")
        self.password = QLineEdit()
        self.password.setObjectName("joinPassword")
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.name = QLineEdit()
        self.name.setObjectName("joinName")
        self.name.setPlaceholderText("the project's own name")
        self.errors = {
            "url": _field(box, "Database &URL", self.url),
            "username": _field(box, "&User name", self.username),
            "password": _field(box, "&Password", self.password),
            "name": _field(box, "&Name on this machine (optional)", self.name),
        }
        for edit in (self.url, self.username, self.password):
            edit.textChanged.connect(self._check)
        layout.addWidget(self.form)
        layout.addSpacing(theme.S)
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self.progress.setFixedHeight(6)
        self.progress.hide()
        self.progress_text = set_role(QLabel(""), "caption")
        self.progress_text.hide()
        layout.addWidget(self.progress)
        layout.addWidget(self.progress_text)
        self.error = set_role(QLabel(""), "error")
        self.error.setObjectName("joinError")
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.hide()
        layout.addWidget(self.error)
        buttons = QHBoxLayout()
        buttons.setSpacing(theme.S)
        buttons.addStretch(1)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.join_button = QPushButton(icons.icon("import", theme.colors().accent_text), "Join")
        self.join_button.setObjectName("joinStart")
        self.join_button.setProperty("primary", "true")
        self.join_button.setDefault(True)
        self.join_button.clicked.connect(self.start)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.join_button)
        layout.addLayout(buttons)
        self._moved = _Progress(self)
        self._moved.moved.connect(self._progress)
        self._check()

    def _check(self) -> dict[str, str]:
        problems = form.check_join_fields(self.url.text(), self.username.text(), self.password.text())
        for key, edit in (("url", self.url), ("username", self.username), ("password", self.password)):
            shown = problems.get(key, "") if edit.text() else ""
            _show(self.errors[key], shown)
            _mark(edit, bool(shown))
        self.join_button.setEnabled(not problems and self.task is None)
        return problems

    def start(self) -> Task | None:
        """Clone on a worker thread, with the first pull's progress."""
        if self.task is not None or self._check():
            return None
        self._cancel.clear()
        workspace, cancel, moved = self.workspace, self._cancel, self._moved.moved.emit
        url, username, password = self.url.text().strip(), self.username.text(), self.password.text()
        name = self.name.text().strip() or None

        def work() -> CloneResult:
            return clone_project(workspace, url, username, password, name, lambda done, total: moved(done, total),
                                 cancel=cancel)

        task = Task(work, "Joining the project", self)
        task.succeeded.connect(self._joined)
        task.failed.connect(self._failed)
        self.task = task
        self.refusal = None
        _show(self.error, "")
        self.form.setEnabled(False)
        self.join_button.setEnabled(False)
        self.progress.setRange(0, 0)
        self.progress.show()
        self.progress_text.setText("Signing in and reading the project…")
        self.progress_text.show()
        task.start()
        return task

    def _progress(self, done: int, total: Any) -> None:
        if isinstance(total, int) and total > 0:
            self.progress.setRange(0, total)
            self.progress.setValue(min(done, total))
            self.progress_text.setText(f"Pulling the documents: {done:,} of {total:,}")
        else:
            self.progress_text.setText(f"Pulling the documents: {done:,}")

    def _finish(self) -> None:
        if self.task is not None:
            self.task.release()
        self.task = None
        self.progress.hide()
        self.progress_text.hide()
        self.form.setEnabled(True)

    def _joined(self, result: CloneResult) -> None:
        self._finish()
        self.result = result
        self.joined.emit(result)
        self.accept()

    def _failed(self, exc: BaseException) -> None:
        self._finish()
        if self._cancel.is_set():
            self.refusal = explain.Explanation("Cancelled: nothing was kept on this machine.")
        else:
            self.refusal = explain.explain(exc, username=self.username.text())
        _show(self.error, self.refusal.to_text())
        self._check()

    def cancel(self) -> None:
        """Stop a running join (nothing is kept), else close the dialog."""
        if self.task is not None:
            self._cancel.set()
            self.progress_text.setText("Cancelling…")
            return
        self.reject()

    def stop_work(self) -> None:
        if self.task is not None:
            self._cancel.set()
            self.task.wait()

    def reject(self) -> None:
        self.stop_work()
        super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.stop_work()
        super().closeEvent(event)
