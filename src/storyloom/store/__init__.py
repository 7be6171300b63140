"""The embedded document store with CouchDB semantics. See docs/store.md.

The names are listed in ``__init__.pyi`` and each is imported from its module at first use
(:func:`lazy_loader.attach_stub`), so a command that needs one part does not load the others.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
