"""The export's cache: what Storyloom keeps so that exporting an unchanged project again is cheap.

- :mod:`~storyloom.export.cache.memo`: the per-revision results of the exporters (parsed
  property text, rendered scripts, each exported document's JSON), one memo per store, in memory
  and bounded;
- :mod:`~storyloom.export.cache.disk`: the same results kept across runs in
  ``export-cache.sqlite3`` beside the store.
"""

from __future__ import annotations

from storyloom.export.cache.memo import MISS, ContentCache, cache_for, fingerprint

__all__ = ["MISS", "ContentCache", "cache_for", "fingerprint"]
