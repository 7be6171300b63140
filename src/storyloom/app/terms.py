"""The names of the layers below the session that a front end uses as they are: the errors it
catches, the values its options accept and the checks of what a user types. The command line
imports them from here, never from ``storyloom.store``, ``storyloom.sync`` or
``storyloom.export`` (``tests/test_architecture.py``): every workflow it runs is the session
layer's, so these are all it needs of those layers. Only those layers' error and rule modules
are imported here, never a workflow.

Each name is imported from its module at first use: the ``--compat`` choices a verb's parser
lists must not load the sync client (``ProjectMismatch`` lives beside the remote identity check).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from storyloom.export import COMPAT_VALUES, UnknownCollections, UnknownExportLocale
    from storyloom.store.errors import Conflict, Damaged, NotFound, StoreError
    from storyloom.sync.errors import InvalidRemote
    from storyloom.sync.identity import ProjectMismatch
    from storyloom.sync.urls import check_username, parse_remote_url

_MODULES = {
    "COMPAT_VALUES": "storyloom.export.compat",
    "UnknownCollections": "storyloom.export.collections_filter",
    "UnknownExportLocale": "storyloom.export.localized",
    "Conflict": "storyloom.store.errors",
    "Damaged": "storyloom.store.errors",
    "NotFound": "storyloom.store.errors",
    "StoreError": "storyloom.store.errors",
    "InvalidRemote": "storyloom.sync.errors",
    "ProjectMismatch": "storyloom.sync.identity",
    "check_username": "storyloom.sync.urls",
    "parse_remote_url": "storyloom.sync.urls",
}

__all__ = [
    "COMPAT_VALUES",
    "Conflict",
    "Damaged",
    "InvalidRemote",
    "NotFound",
    "ProjectMismatch",
    "StoreError",
    "UnknownCollections",
    "UnknownExportLocale",
    "check_username",
    "parse_remote_url",
]


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
