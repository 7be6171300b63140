"""Who is editing, when nobody said: the operating system's user name.

The per-machine options (``storyloom.app.options``) may name the user differently; the
workspace passes that name down. Layers below ``app`` only fall back to this one.
"""

from __future__ import annotations

import os


def os_username() -> str:
    """The OS login name, else ``$USER``/``$USERNAME``, else ``"user"``."""
    try:
        import getpass  # here: imported only when no user name is configured

        name = getpass.getuser()
    except (OSError, KeyError, ImportError):
        name = ""
    return name or os.environ.get("USER") or os.environ.get("USERNAME") or "user"
