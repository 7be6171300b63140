"""Quick open (Ctrl+P): fuzzy matching of document names (Qt-free).

A query matches a name when its characters appear in order (case-insensitive). The score
favours, in this order: a match at the start of the name, consecutive characters, matches at
word starts, and shorter names, so "grd" finds "Garden" before "Guard rails drill"."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise

from storyloom.app.views.outline import display_name
from storyloom.project import FOLDER_TYPE, TREE_COLLECTIONS, DocSummary


@dataclass(frozen=True)
class QuickOpenMatch:
    id: str
    name: str
    collection: str
    score: float
    positions: tuple[int, ...]  # the matched characters of ``name``, for bold display


def fuzzy_score(query: str, name: str) -> tuple[float, tuple[int, ...]] | None:
    """``(score, matched positions)`` of ``name`` for ``query``, or ``None`` when it does not match."""
    if not query:
        return 0.0, ()
    lowered, wanted = name.lower(), query.lower().strip()
    if not wanted:
        return 0.0, ()
    # Greedy from each possible first character; keep the best-scoring alignment.
    best: tuple[float, tuple[int, ...]] | None = None
    start = lowered.find(wanted[0])
    while start != -1:
        positions = [start]
        cursor = start + 1
        for ch in wanted[1:]:
            found = lowered.find(ch, cursor)
            if found == -1:
                break
            positions.append(found)
            cursor = found + 1
        else:
            score = _score(lowered, positions)
            if best is None or score > best[0]:
                best = (score, tuple(positions))
        start = lowered.find(wanted[0], start + 1)
    return best


def _score(name: str, positions: list[int]) -> float:
    score = 0.0
    if positions[0] == 0:
        score += 10
    for previous, current in pairwise(positions):
        if current == previous + 1:
            score += 5
    for position in positions:
        if position == 0 or not name[position - 1].isalnum():
            score += 3
    return score - len(name) * 0.05 - positions[0] * 0.2


def quick_open(summaries: Iterable[DocSummary], query: str, limit: int = 50) -> list[QuickOpenMatch]:
    """The documents (not folders) whose name matches ``query``, best first; with an empty query,
    the first ``limit`` documents by name."""
    matches: list[QuickOpenMatch] = []
    for summary in summaries:
        if summary.type == FOLDER_TYPE or summary.type not in TREE_COLLECTIONS:
            continue
        name = display_name(summary.name)
        found = fuzzy_score(query, name)
        if found is not None:
            matches.append(QuickOpenMatch(summary.id, name, str(summary.collection), found[0], found[1]))
    matches.sort(key=lambda m: (-m.score, m.name.lower(), m.id))
    return matches[:limit]
