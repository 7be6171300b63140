"""The export's per-revision results: what the exporters compute from one document revision
(parsed property text, rendered scripts, each exported document's JSON), one memo per store
(:func:`cache_for`, :mod:`~storyloom.export.cache.memo`), in memory and bounded, backed by
:mod:`~storyloom.export.cache.disk` (``export-cache.sqlite3`` beside the store), which keeps them
across runs. Every export reads through it: ``storyloom export``, File > Export and the builds of
the finished-export cache above the exporters (:mod:`storyloom.export.answers`).
"""

from __future__ import annotations

from storyloom.export.cache.memo import MISS, ContentCache, cache_for, fingerprint

__all__ = ["MISS", "ContentCache", "cache_for", "fingerprint"]
