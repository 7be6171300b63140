"""The local REST API: FastAPI on uvicorn in a background thread. See ``docs/api.md``.

Public names: :class:`ApiServer` (start/stop/restart), :class:`ApiController` (follows the app
options), :class:`ApiStartError`, the navigation port (:class:`NavigationPort`,
:class:`NavigationRefused`), the project provider interface (:class:`ProjectProvider`,
:class:`StaticProjectProvider`) and :func:`generate_api_key`.
"""

from __future__ import annotations

from storyloom.api.controller import ApiController, ApiStatus
from storyloom.api.keys import generate_api_key  # the options' Generate button: one recipe
from storyloom.api.navigation import NavigationPort, NavigationRefused
from storyloom.api.provider import ProjectProvider, StaticProjectProvider
from storyloom.api.server import ApiServer, ApiStartError

__all__ = [
    "ApiController",
    "ApiServer",
    "ApiStartError",
    "ApiStatus",
    "NavigationPort",
    "NavigationRefused",
    "ProjectProvider",
    "StaticProjectProvider",
    "generate_api_key",
]
