"""Every problem of the open project, for the problems panel: Qt-free rules.

:class:`ProjectProblems` collects, for each current document, its validation problems
(:func:`storyloom.project.validation.check_document` against the store, the way the editor
checks a write) and, for a Script, the problems of parsing its text against the project's
variable states (:func:`storyloom.script.parse_script`). :meth:`ProjectProblems.rebuild` reads
the whole project once; :meth:`ProjectProblems.apply` takes the session's
:class:`~storyloom.app.events.DocumentChanged` events and recomputes only what they can change:

- the changed documents themselves;
- when a document appears, disappears or changes type: the documents that mention its id
  (a child naming it as parent, a dialogue edge or scene item pointing at it...), from an index
  of the short id-like strings each document holds;
- when a Variable changes: the Scripts (their paths are checked against the states), the
  Scenarios and the other Variables (overrides, duplicate ``_sid``);
- when an Actor appears, disappears or changes its name or alias: the speakers of the Scripts
  that had or have one of its names, from their kept speech lines, without a parse (a speaker
  who is not an actor is a problem, ``unknown-actor``, with the quick fix "Create actor":
  :class:`QuickFix`, done by :func:`apply_quick_fix`).

:meth:`ProjectProblems.problems` lists them as :class:`ProjectProblem` (a
:class:`~storyloom.diagnostics.Diagnostic` with its document's id set, plus the document's name
and type), errors first, then by document name, then by line.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from storyloom.app.events import DocumentChanged
from storyloom.app.views.outline import display_name
from storyloom.diagnostics import ERROR, WARNING, Diagnostic
from storyloom.project import (
    LINE_IDS,
    SETTINGS_ID,
    TRANSLATION_TYPE,
    StoreContext,
    actor_keys,
    check_document,
    speaker_column,
    speaker_key,
)
from storyloom.project.content import LANGUAGES, ContentError, parse_text
from storyloom.script import SpeechLine, parse_script
from storyloom.store.documents import PROBE_PREFIX

log = logging.getLogger(__name__)

VALIDATION = "validation"
#: The property-text fields of each collection, parsed in the document's ``editorLanguage``.
PROPERTY_FIELDS: dict[str, tuple[str, ...]] = {
    "Item": ("item",), "Quest": ("properties", "conditions"), "Actor": ("properties",), "Misc": ("properties",),
}
SCRIPT = "script"
#: The code of a speech line whose speaker names no Actor document.
UNKNOWN_ACTOR = "unknown-actor"
CREATE_ACTOR = "create-actor"
# Types whose problems depend on the variable states (paths, overrides, duplicate _sid).
_STATE_DEPENDENT = frozenset({"Script", "Scenario", "Variable"})
_PARENTHESISED = re.compile(r"(.+?)\s*\(([^()]+)\)")  # "Mara (angry)": a name, then a parenthesis
_MAX_MENTION = 80  # an id-like string is short and has no spaces
_SPACE = re.compile(r"\s")  # what str.isspace() calls whitespace, looked for in C
_FETCH_CHUNK = 500
#: The work between two pauses of a check (``ProjectProblems(pause=...)``): long enough that a
#: check of the whole project is not slowed down, short enough for a frame.
SLICE_S = 0.002
_PAUSE_EVERY = 64  # problems of one script made between two looks at the clock


@dataclass(frozen=True, slots=True)
class QuickFix:
    """A one-click way out of a problem: ``action`` (:data:`CREATE_ACTOR`), the ``label`` a
    button shows, and the ``name`` it acts on (the actor to create)."""

    action: str
    label: str
    name: str


@dataclass(frozen=True, slots=True)
class ProjectProblem:
    """One row of the problems panel; ``fix`` is its quick fix, when it has one."""

    diagnostic: Diagnostic
    doc_name: str
    doc_type: str
    source: str  # VALIDATION or SCRIPT
    collection: str = ""  # the document's collection (a folder's is the collection it belongs to)
    fix: QuickFix | None = None

    @property
    def doc_id(self) -> str:
        return self.diagnostic.doc_id or ""

    @property
    def severity(self) -> str:
        return self.diagnostic.severity

    @property
    def is_error(self) -> bool:
        return self.diagnostic.is_error

    @property
    def line(self) -> int | None:
        return self.diagnostic.line

    @property
    def column(self) -> int | None:
        return self.diagnostic.column

    @property
    def message(self) -> str:
        """The message without the "document '<id>': " prefix (the panel shows the name)."""
        text = self.diagnostic.message
        prefix = f"document {self.doc_id!r}: "
        return text[len(prefix):] if self.doc_id and text.startswith(prefix) else text

    def sort_key(self) -> tuple[Any, ...]:
        return (0 if self.is_error else 1, self.doc_name.casefold(), self.doc_id,
                self.line or 0, self.column or 0, self.message)


def _mentions(value: Any, out: set[str], depth: int = 0) -> None:
    """The short id-like strings (no whitespace) anywhere in ``value``."""
    if depth > 64:
        return
    if isinstance(value, str):
        if 0 < len(value) <= _MAX_MENTION and _SPACE.search(value) is None:
            out.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            _mentions(item, out, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _mentions(item, out, depth + 1)


def _nothing() -> None:
    pass


class _Slices:
    """Calls ``pause`` once ``every_s`` of work has gone by since the last call (a worker gives
    up the GIL there: the GUI thread does not wait for the rest of the check)."""

    def __init__(self, pause: Callable[[], None] | None, every_s: float | None = None) -> None:
        self.pause = pause
        self.every_s = SLICE_S if every_s is None else every_s
        self.since = time.perf_counter()

    def __call__(self) -> None:
        if self.pause is not None and time.perf_counter() - self.since >= self.every_s:
            self.pause()
            self.since = time.perf_counter()


def _mentioning(doc: dict[str, Any]) -> dict[str, Any]:
    """What of ``doc`` may mention other documents: all but its own id and revision, and a
    Script's line table (its line ids and fingerprints name lines, never documents)."""
    fields = {k: v for k, v in doc.items() if k not in ("_id", "_rev")}
    content = fields.get("content")
    if doc.get("type") == "Script" and isinstance(content, dict) and LINE_IDS in content:
        fields["content"] = {k: v for k, v in content.items() if k != LINE_IDS}
    return fields


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def document_problems(doc: dict[str, Any], context: StoreContext | None,
                      known_state: dict[str, Any] | None, default_language: str = "hjson",
                      actors: Collection[str] | None = None) -> list[ProjectProblem]:
    """The problems of one document: validation, then its property text's (Actors, Items, Quests,
    Misc: text that does not parse in its language, as the export reports it), then (for a
    Script) its script's. ``default_language`` is the project's ``defaultEditorLanguage``, for
    documents that name none. ``actors`` holds the speaker keys of the project's Actors
    (:func:`storyloom.project.actor_keys`): a Script's speaker outside them is an
    ``unknown-actor`` warning (``None``: speakers are not checked). Never raises."""
    return _document_problems(doc, context, known_state, default_language, actors)[0]


def _document_problems(doc: dict[str, Any], context: StoreContext | None, known_state: dict[str, Any] | None,
                       default_language: str, actors: Collection[str] | None, pause: Callable[[], None] = _nothing,
                       ) -> tuple[list[ProjectProblem], tuple[SpeechLine, ...], str]:
    """:func:`document_problems`, and a Script's speech lines and text (empty for another
    document); ``pause`` is called between slices of a long script's problems."""
    doc_id = _text(doc.get("_id"))
    name = display_name(doc.get("name"))
    doc_type = _text(doc.get("type"))
    collection = _text(doc.get("collection")) or doc_type
    out: list[ProjectProblem] = []
    try:
        found = check_document(doc, context)
    except Exception:  # a checker bug must not hide the other documents' problems
        log.exception("checking %r failed", doc_id)
        found = [Diagnostic("this document could not be checked (internal error)", "check-failed",
                            doc_id=doc_id)]
    found.extend(_property_problems(doc, doc_type, default_language))
    for problem in found:
        if problem.doc_id != doc_id:
            problem = dataclasses.replace(problem, doc_id=doc_id)
        out.append(ProjectProblem(problem, name, doc_type, VALIDATION, collection))
    said: list[SpeechLine] = []
    script_text = ""
    if doc_type == "Script":
        content = doc.get("content")
        script = content.get("script") if isinstance(content, dict) else None
        if isinstance(script, str):
            try:
                parsed = parse_script(script, known_state=known_state or None)
            except Exception:
                log.exception("parsing the script of %r failed", doc_id)
            else:
                for number, problem in enumerate(parsed.problems):
                    # the constructor, not dataclasses.replace: a long script has hundreds
                    located = Diagnostic(problem.message, problem.code, problem.severity, doc_id,
                                         problem.field or "content.script", problem.expected, problem.line,
                                         problem.column) if type(problem) is Diagnostic else dataclasses.replace(
                        problem, doc_id=doc_id, field=problem.field or "content.script")
                    out.append(ProjectProblem(located, name, doc_type, SCRIPT, collection))
                    if number % _PAUSE_EVERY == _PAUSE_EVERY - 1:
                        pause()
                said = [line for line in parsed.lines if isinstance(line, SpeechLine)]
                script_text = script
                if actors is not None:
                    out.extend(_speaker_problems(said, script, actors, doc_id, name, collection))
    return out, tuple(said), script_text


def _speaker_problems(said: list[SpeechLine], script: str, actors: Collection[str], doc_id: str, name: str,
                      collection: str) -> Iterator[ProjectProblem]:
    """An ``unknown-actor`` warning per speech line whose speaker names no Actor."""
    raw_lines: list[str] | None = None
    for line in said:
        if speaker_key(line.actor) in actors:
            continue
        if raw_lines is None:
            raw_lines = script.splitlines()
        raw = raw_lines[line.line - 1] if 0 < line.line <= len(raw_lines) else ""
        mood = _PARENTHESISED.fullmatch(line.actor.strip())
        if mood is not None and speaker_key(mood[1]) in actors:
            # ``::Mara (angry)::``: an actor with an expression written where the name goes; a
            # new actor "Mara (angry)" would be the wrong fix, so there is none to click
            message = (f"“{line.actor}” is not an actor: an expression goes at the end of the line, "
                       f"::{mood[1].strip()}:: … [{mood[2].strip()}]")
            fix = None
        else:
            message = f"“{line.actor}” is not an actor: no Actor document has this name or alias"
            fix = QuickFix(CREATE_ACTOR, "Create actor", line.actor)
        found = Diagnostic(message, UNKNOWN_ACTOR, WARNING, doc_id, "content.script", "the name or alias of an Actor",
                           line.line, speaker_column(raw))
        yield ProjectProblem(found, name, "Script", SCRIPT, collection, fix)


def apply_quick_fix(session: Any, fix: QuickFix | None) -> str:
    """Do ``fix`` in ``session`` (a :class:`~storyloom.app.ProjectSession`); returns the id of the
    document it created or changed. "Create actor" creates an Actor of that name at the top of
    the Actors collection, or returns the Actor that has the name by now (another window, a
    teammate's sync), so a second click never makes a twin. Raises what the write raises."""
    if fix is None:
        raise ValueError("this problem has no quick fix")
    if fix.action != CREATE_ACTOR:
        raise ValueError(f"unknown quick fix {fix.action!r}")
    wanted = speaker_key(fix.name)
    for summary in session.index.summaries():
        if summary.type == "Actor" and speaker_key(summary.name) == wanted:
            return str(summary.id)
    return str(session.editor.create("Actor", fix.name.strip()).id)


def _property_problems(doc: dict[str, Any], doc_type: str, default_language: str) -> list[Diagnostic]:
    """A ``parse-error`` warning per property text of ``doc`` that does not parse in its language."""
    fields = PROPERTY_FIELDS.get(doc_type)
    content = doc.get("content")
    if not fields or not isinstance(content, dict):
        return []
    language = doc.get("editorLanguage")
    if not isinstance(language, str) or not language:
        language = default_language
    if language.lower() not in LANGUAGES:  # validation reports the editorLanguage itself
        return []
    doc_id = doc.get("_id") if isinstance(doc.get("_id"), str) else None
    out: list[Diagnostic] = []
    for key in fields:
        text = content.get(key)
        if not isinstance(text, str):
            continue
        try:
            parse_text(text, language)
        except ContentError as exc:
            where = f"content.{key}"
            position = f"line {exc.line}, column {exc.column}: " if exc.line is not None else ""
            out.append(Diagnostic(f"document {doc_id!r}: {where}: {position}{exc.message} ({language.lower()}); "
                                  "exported as text", "parse-error", WARNING, doc_id, where, f"valid {language}",
                                  exc.line, exc.column))
    return out


class ProjectProblems:
    """The problems of one project, kept up to date from its change events.

    ``db`` is the project's store (read view), ``index`` its
    :class:`~storyloom.project.index.ProjectIndex` (a session's ``db`` and ``index``). Not
    thread-safe: one thread at a time calls :meth:`rebuild`, :meth:`apply` and the readers (the
    Problems dock runs each check on a worker thread, one after another, and reads the rows
    when it is done)."""

    def __init__(self, db: Any, index: Any, pause: Callable[[], None] | None = None) -> None:
        self.db = db
        self.index = index
        self.pause = pause  # called every SLICE_S or so of a check's work (None: never)
        self._by_doc: dict[str, list[ProjectProblem]] = {}
        self._types: dict[str, str] = {}
        self._mentioned: dict[str, frozenset[str]] = {}  # doc id -> the strings it holds
        self._mentioners: dict[str, set[str]] = {}  # string -> the documents holding it
        self._sorted: list[ProjectProblem] | None = None
        self._actor_keys: dict[str, frozenset[str]] = {}  # Actor id -> its name and alias keys
        self._actors: frozenset[str] | None = None  # their union, made when first asked
        self._speakers: dict[str, frozenset[str]] = {}  # Script id -> its speaker keys
        # Script id -> (its speech lines, its text, name, collection): an Actor's change rechecks
        # only the speakers of the Scripts it concerns, without parsing them again
        self._speech: dict[str, tuple[tuple[SpeechLine, ...], str, str, str]] = {}
        self._speaking: dict[str, set[str]] = {}  # speaker key -> the Scripts that speak it
        self.checked = 0  # documents checked by the last rebuild/apply (for tests and benches)

    # ------------------------------------------------------------------ reading
    def problems(self) -> list[ProjectProblem]:
        """Every problem, errors first, then by document name, then by line."""
        if self._sorted is None:
            self._sorted = sorted((p for ps in self._by_doc.values() for p in ps), key=ProjectProblem.sort_key)
        return self._sorted

    def of(self, doc_id: str) -> list[ProjectProblem]:
        return sorted(self._by_doc.get(doc_id, ()), key=ProjectProblem.sort_key)

    def counts(self) -> tuple[int, int]:
        """``(errors, warnings)``."""
        errors = sum(1 for p in self.problems() if p.severity == ERROR)
        return errors, len(self.problems()) - errors

    def __len__(self) -> int:
        return len(self.problems())

    # ------------------------------------------------------------------ computing
    def rebuild(self) -> list[ProjectProblem]:
        """Check every document of the project now."""
        self._by_doc.clear()
        self._types.clear()
        self._mentioned.clear()
        self._mentioners.clear()
        self._actor_keys.clear()
        self._speakers.clear()
        self._speaking.clear()
        self._speech.clear()
        rows = self.db.all_docs(include_docs=True, skip_damaged=True)["rows"]
        docs = [row["doc"] for row in rows if row.get("doc") and self._checked_id(row["id"])]
        self._note_actors(docs, set())
        self._check(docs, set())
        return self.problems()

    def apply(self, changes: Iterable[DocumentChanged]) -> set[str]:
        """Recompute what ``changes`` can affect; returns the ids of the documents checked."""
        changed: dict[str, DocumentChanged] = {}
        for change in changes:
            if self._checked_id(change.id):
                changed[change.id] = change
        if not changed:
            self.checked = 0
            return set()
        docs = {doc["_id"]: doc for doc in self._fetch(list(changed))}
        gone = {doc_id for doc_id in changed if doc_id not in docs}
        todo = set(docs)
        states_touched = False
        for doc_id in changed:
            old_type = self._types.get(doc_id)
            new = docs.get(doc_id)
            new_type = new.get("type") if new is not None and isinstance(new.get("type"), str) else None
            if old_type is None or new is None or old_type != new_type:  # appeared, gone, retyped
                todo.update(self._mentioners.get(doc_id, ()))
            if "Variable" in (old_type, new_type):
                states_touched = True
        if states_touched:
            todo.update(i for i, t in self._types.items() if t in _STATE_DEPENDENT)
        if SETTINGS_ID in changed:  # the default language of property text may have changed
            todo.update(i for i, t in self._types.items() if t in PROPERTY_FIELDS)
        speakers_only: set[str] = set()
        for key in self._note_actors(list(docs.values()), gone):  # an actor's names changed
            speakers_only.update(self._speaking.get(key, ()))
        for doc_id in gone:
            self._forget(doc_id)
        todo -= gone
        extra = [i for i in todo if i not in docs]
        for doc in self._fetch(extra):
            docs[doc["_id"]] = doc
        for doc_id in todo - set(docs):  # deleted meanwhile: the later event will say so
            self._forget(doc_id)
        self._check([docs[i] for i in todo if i in docs], gone)
        speakers_only -= todo | gone
        for doc_id in speakers_only:
            self._recheck_speakers(doc_id)
        self._sorted = None
        return set(todo) | gone | speakers_only

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _checked_id(doc_id: str) -> bool:
        # not design or local documents, nor the test documents of `storyloom remote check`
        return bool(doc_id) and not doc_id.startswith(("_", PROBE_PREFIX))

    def _fetch(self, ids: list[str]) -> Iterator[dict[str, Any]]:
        for start in range(0, len(ids), _FETCH_CHUNK):
            rows = self.db.all_docs(keys=ids[start:start + _FETCH_CHUNK], include_docs=True, skip_damaged=True)["rows"]
            for row in rows:
                doc = row.get("doc")
                if doc and not doc.get("_deleted"):
                    yield doc

    def _context(self) -> tuple[StoreContext, dict[str, Any]]:
        context = StoreContext(self.db, index=self.index)
        try:
            states = context.variable_states()
        except Exception:  # without the states, script paths go unchecked
            log.exception("reading the variable states failed")
            states = {}
        return context, states

    def _default_language(self) -> str:
        """The project's ``defaultEditorLanguage`` (what the export parses property text in)."""
        try:
            settings = self.db.get(SETTINGS_ID)
        except Exception:  # noqa: BLE001 - no settings document yet: the default's default
            return "hjson"
        language = settings.get("defaultEditorLanguage") if isinstance(settings, dict) else None
        return language if isinstance(language, str) and language.lower() in LANGUAGES else "hjson"

    def _note_actors(self, docs: list[dict[str, Any]], gone: set[str]) -> set[str]:
        """Keep the speaker keys of the Actors among ``docs`` (and forget those of ``gone`` and of
        documents no longer Actors); returns the keys that appeared or disappeared."""
        changed: set[str] = set()
        for doc in docs:
            doc_id = doc["_id"]
            keys = actor_keys(doc) if doc.get("type") == "Actor" else frozenset()
            before = self._actor_keys.get(doc_id, frozenset())
            if keys != before:
                changed |= keys ^ before
                if keys:
                    self._actor_keys[doc_id] = keys
                else:
                    self._actor_keys.pop(doc_id, None)
        for doc_id in gone:
            changed |= self._actor_keys.pop(doc_id, frozenset())
        if changed:
            self._actors = None
        return changed

    def actors(self) -> frozenset[str]:
        """The speaker keys of the project's Actors (their names and aliases, case folded)."""
        if self._actors is None:
            self._actors = frozenset().union(*self._actor_keys.values())
        return self._actors

    def _check(self, docs: list[dict[str, Any]], gone: set[str]) -> None:
        context, states = self._context()
        language = self._default_language()
        actors = self.actors()
        before: dict[str, frozenset[str]] = {}
        slices = _Slices(self.pause)
        for doc in docs:
            slices()
            doc_id = doc["_id"]
            before[doc_id] = self._mentioned.pop(doc_id, frozenset())  # unindexed below, by difference
            self._forget(doc_id)
            if doc.get("type") == TRANSLATION_TYPE:
                # no document a writer opens or fixes here: the Localization view shows its lines
                self._types[doc_id] = TRANSLATION_TYPE
                for text in before.pop(doc_id):
                    self._unmention(text, doc_id)
                continue
            self._by_doc[doc_id], said, script = _document_problems(doc, context, states, language, actors, slices)
            speakers = frozenset(speaker_key(line.actor) for line in said)
            if said:
                self._speech[doc_id] = (said, script, display_name(doc.get("name")),
                                        _text(doc.get("collection")) or "Script")
                self._speakers[doc_id] = speakers
                for key in speakers:
                    self._speaking.setdefault(key, set()).add(doc_id)
            self._types[doc_id] = _text(doc.get("type"))
            found: set[str] = set()
            _mentions(_mentioning(doc), found)
            held = frozenset(found)
            # By difference: an edit of a long script changes few of the strings it holds.
            for text in before.get(doc_id, frozenset()) - held:
                self._unmention(text, doc_id)
            for text in held - before.get(doc_id, frozenset()):
                self._mentioners.setdefault(text, set()).add(doc_id)
            self._mentioned[doc_id] = held
        self.checked = len(docs)
        self._sorted = None

    def _recheck_speakers(self, doc_id: str) -> None:
        """Replace the ``unknown-actor`` problems of Script ``doc_id`` from its kept speech lines."""
        kept = self._speech.get(doc_id)
        if kept is None:
            return
        said, script, name, collection = kept
        others = [p for p in self._by_doc.get(doc_id, ()) if p.diagnostic.code != UNKNOWN_ACTOR]
        self._by_doc[doc_id] = others + list(_speaker_problems(list(said), script, self.actors(), doc_id, name,
                                                               collection))

    def _forget(self, doc_id: str) -> None:
        self._by_doc.pop(doc_id, None)
        self._speech.pop(doc_id, None)
        self._types.pop(doc_id, None)
        for key in self._speakers.pop(doc_id, ()):
            speaking = self._speaking.get(key)
            if speaking is not None:
                speaking.discard(doc_id)
                if not speaking:
                    del self._speaking[key]
        for text in self._mentioned.pop(doc_id, ()):
            self._unmention(text, doc_id)
        self._sorted = None

    def _unmention(self, text: str, doc_id: str) -> None:
        holders = self._mentioners.get(text)
        if holders is not None:
            holders.discard(doc_id)
            if not holders:
                del self._mentioners[text]
