"""Python handle on the PouchDB 9 peer (``pouch_peer.js``) running in Node: ``tools/peers.py``
holds it (the benchmarks use it without pytest)."""

from __future__ import annotations

from tools.peers import POUCH_PEER_SCRIPT as SCRIPT
from tools.peers import PouchError, PouchPeer

__all__ = ["SCRIPT", "PouchError", "PouchPeer"]
