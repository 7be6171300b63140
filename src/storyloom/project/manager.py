"""Projects on this machine: create, list, open, rename, delete, back up and restore.

Each project lives in ``storyloom.paths.projects_dir()/<project-id>/``: the store file
(``store.sqlite3``) and a small metadata file (``project.json``: id, name, creation time) so
that listing projects does not open every store. The ProjectSettings document inside the store
is the source of truth for the name; the metadata file is refreshed from it when a project is
opened.

A backup is the project's ``all_docs`` dump with ``include_docs`` and ``attachments`` (the same
JSON as Drafft's backups and ``/db-dump``). Restoring keeps every revision id, so a restored
project still replicates cleanly with its remote.

A project's folder is private to its owner (0700) and its store files and ``project.json`` are
too (0600): they hold the project's data and its remote settings.

A project being built (an import, a restore, a create) carries a marker file,
``.storyloom-unfinished``, from the moment its folder exists until its metadata is written. The
building process holds an exclusive lock on the marker (``flock``; on Windows the open file
cannot be deleted), so a marker nobody holds is left by a process that died midway (killed, power
loss). Such folders are never listed, and a manager removes them the first time it looks at its
projects.
"""

from __future__ import annotations

import builtins
import codecs
import contextlib
import errno
import json
import re
import stat
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import accumulate, chain
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from storyloom import paths
from storyloom.errors import Fix, StoryloomError
from storyloom.output_files import OutputError, OutputExists, atomic_write, resolve_output, write_chunks
from storyloom.progress import ProgressCallback, reporter
from storyloom.project.attachment_digests import (
    DamagedAttachment,
    DamagedAttachmentsError,
    damaged_attachments,
    damaged_warnings,
)
from storyloom.project.collections import SETTINGS_ID
from storyloom.project.dates import now_iso
from storyloom.project.names import name_problem
from storyloom.project.settings import default_settings, is_uuid, new_project_id
from storyloom.project.staging import UNFINISHED_MARKER, UnfinishedMarker, remove_abandoned
from storyloom.project.users import os_username
from storyloom.store.errors import Damaged, NotAStore, NotFound, StoreError
from storyloom.store.revtree import parse_rev  # plain functions: no store is opened for them

if TYPE_CHECKING:
    from storyloom.project.bulk import BulkContext
    from storyloom.project.editor import Editor
    from storyloom.project.spool import FileSpool
    from storyloom.store import Database
    from storyloom.store.verify import Damage

# The store, the editor gate and the restore's machinery are imported where a project is opened,
# checked or restored: listing and finding projects reads only their metadata files, and
# `storyloom list` pays for nothing else (tests/test_cli_imports.py).

STORE_FILE = "store.sqlite3"
META_FILE = "project.json"
FORMAT_VERSION = 1
# Only the owner may list, read or write a project's folder.
PROJECT_DIR_MODE = 0o700
# ... and read its metadata file (the store files are made 0600 by the store).
META_FILE_MODE = 0o600
# Deeper documents are refused when a backup is read: Python's recursion (copies, encoders)
# cannot handle them reliably, and no Drafft or Storyloom document nests more than a dozen levels.
MAX_NESTING = 200
# JSON nested deeper than this anywhere in a dump is read by Python's parser (which refuses it:
# deeper than it can follow) rather than streamed.
STREAM_DEPTH = 1000


class ProjectError(StoryloomError):
    """A project-level failure with a message meant for the user."""

    code = "project_error"


class ProjectNotFound(ProjectError):
    code = "project_not_found"
    pass


class ProjectExists(ProjectError):
    """A project of that name (or id) is here already."""

    code = "project_exists"
    fixes = ("open_existing", "other_name", "restore_copy")


class BackupError(ProjectError):
    """A backup file that cannot be restored (not a dump, not a Storyloom backup, bad documents);
    a Drafft backup is imported instead (``import_drafft``)."""

    code = "bad_backup"
    fixes = ("import_drafft",)


class BackupExists(BackupError):
    """The backup's file exists, and a backup replaces a file only when forced."""

    code = "backup_exists"
    fixes = ("replace_file",)

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} exists already", fix=Fix("replace_file", path=str(path)))
        self.path = path


class DamagedBackupError(DamagedAttachmentsError, BackupError):
    """A backup with attachments whose bytes do not match their recorded digest: nothing was
    restored (``restore(..., accept_damaged=True)`` restores them as they are)."""

    code = "damaged_backup"


class InvalidProjectName(ProjectError):
    """A project name that breaks the rules of :mod:`storyloom.project.names`."""

    code = "invalid_project_name"
    fixes = ("other_name",)


@dataclass(frozen=True)
class ProjectInfo:
    """A project as listed (from its metadata file, without opening the store)."""

    id: str
    name: str
    path: Path
    created: str | None = None


class Project:
    """One open project: its store (``db``), id, name, settings and editing service."""

    def __init__(self, directory: Path, db: Database, project_id: str, make_editor: Callable[[], Editor]) -> None:
        from storyloom.store.read_view import ReadView

        self.path = directory
        #: The store itself, for replication (which writes revisions as they are) and closing.
        self.store = db
        #: The reads of the store: documents are written through ``editor``, the one gate.
        self.db = ReadView(db)
        self._id = project_id
        # The editor (its index, checks and merge code) is made at its first use: a verb that
        # only reads (``storyloom doc get``) never loads it.
        self._editor: Editor | None = None
        self._make_editor = make_editor
        self._editor_lock = threading.Lock()

    @property
    def editor(self) -> Editor:
        """The editing service: every write of a document goes through it."""
        editor = self._editor
        if editor is None:
            with self._editor_lock:
                if self._editor is None:
                    self._editor = self._make_editor()
                editor = self._editor
        return editor

    @property
    def id(self) -> str:
        return self._id

    @property
    def name(self) -> str:
        try:
            return str(self.settings().get("projectName") or "")
        except NotFound:  # settings not written yet (a project being built)
            return str(_read_meta(self.path).get("name", ""))

    def settings(self) -> dict[str, Any]:
        """The ProjectSettings document."""
        settings: dict[str, Any] = self.db.get(SETTINGS_ID)  # through the ReadView: Database.get
        return settings

    def build_index(self) -> None:
        """Catch the project index up with the store and save it beside the store, then let go
        of it: the next opening loads it instead of building it from every document (about
        5 s at 100,000 documents, which a first opening would pay on the app's GUI thread).
        Unless the editor holds it already, it is built straight into its file, in memory that
        does not grow with the project."""
        if self._editor is not None and self._editor.index_loaded:
            self._editor.index.refresh()
            self._editor.close_index()
        else:
            from storyloom.project.index import build_index_file

            build_index_file(self.store)

    def close(self) -> None:
        # The index is saved first, so the next opening reads only what changes until then.
        if self._editor is not None:
            self._editor.close_index()
        self.store.close()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Project(id={self.id!r}, path={str(self.path)!r})"


def _read_meta(directory: Path) -> dict[str, Any]:
    try:
        data = json.loads((directory / META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_meta(directory: Path, data: dict[str, Any]) -> None:
    """``project.json``, atomically and private (0600) as the project's other files."""
    atomic_write(directory / META_FILE, json.dumps(data, indent=2) + "\n", mode=META_FILE_MODE)


class ProjectManager:
    """The projects under ``root`` (default: ``storyloom.paths.projects_dir()``)."""

    def __init__(self, root: Path | str | None = None, username: str | Callable[[], str] | None = None) -> None:
        self._root = Path(root) if root is not None else None
        self._username_source = username
        self._swept = False

    @property
    def root(self) -> Path:
        root = self._root or paths.projects_dir()
        root.mkdir(parents=True, exist_ok=True)
        if not self._swept:  # once per manager: folders of builds that died midway
            self._swept = True
            remove_abandoned(root, META_FILE)
        return root

    def _username(self) -> str:
        """The name the editor stamps: the one given (a callable follows later changes), else the OS user."""
        source = self._username_source
        name = source() if callable(source) else source
        return name or os_username()

    # -- listing and lookup ------------------------------------------------------------------

    def list(self) -> list[ProjectInfo]:
        """Every project, by name."""
        found = []
        for directory in sorted(self.root.iterdir()):
            meta = _read_meta(directory) if directory.is_dir() else {}
            if meta.get("id") and (directory / STORE_FILE).exists() and not (directory / UNFINISHED_MARKER).exists():
                found.append(ProjectInfo(meta["id"], meta.get("name", ""), directory, meta.get("created")))
        return sorted(found, key=lambda p: (p.name.casefold(), p.id))

    def find(self, name_or_id: str) -> ProjectInfo:
        """The project with this id, or else this name (exact, then ignoring case)."""
        projects = self.list()
        for info in projects:
            if info.id == name_or_id:
                return info
        for matches in (
            [p for p in projects if p.name == name_or_id],
            [p for p in projects if p.name.casefold() == name_or_id.casefold()],
        ):
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                ids = ", ".join(p.id for p in matches)
                raise ProjectError(f"several projects are named {name_or_id!r} ({ids}); open one by id")
        known = ", ".join(f"{p.name!r}" for p in projects) or "none"
        raise ProjectNotFound(f"no project named or with id {name_or_id!r} (projects: {known})")

    def _name_taken(self, name: str, except_id: str | None = None) -> bool:
        return any(p.name.casefold() == name.casefold() and p.id != except_id for p in self.list())

    def unique_name(self, name: str) -> str:
        """``name``, or ``name (2)``, ``name (3)``... whichever no project uses yet."""
        candidate, counter = name, 2
        while self._name_taken(candidate):
            candidate = f"{name} ({counter})"
            counter += 1
        return candidate

    def check_new_name(self, name: Any, except_id: str | None = None) -> str:
        """``name`` without surrounding whitespace, if it may name a project here (the rules of
        :mod:`storyloom.project.names`, and no other project with that name, ignoring case);
        :class:`InvalidProjectName` or :class:`ProjectExists` otherwise."""
        if isinstance(name, str):
            name = name.strip()
        problem = name_problem(name)
        if problem:
            raise InvalidProjectName(problem)
        assert isinstance(name, str)  # name_problem names a problem with anything else
        if self._name_taken(name, except_id):
            raise ProjectExists(f"a project named {name!r} already exists")
        return name

    # -- open / create -----------------------------------------------------------------------

    def _open_dir(self, directory: Path, project_id: str) -> Project:
        from storyloom.store import Database

        def make_editor() -> Editor:
            from storyloom.project.editor import Editor

            return Editor(db, self._username)

        with contextlib.suppress(OSError):  # a folder made before folders were private becomes so
            if stat.S_IMODE(directory.stat().st_mode) != PROJECT_DIR_MODE:
                directory.chmod(PROJECT_DIR_MODE)
        store = directory / STORE_FILE
        try:
            db = Database(str(store))
        except NotAStore as exc:  # the project's own store: whatever is there was one
            raise Damaged(str(store), detail=exc.reason) from None
        return Project(directory, db, project_id, make_editor)

    # -- damage ------------------------------------------------------------------------------

    def verify(
        self, name_or_id: str, progress: Callable[[int, int], None] | None = None
    ) -> builtins.list[Damage]:  # "builtins.": a method of this class is named list
        """Everything damaged in the project's store (:func:`storyloom.store.verify.verify`);
        a store that does not even open is one damage to the store file."""
        from storyloom.store import Database
        from storyloom.store.verify import Damage, verify

        info = self.find(name_or_id)
        try:
            db = Database(str(info.path / STORE_FILE), create=False)
        except (Damaged, NotAStore) as exc:
            return [Damage(None, None, getattr(exc, "detail", "") or exc.reason)]
        try:
            return verify(db, progress)
        finally:
            db.close()

    def open(self, name_or_id: str) -> Project:
        """Open a project by id or name."""
        info = self.find(name_or_id)
        project = self._open_dir(info.path, info.id)
        try:
            name = project.settings().get("projectName")
        except NotFound:
            name = None
        if isinstance(name, str) and name and name != info.name:
            meta = _read_meta(info.path)
            meta["name"] = name
            _write_meta(info.path, meta)
        return project

    @contextlib.contextmanager
    def staging(self, project_id: str | None = None, name: str = "") -> Iterator[Project]:
        """A new, empty project being built (an import, a restore). If the block raises, the
        project directory is removed, so a failure leaves nothing behind; on success the project
        index is built and saved and the metadata file is written (the block must have written
        the ProjectSettings document)."""
        project_id = project_id or new_project_id()
        if not is_uuid(project_id):
            raise ProjectError(f"a project id must be a UUID, got {project_id!r}")
        directory = self.root / project_id
        if directory.exists():
            raise ProjectExists(f"a project with id {project_id} already exists")
        directory.mkdir(mode=PROJECT_DIR_MODE)
        directory.chmod(PROJECT_DIR_MODE)  # the exact mode, whatever the umask
        project: Project | None = None
        marker: UnfinishedMarker | None = None
        try:
            marker = UnfinishedMarker.create(directory)
            project = self._open_dir(directory, project_id)
            yield project
            settings = project.settings()
            if settings.get("projectId") != project_id:
                raise ProjectError("the settings document does not carry the project's id")
            # Built here, in the import's, restore's or clone's own work (a worker thread in the
            # app, with its progress), not on the first opening.
            project.build_index()
            _write_meta(directory, {
                "id": project_id,
                "name": settings.get("projectName") or name,
                "created": now_iso(),
                "formatVersion": FORMAT_VERSION,
            })
            marker.finish()
        except BaseException:
            if project is not None:
                with contextlib.suppress(Exception):
                    project.close()
            if marker is not None:
                marker.release()
            import shutil  # here: with its archive modules, a cost every verb would pay at start

            shutil.rmtree(directory, ignore_errors=True)
            raise

    def create(self, name: str, description: str = "", *, project_id: str | None = None) -> Project:
        """Create a project with default settings; names are unique (ignoring case)."""
        name = self.check_new_name(name)
        with self.staging(project_id, name) as project:
            project.editor.create_settings(default_settings(name, description, project_id=project.id))
        return project

    # -- changes -----------------------------------------------------------------------------

    def _resolve(self, project: Project | str) -> tuple[ProjectInfo, Project | None]:
        if isinstance(project, Project):
            return ProjectInfo(project.id, project.name, project.path), project
        return self.find(project), None

    def rename(self, project: Project | str, new_name: str) -> str:
        """Rename a project (its settings' ``projectName`` and its metadata); returns the name."""
        info, opened = self._resolve(project)
        new_name = self.check_new_name(new_name, except_id=info.id)
        target = opened or self._open_dir(info.path, info.id)
        try:
            target.editor.rename(SETTINGS_ID, new_name)
        finally:
            if opened is None:
                target.close()
        meta = _read_meta(info.path)
        meta["name"] = new_name
        _write_meta(info.path, meta)
        return new_name

    def delete(self, project: Project | str) -> None:
        """Delete a project and its directory (closing it first if it is open)."""
        info, opened = self._resolve(project)
        if opened is not None:
            opened.close()
        import shutil

        shutil.rmtree(info.path)

    # -- backup / restore --------------------------------------------------------------------

    def backup(self, project: Project | str, file: Path | str, *, progress: ProgressCallback | None = None,
               force: bool = False) -> Path:
        """Write the project's ``all_docs`` dump (documents and attachments) to ``file``; returns
        the file written. ``file`` follows :func:`storyloom.output_files.resolve_output`: a folder
        (an existing one, or a ``str`` ending in a separator, created when absent) gets
        :func:`backup_file_name` (``<name>-<UTC time>.json``) inside it, or a free numbered name
        beside a backup already there; an existing file is replaced only with ``force``
        (:class:`BackupExists` otherwise, and nothing is written). The file is written
        atomically, and the partial files of backups killed midway in that folder are removed
        first. The dump is streamed from one snapshot of the store, a document at a time (memory
        bounded whatever the project's size); ``progress`` hears phase ``"backup"``, documents
        written out of the project's."""
        info, opened = self._resolve(project)
        try:
            output = resolve_output(file, backup_file_name(info.name), replace=force)
        except OutputExists as exc:
            raise BackupExists(exc.path) from None
        except OutputError as exc:
            raise BackupError(str(exc)) from None
        target = opened or self._open_dir(info.path, info.id)
        try:
            report = reporter(progress, "backup", target.store.info()["doc_count"] if progress else None)
            report.set_detail(f"writing {output.path.name}")

            def chunks() -> Iterator[str]:
                # One chunk is the header, then one per document, then the tail.
                for count, chunk in enumerate(target.db.all_docs_stream(include_docs=True, attachments=True)):
                    yield chunk
                    if count and report.total is not None and count <= report.total:
                        report.update(count)

            try:
                written, _ = write_chunks(output.path, chunks(), replace=force, numbered=output.in_folder)
            except OutputExists as exc:  # taken while the backup was written
                raise BackupExists(exc.path) from None
            except OSError as exc:
                if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                    raise BackupError(f"cannot write the backup to {output.path}: the disk is full (nothing was "
                                      "left behind); free space, or choose a folder on another disk") from None
                raise BackupError(
                    f"cannot write the backup to {output.path}: {exc.strerror or exc}; choose another file or folder"
                ) from None
            report.finish()
        finally:
            if opened is None:
                target.close()
        return written

    def restore(self, file: Path | str, name: str | None = None, *, new_id: bool = False,
                progress: ProgressCallback | None = None, accept_damaged: bool = False,
                on_warning: Callable[[str], None] | None = None) -> Project:
        """A new project from a Storyloom backup file.

        The project keeps the backup's project id and every revision id, unless ``new_id`` (a
        copy: fresh project id, same revisions). Restoring a backup whose project still exists
        here needs ``new_id``. ``name`` defaults to the backup's name (made unique). Drafft
        backups are imported instead (``storyloom import``).

        The file is read as a stream, never whole: its documents are checked (every revision,
        the settings) and wait in a temporary file (:class:`~storyloom.project.spool.FileSpool`),
        from where they are written in batches, each checked against the whole backup
        (:class:`~storyloom.project.bulk.BulkContext`). ``progress`` hears phase ``"restore"``: documents checked,
        then documents written out of the total.

        An attachment whose bytes do not match the digest the backup recorded with it
        (:mod:`storyloom.project.attachment_digests`) makes the restore fail before anything is
        written (:class:`DamagedBackupError`, naming each), unless ``accept_damaged``: it is then
        restored as it is (the store keeps the digest of its bytes) and ``on_warning`` hears
        one warning for each.
        """
        from storyloom.project.spool import FileSpool

        spool = FileSpool()
        try:
            return self._restore(file, name, new_id, spool, progress, accept_damaged, on_warning)
        finally:
            spool.close()

    def _restore(self, file: Path | str, name: str | None, new_id: bool, spool: FileSpool,
                 progress: ProgressCallback | None, accept_damaged: bool,
                 on_warning: Callable[[str], None] | None) -> Project:
        from storyloom.project.bulk import BulkContext
        from storyloom.project.editor import WriteIntent

        checking = reporter(progress, "restore")
        checking.set_detail("checking the backup")
        context = BulkContext(lambda doc_id: spool.get(doc_id) if doc_id in spool else None)
        settings: dict[str, Any] | None = None
        unkeyed: list[dict[str, Any]] = []
        damaged: list[DamagedAttachment] = []
        for doc in _backup_docs(read_dump_rows(file)):
            _check_revision(file, doc)
            if "_attachments" in doc:
                damaged.extend(damaged_attachments(doc, _label(doc)))
            if settings is None and doc.get("_id") == SETTINGS_ID:
                settings = doc
            if isinstance(doc.get("_id"), str) and doc["_id"] not in spool:
                spool.put(doc)
                if doc.get("type") == "Variable":
                    context.add_variable(doc)
            else:  # no id (the gate refuses it) or a second row of an id: written too, after the rest
                unkeyed.append(doc)
            checking.advance()
        checking.finish()
        if settings is None or not is_uuid(settings.get("projectId")):
            raise BackupError(
                f"{file}: not a Storyloom backup (no ProjectSettings document with a projectId)",
                fix=Fix("import_drafft"),
            )
        if damaged and not accept_damaged:
            raise DamagedBackupError(str(file), damaged, verb="restore")
        project_id = new_project_id() if new_id else settings["projectId"]
        if not new_id and (self.root / project_id).exists():
            raise ProjectExists(f"project {project_id} from this backup already exists here",
                                fix=Fix("restore_copy"))
        if name is not None:
            name = self.check_new_name(name)
        else:
            name = str(settings.get("projectName") or Path(file).stem).strip()
            problem = name_problem(name)
            if problem:
                raise InvalidProjectName(f"{file}: the backup's name cannot be used ({problem})",
                                         fix=Fix("other_name", verb="restore"))
            name = self.unique_name(name)
        writing = reporter(progress, "restore", len(spool) + len(unkeyed))
        writing.set_detail("writing")
        with self.staging(project_id, name) as project:
            refused = _write_restored(project, file, chain(spool.values(), unkeyed), context, writing)
            if refused:
                details = "; ".join(str(exc) for exc in refused[1][:5])
                raise BackupError(f"{file}: {refused[0]} document(s) cannot be restored: {details}")
            current = project.settings()
            changes = {
                key: value
                for key, value in (("projectName", name), ("projectId", project_id))
                if current.get(key) != value
            }
            if changes:
                # A new revision on top of the restored one; a copy gets a new identity, which
                # only a restore may do (the gate refuses projectId changes otherwise).
                project.editor.update_settings(changes, intent=WriteIntent.RESTORE)
            writing.set_detail("indexing")  # the staging's end builds the project index
        writing.finish()
        if on_warning is not None:
            for warning in damaged_warnings(damaged):
                on_warning(warning)
        return project


def _label(doc: dict[str, Any]) -> str:
    """A document for people, in messages: ``Attachment “portrait”`` (its type, its name)."""
    kind, name = doc.get("type"), doc.get("name")
    if isinstance(kind, str) and isinstance(name, str):
        return f"{kind} “{name}”"
    return kind if isinstance(kind, str) else ""


def _backup_docs(rows: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The documents a restore writes: rows' documents, without PouchDB's design documents."""
    for row in rows:
        doc = row.get("doc")
        if isinstance(doc, dict) and not str(doc.get("_id", "")).startswith("_design/"):
            yield doc


def _write_restored(project: Project, file: Path | str, docs: Iterable[dict[str, Any]], context: BulkContext,
                    progress: Any) -> tuple[int, list[Exception]] | None:
    """Write the backup's documents in batches, each checked against the whole backup;
    ``(count, first refusals)`` when some are refused, else ``None``."""
    from storyloom.project.bulk import batches
    from storyloom.project.editor import WriteIntent

    refused_count = 0
    first: list[Exception] = []
    for batch in batches(docs):
        try:
            _, refused = project.editor.write_batch_of_many(batch, context, WriteIntent.RESTORE, new_edits=False)
        except StoreError as exc:
            raise BackupError(f"{file}: the backup cannot be restored: {exc.reason}") from None
        refused_count += len(refused)
        first.extend(exc for _, exc in refused[: max(0, 5 - len(first))])
        progress.advance(len(batch))
    return (refused_count, first) if refused_count else None


def backup_file_name(name: str) -> str:
    """``<name>-<UTC time>.json``, the name made safe for any file system (``_`` for the rest)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name) or "project"
    return f"{safe}-{stamp}.json"


def _check_revisions(file: Path | str, docs: Iterable[dict[str, Any]]) -> None:
    """Every document of a backup names its revision as ``N-hash`` (it is restored as it is)."""
    for doc in docs:
        _check_revision(file, doc)


def _check_revision(file: Path | str, doc: dict[str, Any]) -> None:
    rev = doc.get("_rev")
    try:
        pos, _ = parse_rev(rev)
    except ValueError:
        pos = 0
    if pos < 1:
        what = "has no _rev" if rev is None else f"has a malformed _rev {rev!r}"
        raise BackupError(
            f"{file}: document {doc.get('_id')!r} {what} (a revision is "
            "<generation>-<hash>, like '3-9b2c...'): the backup is damaged; restore another backup, "
            "or import the documents without their history"
        )


def _nesting_deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists and objects more than ``limit`` levels (iterative: no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values() if isinstance(child, (dict, list)))
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item if isinstance(child, (dict, list)))
    return False


class DumpError(ProjectError):
    """The file is not an ``all_docs`` dump."""

    code = "dump_failed"


def read_dump(file: Path | str) -> list[dict[str, Any]]:
    """The rows of an ``all_docs`` dump file; :class:`DumpError` with a clear message otherwise.

    ``total_rows`` and ``offset`` are ignored (Drafft's are unreliable). This holds every row in
    memory: a large backup is read with :func:`read_dump_rows`.
    """
    return list(read_dump_rows(file))


def read_dump_rows(file: Path | str) -> Iterator[dict[str, Any]]:
    """The rows of an ``all_docs`` dump file, one at a time, parsed as a stream (``ijson``), so
    memory stays bounded whatever the file's size; :class:`DumpError` with a clear message when
    the file is not a dump (raised when the reading gets there: a caller consuming the rows
    must be ready to undo what it did with the first ones).

    JSON that the streaming parser does not take but Python's does (``NaN`` and ``Infinity``, as
    JavaScript writes them; numbers out of a double's range) is read whole with Python's parser
    from where the stream stopped, as is a file that is not JSON at all (for its error message).
    """
    path = Path(file)
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise DumpError(f"{path}: no such file") from None
    except OSError as exc:
        raise DumpError(f"{path}: cannot read the file ({exc})") from None
    with handle:
        yield from _checked_rows(path, _stream_rows(path, handle))


def _stream_rows(path: Path, handle: BinaryIO) -> Iterator[dict[str, Any]]:
    import ijson

    start = len(codecs.BOM_UTF8) if handle.read(len(codecs.BOM_UTF8)) == codecs.BOM_UTF8 else 0
    handle.seek(start)
    read = 0
    try:
        watched = _SurrogateWatch(handle)
        shallow = _depth(watched) <= STREAM_DEPTH
        handle.seek(start)
        if shallow and _rows_array_follows(handle):
            handle.seek(start)
            # The C parser turns a lone surrogate escape (\ud800, as JavaScript writes an
            # unpaired half of a pair) into "?"; the Python backend keeps it, about ten times
            # slower, so only for a file that holds a surrogate escape at all.
            parser = ijson.get_backend("python") if watched.found else ijson
            for row in parser.items(handle, "rows.item", use_float=True):
                yield row
                read += 1
            return
    except (ijson.JSONError, UnicodeDecodeError, ValueError):
        pass
    # Not JSON the stream takes, not shaped as a dump, or nested deeper than the stream should
    # go: Python's parser reads the file whole (it says what is wrong, or takes NaN and
    # friends) and the rows go on from where they were.
    yield from _read_whole(path)[read:]


# How each event of the C parser moves the depth (the events of every JSON value).
_DEPTH_STEP = {"start_map": 1, "start_array": 1, "end_map": -1, "end_array": -1, "map_key": 0, "null": 0,
               "boolean": 0, "integer": 0, "double": 0, "number": 0, "string": 0}


def _depth(handle: Any) -> int:
    """How deep the JSON on ``handle`` nests, from a pass of the C parser's events counted in C
    (no Python step per event). Streamed items of a deeper file would cost time and memory
    quadratic in its depth."""
    import ijson

    events = ijson.basic_parse(handle, use_float=True)
    return max(accumulate(map(_DEPTH_STEP.__getitem__, map(itemgetter(0), events))), default=0)


# A \u escape of a UTF-16 surrogate (D800 to DFFF). A backslash escaped before "u" also
# matches: that only costs the slower parser.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class _SurrogateWatch:
    """A file's reader (for the depth pass, which reads the whole file) that notes whether the
    bytes read hold a surrogate escape, also across two reads."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.found = False
        self._tail = b""

    def read(self, size: int = -1) -> bytes:
        block = self.handle.read(size)
        if block and not self.found:
            self.found = _SURROGATE_ESCAPE.search(self._tail + block) is not None
            self._tail = block[-5:]  # an escape is 6 bytes: the rest of one begun here
        return block


def _rows_array_follows(handle: BinaryIO) -> bool:
    """Whether the JSON on ``handle`` is an object with a ``"rows"`` array (read up to it)."""
    import ijson

    prefix: str  # ijson's events: (prefix, event name, value)
    event: str

    for prefix, event, _ in ijson.parse(handle):
        if prefix == "":
            if event != "start_map" and event != "map_key":
                return False
        elif prefix == "rows":
            return event == "start_array"
    return False


def _read_whole(path: Path) -> list[Any]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise DumpError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DumpError(f"{path}: cannot read the file ({exc})") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise DumpError(f"{path}: not a backup: the file is not JSON ({exc})") from None
    except RecursionError:
        raise DumpError(
            f"{path}: not a backup: its JSON nests arrays or objects too deeply to read "
            f"(documents may nest at most {MAX_NESTING} levels)"
        ) from None
    if not isinstance(data, dict) or not isinstance(rows := data.get("rows"), list):
        raise DumpError(
            f"{path}: not a backup: expected an all_docs dump, a JSON object with a \"rows\" array "
            '({"total_rows", "offset", "rows": [{"id", "key", "value", "doc"}]})'
        )
    return rows


def _checked_rows(path: Path, rows: Iterable[Any]) -> Iterator[dict[str, Any]]:
    count = 0
    with_doc = False
    for index, row in enumerate(rows):
        if not isinstance(row, dict) or ("id" not in row and "key" not in row):
            raise DumpError(f"{path}: not a backup: row {index} is not an all_docs row with an id")
        doc = row.get("doc")
        if isinstance(doc, dict):
            with_doc = True
        if _nesting_deeper_than(doc, MAX_NESTING):
            doc_id = doc.get("_id") if isinstance(doc, dict) else row.get("id")
            raise DumpError(
                f"{path}: row {index} (document {doc_id!r}) nests arrays or objects more than "
                f"{MAX_NESTING} levels deep, more than Storyloom can handle; remove that document from "
                "the file and try again"
            )
        count += 1
        yield row
    if not count:
        raise DumpError(f"{path}: the backup holds no documents (\"rows\" is empty)")
    if not with_doc:
        raise DumpError(f"{path}: not a backup: no row carries its document (dump made without include_docs)")
