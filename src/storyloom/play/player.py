"""The dialogue player: plays scripts and dialogue graphs against a variables state, Qt-free.

A :class:`Player` plays a *program*: an ordered list of :class:`PlayItem` (a Script from a line,
a Dialogue from a node; one item to play a document, several for a Scene). It reads documents
through a ``documents`` callable (``doc_id -> doc or None``), evaluates ``@if`` conditions,
condition and switch nodes with :mod:`storyloom.script`'s evaluator, runs ``@set`` lines and
port scripts on its own copy of the state (``states``; ``defaults`` are the authored values
that ``defaults.variables.…`` reads and that missing live values fall back to), and shows
``${…}`` evaluated. What it shows is a list of :class:`Entry` (speech with the actor and the
expression, text, commands, events, the choices made, problems, the end).

Steps: :meth:`Player.advance` plays up to the next line of speech or text (commands, events and
section headings on the way are shown without stopping); at a choice node the player waits for
:meth:`Player.choose`. Every step first keeps a snapshot, so :meth:`Player.step_back` undoes it
(state included) and :meth:`Player.restart` goes back to the beginning.

Node rules (``data.nodeType``; a node's linked script, ``data.scriptId``, is played on entry):

- ``start``, ``script``, ``note``: follow the first output that has an edge;
- ``choice``: offer every output handle (its ``label``, interpolated); the chosen handle's
  ``portScript`` runs (its ``@set`` lines, and any line it shows), then its edge is followed;
- ``condition``: ``data.condition`` is evaluated; the output labelled ``True`` (or ``Yes``) is
  followed when it is truthy, ``False`` (or ``No``) otherwise (without such labels: the first
  output for true, the second for false);
- ``switch``: with ``data.switch`` (or ``data.condition``) set, the first output whose label
  equals its value (the label read as an expression, else as text); without it, the first output
  whose label is a truthy condition; an output labelled ``default`` or ``else`` is taken when
  no other is;
- ``event``: shows ``data.event`` (else the label), then follows its output;
- ``jump``: goes to ``data.jumpTo`` (a node id), else follows its output;
- ``end`` and ``return``: the dialogue ends (in a scene, the next item plays).

Nothing the writer typed stops the player: an expression error is shown as a problem entry
(an ``@if`` that cannot be evaluated counts as false), an edge to nowhere ends the dialogue
with a problem entry, and a loop without any line in it stops after ``max_steps``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from storyloom.script import (
    CommandLine,
    CommentLine,
    ElseLine,
    EndIfLine,
    ExpressionError,
    IfLine,
    SetLine,
    SpeechLine,
    TextLine,
    apply_set,
    evaluate,
    format_value,
    interpolate,
    parse_script,
    truthy,
)

Documents = Callable[[str], "Mapping[str, Any] | None"]
#: Entry kinds that end a step (a line to read, or the end).
STOPPING = frozenset({"speech", "text", "end"})
ENTRY_KINDS = ("speech", "text", "command", "event", "choice", "section", "problem", "end")
MAX_STEPS = 10_000
_TRUE_LABELS = ("true", "yes")
_FALSE_LABELS = ("false", "no")
_DEFAULT_LABELS = ("default", "else", "otherwise")


@dataclass(frozen=True)
class PlayItem:
    """One item of a program: a Script from ``start_line`` (1-based; ``None``: its first line)
    or a Dialogue from ``start_node`` (``None``: its Start node)."""

    doc_id: str
    doc_type: str
    start_line: int | None = None
    start_node: str | None = None


@dataclass(frozen=True)
class Entry:
    """One thing the player showed. ``kind`` is one of :data:`ENTRY_KINDS`; ``text`` is what is
    shown (interpolated); a speech line also has ``actor``, ``expression`` and ``tag``.
    ``script``/``line`` name the script line it comes from, ``dialogue``/``node`` the node."""

    kind: str
    text: str
    actor: str | None = None
    expression: str | None = None
    tag: str | None = None
    script: str | None = None
    line: int | None = None
    dialogue: str | None = None
    node: str | None = None

    def display(self) -> str:
        """One line of plain text: ``Wren Hale [neutral]: Hello.``, ``<CutTo("jetty")>``,
        ``> Ask about the logbook``, ``* lamp_relit``, ``# 01 Arrival``, ``! problem``, ``= End``."""
        if self.kind == "speech":
            mood = f" [{self.expression}]" if self.expression else ""
            return f"{self.actor}{mood}: {self.text}"
        prefix = {"command": "<", "choice": "> ", "event": "* ", "section": "# ", "problem": "! ", "end": "= "}
        if self.kind == "command":
            return f"<{self.text}>"
        return prefix.get(self.kind, "") + self.text


@dataclass(frozen=True)
class Choice:
    """A choice offered: its position among the node's outputs, its label (interpolated), its
    handle id, and whether an edge leaves it."""

    index: int
    label: str
    handle: str
    leads_on: bool


@dataclass(frozen=True)
class Change:
    """A variable whose value differs from the start of the play: ``path`` is
    ``<sid>.<property>…`` (``variables.`` left out); ``before`` is ``None`` with ``added``."""

    path: str
    before: Any
    after: Any
    added: bool = False

    def texts(self) -> tuple[str, str]:
        """``before`` and ``after`` as compact JSON, as the Variables table shows values (``—``
        when added): ``"logbook"`` is text, ``true`` a boolean."""
        return ("—" if self.added else _json_text(self.before)), _json_text(self.after)


@dataclass(frozen=True)
class Position:
    """Where the player is: the program item, the document played, and the node and script
    line being played (``None`` when there is none)."""

    item: int
    doc_id: str
    doc_type: str
    dialogue: str | None = None
    node: str | None = None
    node_label: str | None = None
    script: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class _Code:
    """A parsed script (or port script) and its jump table."""

    lines: tuple[Any, ...]
    if_false: dict[int, int]  # an @if's index -> where to go when its condition is false
    else_skip: dict[int, int]  # an @else's index -> after its @endif


@dataclass
class _Cursor:
    item: int = -1
    dialogue: str | None = None
    node: str | None = None
    code: tuple[str, ...] | None = None  # ("doc", script id) or ("port", node id, handle id)
    index: int = 0
    then: str = ""  # after the code: "exit" (the node's rule), "item" (next item), "follow"
    handle: str | None = None  # the handle followed after a port script
    next_node: str | None = None  # the node entered by the next micro-step
    choosing: bool = False
    finished: bool = False


@dataclass
class _Snapshot:
    states: dict[str, Any]
    cursor: _Cursor
    entries: int


def compile_script(text: str) -> _Code:
    """Parse ``text`` and pair each ``@if`` with its ``@else`` and ``@endif``."""
    lines = tuple(parse_script(text).lines)
    if_false: dict[int, int] = {}
    else_skip: dict[int, int] = {}
    stack: list[list[Any]] = []
    for index, line in enumerate(lines):
        if isinstance(line, IfLine):
            stack.append([index, None])
        elif isinstance(line, ElseLine) and stack and stack[-1][1] is None:
            stack[-1][1] = index
        elif isinstance(line, EndIfLine) and stack:
            opened, otherwise = stack.pop()
            if_false[opened] = otherwise + 1 if otherwise is not None else index + 1
            if otherwise is not None:
                else_skip[otherwise] = index + 1
    for opened, otherwise in stack:  # an unclosed @if runs to the end of the script
        if_false[opened] = otherwise + 1 if otherwise is not None else len(lines)
        if otherwise is not None:
            else_skip[otherwise] = len(lines)
    return _Code(lines, if_false, else_skip)


def flatten_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[Change]:
    """Every property of ``after`` that differs from ``before`` (objects walked key by key,
    lists and values compared whole, ``true`` never equal to ``1``), in ``after``'s order."""
    out: list[Change] = []
    missing = object()

    def same(a: Any, b: Any) -> bool:
        if isinstance(a, bool) or isinstance(b, bool):
            return type(a) is type(b) and a == b
        return bool(a == b)

    def walk(old: Any, new: Mapping[str, Any], path: str) -> None:
        for key, value in new.items():
            if key == "_sid":
                continue
            here = f"{path}.{key}" if path else str(key)
            previous = old.get(key, missing) if isinstance(old, Mapping) else missing
            if isinstance(value, Mapping) and isinstance(previous, Mapping):
                walk(previous, value, here)
            elif previous is missing:
                out.append(Change(here, None, copy.deepcopy(value), added=True))
            elif not same(previous, value):
                out.append(Change(here, copy.deepcopy(previous), copy.deepcopy(value)))

    walk(before, after, "")
    return out


class Player:
    """Plays ``program`` from ``states`` (copied; the caller's mapping is never changed)."""

    def __init__(self, program: Sequence[PlayItem], states: Mapping[str, Any], defaults: Mapping[str, Any],
                 documents: Documents, *, max_steps: int = MAX_STEPS) -> None:
        self.program = list(program)
        self.defaults = defaults
        self.documents = documents
        self.max_steps = max_steps
        self.start_states: dict[str, Any] = copy.deepcopy(dict(states))
        self.states: dict[str, Any] = copy.deepcopy(self.start_states)
        self.entries: list[Entry] = []
        self._cursor = _Cursor()
        self._history: list[_Snapshot] = []
        self._codes: dict[tuple[str, ...], _Code] = {}
        self._docs: dict[str, Mapping[str, Any] | None] = {}

    # ------------------------------------------------------------------ what is shown
    @property
    def finished(self) -> bool:
        return self._cursor.finished

    @property
    def waiting_for_choice(self) -> bool:
        return self._cursor.choosing and not self._cursor.finished

    @property
    def can_step_back(self) -> bool:
        return bool(self._history)

    @property
    def steps(self) -> int:
        """How many steps were played (what :meth:`step_back` can undo)."""
        return len(self._history)

    def choices(self) -> list[Choice]:
        """The choices offered now (empty unless :attr:`waiting_for_choice`)."""
        if not self.waiting_for_choice or self._cursor.node is None:
            return []
        node = self._node(self._cursor.node)
        out = []
        for index, handle in enumerate(_outputs(node)):
            label = str(handle.get("label") or f"Choice {index + 1}")
            out.append(Choice(index, self._interpolated(label, emit=False), str(handle.get("id")),
                              self._edge_from(self._cursor.node, str(handle.get("id"))) is not None))
        return out

    def changes(self) -> list[Change]:
        """The variables the play changed since its start, by path."""
        return sorted(flatten_changes(self.start_states, self.states), key=lambda change: change.path)

    @property
    def position(self) -> Position | None:
        """The node and script line being played (the last one shown, or the choice waited on)."""
        cursor = self._cursor
        if 0 <= cursor.item < len(self.program):
            item = self.program[cursor.item]
            last = self.entries[-1] if self.entries else None
            if cursor.choosing and cursor.node is not None:
                return Position(cursor.item, item.doc_id, item.doc_type, cursor.dialogue, cursor.node,
                                self._node_label(cursor.node))
            if last is not None and (last.script or last.node):
                node = last.node if last.dialogue == cursor.dialogue else None
                return Position(cursor.item, item.doc_id, item.doc_type, last.dialogue, node,
                                self._node_label(node) if node else None, last.script, last.line)
            return Position(cursor.item, item.doc_id, item.doc_type, cursor.dialogue)
        return None

    def document(self, doc_id: str) -> Mapping[str, Any] | None:
        """A document as the player read it (cached for the play)."""
        if doc_id not in self._docs:
            self._docs[doc_id] = self.documents(doc_id)
        return self._docs[doc_id]

    # ------------------------------------------------------------------ steps
    def advance(self) -> list[Entry]:
        """Play up to the next line of speech or text, a choice or the end; returns what was
        shown. Does nothing while a choice waits (see :meth:`choose`) or after the end."""
        if self.finished or self.waiting_for_choice:
            return []
        self._keep()
        return self._run()

    def choose(self, index: int) -> list[Entry]:
        """Pick choice ``index`` (of :meth:`choices`) and play on to the next line; returns what
        was shown, the choice first. Raises ``IndexError`` for a choice not offered."""
        offered = self.choices()
        if not 0 <= index < len(offered):
            raise IndexError(f"choice {index} is not offered (there are {len(offered)})")
        choice = offered[index]
        self._keep()
        start = len(self.entries)
        node = self._cursor.node
        assert node is not None
        self._cursor.choosing = False
        self._emit(Entry("choice", choice.label, dialogue=self._cursor.dialogue, node=node))
        port = self._handle(node, choice.handle)
        script = port.get("portScript") if port else None
        if isinstance(script, str) and script.strip():
            self._start_code(("port", node, choice.handle), then="follow", handle=choice.handle)
        else:
            self._follow(node, choice.handle)
        self._run()
        return self.entries[start:]

    def play_on(self, limit: int = 1000) -> list[Entry]:
        """Advance until a choice waits or the play ends (at most ``limit`` steps)."""
        start = len(self.entries)
        for _ in range(limit):
            if self.finished or self.waiting_for_choice:
                break
            self.advance()
        return self.entries[start:]

    def step_back(self) -> bool:
        """Undo the last step (the state, the position and what it showed). False at the start."""
        if not self._history:
            return False
        self._restore(self._history.pop())
        return True

    def restart(self) -> None:
        """Back to the beginning, with the state the play started from."""
        if self._history:
            self._restore(self._history[0])
        self._history.clear()

    def _keep(self) -> None:
        self._history.append(_Snapshot(copy.deepcopy(self.states), replace(self._cursor), len(self.entries)))

    def _restore(self, snapshot: _Snapshot) -> None:
        self.states = copy.deepcopy(snapshot.states)
        self._cursor = replace(snapshot.cursor)
        del self.entries[snapshot.entries:]

    # ------------------------------------------------------------------ the machine
    def _emit(self, entry: Entry) -> None:
        self.entries.append(entry)

    def _run(self) -> list[Entry]:
        start = len(self.entries)
        for _ in range(self.max_steps):
            cursor = self._cursor
            if cursor.finished or cursor.choosing:
                break
            if len(self.entries) > start and self.entries[-1].kind in STOPPING:
                break
            self._micro_step()
        else:
            where = self._node_label(self._cursor.node) if self._cursor.node else "a script"
            self._problem(f"stopped after {self.max_steps} steps without a line to show: "
                          f"is there a loop at {where!r}?")
            self._finish()
        return self.entries[start:]

    def _micro_step(self) -> None:
        cursor = self._cursor
        if cursor.item < 0:
            self._start_item(0)
        elif cursor.code is not None:
            self._code_step()
        elif cursor.next_node is not None:
            node, cursor.next_node = cursor.next_node, None
            self._enter(node)
        else:  # between nodes with nothing left to do: the item is over
            self._end_item()

    def _start_item(self, index: int) -> None:
        if index >= len(self.program):
            self._finish()
            return
        item = self.program[index]
        self._cursor = _Cursor(item=index)
        doc = self.document(item.doc_id)
        if len(self.program) > 1:
            name = _name(doc) if doc is not None else item.doc_id
            self._emit(Entry("section", name, script=item.doc_id if item.doc_type == "Script" else None,
                             dialogue=item.doc_id if item.doc_type == "Dialogue" else None))
        if doc is None:
            self._problem(f"the {item.doc_type.lower()} {item.doc_id!r} of this play does not exist")
            self._end_item()
        elif item.doc_type == "Dialogue":
            self._start_dialogue(item, doc)
        else:
            self._start_code(("doc", item.doc_id), then="item")
            code = self._code(("doc", item.doc_id))
            if item.start_line:
                self._cursor.index = next((i for i, line in enumerate(code.lines) if line.line >= item.start_line),
                                          len(code.lines))

    def _start_dialogue(self, item: PlayItem, doc: Mapping[str, Any]) -> None:
        self._cursor.dialogue = item.doc_id
        nodes = _nodes(doc)
        start = item.start_node
        if start is None:
            start = next((nid for nid, node in nodes.items() if _node_type(node) == "start"), None)
            if start is None:
                self._problem(f"the dialogue {_name(doc)!r} has no Start node")
                self._end_item()
                return
        if start not in nodes:
            self._problem(f"the node {start!r} is not in the dialogue {_name(doc)!r}")
            self._end_item()
            return
        self._cursor.next_node = start

    def _end_item(self) -> None:
        self._start_item(self._cursor.item + 1)

    def _finish(self) -> None:
        if not self.entries or self.entries[-1].kind != "end":
            self._emit(Entry("end", "The end"))
        self._cursor.finished = True
        self._cursor.choosing = False
        self._cursor.code = None

    def _problem(self, message: str, **where: Any) -> None:
        self._emit(Entry("problem", message, **where))

    # ------------------------------------------------------------------ scripts
    def _code(self, key: tuple[str, ...]) -> _Code:
        if key not in self._codes:
            text = ""
            if key[0] == "doc":
                doc = self.document(key[1])
                script = (doc.get("content") or {}).get("script") if doc is not None else None
                text = script if isinstance(script, str) else ""
            else:
                handle = self._handle(key[1], key[2])
                port = handle.get("portScript") if handle else None
                text = port if isinstance(port, str) else ""
            self._codes[key] = compile_script(text)
        return self._codes[key]

    def _start_code(self, key: tuple[str, ...], *, then: str, handle: str | None = None) -> None:
        self._cursor.code = key
        self._cursor.index = 0
        self._cursor.then = then
        self._cursor.handle = handle

    def _code_step(self) -> None:
        cursor = self._cursor
        assert cursor.code is not None
        code = self._code(cursor.code)
        if cursor.index >= len(code.lines):
            self._code_done()
            return
        index = cursor.index
        line = code.lines[index]
        cursor.index = index + 1
        script = cursor.code[1] if cursor.code[0] == "doc" else None
        where: dict[str, Any] = {"script": script, "line": line.line if script else None,
                                 "dialogue": cursor.dialogue, "node": cursor.node}
        if isinstance(line, IfLine):
            try:
                passed = truthy(evaluate(line.condition, self.states, self.defaults))
            except ExpressionError as exc:
                self._problem(f"@if {line.condition}: {exc} (taken as false)", **where)
                passed = False
            if not passed:
                cursor.index = code.if_false.get(index, index + 1)
        elif isinstance(line, ElseLine):
            cursor.index = code.else_skip.get(index, index + 1)
        elif isinstance(line, SetLine):
            try:
                apply_set(line, self.states, self.defaults)
            except ExpressionError as exc:
                self._problem(f"@set {line.path} {line.operator} {line.value}: {exc}", **where)
        elif isinstance(line, SpeechLine):
            self._emit(Entry("speech", self._interpolated(line.text, **where), actor=line.actor,
                             expression=line.expression, tag=line.tag, **where))
        elif isinstance(line, CommandLine):
            params = ", ".join(line.params)
            self._emit(Entry("command", self._interpolated(f"{line.name}({params})", **where), **where))
        elif isinstance(line, TextLine):
            self._emit(Entry("text", self._interpolated(line.text.strip(), **where), **where))
        elif isinstance(line, (CommentLine, EndIfLine)):
            pass

    def _code_done(self) -> None:
        cursor = self._cursor
        then, handle = cursor.then, cursor.handle
        cursor.code = None
        if then == "item":
            self._end_item()
        elif then == "follow" and cursor.node is not None and handle is not None:
            self._follow(cursor.node, handle)
        elif cursor.node is not None:
            self._exit(cursor.node)
        else:
            self._end_item()

    def _interpolated(self, text: str, *, emit: bool = True, **where: Any) -> str:
        """``text`` with its ``${…}`` evaluated; when one cannot be, the text as written (and,
        with ``emit``, a problem entry saying why)."""
        if "${" not in text:
            return text
        try:
            return interpolate(text, self.states, self.defaults)
        except ExpressionError as exc:
            if emit:
                self._problem(f"{text}: {exc}", **where)
            return text

    # ------------------------------------------------------------------ dialogue nodes
    def _dialogue_doc(self) -> Mapping[str, Any]:
        dialogue = self._cursor.dialogue
        return (self.document(dialogue) if dialogue else None) or {}

    def _node(self, node_id: str) -> Mapping[str, Any]:
        return _nodes(self._dialogue_doc()).get(node_id) or {}

    def _node_label(self, node_id: str | None) -> str | None:
        if node_id is None:
            return None
        data = self._node(node_id).get("data") or {}
        label = data.get("label") if isinstance(data, Mapping) else None
        return str(label) if isinstance(label, str) and label.strip() else node_id

    def _handle(self, node_id: str, handle_id: str) -> Mapping[str, Any] | None:
        return next((h for h in _handles(self._node(node_id)) if str(h.get("id")) == handle_id), None)

    def _edge_from(self, node_id: str, handle_id: str | None) -> Mapping[str, Any] | None:
        tree = (self._dialogue_doc().get("content") or {}).get("tree") or {}
        edges = tree.get("edges") if isinstance(tree, Mapping) else None
        for edge in edges if isinstance(edges, list) else []:
            if isinstance(edge, Mapping) and edge.get("source") == node_id \
                    and (handle_id is None or edge.get("sourceHandle") == handle_id):
                return edge
        return None

    def _enter(self, node_id: str) -> None:
        cursor = self._cursor
        cursor.node = node_id
        cursor.choosing = False
        data = self._node(node_id).get("data") or {}
        script = data.get("scriptId") if isinstance(data, Mapping) else None
        if isinstance(script, str) and script:
            if self.document(script) is None:
                self._problem(f"the node {self._node_label(node_id)!r} links a script that does not exist",
                              dialogue=cursor.dialogue, node=node_id)
            else:
                self._start_code(("doc", script), then="exit")
                return
        self._exit(node_id)

    def _exit(self, node_id: str) -> None:
        """What a node does once its linked script has played."""
        node = self._node(node_id)
        raw = node.get("data")
        data: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        kind = _node_type(node)
        where: dict[str, Any] = {"dialogue": self._cursor.dialogue, "node": node_id}  # Entry's keywords
        if kind == "choice":
            if _outputs(node):
                self._cursor.choosing = True
            else:
                self._problem(f"the choice {self._node_label(node_id)!r} offers no choice", **where)
                self._end_item()
        elif kind in ("end", "return"):
            self._emit(Entry("end", self._node_label(node_id) or kind, **where))
            self._end_item()
        elif kind in ("condition", "switch"):
            chosen = (self._condition_output if kind == "condition" else self._switch_output)(node, data, where)
            if chosen is None:
                self._problem(f"no output of {self._node_label(node_id)!r} fits: the dialogue stops here", **where)
                self._end_item()
            else:
                self._follow(node_id, chosen)
        elif kind == "jump":
            target = data.get("jumpTo")
            if isinstance(target, str) and target in _nodes(self._dialogue_doc()):
                self._cursor.next_node = target
            else:
                self._follow(node_id, None)
        else:
            if kind == "event":
                name = data.get("event")
                self._emit(Entry("event", str(name) if isinstance(name, str) and name else
                                 self._node_label(node_id) or "event", **where))
            self._follow(node_id, None)

    def _follow(self, node_id: str, handle_id: str | None) -> None:
        """Go along the edge leaving ``handle_id`` (``None``: the first output with an edge)."""
        edge = None
        if handle_id is not None:
            edge = self._edge_from(node_id, handle_id)
        else:
            for handle in _outputs(self._node(node_id)):
                edge = self._edge_from(node_id, str(handle.get("id")))
                if edge is not None:
                    break
        where = {"dialogue": self._cursor.dialogue, "node": node_id}
        if edge is None:
            self._problem(f"nothing leads on from {self._node_label(node_id)!r}: the dialogue stops here", **where)
            self._end_item()
            return
        target = edge.get("target")
        if not isinstance(target, str) or target not in _nodes(self._dialogue_doc()):
            self._problem(f"the link out of {self._node_label(node_id)!r} leads to a node that does not exist",
                          **where)
            self._end_item()
            return
        self._cursor.next_node = target

    def _condition_output(self, node: Mapping[str, Any], data: Mapping[str, Any],
                          where: dict[str, Any]) -> str | None:
        outputs = _outputs(node)
        condition = data.get("condition")
        passed = False
        if isinstance(condition, str) and condition.strip():
            try:
                passed = truthy(evaluate(condition, self.states, self.defaults))
            except ExpressionError as exc:
                self._problem(f"condition {condition}: {exc} (taken as false)", **where)
        else:
            self._problem(f"the condition {self._node_label(where['node'])!r} has no condition (taken as false)",
                          **where)
        wanted = _TRUE_LABELS if passed else _FALSE_LABELS
        for handle in outputs:
            if str(handle.get("label") or "").strip().lower() in wanted:
                return str(handle.get("id"))
        position = 0 if passed else 1
        return str(outputs[position].get("id")) if len(outputs) > position else None

    def _switch_output(self, node: Mapping[str, Any], data: Mapping[str, Any],
                       where: dict[str, Any]) -> str | None:
        subject_text = data.get("switch") or data.get("condition")
        subject: Any = None
        if isinstance(subject_text, str) and subject_text.strip():
            try:
                subject = evaluate(subject_text, self.states, self.defaults)
            except ExpressionError as exc:
                self._problem(f"switch {subject_text}: {exc}", **where)
                subject_text = None
        default = None
        for handle in _outputs(node):
            label = str(handle.get("label") or "").strip()
            if label.lower() in _DEFAULT_LABELS:
                default = default or str(handle.get("id"))
                continue
            if isinstance(subject_text, str) and subject_text.strip():
                try:
                    value: Any = evaluate(label, self.states, self.defaults)
                except ExpressionError:
                    value = label
                if value == subject or format_value(subject) == label:
                    return str(handle.get("id"))
            else:
                try:
                    if truthy(evaluate(label, self.states, self.defaults)):
                        return str(handle.get("id"))
                except ExpressionError as exc:
                    self._problem(f"switch case {label}: {exc} (taken as false)", **where)
        return default


def _json_text(value: Any, limit: int = 80) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------------------------- graph reading
def _name(doc: Mapping[str, Any]) -> str:
    name = doc.get("name")
    return name if isinstance(name, str) and name.strip() else str(doc.get("_id") or "untitled")


def _nodes(doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    tree = (doc.get("content") or {}).get("tree") if isinstance(doc.get("content"), Mapping) else None
    nodes = tree.get("nodes") if isinstance(tree, Mapping) else None
    return {str(n.get("id")): n for n in nodes if isinstance(n, Mapping)} if isinstance(nodes, list) else {}


def _node_type(node: Mapping[str, Any]) -> str:
    data = node.get("data")
    kind = data.get("nodeType") if isinstance(data, Mapping) else None
    return str(kind).lower() if isinstance(kind, str) else ""


def _handles(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    data = node.get("data")
    handles = data.get("handles") if isinstance(data, Mapping) else None
    return [h for h in handles if isinstance(h, Mapping)] if isinstance(handles, list) else []


def _outputs(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [h for h in _handles(node) if h.get("type") == "source"]


def dialogue_nodes(doc: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """``(node id, node type, label)`` of every node of a dialogue, in stored order (for "play
    from this node" and a scene item's start node)."""
    out = []
    for node_id, node in _nodes(doc).items():
        data = node.get("data") if isinstance(node.get("data"), Mapping) else {}
        label = data.get("label") if isinstance(data, Mapping) else None
        out.append((node_id, _node_type(node), str(label).strip() if isinstance(label, str) and label.strip()
                    else _node_type(node) or node_id))
    return out


__all__ = [
    "ENTRY_KINDS",
    "STOPPING",
    "Change",
    "Choice",
    "Entry",
    "PlayItem",
    "Player",
    "Position",
    "compile_script",
    "dialogue_nodes",
    "flatten_changes",
]
