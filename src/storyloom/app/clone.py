"""Joining a team: a new local project made from a remote database (``storyloom clone``).

The remote's ProjectSettings says which project it holds: the local project gets that project's
id (so later syncs pass the identity guard, and the project is the same one everywhere) and its
name. A database without a Storyloom ProjectSettings (empty, another program's) is refused before
anything is created. The remote settings (server, database, user; ``advanced`` mode unless the
user is one of the project's owners or a server admin) and the password are kept, so
``storyloom sync PROJECT`` needs nothing more. A failed pull leaves nothing behind (the project
is built in the manager's staging area).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from storyloom.app.remote import RemoteAccess, build_settings
from storyloom.app.secrets import PasswordStore
from storyloom.app.sync_once import PROJECT_IDENTITY, run_until
from storyloom.errors import Fix, StoryloomError
from storyloom.progress import Progress
from storyloom.progress import ProgressCallback as ProgressEvents
from storyloom.project import SETTINGS_ID, ProjectExists, is_uuid, name_problem
from storyloom.sync import ReplicationOptions, make_pull
from storyloom.sync.backoff import capped_backoff
from storyloom.sync.errors import RemoteForbidden, RemoteNotFound, RemoteUnauthorized
from storyloom.sync.remote import RemoteDatabase
from storyloom.sync.server_setup import project_owners
from storyloom.sync.urls import check_username, insecure_http_warning, parse_remote_url

if TYPE_CHECKING:
    from storyloom.app.workspace import Workspace
    from storyloom.sync.replicator import SyncEvent

#: ``on_progress(documents_written, documents_expected)``; the second is the remote's count when known.
#: (The older form; ``progress`` takes the shared :class:`storyloom.progress.Progress` events.)
ProgressCallback = Callable[[int, int | None], None]


class CloneError(StoryloomError):
    """The remote database cannot be cloned (no Storyloom project in it, no access, a failed pull)."""

    code = "clone_refused"
    fixes = ("owner_syncs", "share_project", "credentials_apart", "import_drafft", "other_name")


@dataclass
class CloneResult:
    project_id: str
    name: str
    database_url: str
    username: str
    mode: str
    docs_written: int
    notes: list[str] = field(default_factory=list)


def _signed_in_as_admin(remote: RemoteDatabase) -> bool:
    """Whether the user is a server admin; a :class:`CloneError` when the server refuses the credentials."""
    try:
        session = remote.session()
    except RemoteUnauthorized as exc:
        raise CloneError(
            f"{remote.server_url} refuses the user name {remote.username!r} with this password "
            f"({exc.reason or exc.error}): check both (the password comes from STORYLOOM_REMOTE_PASSWORD or the prompt)"
        ) from None
    ctx = session.get("userCtx") or {}
    if ctx.get("name") is None:
        raise CloneError(f"{remote.server_url} did not sign in {remote.username!r}: check the user name and password")
    return "_admin" in (ctx.get("roles") or [])


def _remote_settings_doc(remote: RemoteDatabase) -> dict[str, Any]:
    """The remote's ProjectSettings, or a :class:`CloneError` that says why there is none."""
    where = f"the database {remote.db_name!r} on {remote.server_url}"
    try:
        return remote.get(SETTINGS_ID)
    except RemoteNotFound:
        exists = remote.exists()
    except (RemoteUnauthorized, RemoteForbidden) as exc:
        raise CloneError(
            f"{remote.server_url} refuses {remote.username!r} access to {remote.db_name!r} ({exc.status} "
            f"{exc.reason or exc.error}): check the user name and password, and ask an admin to make "
            f"{remote.username!r} a member of the database"
        ) from None
    if not exists:
        raise CloneError(f"{where} does not exist: check the URL (the last part is the database name)")
    if _holds_no_documents(remote):
        raise CloneError(f"{where} is empty: the project's owner has not pushed the project yet",
                         fix=Fix("owner_syncs"))
    raise CloneError(
        f"{where} holds no Storyloom project (no ProjectSettings document), so there is nothing to clone",
        fix=Fix("share_project"),
    )


def _holds_no_documents(remote: RemoteDatabase) -> bool:
    """Whether the database holds nothing but design documents (the lock rules set-up installs)."""
    try:
        rows = remote.all_docs(limit=2, endkey='"_design/"').get("rows") or []
        rows += remote.all_docs(limit=2, startkey='"_design0"').get("rows") or []
    except StoryloomError:
        return False
    return not rows


def clone_project(
    workspace: Workspace,
    url: str,
    username: str,
    password: str | None,
    name: str | None = None,
    on_progress: ProgressCallback | None = None,
    *,
    passwords: PasswordStore | None = None,
    cancel: threading.Event | None = None,
    progress: ProgressEvents | None = None,
    **client_options: Any,
) -> CloneResult:
    """Make a new local project from the remote database at ``url`` (``http(s)://host[:port]/db``)
    as ``username``; see the module. ``name`` renames the clone (the name is part of the shared
    settings: the rename reaches the team on the next sync). Setting ``cancel`` (from any thread)
    stops the first pull within a second and keeps nothing. ``progress`` hears of the first pull
    (phase ``"clone"``: documents handled out of the remote's count). Returns what was made; raises
    :class:`CloneError`, ``InvalidRemote`` or a project error (``ProjectExists``) otherwise."""
    parsed = parse_remote_url(url)
    if parsed.password is not None:
        raise CloneError("the URL holds a password (a password in the URL can be seen by other users)",
                         fix=Fix("credentials_apart", password_only=True))
    check_username(username)
    notes: list[str] = []
    warning = insecure_http_warning(parsed.server)
    if warning:
        notes.append(f"warning: {warning}")
    manager = workspace.manager
    with RemoteDatabase(parsed, username=username, password=password, **client_options) as remote:
        admin = _signed_in_as_admin(remote)
        settings_doc = _remote_settings_doc(remote)
        project_id = settings_doc.get("projectId")
        remote_name = str(settings_doc.get("projectName") or "").strip()
        if not is_uuid(project_id):
            raise CloneError(
                f"the database {remote.db_name!r} holds a project without a Storyloom project id (made by "
                "another program, such as Drafft)", fix=Fix("import_drafft")
            )
        if any(info.id == project_id for info in manager.list()):
            here = manager.find(project_id)
            raise ProjectExists(
                f"this project ({remote_name!r}, id {project_id}) is already on this machine as {here.name!r}",
                fix=Fix("open_existing", project=here.name),
            )
        local_name = manager.check_new_name(name) if name is not None else _remote_name(manager, remote_name)
        total = _expected(remote)
        held: list[Progress] = []

        def pulling(event: Progress) -> None:
            # The pull's last event waits for the project index, built as the staging ends.
            if event.finished:
                held.append(event)
                event = dataclasses.replace(event, finished=False, detail="indexing")
            progress(event)  # type: ignore[misc]

        with manager.staging(project_id, local_name) as project:
            written = _pull(remote, project.store, on_progress, total, cancel, None if progress is None else pulling)
            if not isinstance(project.settings().get("projectId"), str):
                raise CloneError("the pulled ProjectSettings has no project id")
            if local_name != remote_name:
                project.editor.rename(SETTINGS_ID, local_name)
                notes.append(f"renamed to {local_name!r}: the team sees the new name after your next sync")
            # An owner (or a server admin) joining on another machine keeps easy mode: set-up and
            # invitations with an admin's name; a member cannot change the server.
            mode = "easy" if admin or username in (project_owners(remote) or ()) else "advanced"
            settings, more = build_settings(local_name, server=parsed.server, username=username,
                                            database=parsed.db_name, mode=mode)
            notes += [n for n in more if not n.startswith("warning:")]
            RemoteAccess(project, passwords).save(settings, password)
        project.close()
    if progress is not None and held:
        progress(held[-1])
    return CloneResult(project_id, local_name, parsed.db_url, username, mode, written, notes)


def _remote_name(manager: Any, remote_name: str) -> str:
    """The remote project's name, if it can name a project here."""
    problem = name_problem(remote_name) if remote_name else "the remote project has no name"
    if problem:
        raise CloneError(f"the remote project's name cannot be used here ({problem})",
                         fix=Fix("other_name", verb="clone"))
    try:
        return manager.check_new_name(remote_name)
    except ProjectExists:
        raise ProjectExists(f"a project named {remote_name!r} exists here already",
                            fix=Fix("other_name", verb="clone")) from None


def _expected(remote: RemoteDatabase) -> int | None:
    try:
        info = remote.info()
    except StoryloomError:
        return None
    count = info.get("doc_count")
    return int(count) + int(info.get("doc_del_count") or 0) if isinstance(count, int) else None


def _pull(remote: RemoteDatabase, store: Any, on_progress: ProgressCallback | None, total: int | None,
          cancel: threading.Event | None = None, progress: ProgressEvents | None = None) -> int:
    options = ReplicationOptions(
        retry=True,
        max_retries=3,
        backoff=capped_backoff(10.0),
        create_target=False,
        identity=PROJECT_IDENTITY,
    )

    def on_event(event: SyncEvent) -> None:
        if on_progress is not None and event.type in ("change", "complete"):
            written = event.status.docs_written
            # (an estimate: pouchdb-server counts no deleted documents, so tombstones such as the
            # replicated-writes probe's can take the count past it)
            on_progress(written, None if total is None else max(total, written))

    if cancel is not None and cancel.is_set():
        raise CloneError("the clone was cancelled, nothing was kept")
    def as_clone(event: Progress) -> None:
        progress(dataclasses.replace(event, phase="clone"))  # type: ignore[misc]

    replicator = make_pull(remote, store, options, on_event, progress=None if progress is None else as_clone)
    # (with ``cancel``, in the background, so that setting it stops the pull at once)
    status = run_until(replicator.run, replicator.cancel, cancel)
    if status.state == "error":
        raise CloneError(f"the first pull failed, nothing was kept: {status.last_error_message}")
    if status.state == "cancelled":
        raise CloneError("the clone was cancelled, nothing was kept")
    return status.docs_written
