"""The export's cache: what Storyloom keeps so that exporting an unchanged project again is cheap.

One owner, in two tiers:

- finished exports (:mod:`~storyloom.export.cache.answers`): :class:`ExportCache` answers a game
  export or a schema as its finished bytes, ``_meta`` included, kept in memory (bounded) while
  the project is unchanged, or from the spool files of a large one; the API asks it once per
  request and streams what it answers;
- per-revision results (:mod:`~storyloom.export.cache.memo`): what the exporters compute from one
  document revision (parsed property text, rendered scripts, each exported document's JSON), one
  memo per store (:func:`cache_for`), in memory and bounded, backed by
  :mod:`~storyloom.export.cache.disk` (``export-cache.sqlite3`` beside the store), which keeps them
  across runs. Every export reads through it: ``storyloom export``, File > Export and the
  builds of :class:`ExportCache`.
"""

from __future__ import annotations

from storyloom.export.cache.answers import DEFAULT_ANSWER_BYTES, AnswerCache, ExportAnswer, ExportCache
from storyloom.export.cache.memo import MISS, ContentCache, cache_for, fingerprint

__all__ = [
    "DEFAULT_ANSWER_BYTES",
    "MISS",
    "AnswerCache",
    "ContentCache",
    "ExportAnswer",
    "ExportCache",
    "cache_for",
    "fingerprint",
]
