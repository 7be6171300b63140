"""The names of the layers below the session that a front end uses as they are: the errors it
catches, the values its options accept and the checks of what a user types. The command line
imports them from here, never from ``storyloom.store``, ``storyloom.sync`` or
``storyloom.export`` (``tests/test_architecture.py``): every workflow it runs is the session
layer's, so these are all it needs of those layers. Only those layers' error and rule modules
are imported here, never a workflow.
"""

from storyloom.export import COMPAT_VALUES, UnknownCollections
from storyloom.store.errors import Conflict, Damaged, NotFound, StoreError
from storyloom.sync.errors import InvalidRemote
from storyloom.sync.identity import ProjectMismatch
from storyloom.sync.urls import check_username, parse_remote_url

__all__ = [
    "COMPAT_VALUES",
    "Conflict",
    "Damaged",
    "InvalidRemote",
    "NotFound",
    "ProjectMismatch",
    "StoreError",
    "UnknownCollections",
    "check_username",
    "parse_remote_url",
]
