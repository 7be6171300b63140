"""The root of every error Storyloom raises on purpose.

Each layer's errors derive from :class:`StoryloomError`, so a caller that shows errors to a
person (the CLI, the desktop app) catches this one class: anything else is a bug and keeps its
traceback.
"""

from __future__ import annotations


class StoryloomError(Exception):
    """An error with a message meant for the user: what was wrong and what to do."""
