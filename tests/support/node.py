"""Locating the Node test packages (installed by scripts/test from tests/node/package.json).

The helpers live in ``tools/peers.py`` (the benchmarks use them without pytest)."""

from __future__ import annotations

from tools.peers import NODE_DIR, NODE_MODULES, ensure_node_packages, node_binary

__all__ = ["NODE_DIR", "NODE_MODULES", "ensure_node_packages", "node_binary"]
