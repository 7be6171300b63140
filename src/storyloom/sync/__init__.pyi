"""The face of :mod:`storyloom.sync`: read by :func:`lazy_loader.attach_stub` (each name is
imported from its module at first use, so a quick CLI verb pays only for what it touches)
and by type checkers."""

from .backoff import (
    capped_backoff as capped_backoff,
    default_backoff as default_backoff,
)
from .checkpoint import (
    Checkpointer as Checkpointer,
    replication_id as replication_id,
)
from .errors import (
    AccessDenied as AccessDenied,
    BatchFailed as BatchFailed,
    Cancelled as Cancelled,
    DatabaseMissing as DatabaseMissing,
    InvalidRemote as InvalidRemote,
    NetworkError as NetworkError,
    Redirected as Redirected,
    RemoteError as RemoteError,
    RemoteTimeout as RemoteTimeout,
    RequestTooLarge as RequestTooLarge,
    SyncError as SyncError,
    WritesDropped as WritesDropped,
)
from .failed_docs import (
    DocFailure as DocFailure,
)
from .identity import (
    Identity as Identity,
    IdentityDoc as IdentityDoc,
    ProjectMismatch as ProjectMismatch,
    check_remote_identity as check_remote_identity,
)
from .peers import (
    LocalPeer as LocalPeer,
    Peer as Peer,
    RemotePeer as RemotePeer,
)
from .remote import (
    RemoteDatabase as RemoteDatabase,
)
from .replication_state import (
    ReplicationOptions as ReplicationOptions,
    ReplicationStatus as ReplicationStatus,
    SyncEvent as SyncEvent,
)
from .replicator import (
    Replicator as Replicator,
)
from .two_way import (
    Sync as Sync,
    SyncStatus as SyncStatus,
    make_pull as make_pull,
    make_push as make_push,
    open_remote as open_remote,
    pull as pull,
    push as push,
)
from .urls import (
    RemoteURL as RemoteURL,
    encode_doc_id as encode_doc_id,
    parse_remote_url as parse_remote_url,
    validate_db_name as validate_db_name,
)
