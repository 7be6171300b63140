"""The face of :mod:`storyloom.api`: read by :func:`lazy_loader.attach_stub` (each name is
imported from its module at first use, so a quick CLI verb pays only for what it touches)
and by type checkers."""

from .controller import (
    ApiController as ApiController,
    ApiStatus as ApiStatus,
)
from .errors import (
    ApiStartError as ApiStartError,
)
from .keys import (
    generate_api_key as generate_api_key,
)
from .navigation import (
    NavigationPort as NavigationPort,
    NavigationRefused as NavigationRefused,
)
from .provider import (
    ProjectProvider as ProjectProvider,
    StaticProjectProvider as StaticProjectProvider,
)
from .server import (
    ApiServer as ApiServer,
)
