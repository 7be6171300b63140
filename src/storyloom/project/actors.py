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
linked Script's. The query reads through a :class:`SpeakerIndex` kept per store by revision
(the speech lines of each Script, the Script nodes of each Dialogue): the first query of a
project reads its Scripts and Dialogues once, the next ones only what was written since.
"""

from __future__ import annotations

import dataclasses
import threading
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

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
    ``lines`` in document-name then line order. ``read`` counts the documents the query read
    (those written since the last query; for tests and benches)."""

    name: str
    actor_id: str | None
    keys: frozenset[str]
    lines: list[ActorLine] = field(default_factory=list)
    read: int = 0

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


def speech_lines(text: str) -> Iterator[SpeechLine]:
    """The speech lines of a script's text, in order, with their line numbers.

    Only the lines holding ``::`` are given to the parser (the others become blank, so the
    numbers stay): the grammar reads each line by itself, so a speech line parses the same
    alone, and the ``@if`` conditions, ``@set`` values and commands go unparsed (half the time
    of a whole parse)."""
    speech_only = "\n".join(line if "::" in line else "" for line in text.splitlines())
    for line in parse_script(speech_only).lines:
        if isinstance(line, SpeechLine):
            yield line


def _name(doc: Mapping[str, Any]) -> str:
    name = doc.get("name")
    return name if isinstance(name, str) and name.strip() else str(doc.get("_id") or "")


class _Spoken(NamedTuple):
    """A speech line as the cache keeps it (its speaker's key beside it)."""

    key: str
    line: SpeechLine


class SpeakerIndex:
    """The speech lines of every Script and the Script nodes of every Dialogue of one project,
    kept by revision: a query reads (and parses) only the documents written since the last one,
    so the first query of a 10,000-document project reads its Scripts and Dialogues once and the
    next ones cost a pass over the index. Thread-safe (one lock; the actor editor queries from a
    worker thread). :func:`speaker_index` gives the one of a store."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._links: dict[str, tuple[str, ...]] = {}  # dialogue id -> the script id of each of its NodeRefs
        self._actors: dict[str, tuple[str, frozenset[str]]] = {}  # Actor id -> (rev, its speaker keys)
        self._scripts: dict[str, tuple[str, str, tuple[_Spoken, ...]]] = {}  # id -> (rev, name, lines)
        self._dialogues: dict[str, tuple[str, tuple[NodeRef, ...], frozenset[str]]] = {}  # id -> (rev, nodes, ids)
        self.read = 0  # documents read by the last refresh (for tests and benches)

    def refresh(self, db: Any, index: Any) -> None:
        """Catch up with the index: read the Scripts and Dialogues whose revision changed, forget the gone."""
        with self._lock:
            scripts: dict[str, str] = {}
            dialogues: dict[str, str] = {}
            actors: dict[str, str] = {}
            for summary in index.summaries():
                if summary.type == SCRIPT_TYPE:
                    scripts[summary.id] = summary.rev
                elif summary.type == DIALOGUE_TYPE:
                    dialogues[summary.id] = summary.rev
                elif summary.type == ACTOR_TYPE:
                    actors[summary.id] = summary.rev
            self.read = 0
            for kept, current, read in ((self._scripts, scripts, self._read_script),
                                        (self._dialogues, dialogues, self._read_dialogue),
                                        (self._actors, actors, self._read_actor)):
                for doc_id in [i for i in kept if i not in current]:
                    del kept[doc_id]
                    self._links.pop(doc_id, None)
                stale = [i for i, rev in current.items() if kept.get(i, ("",))[0] != rev]
                for doc in _fetch(db, stale):
                    read(doc)
                    self.read += 1

    def _read_script(self, doc: Mapping[str, Any]) -> None:
        said = tuple(_Spoken(speaker_key(line.actor), line) for line in speech_lines(script_text(doc)))
        self._scripts[str(doc["_id"])] = (str(doc.get("_rev", "")), _name(doc), said)

    def _read_actor(self, doc: Mapping[str, Any]) -> None:
        self._actors[str(doc["_id"])] = (str(doc.get("_rev", "")), actor_keys(doc))

    def actor_named(self, name: str) -> tuple[str | None, frozenset[str]]:
        """``(id, keys)`` of the Actor named or aliased ``name`` (the first in id order), or
        ``(None, {key of name})`` when no Actor is (as of the last refresh)."""
        wanted = speaker_key(name)
        with self._lock:
            for doc_id in sorted(self._actors):
                keys = self._actors[doc_id][1]
                if wanted and wanted in keys:
                    return doc_id, keys
        return None, frozenset({wanted} - {""})

    def _read_dialogue(self, doc: Mapping[str, Any]) -> None:
        content = doc.get("content")
        tree = content.get("tree") if isinstance(content, Mapping) else None
        nodes = tree.get("nodes") if isinstance(tree, Mapping) else None
        found: list[NodeRef] = []
        scripts: list[str] = []
        for node in nodes if isinstance(nodes, list) else ():
            data = node.get("data") if isinstance(node, Mapping) else None
            script_id = data.get("scriptId") if isinstance(data, Mapping) else None
            if isinstance(data, Mapping) and isinstance(script_id, str) and script_id:
                label = data.get("label")
                found.append(NodeRef(str(doc.get("_id")), _name(doc), str(node.get("id") or ""),
                                     label.strip() if isinstance(label, str) else ""))
                scripts.append(script_id)
        self._dialogues[str(doc["_id"])] = (str(doc.get("_rev", "")), tuple(found), frozenset(scripts))
        self._links[str(doc["_id"])] = tuple(scripts)

    def lines_of(self, keys: frozenset[str]) -> list[ActorLine]:
        """Every speech line whose speaker key is one of ``keys``, with the nodes playing its Script."""
        with self._lock:
            lines = [ActorLine(doc_id, name, spoken.line.line, spoken.line.text, spoken.line.expression,
                               spoken.line.tag, spoken.line.actor)
                     for doc_id, (_rev, name, said) in self._scripts.items()
                     for spoken in said if spoken.key in keys]
            wanted = {line.doc_id for line in lines}
            nodes: dict[str, list[NodeRef]] = {}
            for dialogue_id, (_rev, refs, linked) in self._dialogues.items():
                if linked.isdisjoint(wanted):
                    continue
                for ref, script_id in zip(refs, self._links[dialogue_id], strict=True):
                    if script_id in wanted:
                        nodes.setdefault(script_id, []).append(ref)
        if nodes:
            lines = [dataclasses.replace(line, nodes=tuple(nodes.get(line.doc_id, ()))) for line in lines]
        lines.sort(key=lambda line: (line.doc_name.casefold(), line.doc_id, line.line))
        return lines

    def speakers(self) -> dict[str, int]:
        """How many lines each speaker key has, across the project (as of the last refresh)."""
        with self._lock:
            counts: dict[str, int] = {}
            for *_, said in self._scripts.values():
                for spoken in said:
                    counts[spoken.key] = counts.get(spoken.key, 0) + 1
            return counts


_indexes: weakref.WeakKeyDictionary[Any, SpeakerIndex] = weakref.WeakKeyDictionary()
_indexes_lock = threading.Lock()


def speaker_index(db: Any) -> SpeakerIndex:
    """The :class:`SpeakerIndex` of the store ``db`` (one per store object, gone with it)."""
    with _indexes_lock:
        found = _indexes.get(db)
        if found is None:
            found = _indexes[db] = SpeakerIndex()
        return found


def actor_lines(db: Any, index: Any, name: str) -> ActorLines:
    """Every line of the actor ``name`` (an Actor's name or alias, or any speaker name), across
    the project's Scripts, each with the dialogue nodes that play its Script.

    ``db`` is the project's store (or a read view of it), ``index`` its
    :class:`~storyloom.project.index.ProjectIndex`. When ``name`` names an Actor document, its
    name and its alias both match a speaker. Reads through the store's :class:`SpeakerIndex`."""
    cache = speaker_index(db)
    cache.refresh(db, index)
    actor_id, keys = cache.actor_named(name)
    if not keys:
        return ActorLines(name, actor_id, keys, read=cache.read)
    return ActorLines(name, actor_id, keys, cache.lines_of(keys), cache.read)
