"""Where Storyloom keeps projects and per-machine settings.

Everything lives under one home directory: ``$STORYLOOM_HOME`` when set (every test sets
it to a temp dir so no test touches the real home), else the platform's user data dir.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

HOME_ENV = "STORYLOOM_HOME"


def home_dir() -> Path:
    """The root of Storyloom's data; created on first use."""
    override = os.environ.get(HOME_ENV)
    root = Path(override) if override else Path(platformdirs.user_data_dir("storyloom", appauthor=False))
    root.mkdir(parents=True, exist_ok=True)
    return root


def projects_dir() -> Path:
    """The directory holding one sub-directory per project."""
    path = home_dir() / "projects"
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir() -> Path:
    """Per-user, per-machine settings (app options); never replicated."""
    path = home_dir() / "config"
    path.mkdir(parents=True, exist_ok=True)
    return path
