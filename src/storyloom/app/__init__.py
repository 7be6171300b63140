"""The Qt-free session layer: the user's :class:`Workspace` and one :class:`ProjectSession` per open
project, with its ordered stream of typed events. The desktop app, ``storyloom serve`` and the
CLI drive projects through it; see docs/architecture.md.

The names are listed in ``__init__.pyi`` and each is imported from its module at first use
(:func:`lazy_loader.attach_stub`), so a command that needs one part does not load the others.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
