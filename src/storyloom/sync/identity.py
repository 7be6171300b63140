"""Which project a database holds, and the guard that keeps a sync from merging two projects.

A store and a remote database each say which project they hold in one replicated document
(a project's ``ProjectSettings``: its ``projectId`` and ``projectName``). The sync layer sits
below the project layer, so it never names that document: the caller says where the
identity lives with an :class:`IdentityDoc`, and :func:`check_remote_identity` compares the
two sides before anything is written in either direction.

The rule: a remote database that holds no identity document (empty, new, or a first push
that stopped before the document went out) syncs; so does one whose id equals the local
one, and an empty local store (it becomes a copy of the remote). Anything else would mix
two projects' documents in both places, and is refused with :class:`ProjectMismatch`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from storyloom.errors import Fix
from storyloom.sync.errors import RemoteNotFound, SyncError
from storyloom.sync.peers import LocalPeer, Peer, RemotePeer, local_store_error
from storyloom.sync.remote import RemoteDatabase

if TYPE_CHECKING:
    from storyloom.store import Database


@dataclass(frozen=True)
class IdentityDoc:
    """Where a database keeps its identity: the document ``doc_id``, whose ``id_field``
    holds the id and whose ``name_field`` (optional) a name to show to the user."""

    doc_id: str
    id_field: str
    name_field: str | None = None


@dataclass(frozen=True)
class Identity:
    """What one side's identity document says (``id`` is None when it has no usable id)."""

    id: str | None
    name: str | None

    def describe(self) -> str:
        if self.name and self.id:
            return f"{self.name!r} (id {self.id})"
        if self.id:
            return f"the project with id {self.id}"
        if self.name:
            return f"{self.name!r} (no project id: not made by Storyloom)"
        return "a project without id or name"


class ProjectMismatch(SyncError):
    """The remote database holds another project than the local store: syncing would merge
    them. Never retried; nothing has been written on either side when it is raised."""

    code = "project_mismatch"
    fixes = ("use_other_database",)

    def __init__(self, message: str, *, remote: Identity, local: Identity | None, db_url: str) -> None:
        # A project without an id was made by another program (Drafft): its copy is an import.
        super().__init__(message, fix=Fix("use_other_database", other=remote.name, imported=remote.id is None))
        self.remote_id = remote.id
        self.remote_name = remote.name
        self.local_id = local.id if local is not None else None
        self.local_name = local.name if local is not None else None
        self.db_url = db_url

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data.update(
            {
                "remote_project_id": self.remote_id,
                "remote_project_name": self.remote_name,
                "local_project_id": self.local_id,
                "local_project_name": self.local_name,
                "remote": self.db_url,
            }
        )
        return data


def _identity(doc: dict[str, Any], key: IdentityDoc) -> Identity:
    raw_id = doc.get(key.id_field)
    raw_name = doc.get(key.name_field) if key.name_field else None
    return Identity(
        id=raw_id if isinstance(raw_id, str) and raw_id else None,
        name=raw_name if isinstance(raw_name, str) and raw_name.strip() else None,
    )


def read_remote_identity(remote: RemoteDatabase, key: IdentityDoc) -> Identity | None:
    """The remote database's identity, or None when it has no such document (or no database:
    a push creates it empty). Other remote errors (access, network) are raised as they are."""
    try:
        doc = remote.get(key.doc_id)
    except RemoteNotFound:
        return None
    return _identity(doc, key)


def read_local_identity(db: Database, key: IdentityDoc) -> Identity | None:
    """The local store's identity, or None when it has no such document."""
    from storyloom.store import NotFound as StoreNotFound
    from storyloom.store import StoreError

    try:
        return _identity(db.get(key.doc_id), key)
    except StoreNotFound:
        return None
    except StoreError as exc:
        raise local_store_error(exc) from None


def _is_empty(db: Database) -> bool:
    from storyloom.store import StoreError

    try:
        info = db.info()
    except StoreError as exc:
        raise local_store_error(exc) from None
    return not info["doc_count"] and not info["doc_del_count"]


def check_remote_identity(db: Database, remote: RemoteDatabase, key: IdentityDoc) -> Identity | None:
    """Refuse (:class:`ProjectMismatch`) to sync ``db`` with a ``remote`` that holds another
    project; return the remote's identity (None when it holds none). Reads only."""
    theirs = read_remote_identity(remote, key)
    if theirs is None:
        return None
    ours = read_local_identity(db, key)
    if ours is not None and ours.id is not None and ours.id == theirs.id:
        return theirs
    if ours is None and _is_empty(db):
        return theirs  # a new, empty store takes a copy of the remote project
    raise ProjectMismatch(_mismatch_message(remote, theirs, ours), remote=theirs, local=ours, db_url=remote.db_url)


def _mismatch_message(remote: RemoteDatabase, theirs: Identity, ours: Identity | None) -> str:
    """The cause (the fix, ``use_other_database``, goes with the error)."""
    where = f"the remote database {remote.db_name!r} on {remote.server_url}"
    local = "this store (its documents belong to no project)" if ours is None else ours.describe()
    return (
        f"{where} holds another project, {theirs.describe()}, not {local}: syncing would merge "
        "the two projects, so nothing was sent or received"
    )


def check_peers(source: Peer, target: Peer, key: IdentityDoc) -> None:
    """The guard a replication runs after both peers are ready and before its first write:
    :func:`check_remote_identity` for its local store and its remote database (a replication
    between two stores or two remotes is left alone)."""
    local = next((p for p in (source, target) if isinstance(p, LocalPeer)), None)
    remote = next((p for p in (source, target) if isinstance(p, RemotePeer)), None)
    if local is not None and remote is not None:
        check_remote_identity(local.db, remote.remote, key)
