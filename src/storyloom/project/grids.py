"""Grids: a spreadsheet document's columns, cells and their rules, Qt-free.

A Grid stores ``content.columns [{id, title, type, name, width, source, mask}]`` and
``content.data`` (one list of cells per row), with ``style`` and ``comments`` keyed by cell
names (``"A1"``: column letters, 1-based row) and ``rowHeights`` (``{"<row>": px}``, 0-based).
:class:`Grid` holds them in memory; every edit is a :data:`Change` that :func:`apply` performs
and that returns its inverse (the editor's undo), so a 10,000-row grid is never copied per edit.
Cell values keep Drafft's shapes: numbers as the text typed (``"7"``), checkboxes and radios as
booleans, dates as ``YYYY-MM-DD``, colours as ``#rrggbb``, images as an attachment id, documents
as a document id (older Drafft cells hold an HTML link; :func:`document_target` reads its id).

Sorting and filtering never reorder the data: :func:`view_order` gives the rows to show.
"""

from __future__ import annotations

import copy
import csv
import io
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from storyloom.errors import StoryloomError

COLUMN_TYPES = ("text", "number", "dropdown", "checkbox", "radio", "calendar", "color", "image", "document",
                "hidden")
TYPE_LABELS = {"text": "Text", "number": "Numeric", "dropdown": "Dropdown", "checkbox": "Checkbox",
               "radio": "Radio", "calendar": "Date", "color": "Colour", "image": "Image", "document": "Document",
               "hidden": "Hidden"}
# Other spellings read as one of the types above (jspreadsheet's, or a user's).
TYPE_ALIASES = {"numeric": "number", "colour": "color", "date": "calendar", "autocomplete": "dropdown"}
DEFAULT_WIDTH = 120
BOOLEAN_TYPES = frozenset({"checkbox", "radio"})
_TRUE = frozenset({"true", "yes", "1", "x", "on", "✓", "✔"})
_FALSE = frozenset({"false", "no", "0", "", "off"})
_HEX = re.compile(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")
_DOC_LINK = re.compile(r"""data-doc-id\s*=\s*["']([^"']+)["']""")
_CELL = re.compile(r"^([A-Z]+)([1-9][0-9]*)$")
_NUMBER = re.compile(r"^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$")


# ---------------------------------------------------------------------------------------------
# Columns and cells


def column_type(column: dict[str, Any]) -> str:
    """The column's type as one of :data:`COLUMN_TYPES` (an unknown type edits as text)."""
    kind = str(column.get("type") or "text").lower()
    kind = TYPE_ALIASES.get(kind, kind)
    return kind if kind in COLUMN_TYPES else "text"


def column_width(column: dict[str, Any]) -> int:
    width = column.get("width")
    if isinstance(width, (int, float)) and not isinstance(width, bool) and width > 0:
        return int(width)
    if isinstance(width, str) and width.rstrip("px").isdigit():
        return int(width.rstrip("px"))
    return DEFAULT_WIDTH


def column_options(column: dict[str, Any]) -> list[str]:
    """A dropdown's choices (``source``), as text."""
    source = column.get("source")
    if not isinstance(source, list):
        return []
    return [str(item.get("name", item.get("id", ""))) if isinstance(item, dict) else str(item) for item in source]


def column_name(index: int) -> str:
    """Spreadsheet letters of a 0-based column: 0 -> A, 25 -> Z, 26 -> AA."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(65 + rest) + name
    return name


def cell_name(row: int, col: int) -> str:
    """``"A1"`` for row 0, column 0."""
    return f"{column_name(col)}{row + 1}"


def parse_cell_name(name: str) -> tuple[int, int] | None:
    """(row, column), 0-based, of ``"B3"``; ``None`` when it is not a cell name."""
    match = _CELL.match(name)
    if not match:
        return None
    col = 0
    for letter in match.group(1):
        col = col * 26 + ord(letter) - 64
    return int(match.group(2)) - 1, col - 1


def new_column(title: str, kind: str = "text", existing: Iterable[dict[str, Any]] = (),
               **fields: Any) -> dict[str, Any]:
    """A column named ``title`` with an id and name no other column of ``existing`` has."""
    taken = {str(c.get("id")) for c in existing} | {str(c.get("name")) for c in existing}
    base = re.sub(r"[^0-9a-zA-Z]+", " ", title).strip().title().replace(" ", "") or "column"
    base = base[0].lower() + base[1:]
    key, number = base, 2
    while key in taken:
        key, number = f"{base}{number}", number + 1
    column: dict[str, Any] = {"id": key, "title": title, "type": kind, "name": key, "width": DEFAULT_WIDTH}
    if kind == "dropdown":
        column["source"] = []
    column.update(fields)
    return column


def empty_value(column: dict[str, Any]) -> Any:
    return False if column_type(column) in BOOLEAN_TYPES else ""


def parse_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return bool(value)
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    return None


def parse_date(value: Any) -> date | None:
    """A calendar cell's date: ``YYYY-MM-DD``, with or without a time, or ``DD/MM/YYYY``."""
    text = str(value or "").strip()
    if not text:
        return None
    for fmt, size in (("%Y-%m-%d", 10), ("%d/%m/%Y", 10), ("%Y/%m/%d", 10)):
        try:
            return datetime.strptime(text[:size], fmt).date()
        except ValueError:
            continue
    return None


def parse_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip().replace(" ", "")
    if not _NUMBER.match(text):
        return None
    return float(text.replace(",", "."))


def document_target(value: Any) -> str:
    """The document id a document cell names (an id, or Drafft's ``<div data-doc-id=…>`` link)."""
    if not isinstance(value, str):
        return ""
    match = _DOC_LINK.search(value)
    return match.group(1) if match else value.strip()


def coerce(column: dict[str, Any], value: Any) -> Any:
    """``value`` (typed, pasted or imported) as the column stores it. Text that does not fit the
    type is kept as typed; :func:`cell_problem` says what is wrong with it."""
    kind = column_type(column)
    if kind in BOOLEAN_TYPES:
        parsed = parse_bool(value)
        return parsed if parsed is not None else str(value)
    if value is None:
        return ""
    text = value if isinstance(value, str) else (str(int(value)) if isinstance(value, float) and value.is_integer()
                                                 else str(value))
    if kind == "number":
        return text.strip()
    if kind == "calendar":
        day = parse_date(text)
        return day.isoformat() if day else text.strip()
    if kind == "color":
        match = _HEX.match(text.strip())
        if not match:
            return text.strip()
        digits = match.group(1)
        if len(digits) == 3:
            digits = "".join(d * 2 for d in digits)
        return "#" + digits.lower()
    if kind == "document":
        return document_target(text)
    if kind == "image":
        return text.strip()
    return text


def cell_problem(column: dict[str, Any], value: Any, exists: Callable[[str], bool] | None = None) -> str:
    """What is wrong with a cell ("" when nothing): text in a number column, an unknown choice, a
    link to a document (or attachment) that does not exist (``exists`` asks)."""
    kind = column_type(column)
    if value in ("", None):
        return ""
    if kind == "number" and parse_number(value) is None:
        return f"{value!r} is not a number"
    if kind in BOOLEAN_TYPES and not isinstance(value, bool):
        return f"{value!r} is not true or false"
    if kind == "calendar" and parse_date(value) is None:
        return f"{value!r} is not a date (YYYY-MM-DD)"
    if kind == "color" and not (isinstance(value, str) and _HEX.match(value)):
        return f"{value!r} is not a colour (#rrggbb)"
    if kind == "dropdown":
        options = column_options(column)
        if options and str(value) not in options:
            return f"{value!r} is not one of the choices"
    if kind in ("document", "image") and exists is not None:
        target = document_target(value)
        if target and not exists(target):
            return f"no {'attachment' if kind == 'image' else 'document'} {target!r} in the project"
    return ""


def cell_text(column: dict[str, Any], value: Any) -> str:
    """A cell as text for CSV, the clipboard and searching (booleans as TRUE/FALSE)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if value is None:
        return ""
    if column_type(column) == "document":
        return document_target(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value) if not isinstance(value, (dict, list)) else ""


# ---------------------------------------------------------------------------------------------
# The grid in memory


_CONTENT_KEYS = ("columns", "data", "style", "comments", "rowHeights")


@dataclass
class Grid:
    columns: list[dict[str, Any]] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    style: dict[str, Any] = field(default_factory=dict)
    comments: dict[str, Any] = field(default_factory=dict)
    heights: dict[str, int] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_content(cls, content: Any) -> Grid:
        """A grid of ``content`` (copied; short rows padded to the columns)."""
        content = content if isinstance(content, dict) else {}
        columns = [dict(c) for c in content.get("columns") or [] if isinstance(c, dict)]
        rows = []
        width = len(columns)
        for raw in content.get("data") or []:
            row = list(raw) if isinstance(raw, list) else []
            if len(row) < width:  # most rows are full: no padding to build
                row.extend(empty_value(c) for c in columns[len(row):])
            rows.append(row)
        style = content.get("style")
        comments = content.get("comments")
        heights = content.get("rowHeights")
        extra = {k: copy.deepcopy(v) for k, v in content.items() if k not in _CONTENT_KEYS}
        return cls(columns, rows, dict(style) if isinstance(style, dict) else {},
                   dict(comments) if isinstance(comments, dict) else {},
                   {str(k): int(v) for k, v in heights.items() if isinstance(v, (int, float))}
                   if isinstance(heights, dict) else {}, extra)

    def to_content(self) -> dict[str, Any]:
        """The document's ``content`` (the keys the grid does not edit kept as they were)."""
        content = copy.deepcopy(self.extra)
        content["columns"] = [dict(c) for c in self.columns]
        content["data"] = [list(r) for r in self.rows]
        content["style"] = dict(self.style)
        content["comments"] = dict(self.comments)
        if self.heights:
            content["rowHeights"] = dict(self.heights)
        return content

    @property
    def row_count(self) -> int:
        return len(self.rows)

    @property
    def column_count(self) -> int:
        return len(self.columns)

    def value(self, row: int, col: int) -> Any:
        cells = self.rows[row]
        return cells[col] if col < len(cells) else empty_value(self.columns[col])

    def empty_row(self) -> list[Any]:
        return [empty_value(c) for c in self.columns]

    def text(self, row: int, col: int) -> str:
        return cell_text(self.columns[col], self.value(row, col))


# ---------------------------------------------------------------------------------------------
# Changes: each one applied returns its inverse


@dataclass(frozen=True)
class SetCells:
    cells: tuple[tuple[int, int, Any], ...]


@dataclass(frozen=True)
class InsertRows:
    at: int
    rows: tuple[tuple[Any, ...], ...]


@dataclass(frozen=True)
class RemoveRows:
    at: int
    count: int


@dataclass(frozen=True)
class MoveRows:
    """Rows ``start``..``start+count-1`` end up starting at ``to`` (an index of the result)."""

    start: int
    count: int
    to: int


@dataclass(frozen=True)
class InsertColumn:
    at: int
    column: dict[str, Any]
    values: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class RemoveColumn:
    at: int


@dataclass(frozen=True)
class MoveColumn:
    source: int
    to: int


@dataclass(frozen=True)
class SetColumn:
    at: int
    column: dict[str, Any]


@dataclass(frozen=True)
class SetRowHeight:
    row: int
    height: int | None


@dataclass(frozen=True)
class SetKeyed:
    """Restore ``style``, ``comments`` and ``rowHeights`` (the inverse of a structural change)."""

    style: dict[str, Any]
    comments: dict[str, Any]
    heights: dict[str, int]


@dataclass(frozen=True)
class Replace:
    columns: tuple[dict[str, Any], ...]
    rows: tuple[tuple[Any, ...], ...]
    style: dict[str, Any]
    comments: dict[str, Any]


@dataclass(frozen=True)
class Batch:
    changes: tuple[Any, ...]


Change = SetCells | InsertRows | RemoveRows | MoveRows | InsertColumn | RemoveColumn | MoveColumn | SetColumn \
    | SetRowHeight | SetKeyed | Replace | Batch


class GridError(StoryloomError, ValueError):
    """A change that does not fit the grid (an index out of range)."""

    code = "grid_refused"


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise GridError(message)


def _moved(index: int, start: int, count: int, to: int) -> int:
    """Where ``index`` ends up when ``count`` items at ``start`` move to ``to``."""
    if start <= index < start + count:
        return to + index - start
    rest = index - count if index >= start + count else index
    return rest + count if rest >= to else rest


def _rekey(grid: Grid, row_map: Callable[[int], int | None] | None,
           col_map: Callable[[int], int | None] | None) -> SetKeyed | None:
    """Move the cell-keyed ``style``/``comments`` (and the row heights) with their cells; the
    inverse restores them as they were."""
    if not (grid.style or grid.comments or (grid.heights and row_map)):
        return None
    before = SetKeyed(dict(grid.style), dict(grid.comments), dict(grid.heights))
    for name in ("style", "comments"):
        keyed: dict[str, Any] = getattr(grid, name)
        moved: dict[str, Any] = {}
        for key, value in keyed.items():
            where = parse_cell_name(key)
            if where is None:
                moved[key] = value
                continue
            row = row_map(where[0]) if row_map else where[0]
            col = col_map(where[1]) if col_map else where[1]
            if row is not None and col is not None:
                moved[cell_name(row, col)] = value
        setattr(grid, name, moved)
    if row_map:
        heights: dict[str, int] = {}
        for key, value in grid.heights.items():
            if key.isdigit() and (row := row_map(int(key))) is not None:
                heights[str(row)] = value
        grid.heights = heights
    return before


def _with_keyed(inverse: Change, keyed: SetKeyed | None) -> Change:
    return inverse if keyed is None else Batch((inverse, keyed))


def apply(grid: Grid, change: Change) -> Change:
    """Perform ``change`` on ``grid``; returns the change that undoes it."""
    if isinstance(change, Batch):
        return Batch(tuple(apply(grid, c) for c in change.changes)[::-1])
    if isinstance(change, SetCells):
        old = []
        for row, col, value in change.cells:
            _check(0 <= row < grid.row_count and 0 <= col < grid.column_count, f"no cell {cell_name(row, col)}")
            cells = grid.rows[row]
            cells.extend(empty_value(c) for c in grid.columns[len(cells):col + 1])
            old.append((row, col, cells[col]))
            cells[col] = value
        return SetCells(tuple(reversed(old)))
    if isinstance(change, InsertRows):
        _check(0 <= change.at <= grid.row_count, f"cannot insert rows at {change.at}")
        count = len(change.rows)
        keyed = _rekey(grid, lambda r: r if r < change.at else r + count, None)
        grid.rows[change.at:change.at] = [list(r) for r in change.rows]
        return _with_keyed(RemoveRows(change.at, count), keyed)
    if isinstance(change, RemoveRows):
        end = change.at + change.count
        _check(change.at >= 0 and change.count >= 0 and end <= grid.row_count, "no such rows")
        removed = tuple(tuple(r) for r in grid.rows[change.at:end])
        keyed = _rekey(grid, lambda r: r if r < change.at else (None if r < end else r - change.count), None)
        del grid.rows[change.at:end]
        return _with_keyed(InsertRows(change.at, removed), keyed)
    if isinstance(change, MoveRows):
        start, count, to = change.start, change.count, change.to
        _check(start >= 0 and start + count <= grid.row_count and 0 <= to <= grid.row_count - count, "no such rows")
        keyed = _rekey(grid, lambda r: _moved(r, start, count, to), None)
        block = grid.rows[start:start + count]
        del grid.rows[start:start + count]
        grid.rows[to:to] = block
        return _with_keyed(MoveRows(to, count, start), keyed)
    if isinstance(change, InsertColumn):
        _check(0 <= change.at <= grid.column_count, f"cannot insert a column at {change.at}")
        values = change.values if change.values is not None else (empty_value(change.column),) * grid.row_count
        _check(len(values) == grid.row_count, "one value per row")
        keyed = _rekey(grid, None, lambda c: c if c < change.at else c + 1)
        grid.columns.insert(change.at, dict(change.column))
        for cells, value in zip(grid.rows, values, strict=True):
            if len(cells) < change.at:
                cells.extend(empty_value(c) for c in grid.columns[len(cells):change.at])
            cells.insert(change.at, value)
        return _with_keyed(RemoveColumn(change.at), keyed)
    if isinstance(change, RemoveColumn):
        at = change.at
        _check(0 <= at < grid.column_count, f"no column {at}")
        column = grid.columns.pop(at)
        values = tuple(row.pop(at) if at < len(row) else empty_value(column) for row in grid.rows)
        keyed = _rekey(grid, None, lambda c: c if c < at else (None if c == at else c - 1))
        return _with_keyed(InsertColumn(at, column, values), keyed)
    if isinstance(change, MoveColumn):
        source, to = change.source, change.to
        _check(0 <= source < grid.column_count and 0 <= to < grid.column_count, "no such column")
        keyed = _rekey(grid, None, lambda c: _moved(c, source, 1, to))
        grid.columns.insert(to, grid.columns.pop(source))
        for cells in grid.rows:
            cells.extend(empty_value(c) for c in grid.columns[len(cells):])
            cells.insert(to, cells.pop(source))
        return _with_keyed(MoveColumn(to, source), keyed)
    if isinstance(change, SetColumn):
        _check(0 <= change.at < grid.column_count, f"no column {change.at}")
        old_column = grid.columns[change.at]
        grid.columns[change.at] = dict(change.column)
        return SetColumn(change.at, old_column)
    if isinstance(change, SetRowHeight):
        _check(0 <= change.row < grid.row_count, f"no row {change.row}")
        key = str(change.row)
        old_height = grid.heights.get(key)
        if change.height is None:
            grid.heights.pop(key, None)
        else:
            grid.heights[key] = int(change.height)
        return SetRowHeight(change.row, old_height)
    if isinstance(change, SetKeyed):
        before = SetKeyed(dict(grid.style), dict(grid.comments), dict(grid.heights))
        grid.style, grid.comments, grid.heights = dict(change.style), dict(change.comments), dict(change.heights)
        return before
    if isinstance(change, Replace):
        replaced = Replace(tuple(grid.columns), tuple(tuple(r) for r in grid.rows), dict(grid.style),
                           dict(grid.comments))
        grid.columns = [dict(c) for c in change.columns]
        grid.rows = [list(r) for r in change.rows]
        grid.style, grid.comments = dict(change.style), dict(change.comments)
        return replaced
    raise GridError(f"unknown change {change!r}")


# ---------------------------------------------------------------------------------------------
# Edits built from what the user did


def set_value(grid: Grid, row: int, col: int, value: Any) -> Change:
    """Set one cell (a radio column keeps one ``true``: the others are cleared)."""
    column = grid.columns[col]
    value = coerce(column, value)
    cells = [(row, col, value)]
    if column_type(column) == "radio" and value is True:
        cells += [(r, col, False) for r in range(grid.row_count) if r != row and grid.value(r, col) is True]
    return SetCells(tuple(cells))


def change_column(grid: Grid, col: int, **fields: Any) -> Change:
    """Change a column's settings; a new type converts its cells (undone together)."""
    old = grid.columns[col]
    column = {**old, **fields}
    if column.get("type") == "dropdown" and not isinstance(column.get("source"), list):
        column["source"] = []
    changes: list[Change] = [SetColumn(col, column)]
    if column_type(column) != column_type(old):
        cells = []
        for row in range(grid.row_count):
            value = grid.value(row, col)
            new = coerce(column, cell_text(old, value) if isinstance(value, bool) else value)
            if new != value:
                cells.append((row, col, new))
        if cells:
            changes.append(SetCells(tuple(cells)))
    return changes[0] if len(changes) == 1 else Batch(tuple(changes))


def paste(grid: Grid, row: int, col: int, block: Sequence[Sequence[str]],
          targets: Sequence[tuple[int, int]] | None = None) -> Change:
    """Paste a rectangular ``block`` of text at (``row``, ``col``): rows are added below the last
    one and text columns to the right when the block goes past them. ``targets`` (a view's
    cells, in the block's order: row by row) replaces the plain rectangle when the view is sorted
    or filtered."""
    if not block:
        return Batch(())
    width = max(len(r) for r in block)
    changes: list[Change] = []
    extra_cols = max(0, col + width - grid.column_count) if targets is None else 0
    columns = list(grid.columns)
    for index in range(extra_cols):
        column = new_column(f"Column {column_name(grid.column_count + index)}", "text", columns)
        columns.append(column)
        changes.append(InsertColumn(grid.column_count + index, column, ("",) * grid.row_count))
    extra_rows = max(0, row + len(block) - grid.row_count) if targets is None else 0
    if extra_rows:
        changes.append(InsertRows(grid.row_count, tuple(tuple(empty_value(c) for c in columns)
                                                        for _ in range(extra_rows))))
    cells: list[tuple[int, int, Any]] = []
    positions = iter(targets) if targets is not None else None
    for r, line in enumerate(block):
        for c in range(width):
            where = next(positions, None) if positions is not None else (row + r, col + c)
            if where is None or where[1] >= len(columns):
                continue
            text = line[c] if c < len(line) else ""
            cells.append((where[0], where[1], coerce(columns[where[1]], text)))
    changes.append(SetCells(tuple(cells)))
    return changes[0] if len(changes) == 1 else Batch(tuple(changes))


def clear_cells(grid: Grid, cells: Iterable[tuple[int, int]]) -> Change:
    return SetCells(tuple((r, c, empty_value(grid.columns[c])) for r, c in cells))


def remove_rows(rows: Iterable[int]) -> Change:
    """Remove any rows (not only adjacent ones): one block at a time, from the bottom up."""
    blocks: list[list[int]] = []
    for row in sorted(set(rows)):
        if blocks and blocks[-1][1] == row:
            blocks[-1][1] = row + 1
        else:
            blocks.append([row, row + 1])
    return Batch(tuple(RemoveRows(start, end - start) for start, end in reversed(blocks)))


def insert_rows(grid: Grid, at: int, count: int = 1) -> Change:
    return InsertRows(at, tuple(tuple(grid.empty_row()) for _ in range(count)))


# ---------------------------------------------------------------------------------------------
# Text: the clipboard (TSV, like other spreadsheets) and CSV files


def to_tsv(block: Sequence[Sequence[str]]) -> str:
    """Rows of text as the clipboard carries them: tabs between cells, quotes around a cell
    holding a tab, a newline or a quote (quotes doubled)."""
    def cell(text: str) -> str:
        return '"' + text.replace('"', '""') + '"' if any(ch in text for ch in '\t\n"\r') else text

    return "\n".join("\t".join(cell(t) for t in row) for row in block)


def parse_tsv(text: str) -> list[list[str]]:
    """The clipboard's rows of cells (what :func:`to_tsv` and other spreadsheets write)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.endswith("\n"):
        text = text[:-1]
    if not text:
        return []
    return [list(row) for row in csv.reader(io.StringIO(text), delimiter="\t", quotechar='"')]


def copy_block(grid: Grid, rows: Sequence[int], cols: Sequence[int]) -> list[list[str]]:
    return [[grid.text(r, c) for c in cols] for r in rows]


def to_csv(grid: Grid) -> str:
    """The grid as CSV: a header of column titles, then every row (hidden columns too)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([str(c.get("title") or c.get("name") or "") for c in grid.columns])
    for row in range(grid.row_count):
        writer.writerow([grid.text(row, col) for col in range(grid.column_count)])
    return out.getvalue()


def from_csv(grid: Grid, text: str) -> Change:
    """Replace the grid's cells with CSV ``text`` whose first row is the column titles: a column
    whose title matches keeps its type and settings (values converted to it), a new title
    becomes a text column. Undone in one step."""
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    if not rows:
        raise GridError("the CSV file is empty: it needs a header row of column titles")
    header, body = rows[0], rows[1:]
    existing = {str(c.get("title")): c for c in grid.columns}
    columns: list[dict[str, Any]] = []
    for title in header:
        column = existing.get(title)
        columns.append(dict(column) if column is not None and column not in columns
                       else new_column(title or f"Column {column_name(len(columns))}", "text", columns))
    data = tuple(tuple(coerce(columns[c], line[c] if c < len(line) else "") for c in range(len(columns)))
                 for line in body if any(cell.strip() for cell in line))
    return Replace(tuple(columns), data, {}, {})


# ---------------------------------------------------------------------------------------------
# Sorted and filtered views (the data keeps its order)


def sort_key(column: dict[str, Any], value: Any) -> tuple[int, Any]:
    """Orders a column's cells: numbers by value, dates by date, text without case; empty last."""
    kind = column_type(column)
    if value in ("", None):
        return (2, "")
    if kind == "number":
        number = parse_number(value)
        return (0, number) if number is not None else (1, str(value).casefold())
    if kind in BOOLEAN_TYPES:
        return (0, 0 if value is True else 1)
    if kind == "calendar":
        day = parse_date(value)
        return (0, day.isoformat()) if day else (1, str(value).casefold())
    return (0, cell_text(column, value).casefold())


def row_matches(grid: Grid, row: int, query: str, text_of: Callable[[int, int], str] | None = None) -> bool:
    """Whether any visible cell of ``row`` contains ``query`` (case-insensitive). ``text_of``
    gives the shown text (a document cell shows its document's name)."""
    needle = query.strip().casefold()
    if not needle:
        return True
    for col, column in enumerate(grid.columns):
        if column_type(column) == "hidden":
            continue
        text = text_of(row, col) if text_of is not None else grid.text(row, col)
        if needle in text.casefold():
            return True
    return False


def matching_rows(grid: Grid, query: str, text_of: Callable[[int, int], str] | None = None) -> list[int]:
    """The rows :func:`row_matches` keeps, in the data's order (the columns looked at once)."""
    needle = query.strip().casefold()
    if not needle:
        return list(range(grid.row_count))
    columns = [col for col, column in enumerate(grid.columns) if column_type(column) != "hidden"]
    text = text_of if text_of is not None else grid.text
    return [row for row in range(grid.row_count) if any(needle in text(row, col).casefold() for col in columns)]


def view_order(grid: Grid, sort_column: int | None = None, descending: bool = False, query: str = "",
               text_of: Callable[[int, int], str] | None = None) -> list[int]:
    """The rows a sorted and filtered view shows, in its order (a stable sort: equal cells keep
    the data's order)."""
    rows = matching_rows(grid, query, text_of)
    if sort_column is not None and 0 <= sort_column < grid.column_count:
        rows = sort_rows(grid, rows, sort_column, descending)
    return rows


def sort_rows(grid: Grid, rows: Sequence[int], column: int, descending: bool = False) -> list[int]:
    """``rows`` ordered by their cells in ``column`` (:func:`sort_key`; empty cells last either
    way). The sort is stable: equal cells keep their order in ``rows`` (a view sorted by one
    column, then by another, keeps the first order among the second's equal cells). One key per
    distinct value, computed once (a column repeats its values: choices, numbers, dates)."""
    spec = grid.columns[column]
    empty = empty_value(spec)
    data = grid.rows
    known: dict[tuple[type, Any], tuple[int, Any]] = {}  # by type too: True == 1 but sorts apart
    keyed = []
    for r in rows:
        cells = data[r]
        value = cells[column] if column < len(cells) else empty
        try:
            key = known.get((value.__class__, value))
            if key is None:
                key = known[(value.__class__, value)] = sort_key(spec, value)
        except TypeError:  # a list or dict in a cell: not hashable
            key = sort_key(spec, value)
        keyed.append((key, r))
    filled = [kr for kr in keyed if kr[0][0] != 2]
    filled.sort(key=_first, reverse=descending)
    return [r for _k, r in filled] + [r for k, r in keyed if k[0] == 2]


def _first(pair: tuple[tuple[int, Any], int]) -> tuple[int, Any]:
    return pair[0]
