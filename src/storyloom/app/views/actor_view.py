"""The actor editor's Expressions and All lines, in the app's words: Qt-free rules.

:func:`expression_tiles` lists what the Expressions strip shows: each expression the Actor
document lists (``content.expressions``: ``{name, permalink, _id}``, the image an Attachment
document), how many of the actor's lines use it, and, after them, the expressions its lines use
that the actor has no image for (a writer's typo, or a portrait still to draw). :func:`line_rows`
are the rows of "All lines" (:func:`storyloom.project.actor_lines`): the Script, the line number,
the expression, the text, and where a jump goes (the Script at the line, or a dialogue node
that plays it). :func:`lines_heading` is the section's title."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from storyloom.project import ActorLine, ActorLines, NodeRef, speaker_key
from storyloom.words import counted


@dataclass(frozen=True, slots=True)
class ExpressionTile:
    """One expression of the strip: its ``name``, the image ``source`` to resolve (a permalink or
    an attachment id; ``""`` when it has none), how many lines ``used`` it, and whether the actor
    ``listed`` it (False: only its lines name it)."""

    name: str
    source: str
    used: int = 0
    listed: bool = True

    @property
    def caption(self) -> str:
        """The text under the image: the name, and how many lines use it."""
        if not self.used:
            return self.name
        return f"{self.name} · {counted(self.used, 'line', grouped=False)}"

    @property
    def tooltip(self) -> str:
        if not self.listed:
            return (f"“{self.name}” is used by {counted(self.used, 'line', grouped=False)} but the actor "
                    "has no image for it: add it to the actor's expressions")
        return f"Expression “{self.name}”" + (f", used by {counted(self.used, 'line', grouped=False)}"
                                              if self.used else ", used by no line yet")


def listed_expressions(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(name, image source)`` of each expression an Actor document lists, in its order."""
    content = doc.get("content")
    listed = content.get("expressions") if isinstance(content, Mapping) else None
    out: list[tuple[str, str]] = []
    for entry in listed if isinstance(listed, list) else ():
        if not isinstance(entry, Mapping):
            continue
        name = entry.get("name")
        source = entry.get("permalink") or entry.get("_id")
        if isinstance(name, str) and name.strip():
            out.append((name.strip(), source if isinstance(source, str) else ""))
    return out


def expression_tiles(doc: Mapping[str, Any], found: ActorLines | None = None) -> list[ExpressionTile]:
    """The Expressions strip of the Actor ``doc``: its listed expressions (with the number of its
    lines ``found`` using each; names compare as speakers do, ignoring case), then the
    expressions its lines use that it does not list, most used first."""
    usage: dict[str, tuple[str, int]] = {}  # key -> (name as first written, count)
    for name, count in (found.expressions() if found is not None else {}).items():
        if name:
            key = speaker_key(name)
            first, total = usage.get(key, (name, 0))
            usage[key] = (first, total + count)
    tiles: list[ExpressionTile] = []
    seen: set[str] = set()
    for name, source in listed_expressions(doc):
        key = speaker_key(name)
        if key in seen:
            continue
        seen.add(key)
        tiles.append(ExpressionTile(name, source, usage.get(key, ("", 0))[1]))
    unlisted = sorted(((name, count) for key, (name, count) in usage.items() if key not in seen),
                      key=lambda item: (-item[1], item[0].casefold()))
    tiles.extend(ExpressionTile(name, "", count, listed=False) for name, count in unlisted)
    return tiles


def lines_heading(found: ActorLines | None) -> str:
    """"All lines (24 in 6 documents)", or while they are counted, "All lines"."""
    if found is None:
        return "All lines"
    count, documents = len(found.lines), found.documents
    if not count:
        return "All lines (none yet)"
    return f"All lines ({count:,} in {counted(documents, 'document')})"


@dataclass(frozen=True, slots=True)
class LineRow:
    """One row of All lines: the cells, the tooltip, and the jumps it offers (``line`` in the
    Script ``doc_id``; each of ``nodes``, a dialogue node that plays that Script)."""

    document: str
    number: str
    expression: str
    text: str
    tooltip: str
    doc_id: str
    line: int
    nodes: tuple[NodeRef, ...]


def line_rows(found: ActorLines) -> list[LineRow]:
    """The rows of All lines, in the query's order (document name, then line)."""
    return [_row(line) for line in found.lines]


def _row(line: ActorLine) -> LineRow:
    where = f"{line.doc_name}, line {line.line}"
    played = "".join(f"\nPlayed by the node “{node.label or node.node_id}” of the dialogue “{node.dialogue_name}”"
                     for node in line.nodes)
    tag = f" [#{line.tag}]" if line.tag else ""
    said = f"{line.speaker}{f' ({line.expression})' if line.expression else ''}: {line.text}"
    return LineRow(line.doc_name, str(line.line), line.expression or "", line.text,
                   f"{where}{tag}\n{said}{played}\nDouble-click to open the script at this line",
                   line.doc_id, line.line, line.nodes)


def node_jump_label(node: NodeRef) -> str:
    """The menu text of a jump to a dialogue node."""
    return f"Show in the dialogue “{node.dialogue_name}” (node “{node.label or node.node_id}”)"
