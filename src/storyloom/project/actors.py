"""Actors and the lines they speak, Qt-free: how a script's speaker names an Actor, and every
line of one actor across the project.

A speech line ``::Mara:: text [angry]`` names its speaker by the text between the ``::``. It
names an Actor document when it equals that actor's ``name`` or ``alias``, ignoring case and the
spaces around it: the rule the player uses to find an actor's expression image
(:func:`storyloom.play.play_session.expression_image`), and the one that leaves the real Drafft
samples without a false problem (their speakers are their actors' names as typed, ``(All)``
included). The ``[angry]`` after the text is the line's expression, never part of the name.

:func:`actor_lines` lists every line of one actor: the Scripts that speak it (each line with its
number, text and expression) and, for each, the dialogue nodes that play that Script (a Script
node's ``scriptId``). Dialogue nodes hold no speaker of their own: a node's lines are its
linked Script's. The query reads only the Scripts whose text holds the name (a substring test
before any parse) and the Dialogues, so it stays quick on a project of 10,000 documents.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from storyloom.script import parse_script
from storyloom.script.lines import SpeechLine

ACTOR_TYPE = "Actor"
SCRIPT_TYPE = "Script"
DIALOGUE_TYPE = "Dialogue"
_CHUNK = 500


def speaker_key(name: Any) -> str:
    """How a speaker or an actor's name compares: stripped, case folded (``""`` for a non-string)."""
    return name.strip().casefold() if isinstance(name, str) else ""


def actor_keys(doc: Mapping[str, Any]) -> frozenset[str]:
    """The speaker keys that name the Actor document ``doc``: its name and its alias."""
    return frozenset(key for key in (speaker_key(doc.get("name")), speaker_key(doc.get("alias"))) if key)


def script_text(doc: Mapping[str, Any]) -> str:
    """A Script document's text (``content.script``; Drafft 1's plain-string ``content``)."""
    content = doc.get("content")
    text = content.get("script") if isinstance(content, Mapping) else content
    return text if isinstance(text, str) else ""


def speaker_column(raw: str) -> int:
    """The 1-based column where a speech line's speaker name starts (after ``[#tag]`` and ``::``)."""
    start = raw.find("::")
    if start < 0:
        return 1
    column = start + 2
    while column < len(raw) and raw[column] == " ":
        column += 1
    return column + 1


@dataclass(frozen=True, slots=True)
class NodeRef:
    """A dialogue node that plays a Script: the Dialogue's id and name, the node's id and label."""

    dialogue_id: str
    dialogue_name: str
    node_id: str
    label: str

    def to_dict(self) -> dict[str, Any]:
        return {"dialogueId": self.dialogue_id, "dialogueName": self.dialogue_name, "nodeId": self.node_id,
                "label": self.label}


@dataclass(frozen=True, slots=True)
class ActorLine:
    """One line an actor speaks: the Script (id, name), the 1-based line number, the spoken text
    (without tag, expression and JSON), the expression (``None`` when the line has none), the
    line's tag, and the dialogue nodes that play the Script."""

    doc_id: str
    doc_name: str
    line: int
    text: str
    expression: str | None = None
    tag: str | None = None
    speaker: str = ""
    nodes: tuple[NodeRef, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"docId": self.doc_id, "docName": self.doc_name, "line": self.line, "text": self.text,
                "expression": self.expression, "tag": self.tag, "speaker": self.speaker,
                "nodes": [node.to_dict() for node in self.nodes]}


@dataclass(frozen=True)
class ActorLines:
    """Every line of one actor: ``name`` as asked, ``actor_id`` the Actor document it names
    (``None`` when no Actor has that name or alias), ``keys`` the speaker keys matched, and
    ``lines`` in document-name then line order. ``scripts`` counts the Scripts read (for benches)."""

    name: str
    actor_id: str | None
    keys: frozenset[str]
    lines: list[ActorLine] = field(default_factory=list)
    scripts: int = 0

    def __len__(self) -> int:
        return len(self.lines)

    @property
    def documents(self) -> int:
        """How many Scripts hold at least one of the lines."""
        return len({line.doc_id for line in self.lines})

    def expressions(self) -> dict[str, int]:
        """How many lines use each expression (``""`` for none), most used first."""
        counts: dict[str, int] = {}
        for line in self.lines:
            key = line.expression or ""
            counts[key] = counts.get(key, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _fetch(db: Any, ids: list[str]) -> Iterator[dict[str, Any]]:
    for start in range(0, len(ids), _CHUNK):
        rows = db.all_docs(keys=ids[start:start + _CHUNK], include_docs=True, skip_damaged=True)["rows"]
        for row in rows:
            doc = row.get("doc")
            if isinstance(doc, dict) and not doc.get("_deleted"):
                yield doc


def find_actor(db: Any, index: Any, name: str) -> dict[str, Any] | None:
    """The Actor document named (or aliased) ``name``, ignoring case; the first in id order when
    several are; ``None`` when there is none."""
    wanted = speaker_key(name)
    if not wanted:
        return None
    ids = sorted(index.ids_of_type(ACTOR_TYPE))
    for doc in _fetch(db, ids):
        if wanted in actor_keys(doc):
            return doc
    return None


def speech_lines(text: str) -> Iterator[SpeechLine]:
    """The speech lines of a script's text, in order."""
    for line in parse_script(text).lines:
        if isinstance(line, SpeechLine):
            yield line


def script_nodes(db: Any, index: Any, script_ids: Iterable[str]) -> dict[str, list[NodeRef]]:
    """For each of ``script_ids``, the dialogue nodes that play it (``data.scriptId``)."""
    wanted = set(script_ids)
    found: dict[str, list[NodeRef]] = {}
    if not wanted:
        return found
    for doc in _fetch(db, sorted(index.ids_of_type(DIALOGUE_TYPE))):
        content = doc.get("content")
        tree = content.get("tree") if isinstance(content, Mapping) else None
        nodes = tree.get("nodes") if isinstance(tree, Mapping) else None
        if not isinstance(nodes, list):
            continue
        for node in nodes:
            data = node.get("data") if isinstance(node, Mapping) else None
            script_id = data.get("scriptId") if isinstance(data, Mapping) else None
            if isinstance(data, Mapping) and isinstance(script_id, str) and script_id in wanted:
                label = data.get("label")
                found.setdefault(script_id, []).append(NodeRef(
                    str(doc.get("_id")), _name(doc), str(node.get("id") or ""),
                    label.strip() if isinstance(label, str) else ""))
    return found


def _name(doc: Mapping[str, Any]) -> str:
    name = doc.get("name")
    return name if isinstance(name, str) and name.strip() else str(doc.get("_id") or "")


def actor_lines(db: Any, index: Any, name: str) -> ActorLines:
    """Every line of the actor ``name`` (an Actor's name or alias, or any speaker name), across
    the project's Scripts, each with the dialogue nodes that play its Script.

    ``db`` is the project's store (or a read view of it), ``index`` its
    :class:`~storyloom.project.index.ProjectIndex`. When ``name`` names an Actor document, its
    name and its alias both match a speaker."""
    actor = find_actor(db, index, name)
    keys = actor_keys(actor) if actor is not None else frozenset({speaker_key(name)} - {""})
    result = ActorLines(name, str(actor["_id"]) if actor is not None else None, keys)
    if not keys:
        return result
    lines: list[ActorLine] = []
    scripts = 0
    for doc in _fetch(db, index.ids_of_type(SCRIPT_TYPE)):
        text = script_text(doc)
        folded = text.casefold()
        if not any(key in folded for key in keys):  # the quick test: most Scripts never name the actor
            continue
        scripts += 1
        doc_id, doc_name = str(doc["_id"]), _name(doc)
        for speech in speech_lines(text):
            if speaker_key(speech.actor) in keys:
                lines.append(ActorLine(doc_id, doc_name, speech.line, speech.text, speech.expression,
                                       speech.tag, speech.actor))
    nodes = script_nodes(db, index, {line.doc_id for line in lines})
    if nodes:
        lines = [ActorLine(line.doc_id, line.doc_name, line.line, line.text, line.expression, line.tag,
                           line.speaker, tuple(nodes.get(line.doc_id, ()))) for line in lines]
    lines.sort(key=lambda line: (line.doc_name.casefold(), line.doc_id, line.line))
    return ActorLines(name, result.actor_id, keys, lines, scripts)
