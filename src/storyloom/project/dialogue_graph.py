"""The dialogue graph's rules, Qt-free: node types, valid connections, problems and edits.

A dialogue's ``content.tree`` is ``{nodes, edges}`` as ``docs/data-model.md`` describes it: a
node is ``{id, position {x, y}, type: "base", data}``, ``data.nodeType`` one of the ten
:data:`NODE_KINDS`, its ports ``data.handles [{id, type: source|target, label, portScript?}]``;
an edge ``{id, source, sourceHandle, target, targetHandle}`` goes from a ``source`` handle to a
``target`` handle, both resolved by (node id, handle id).

:class:`DialogueGraph` holds one tree and plans every edit as a :class:`Patch` (what changes,
before and after, nothing applied yet), so an editor can apply it, revert it and apply it again
(undo and redo) without knowing what the edit was. :func:`graph_problems` lists what is wrong
with a graph, node by node. The layered layout and node geometry are in
:mod:`storyloom.project.dialogue_layout`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from storyloom.errors import StoryloomError
from storyloom.project.documents import NODE_TYPES, new_id
from storyloom.project.line_ids import strip_node_line_ids
from storyloom.script import parse_script

CLIPBOARD_KIND = "storyloom/dialogue-nodes"


@dataclass(frozen=True)
class NodeKind:
    """What a node type is: its title, default ports, and which of its parts a writer edits.

    ``ins``/``outs`` are the labels of the handles a new node gets; ``ports_editable`` says
    whether outputs can be added, renamed and removed (choices, switches); ``field`` is the
    ``data`` key holding the node's own value (``condition``, ``switch``, ``event``,
    ``jumpTo``), ``None`` when it has none."""

    type: str
    title: str
    ins: tuple[str, ...]
    outs: tuple[str, ...]
    ports_editable: bool = False
    field: str | None = None
    field_label: str = ""
    description: str = ""


NODE_KINDS: dict[str, NodeKind] = {kind.type: kind for kind in (
    NodeKind("start", "Start", (), ("Out",), description="Where the dialogue begins; one per dialogue."),
    NodeKind("script", "Script", ("In",), ("Out",), description="Plays a script's lines (links or creates a Script)."),
    NodeKind("choice", "Choice", ("In",), ("Option 1", "Option 2"), ports_editable=True,
             description="Offers options; each output is one option and may carry an @set port script."),
    NodeKind("condition", "Condition", ("In",), ("True", "False"), field="condition", field_label="Condition",
             description="Goes on by True or False, by an expression on the variables."),
    NodeKind("switch", "Switch", ("In",), ("Case 1", "Default"), ports_editable=True, field="switch",
             field_label="Switch on", description="Goes on by the output whose label equals the expression's "
                                                  "value, else by Default."),
    NodeKind("event", "Event", ("In",), ("Out",), field="event", field_label="Event",
             description="Sends an event to the game, then goes on."),
    NodeKind("jump", "Jump", ("In",), (), field="jumpTo", field_label="Jump to",
             description="Goes on at another node of this dialogue."),
    NodeKind("note", "Note", (), (), description="A note for the team; not played."),
    NodeKind("end", "End", ("In",), (), description="Ends the dialogue."),
    NodeKind("return", "Return", ("In",), (), description="Returns to whatever started this dialogue."),
)}
assert tuple(NODE_KINDS) == NODE_TYPES


def kind_of(node: Mapping[str, Any]) -> NodeKind:
    """The node's kind; a node of an unknown type is drawn and checked as a note."""
    data = node.get("data")
    node_type = data.get("nodeType") if isinstance(data, Mapping) else None
    return NODE_KINDS.get(node_type if isinstance(node_type, str) else "", NODE_KINDS["note"])


def handles(node: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The node's well-formed handles (objects with a string id), in order."""
    data = node.get("data")
    found = data.get("handles") if isinstance(data, Mapping) else None
    return [h for h in found if isinstance(h, dict) and isinstance(h.get("id"), str)] if isinstance(found, list) else []


def ports(node: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    """The node's ``source`` (outputs) or ``target`` (inputs) handles, in order."""
    return [h for h in handles(node) if h.get("type") == kind]


def label_of(node: Mapping[str, Any]) -> str:
    data = node.get("data")
    label = data.get("label") if isinstance(data, Mapping) else None
    return label.strip() if isinstance(label, str) and label.strip() else kind_of(node).title


def new_handle(kind: str, label: str, port_script: str | None = None) -> dict[str, Any]:
    handle: dict[str, Any] = {"id": new_id(), "type": kind, "label": label}
    if port_script:
        handle["portScript"] = port_script
    return handle


def new_node(node_type: str, x: float = 0, y: float = 0, label: str | None = None) -> dict[str, Any]:
    """A fresh node of ``node_type`` at (``x``, ``y``) with its kind's default ports, in the shape
    the data model stores (and Drafft writes)."""
    kind = NODE_KINDS[node_type]
    data: dict[str, Any] = {
        "label": kind.title if label is None else label, "nodeType": node_type, "notes": "",
        "metadata": [], "related": [], "scriptId": None,
        "handles": [new_handle("target", name) for name in kind.ins]
        + [new_handle("source", name) for name in kind.outs],
    }
    if kind.field:
        data[kind.field] = None if kind.field == "jumpTo" else ""
    return {"id": new_id(), "position": {"x": round(x), "y": round(y)}, "type": "base", "data": data}


# --------------------------------------------------------------------------------------
# Patches: edits as data


@dataclass(frozen=True)
class Change:
    """One node or edge replaced: ``before`` ``None`` is an insertion at ``index``, ``after``
    ``None`` a removal from ``index``, both set an update in place."""

    kind: str  # "node" or "edge"
    id: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    index: int

    def inverted(self) -> Change:
        return Change(self.kind, self.id, self.after, self.before, self.index)


@dataclass(frozen=True)
class Patch:
    """An edit of a graph, in the words an undo menu shows (``text``). Apply with
    :meth:`DialogueGraph.apply`; :meth:`inverted` undoes it."""

    text: str
    changes: tuple[Change, ...] = ()

    def inverted(self) -> Patch:
        return Patch(self.text, tuple(change.inverted() for change in reversed(self.changes)))

    @property
    def empty(self) -> bool:
        return not self.changes

    def touched(self, kind: str) -> set[str]:
        """The ids of the nodes (``"node"``) or edges (``"edge"``) this patch changes."""
        return {change.id for change in self.changes if change.kind == kind}


class ConnectionRefused(StoryloomError, ValueError):
    """A link the graph does not take; the message says why, in a writer's words."""

    code = "connection_refused"


class DialogueGraph:
    """One dialogue's graph. Read it through :attr:`nodes`, :attr:`edges`, :meth:`node`,
    :meth:`edge`; change it only by applying patches the planning methods return."""

    def __init__(self, tree: Mapping[str, Any] | None = None) -> None:
        tree = tree if isinstance(tree, Mapping) else {}
        nodes, edges = tree.get("nodes"), tree.get("edges")
        self.nodes: list[dict[str, Any]] = [copy.deepcopy(n) for n in nodes if isinstance(n, dict)] \
            if isinstance(nodes, list) else []
        self.edges: list[dict[str, Any]] = [copy.deepcopy(e) for e in edges if isinstance(e, dict)] \
            if isinstance(edges, list) else []
        self.extra = {k: copy.deepcopy(v) for k, v in tree.items() if k not in ("nodes", "edges")}
        self._index: dict[str, dict[str, int]] | None = None

    # ------------------------------------------------------------------ reading
    def to_tree(self) -> dict[str, Any]:
        """The tree to store (a deep copy)."""
        return {"nodes": copy.deepcopy(self.nodes), "edges": copy.deepcopy(self.edges), **copy.deepcopy(self.extra)}

    def _positions(self, kind: str) -> dict[str, int]:
        if self._index is None:
            self._index = {
                "node": {n["id"]: i for i, n in enumerate(self.nodes) if isinstance(n.get("id"), str)},
                "edge": {e["id"]: i for i, e in enumerate(self.edges) if isinstance(e.get("id"), str)},
            }
        return self._index[kind]

    def node(self, node_id: str) -> dict[str, Any] | None:
        index = self._positions("node").get(node_id)
        return None if index is None else self.nodes[index]

    def edge(self, edge_id: str) -> dict[str, Any] | None:
        index = self._positions("edge").get(edge_id)
        return None if index is None else self.edges[index]

    def handle(self, node_id: str, handle_id: str | None) -> dict[str, Any] | None:
        node = self.node(node_id)
        if node is None:
            return None
        return next((h for h in handles(node) if h["id"] == handle_id), None)

    def edges_of(self, node_ids: Iterable[str]) -> list[dict[str, Any]]:
        """The edges that leave or reach any of ``node_ids``."""
        wanted = set(node_ids)
        return [e for e in self.edges if e.get("source") in wanted or e.get("target") in wanted]

    def start_node(self) -> dict[str, Any] | None:
        return next((n for n in self.nodes if kind_of(n).type == "start"), None)

    # ------------------------------------------------------------------ applying
    def apply(self, patch: Patch) -> None:
        """Apply ``patch`` (its changes in order)."""
        for change in patch.changes:
            items = self.nodes if change.kind == "node" else self.edges
            if change.before is None and change.after is not None:
                items.insert(min(change.index, len(items)), copy.deepcopy(change.after))
            elif change.after is None:
                index = self._positions(change.kind).get(change.id, change.index)
                if 0 <= index < len(items):
                    del items[index]
            else:
                at = self._positions(change.kind).get(change.id)
                if at is not None:
                    items[at] = copy.deepcopy(change.after)
                    continue
            self._index = None

    def revert(self, patch: Patch) -> None:
        self.apply(patch.inverted())

    # ------------------------------------------------------------------ planning
    def _update(self, kind: str, item: dict[str, Any], after: dict[str, Any]) -> Change:
        return Change(kind, item["id"], copy.deepcopy(item), after, self._positions(kind)[item["id"]])

    def add_node(self, node_type: str, x: float, y: float, label: str | None = None) -> Patch:
        node = new_node(node_type, x, y, label)
        change = Change("node", node["id"], None, node, len(self.nodes))
        return Patch(f"Add {NODE_KINDS[node_type].title} node", (change,))

    def added_node_id(self, patch: Patch) -> str | None:
        """The node a :meth:`add_node` patch adds."""
        return next((c.id for c in patch.changes if c.kind == "node" and c.before is None), None)

    def remove(self, node_ids: Iterable[str] = (), edge_ids: Iterable[str] = (), text: str | None = None) -> Patch:
        """Delete nodes (and every edge touching them) and edges."""
        nodes = {i for i in node_ids if self.node(i) is not None}
        edges = {i for i in edge_ids if self.edge(i) is not None} | {e["id"] for e in self.edges_of(nodes)
                                                                       if isinstance(e.get("id"), str)}
        changes = []
        # From the end, so every index is the one the item has when its change is applied.
        for index in sorted((self._positions("edge")[i] for i in edges), reverse=True):
            changes.append(Change("edge", self.edges[index]["id"], copy.deepcopy(self.edges[index]), None, index))
        for index in sorted((self._positions("node")[i] for i in nodes), reverse=True):
            changes.append(Change("node", self.nodes[index]["id"], copy.deepcopy(self.nodes[index]), None, index))
        if text is None:
            text = f"Delete {_count(len(nodes), 'node')}" if nodes else f"Delete {_count(len(edges), 'link')}"
        return Patch(text, tuple(changes))

    def move(self, positions: Mapping[str, tuple[float, float]], text: str | None = None) -> Patch:
        """Put nodes at new positions (top-left corners, rounded to whole units)."""
        changes = []
        for node_id, (x, y) in positions.items():
            node = self.node(node_id)
            if node is None:
                continue
            position = {"x": round(x), "y": round(y)}
            if node.get("position") == position:
                continue
            after = copy.deepcopy(node)
            after["position"] = position
            changes.append(self._update("node", node, after))
        return Patch(text or f"Move {_count(len(changes), 'node')}", tuple(changes))

    def set_data(self, node_id: str, text: str | None = None, **fields: Any) -> Patch:
        """Set fields of a node's ``data`` (``label``, ``notes``, ``scriptId``, ``condition``,
        ``switch``, ``event``, ``jumpTo``...)."""
        node = self.node(node_id)
        if node is None:
            return Patch(text or "Edit node")
        after = copy.deepcopy(node)
        data = after.setdefault("data", {})
        changed = False
        for key, value in fields.items():
            if data.get(key, _MISSING) != value:
                data[key] = value
                changed = True
        if not changed:
            return Patch(text or "Edit node")
        names = {"label": "Rename node", "scriptId": "Link script", "jumpTo": "Set jump target",
                 "notes": "Edit notes"}
        default = names.get(next(iter(fields)), f"Edit {kind_of(node).field_label or 'node'}".strip())
        return Patch(text or default, (self._update("node", node, after),))

    def set_port(self, node_id: str, handle_id: str, *, label: str | None = None,
                 port_script: str | None = None) -> Patch:
        """Rename an output or set its port script (an empty script removes the key)."""
        node = self.node(node_id)
        if node is None or self.handle(node_id, handle_id) is None:
            return Patch("Edit port")
        after = copy.deepcopy(node)
        handle = next(h for h in handles(after) if h["id"] == handle_id)
        before = dict(handle)
        if label is not None:
            handle["label"] = label
        if port_script is not None:
            if port_script.strip():
                handle["portScript"] = port_script
            else:
                handle.pop("portScript", None)
        if handle == before:
            return Patch("Edit port")
        text = "Rename port" if label is not None and port_script is None else "Edit port script"
        return Patch(text, (self._update("node", node, after),))

    def add_port(self, node_id: str, label: str | None = None) -> Patch:
        """A new output on a choice or switch (before a switch's ``Default``)."""
        node = self.node(node_id)
        if node is None:
            return Patch("Add output")
        kind = kind_of(node)
        outs = ports(node, "source")
        if label is None:
            word = "Option" if kind.type == "choice" else "Case" if kind.type == "switch" else "Out"
            taken = {h.get("label") for h in outs}
            label = next(f"{word} {n}" for n in range(1, len(outs) + 2) if f"{word} {n}" not in taken)
        after = copy.deepcopy(node)
        data_handles = after["data"]["handles"]
        position = len(data_handles)
        if kind.type == "switch":
            default = next((i for i, h in enumerate(data_handles)
                            if h.get("type") == "source" and h.get("label") == "Default"), None)
            position = default if default is not None else position
        data_handles.insert(position, new_handle("source", label))
        return Patch(f"Add output “{label}”", (self._update("node", node, after),))

    def remove_port(self, node_id: str, handle_id: str) -> Patch:
        """Remove a handle and the edges that use it."""
        node = self.node(node_id)
        handle = self.handle(node_id, handle_id)
        if node is None or handle is None:
            return Patch("Remove port")
        doomed = [e["id"] for e in self.edges
                  if (e.get("source") == node_id and e.get("sourceHandle") == handle_id)
                  or (e.get("target") == node_id and e.get("targetHandle") == handle_id)]
        removal = self.remove(edge_ids=doomed)
        after = copy.deepcopy(node)
        after["data"]["handles"] = [h for h in after["data"]["handles"] if h.get("id") != handle_id]
        return Patch(f"Remove output “{handle.get('label', '')}”",
                     (*removal.changes, self._update("node", node, after)))

    # ------------------------------------------------------------------ connecting
    def connection_problem(self, source: str, source_handle: str, target: str, target_handle: str) -> str | None:
        """Why the link from output ``source_handle`` of ``source`` to input ``target_handle``
        of ``target`` is refused, ``None`` when it is valid. An output leads to one node: a
        new link from an output that has one replaces it (see :meth:`connect`)."""
        out = self.handle(source, source_handle)
        into = self.handle(target, target_handle)
        if out is None or into is None:
            return "that port no longer exists"
        if out.get("type") != "source":
            return "a link starts at an output (the ports on the right)"
        if into.get("type") != "target":
            return "a link ends at an input (the ports on the left)"
        if source == target:
            return "a node cannot lead to itself"
        for edge in self.edges:
            if (edge.get("source"), edge.get("sourceHandle"), edge.get("target"), edge.get("targetHandle")) \
                    == (source, source_handle, target, target_handle):
                return "these ports are linked already"
        return None

    def link_from(self, source: str, source_handle: str) -> dict[str, Any] | None:
        """The edge leaving output ``source_handle`` of ``source``, if any."""
        return next((e for e in self.edges
                     if e.get("source") == source and e.get("sourceHandle") == source_handle), None)

    def connect(self, source: str, source_handle: str, target: str, target_handle: str) -> Patch:
        """Link an output to an input; raises :class:`ConnectionRefused` for an invalid link.
        A link the output already had is replaced."""
        problem = self.connection_problem(source, source_handle, target, target_handle)
        if problem:
            raise ConnectionRefused(problem)
        replaced = self.link_from(source, source_handle)
        changes = list(self.remove(edge_ids=[replaced["id"]]).changes) if replaced else []
        edge = {"id": new_id(), "source": source, "sourceHandle": source_handle,
                "target": target, "targetHandle": target_handle}
        changes.append(Change("edge", edge["id"], None, edge, len(self.edges) - len(changes)))
        return Patch("Link nodes", tuple(changes))

    # ------------------------------------------------------------------ clipboard
    def copy(self, node_ids: Iterable[str]) -> dict[str, Any]:
        """The nodes and the edges between them, as a clipboard payload (JSON-ready)."""
        wanted = [n for n in self.nodes if n.get("id") in set(node_ids)]
        ids = {n["id"] for n in wanted}
        edges = [e for e in self.edges if e.get("source") in ids and e.get("target") in ids]
        return {"kind": CLIPBOARD_KIND, "nodes": copy.deepcopy(wanted), "edges": copy.deepcopy(edges)}

    def paste(self, payload: Mapping[str, Any], offset: tuple[float, float]) -> tuple[Patch, list[str]]:
        """Add a copy of ``payload``'s nodes moved by ``offset``, with new node and edge ids
        (handle ids are per node, so they stay); a jump to a copied node follows the copy.
        Returns the patch and the new node ids."""
        if not is_clipboard(payload):
            return Patch("Paste"), []
        renamed: dict[str, str] = {}
        nodes = []
        for node in payload["nodes"]:
            if isinstance(node, dict) and isinstance(node.get("id"), str):
                clone = copy.deepcopy(node)
                renamed[node["id"]] = clone["id"] = new_id()
                strip_node_line_ids([clone])  # a copied option is a new line: the gate gives it an id
                position = raw if isinstance(raw := clone.get("position"), dict) else {}
                clone["position"] = {"x": round(_number(position.get("x")) + offset[0]),
                                     "y": round(_number(position.get("y")) + offset[1])}
                nodes.append(clone)
        for clone in nodes:
            data = clone.get("data")
            if isinstance(data, dict) and data.get("jumpTo") in renamed:
                data["jumpTo"] = renamed[data["jumpTo"]]
        changes = [Change("node", n["id"], None, n, len(self.nodes) + i) for i, n in enumerate(nodes)]
        for edge in payload.get("edges", []):
            if isinstance(edge, dict) and edge.get("source") in renamed and edge.get("target") in renamed:
                clone = dict(edge, id=new_id(), source=renamed[edge["source"]], target=renamed[edge["target"]])
                changes.append(Change("edge", clone["id"], None, clone, len(self.edges) + len(changes) - len(nodes)))
        return Patch(f"Paste {_count(len(nodes), 'node')}", tuple(changes)), [n["id"] for n in nodes]

    def jump_targets(self, jump_id: str | None = None) -> list[tuple[str, str]]:
        """The nodes a jump may go to: ``(id, "Label (Type)")`` of every node but notes and the
        jump itself, by label."""
        found = [(n["id"], f"{label_of(n)} ({kind_of(n).title})") for n in self.nodes
                 if isinstance(n.get("id"), str) and n["id"] != jump_id and kind_of(n).type != "note"]
        return sorted(found, key=lambda item: item[1].casefold())


def is_clipboard(payload: Any) -> bool:
    return (isinstance(payload, Mapping) and payload.get("kind") == CLIPBOARD_KIND
            and isinstance(payload.get("nodes"), list))


_MISSING = object()


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# --------------------------------------------------------------------------------------
# Problems


@dataclass(frozen=True)
class GraphProblem:
    """Something wrong with a graph, on a node (``node_id``) or on the whole graph (``None``)."""

    code: str
    message: str
    node_id: str | None = None
    edge_id: str | None = None
    severity: str = "warning"


def graph_problems(tree: Mapping[str, Any] | DialogueGraph,
                   script_exists: Callable[[str], bool] | None = None) -> list[GraphProblem]:
    """Every problem of a dialogue graph, in node order: ``missing-start``, ``start-nodes`` (on
    each extra start), ``unreachable``, ``dangling-edge`` (an edge whose node or port is gone
    or of the wrong direction), ``dangling-script``/``no-script`` (``script_exists`` tells
    whether a script id resolves), ``jump-target``, ``open-output`` (an output leading
    nowhere), ``empty-field`` (a condition, switch or event with nothing in it)."""
    graph = tree if isinstance(tree, DialogueGraph) else DialogueGraph(tree)
    problems: list[GraphProblem] = []
    nodes = [n for n in graph.nodes if isinstance(n.get("id"), str)]
    starts = [n for n in nodes if kind_of(n).type == "start"]
    if nodes and not starts:
        problems.append(GraphProblem("missing-start", "This dialogue has no Start node: add one so it can be played.",
                                     severity="error"))
    for extra in starts[1:]:
        problems.append(GraphProblem("start-nodes", "A second Start node: a dialogue has exactly one.", extra["id"]))
    succ: dict[str, list[str]] = {n["id"]: [] for n in nodes}
    linked_outputs: set[tuple[str, str]] = set()
    for edge in graph.edges:
        reason = _edge_problem(graph, edge)
        if reason:
            end = edge.get("source") if graph.node(str(edge.get("source"))) is not None else edge.get("target")
            problems.append(GraphProblem("dangling-edge", reason, end if isinstance(end, str) and graph.node(end)
                                         else None, edge.get("id"), "warning"))
            continue
        succ[edge["source"]].append(edge["target"])
        linked_outputs.add((edge["source"], edge["sourceHandle"]))
    for node in nodes:
        jump = node.get("data", {}).get("jumpTo") if isinstance(node.get("data"), dict) else None
        if kind_of(node).type == "jump" and isinstance(jump, str) and graph.node(jump) is not None:
            succ[node["id"]].append(jump)
    reached: set[str] = set()
    queue = [n["id"] for n in starts[:1]]
    while queue:
        current = queue.pop()
        if current not in reached:
            reached.add(current)
            queue.extend(succ.get(current, []))
    for node in nodes:
        problems.extend(_node_problems(graph, node, starts, reached, linked_outputs, script_exists))
    return problems


def _edge_problem(graph: DialogueGraph, edge: Mapping[str, Any]) -> str | None:
    for end, wanted in (("source", "source"), ("target", "target")):
        node_id = edge.get(end)
        if not isinstance(node_id, str) or graph.node(node_id) is None:
            return f"A link's {end} node {node_id!r} does not exist."
        handle_id = edge.get(f"{end}Handle")
        if handle_id is None:
            continue
        handle = graph.handle(node_id, handle_id)
        if handle is None:
            return f"A link uses a port that “{label_of(graph.node(node_id) or {})}” no longer has."
        if handle.get("type") != wanted:
            return f"A link {'leaves' if end == 'source' else 'reaches'} “{label_of(graph.node(node_id) or {})}” " \
                   f"by an {'input' if wanted == 'source' else 'output'}."
    return None


def _node_problems(graph: DialogueGraph, node: dict[str, Any], starts: list[dict[str, Any]], reached: set[str],
                   linked: set[tuple[str, str]], script_exists: Callable[[str], bool] | None) -> list[GraphProblem]:
    kind = kind_of(node)
    node_id = node["id"]
    data = raw if isinstance(raw := node.get("data"), dict) else {}
    found = []
    if starts and kind.type != "note" and node_id not in reached:
        found.append(GraphProblem("unreachable", "No path from Start reaches this node.", node_id))
    if kind.type == "script":
        script_id = data.get("scriptId")
        if not script_id:
            found.append(GraphProblem("no-script", "This script node links no script.", node_id))
        elif script_exists is not None and not script_exists(script_id):
            found.append(GraphProblem("dangling-script", "The script this node links no longer exists.", node_id,
                                      severity="error"))
    if kind.type == "jump":
        target = data.get("jumpTo")
        if not target:
            found.append(GraphProblem("jump-target", "This jump goes nowhere: pick a target node.", node_id))
        elif graph.node(target) is None:
            found.append(GraphProblem("jump-target", "This jump's target node no longer exists.", node_id,
                                      severity="error"))
    if kind.field and kind.field != "jumpTo":
        value = data.get(kind.field)
        if not (isinstance(value, str) and value.strip()):
            found.append(GraphProblem("empty-field", f"{kind.field_label} is empty.", node_id))
    for handle in ports(node, "source"):
        if (node_id, handle["id"]) not in linked:
            label = handle.get("label") or "Out"
            found.append(GraphProblem("open-output", f"The output “{label}” leads nowhere.", node_id))
    return found


# --------------------------------------------------------------------------------------
# Script previews


def script_preview(text: str, lines: int = 3, width: int = 48) -> list[str]:
    """The first ``lines`` lines a script node shows: what is said, speech as ``Actor: text``
    and narration (commands, ``@set`` and branch markers are no line of the dialogue; a
    script of nothing else shows them), comments and blank lines skipped, each cut to
    ``width`` characters."""
    said: list[str] = []
    other: list[str] = []
    for line in parse_script(text if isinstance(text, str) else "").lines:
        info = line.to_dict()
        kind = info.get("type")
        if kind == "comment":
            continue
        if kind == "speech":
            shown_text, into = f"{info.get('actor') or '?'}: {info.get('text') or ''}", said
        elif kind == "command":
            shown_text, into = f"<{info.get('name')}>", other
        elif kind == "set":
            shown_text, into = f"@set {info.get('path')} {info.get('operator')} {info.get('value')}", other
        elif kind == "if":
            shown_text, into = f"@if {info.get('condition')}", other
        elif kind in ("else", "endif"):
            shown_text, into = f"@{kind}", other
        else:
            shown_text, into = str(info.get("text") or "").strip(), said
        if not shown_text or len(into) >= lines:
            continue
        into.append(shown_text if len(shown_text) <= width else shown_text[: width - 1].rstrip() + "…")
        if len(said) >= lines:
            break
    return said or other
