"""CouchDB replication for the local store: remote HTTP client, one-way replicator, two-way
sync, checkpoints, live mode and backoff. See docs/sync.md.

Typical use::

    from storyloom.sync import Sync, open_remote

    remote = open_remote("https://couch.example.com/story", username="alice", password=pw)
    status = Sync(project.db, remote).run()          # push, then pull
    print(status.to_json())

No Qt and no web framework here: a GUI drives :class:`Sync` (or :class:`Replicator`) through
``start()``, ``cancel()``, ``status`` and the ``on_event`` callback.

The names are listed in ``__init__.pyi`` and each is imported from its module at first use
(:func:`lazy_loader.attach_stub`), so a command that needs one part does not load the others.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
