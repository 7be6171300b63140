"""Locating the Node test packages (installed by scripts/test from tests/node/package.json)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

NODE_DIR = Path(__file__).resolve().parent.parent / "node"
NODE_MODULES = NODE_DIR / "node_modules"


def ensure_node_packages() -> Path:
    """Install the Node packages if a developer runs pytest without scripts/test; return node_modules."""
    if not (NODE_MODULES / ".package-lock.json").exists():
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm is required for these tests; install Node.js and npm")
        subprocess.run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=NODE_DIR,
            check=True,
        )
    return NODE_MODULES


def node_binary() -> str:
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is required for these tests; install Node.js")
    return node
