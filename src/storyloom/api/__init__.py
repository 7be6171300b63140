"""The local REST API: FastAPI on uvicorn in a background thread. See ``docs/api.md``.

Public names: :class:`ApiServer` (start/stop/restart), :class:`ApiController` (follows the app
options), :class:`ApiStartError`, the navigation port (:class:`NavigationPort`,
:class:`NavigationRefused`), the project provider interface (:class:`ProjectProvider`,
:class:`StaticProjectProvider`) and :func:`generate_api_key`.

The names are listed in ``__init__.pyi`` and each is imported from its module at first use
(:func:`lazy_loader.attach_stub`), so a command that needs one part does not load the others.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
