"""One type for every finding Storyloom reports about a project: validation of a document, the
typed-content rules (variables, scenarios, maps) and script problems. A problems panel, the
import report and the export's warnings all list :class:`Diagnostic` objects."""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

ERROR = "error"
WARNING = "warning"

LIST_LIMIT = 10
"""A message names at most this many items of a list, then says how many more there are."""


def name_list(items: Iterable[Any], *, limit: int = LIST_LIMIT, sort: bool = False, separator: str = ", ",
              empty: str = "none") -> str:
    """``items`` for a message, bounded: at most ``limit`` of them, then ``and N more``.

    ``sort`` names the ``limit`` smallest (without sorting them all); otherwise the first ones.
    ``empty`` is the text for no items. A message built from a project's data (every state id,
    every property, every document of a cycle) stays readable however large the project is:
    ``a, b, c and 99,997 more``.
    """
    if sort:
        pool = items if isinstance(items, list | tuple | set | frozenset | dict) else list(items)
        shown = heapq.nsmallest(limit, pool)
        total = len(pool)
    else:
        shown, total = [], 0
        for item in items:
            if total < limit:
                shown.append(item)
            total += 1
    if not shown:
        return empty
    text = separator.join(str(item) for item in shown)
    if total > len(shown):
        text += f" and {total - len(shown):,} more"
    return text


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding.

    ``code`` is a stable machine-readable name (``wrong-type``, ``dangling-edge``,
    ``unknown-state``, ``unclosed-if``...); ``message`` says what is wrong and what would be
    right. ``field`` locates it in the document as a dotted path (``content.tree.nodes[2]``; for
    the content rules, inside the content checked: ``player.courage``, ``cells["3,4"]``);
    ``expected`` says what the field should hold; ``line``/``column`` (1-based) point into the
    text of a script or a property source when known.
    """

    message: str
    code: str
    severity: str = ERROR
    doc_id: str | None = None
    field: str = ""
    expected: str = ""
    line: int | None = None
    column: int | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    @property
    def path(self) -> str:
        """The content rules' name for ``field``."""
        return self.field

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON: where, then what; the locating keys only when known."""
        out: dict[str, Any] = {}
        if self.line is not None:
            out["line"] = self.line
            out["column"] = self.column
        out["code"] = self.code
        out["message"] = self.message
        out["severity"] = self.severity
        if self.doc_id is not None:
            out["docId"] = self.doc_id
        if self.field:
            out["field"] = self.field
        if self.expected:
            out["expected"] = self.expected
        return out

    def __str__(self) -> str:
        return self.message
