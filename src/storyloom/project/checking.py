"""The vocabulary of document checks: a :class:`Problem`, the :class:`ValidationError` that
refuses a write, the :class:`Context` cross-document checks ask, and the :class:`Checker` that
collects problems while one document is checked. The rules themselves are in ``validation``."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from storyloom.diagnostics import ERROR, WARNING, Diagnostic
from storyloom.errors import StoryloomError
from storyloom.project.settings import MISSING

_Container = TypeVar("_Container", dict[str, Any], list[Any])

#: A validation finding is a :class:`~storyloom.diagnostics.Diagnostic` with ``field`` and ``expected``.
Problem = Diagnostic


class ValidationError(StoryloomError, ValueError):
    """A write refused because the document has the wrong shape.

    ``field``, ``expected`` and ``problem_code`` (the diagnostic's code, ``parent-cycle``) are those of
    the first error; ``problems`` holds every error.
    """

    code = "invalid_document"

    def __init__(self, problems: Problem | Iterable[Problem]) -> None:
        self.problems: list[Problem] = [problems] if isinstance(problems, Problem) else list(problems)
        if not self.problems:
            raise ValueError("ValidationError needs at least one problem")
        first = self.problems[0]
        self.field = first.field
        self.expected = first.expected
        self.doc_id = first.doc_id
        self.problem_code = first.code
        message = first.message
        if len(self.problems) > 1:
            message += f" (and {len(self.problems) - 1} more problem{'s' if len(self.problems) > 2 else ''})"
        self.message = message
        super().__init__(message)

    @classmethod
    def single(cls, doc_id: str | None, field: str, expected: str, got: Any = MISSING,
               code: str = "wrong-shape") -> ValidationError:
        return cls(make_problem(doc_id, field, expected, got, ERROR, code))


def describe_value(value: Any) -> str:
    if value is MISSING:
        return "nothing (the field is missing)"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    kind = {dict: "object", list: "array", str: "string", int: "number", float: "number"}.get(
        type(value), type(value).__name__
    )
    return f"{kind} {text}"


def make_problem(doc_id: str | None, field_path: str, expected: str, got: Any, severity: str,
             code: str, detail: str | None = None) -> Problem:
    who = f"document {doc_id!r}" if doc_id else "document"
    if detail is None:
        detail = f"expected {expected}, got {describe_value(got)}"
    return Problem(
        field=field_path,
        expected=expected,
        message=f"{who}: {field_path}: {detail}",
        severity=severity,
        code=code,
        doc_id=doc_id,
    )


class Context:
    """What cross-document checks may ask. The default knows no documents (checks skipped)."""

    def get(self, doc_id: str) -> dict[str, Any] | None:
        """The current document with this id, or ``None`` (missing or deleted)."""
        return None

    def docs_of_type(self, doc_type: str) -> list[dict[str, Any]]:
        """Every current document of ``type`` ``doc_type``."""
        return []

    @property
    def knows_documents(self) -> bool:
        return False

    # The lookups below have defaults built on ``docs_of_type`` and ``get``; a context backed by
    # an index (the editing service's) answers them without reading every document.

    def variable_sid_owner(self, sid: str, exclude: str | None = None) -> str | None:
        """The id of the first Variable document (in ``docs_of_type`` order) other than
        ``exclude`` whose ``_sid`` is ``sid``; ``None`` if there is none."""
        module = content_module()
        if module is None:
            return None
        for other in self.docs_of_type("Variable"):
            if other.get("_id") == exclude:
                continue
            with contextlib.suppress(module.ContentError):
                if module.parse_variables_doc(other)["_sid"] == sid:
                    return other.get("_id")
        return None

    def variable_states(self) -> dict[str, dict[str, Any]]:
        """``{_sid: state}`` of the Variable documents (see ``content.collect_states``); the
        result is shared, do not mutate it."""
        module = content_module()
        return {} if module is None else module.collect_states(self.docs_of_type("Variable"))

    def parent_of(self, doc_id: str) -> tuple[bool, Any]:
        """``(True, parent)`` for a current document (``parent`` as stored, ``None`` when absent),
        ``(False, None)`` when there is no such document."""
        doc = self.get(doc_id)
        return (False, None) if doc is None else (True, doc.get("parent"))


class MappingContext(Context):
    """A context over a dict of documents (an import batch, or a test)."""

    def __init__(self, docs: Mapping[str, dict[str, Any]] | Iterable[dict[str, Any]]) -> None:
        if isinstance(docs, Mapping):
            self.docs = dict(docs)
        else:
            self.docs = {doc["_id"]: doc for doc in docs}

    def get(self, doc_id: str) -> dict[str, Any] | None:
        doc = self.docs.get(doc_id)
        return None if doc is None or doc.get("_deleted") else doc

    def docs_of_type(self, doc_type: str) -> list[dict[str, Any]]:
        return [d for d in self.docs.values() if d.get("type") == doc_type and not d.get("_deleted")]

    @property
    def knows_documents(self) -> bool:
        return True


@dataclass
class Checker:
    doc_id: str | None
    problems: list[Problem] = field(default_factory=list)

    def error(self, field_path: str, expected: str, got: Any = MISSING, code: str = "wrong-shape",
              detail: str | None = None) -> None:
        self.problems.append(make_problem(self.doc_id, field_path, expected, got, ERROR, code, detail))

    def warn(self, field_path: str, expected: str, got: Any = MISSING, code: str = "dangling-reference",
             detail: str | None = None) -> None:
        self.problems.append(make_problem(self.doc_id, field_path, expected, got, WARNING, code, detail))

    # -- small type checks; each returns True when the value is acceptable --

    def string(self, obj: Mapping[str, Any], key: str, path: str, *, required: bool = False,
               nullable: bool = False, non_empty: bool = False) -> bool:
        value = obj.get(key, MISSING)
        if value is MISSING:
            if required:
                self.error(path, "a non-empty string" if non_empty else "a string", value, "missing-field")
                return False
            return True
        if value is None and nullable:
            return True
        if not isinstance(value, str) or (non_empty and not value):
            expected = "a non-empty string" if non_empty else "a string"
            self.error(path, expected + (" or null" if nullable else ""), value, "wrong-type")
            return False
        return True

    def boolean(self, obj: Mapping[str, Any], key: str, path: str) -> bool:
        value = obj.get(key, MISSING)
        if value is MISSING or isinstance(value, bool):
            return True
        self.error(path, "true or false", value, "wrong-type")
        return False

    def mapping(self, obj: Mapping[str, Any], key: str, path: str, *, required: bool = True) -> dict[str, Any] | None:
        return self._container(obj, key, path, required, dict, "an object")

    def array(self, obj: Mapping[str, Any], key: str, path: str, *, required: bool = True) -> list[Any] | None:
        return self._container(obj, key, path, required, list, "an array")

    def _container(self, obj: Mapping[str, Any], key: str, path: str, required: bool,
                   kind: type[_Container], expected: str) -> _Container | None:
        value = obj.get(key, MISSING)
        if value is MISSING and not required:
            return None
        if not isinstance(value, kind):
            self.error(path, expected, value, "missing-field" if value is MISSING else "wrong-type")
            return None
        return value


def content_module() -> Any:
    """``storyloom.project.content`` when importable (the typed-content rules), else ``None``."""
    try:
        from storyloom.project import content
    except ImportError:  # pragma: no cover - the module ships with the package
        return None
    return content



# A write's Variable or Scenario source is parsed by validation and again when the index
# summarises the stored revision a moment later; the last few parses are kept, keyed by the
# text and its language, so the second costs a lookup. The parsed objects are shared: callers
# read them, never change them.
_PARSED_LIMIT = 64
_parsed: dict[tuple[str, str, str | None], Any] = {}
_parsed_lock = threading.Lock()


def parsed_source(module: Any, doc: Mapping[str, Any], kind: str) -> Any:
    """``module.parse_variables_doc(doc)`` (``kind`` ``"variables"``) or
    ``module.parse_scenario_doc(doc)`` (``"scenario"``), from the cache when the same text in the
    same language was parsed lately. Raises what the parser raises (failures are not kept)."""
    parse = module.parse_variables_doc if kind == "variables" else module.parse_scenario_doc
    content = doc.get("content")
    source = content.get(kind) if isinstance(content, Mapping) else None
    language = doc.get("editorLanguage")
    if not isinstance(source, str) or not (language is None or isinstance(language, str)):
        return parse(doc)
    key = (kind, source, language)
    with _parsed_lock:
        found = _parsed.get(key, _parsed_lock)
    if found is not _parsed_lock:
        return found
    value = parse(doc)
    with _parsed_lock:
        _parsed[key] = value
        while len(_parsed) > _PARSED_LIMIT:
            del _parsed[next(iter(_parsed))]
    return value
