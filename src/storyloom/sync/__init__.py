"""CouchDB replication for the local store: remote HTTP client, one-way replicator, two-way
sync, checkpoints, live mode and backoff. See docs/sync.md.

Typical use::

    from storyloom.sync import Sync, open_remote

    remote = open_remote("https://couch.example.com/story", username="alice", password=pw)
    status = Sync(project.db, remote).run()          # push, then pull
    print(status.to_json())

No Qt and no web framework here: a GUI drives :class:`Sync` (or :class:`Replicator`) through
``start()``, ``cancel()``, ``status`` and the ``on_event`` callback.
"""

from storyloom.sync.backoff import capped_backoff, default_backoff
from storyloom.sync.checkpoint import Checkpointer, replication_id
from storyloom.sync.errors import (
    AccessDenied,
    BatchFailed,
    Cancelled,
    DatabaseMissing,
    InvalidRemote,
    NetworkError,
    Redirected,
    RemoteError,
    RemoteTimeout,
    RequestTooLarge,
    SyncError,
    WritesDropped,
)
from storyloom.sync.failed_docs import DocFailure
from storyloom.sync.identity import Identity, IdentityDoc, ProjectMismatch, check_remote_identity
from storyloom.sync.peers import LocalPeer, Peer, RemotePeer
from storyloom.sync.remote import RemoteDatabase
from storyloom.sync.replication_state import ReplicationOptions, ReplicationStatus, SyncEvent
from storyloom.sync.replicator import Replicator
from storyloom.sync.two_way import Sync, SyncStatus, make_pull, make_push, open_remote, pull, push
from storyloom.sync.urls import RemoteURL, encode_doc_id, parse_remote_url, validate_db_name

__all__ = [
    "AccessDenied",
    "BatchFailed",
    "Cancelled",
    "Checkpointer",
    "DatabaseMissing",
    "DocFailure",
    "Identity",
    "IdentityDoc",
    "InvalidRemote",
    "LocalPeer",
    "NetworkError",
    "Peer",
    "ProjectMismatch",
    "Redirected",
    "RemoteDatabase",
    "RemoteError",
    "RemotePeer",
    "RemoteTimeout",
    "RemoteURL",
    "ReplicationOptions",
    "ReplicationStatus",
    "Replicator",
    "RequestTooLarge",
    "Sync",
    "SyncError",
    "SyncEvent",
    "SyncStatus",
    "WritesDropped",
    "capped_backoff",
    "check_remote_identity",
    "default_backoff",
    "encode_doc_id",
    "make_pull",
    "make_push",
    "open_remote",
    "parse_remote_url",
    "pull",
    "push",
    "replication_id",
    "validate_db_name",
]
