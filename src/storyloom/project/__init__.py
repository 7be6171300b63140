"""The domain: collections, documents, settings, editing, locks, conflicts, the project manager.

The names the layers above may use are listed in ``__init__.pyi`` (the one list, which type
checkers read too); each is imported from its module at first use, so a command that needs only
the project manager does not pay for the dialogue graph. Inside this package, modules import one
another directly, never through this face.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
