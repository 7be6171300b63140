"""A play of a project's documents: the player's state source, programs and the Live state.

:class:`PlaySession` binds a :class:`~storyloom.play.player.Player` to an open project
(anything with ``.db``, ``.index`` and ``.editor``: a :class:`~storyloom.app.ProjectSession`).
The state a play starts from is one of :data:`STATE_SOURCES`:

- ``defaults``: the authored variables (``index.states()``);
- ``live``: the stored Live state (``_local/live-state``), the Defaults when none is stored
  (Live is the Defaults until something writes it), with states added since filled in;
- ``scenario``: the Defaults with a Scenario's valid overrides
  (:func:`~storyloom.play.live_state.scenario_into_live`; the ones left out are listed in
  :attr:`PlaySession.problems`).

The play changes its own copy of the state. With ``write_live`` the state after every step
(and after a step back or a restart) is stored as the Live state, so the Variables editors and
the next play see it; nothing else is ever written.

:func:`program_for` makes the program that plays a document: a Script from a line, a Dialogue
from a node, a Scene's items in order. :func:`expression_image` finds the picture of an actor's
expression (an Attachment id) for the transcript.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from storyloom.errors import StoryloomError
from storyloom.play.live_state import read_live, scenario_into_live, write_live
from storyloom.play.player import Entry, Player, PlayItem
from storyloom.project.content import ContentError
from storyloom.store import Conflict, NotFound

STATE_SOURCES = ("defaults", "live", "scenario")
PLAYABLE_TYPES = ("Script", "Dialogue", "Scene")


class PlayError(StoryloomError):
    """A play cannot start: the document cannot be played, or the scenario does not parse."""

    code = "play_refused"


@dataclass(frozen=True)
class StartState:
    """The state a play starts from, with a label for it (``Defaults``, ``Live``, the
    scenario's name) and the problems met while making it (overrides left out)."""

    states: dict[str, Any]
    label: str
    problems: list[str] = field(default_factory=list)


def read_doc(session: Any, doc_id: str) -> dict[str, Any] | None:
    """``doc_id`` from the session's store, ``None`` when it does not exist."""
    try:
        doc = session.db.get(doc_id)
    except NotFound:
        return None
    return doc if isinstance(doc, dict) and not doc.get("_deleted") else None


def scenarios(session: Any) -> list[tuple[str, str]]:
    """``(id, name)`` of every Scenario of the project, by name."""
    found = [(s.id, s.name or "Untitled scenario") for s in session.index.summaries() if s.type == "Scenario"]
    return sorted(found, key=lambda pair: (pair[1].lower(), pair[0]))


def start_state(session: Any, source: str, scenario: str | None = None) -> StartState:
    """The state of ``source`` (one of :data:`STATE_SOURCES`). Raises :class:`PlayError` for an
    unknown source, a missing scenario or one whose text does not parse."""
    defaults = session.index.states()
    if source == "defaults":
        return StartState(copy.deepcopy(defaults), "Defaults")
    if source == "live":
        live = read_live(session.db)
        states = copy.deepcopy(defaults)
        states.update(copy.deepcopy(live.states))
        return StartState(states, "Live" if live.exists else "Live (not stored yet: the Defaults)")
    if source == "scenario":
        doc = read_doc(session, scenario) if scenario else None
        if doc is None or doc.get("type") != "Scenario":
            raise PlayError("choose a scenario to play from: the one chosen does not exist any more")
        text = (doc.get("content") or {}).get("scenario")
        try:
            loaded = scenario_into_live(defaults, text if isinstance(text, str) else "",
                                        doc.get("editorLanguage"), doc.get("_id"))
        except ContentError as exc:
            raise PlayError(f"the scenario {doc.get('name')!r} does not parse ({exc}); fix it to play from it") \
                from exc
        return StartState(loaded.states, str(doc.get("name") or "Scenario"),
                          [f"left out: {p.message}" for p in loaded.problems])
    raise PlayError(f"unknown state source {source!r}: one of {', '.join(STATE_SOURCES)}")


def program_for(doc: Mapping[str, Any], *, line: int | None = None, node: str | None = None) -> list[PlayItem]:
    """The program that plays ``doc``: a Script from ``line``, a Dialogue from ``node`` (its
    Start when ``None``), or a Scene's items. Raises :class:`PlayError` for anything else."""
    kind = doc.get("type")
    doc_id = str(doc.get("_id"))
    if kind == "Script":
        return [PlayItem(doc_id, "Script", start_line=line)]
    if kind == "Dialogue":
        return [PlayItem(doc_id, "Dialogue", start_node=node)]
    if kind == "Scene":
        from storyloom.play.scenes import scene_items, scene_program

        return scene_program(scene_items(doc))
    raise PlayError(f"a {kind or 'document'} cannot be played: play a Script, a Dialogue or a Scene")


class PlaySession:
    """One play of ``program`` in an open project (see the module's documentation)."""

    def __init__(self, session: Any, program: list[PlayItem], *, source: str = "defaults",
                 scenario: str | None = None, write_to_live: bool = False, title: str = "") -> None:
        self.session = session
        self.program = program
        self.title = title
        self.write_to_live = write_to_live
        self.live_error = ""
        self.source = source
        self.scenario = scenario
        self.start = start_state(session, source, scenario)
        self.player = self._new_player()

    def _new_player(self) -> Player:
        return Player(self.program, self.start.states, self.session.index.states(),
                      lambda doc_id: read_doc(self.session, doc_id))

    @property
    def problems(self) -> list[str]:
        return list(self.start.problems)

    def set_source(self, source: str, scenario: str | None = None) -> None:
        """Start again from another state (raises :class:`PlayError` and keeps the play as it
        was when that state cannot be made)."""
        start = start_state(self.session, source, scenario)
        self.source, self.scenario, self.start = source, scenario, start
        self.player = self._new_player()
        self._written()

    def set_write_to_live(self, on: bool) -> None:
        """Store the play's state as the Live state from now on (at once when switched on)."""
        self.write_to_live = on
        self._written()

    # ------------------------------------------------------------------ steps
    def advance(self) -> list[Entry]:
        shown = self.player.advance()
        self._written()
        return shown

    def choose(self, index: int) -> list[Entry]:
        shown = self.player.choose(index)
        self._written()
        return shown

    def play_on(self) -> list[Entry]:
        shown = self.player.play_on()
        self._written()
        return shown

    def step_back(self) -> bool:
        moved = self.player.step_back()
        self._written()
        return moved

    def restart(self) -> None:
        """Back to the beginning with the state the play started from, reading the documents
        again (edits made meanwhile are played)."""
        self.player = self._new_player()
        self._written()

    # ------------------------------------------------------------------ the Live state
    def _written(self) -> None:
        if not self.write_to_live:
            return
        self.live_error = ""
        scenario = self.scenario if self.source == "scenario" else None
        for _attempt in range(3):  # a play owns the Live state while it writes it: newest revision wins
            live = read_live(self.session.db)
            if live.exists and live.states == self.player.states:
                return
            try:
                write_live(self.session.editor, self.player.states, live.rev if live.exists else None,
                           scenario or live.scenario)
                return
            except Conflict:
                continue
            except StoryloomError as exc:
                self.live_error = f"The Live state was not written: {exc}"
                return
        self.live_error = "The Live state was not written: it keeps changing elsewhere."


def expression_image(session: Any, actor: str | None, expression: str | None) -> str | None:
    """The Attachment id of ``actor``'s ``expression`` (the actor found by name or alias,
    ignoring case; without an expression, its ``default`` one); ``None`` when there is none."""
    if not actor:
        return None
    wanted = actor.strip().lower()
    for summary in session.index.summaries():
        if summary.type != "Actor":
            continue
        doc = read_doc(session, summary.id)
        if doc is None:
            continue
        names = {str(doc.get("name") or "").strip().lower(), str(doc.get("alias") or "").strip().lower()}
        if wanted not in names:
            continue
        listed = (doc.get("content") or {}).get("expressions")
        listed = [e for e in listed if isinstance(e, Mapping)] if isinstance(listed, list) else []
        mood = (expression or "default").strip().lower()
        for entry in listed:
            if str(entry.get("name") or "").strip().lower() == mood and isinstance(entry.get("_id"), str):
                return str(entry["_id"])
        return None
    return None


__all__ = ["PLAYABLE_TYPES", "STATE_SOURCES", "PlayError", "PlaySession", "StartState", "expression_image",
           "program_for", "read_doc", "scenarios", "start_state"]
