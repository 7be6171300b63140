"""Python handle on the PouchDB 9 peer (``pouch_peer.js``) running in Node: ``bench/peers.py``
holds it (the benchmarks use it without pytest)."""

from __future__ import annotations

from bench.peers import POUCH_PEER_SCRIPT as SCRIPT
from bench.peers import PouchError, PouchPeer

__all__ = ["SCRIPT", "PouchError", "PouchPeer"]
