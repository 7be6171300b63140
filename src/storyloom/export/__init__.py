"""Game export and schema export (JSON Schema 2020-12). See docs/export-format.md and docs/schema.md.

The names the layers above may use are listed in ``__init__.pyi`` (the one list, which type
checkers read too); each is imported from its module at first use. Inside this package, modules
import one another directly, never through this face.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
