"""The scripting syntax: line parser, expression evaluator, export-mapping templates.

See ``docs/scripting.md``. Pure Python: no Qt, no web framework.

The names other layers may use are listed in ``__init__.pyi``; each is imported from its
module at first use, so a command that only anchors line ids (a lock's merge) does not load the
parser and the expression evaluator.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
