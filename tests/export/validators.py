"""Every schema test runs under two validators: Python ``jsonschema`` and ajv 8 (draft 2020-12
build, strict mode off, ajv-formats), the JavaScript validator game teams on Node, TypeScript or
the web use.

ajv runs in one long-lived Node process (``tests/node/validate_ajv.js``) fed JSON lines, so a
test pays Node's start-up once per session, not once per instance.

- :func:`check_schema` asserts both validators accept the schema itself (ajv compiles it).
- :func:`errors` is the set of ``(instance path, keyword)`` of an instance's errors; it asserts
  the two validators agree on it (ajv's errors normalised: its ``if``/``propertyNames`` wrapper
  errors and the branch errors under a failing ``anyOf``/``oneOf`` are left out, as
  ``jsonschema`` reports those once).
"""

from __future__ import annotations

import atexit
import json
import subprocess
import threading
from collections.abc import Sequence
from typing import Any

from jsonschema import Draft202012Validator

from tests.support.node import NODE_DIR, ensure_node_packages, node_binary

Path = tuple[Any, ...]

_RUNNER = NODE_DIR / "validate_ajv.js"
_WRAPPERS = {"if", "propertyNames"}
_BRANCHING = {"anyOf", "oneOf"}


class _Ajv:
    """The Node process running ``validate_ajv.js``, started on first use."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    def _start(self) -> subprocess.Popen[str]:
        if self._process is None or self._process.poll() is not None:
            ensure_node_packages()
            self._process = subprocess.Popen(
                [node_binary(), str(_RUNNER)],
                cwd=NODE_DIR,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                encoding="utf-8",
            )
            atexit.register(self.close)
        return self._process

    def ask(self, schema: dict[str, Any], instances: Sequence[Any]) -> dict[str, Any]:
        request = json.dumps({"schema": schema, "instances": list(instances)}, ensure_ascii=False)
        with self._lock:
            process = self._start()
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(request + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
        assert line, (
            "the ajv runner (tests/node/validate_ajv.js) stopped; see its stderr above. If it cannot find "
            "ajv, install the Node test peers: scripts/test, or `npm ci --ignore-scripts` in tests/node"
        )
        return json.loads(line)

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            assert process.stdin is not None
            process.stdin.close()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


_AJV = _Ajv()


def ajv_compile_error(schema: dict[str, Any]) -> str | None:
    """Why ajv refuses to compile ``schema``, or ``None`` when it compiles."""
    reply = _AJV.ask(schema, [])
    return None if reply["compiled"] else str(reply["error"])


def check_schema(schema: dict[str, Any]) -> None:
    """Assert the schema is valid draft 2020-12 for ``jsonschema`` and compiles under ajv."""
    Draft202012Validator.check_schema(schema)
    error = ajv_compile_error(schema)
    assert error is None, f"ajv (draft 2020-12, strict off) refuses the schema: {error}"


def _path(pointer: str, instance: Any) -> Path:
    """A JSON pointer as ``jsonschema``'s ``absolute_path``: array indexes as integers."""
    if not pointer:
        return ()
    parts: list[Any] = []
    node = instance
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            index = int(token)
            parts.append(index)
            node = node[index] if 0 <= index < len(node) else None
        else:
            parts.append(token)
            node = node.get(token) if isinstance(node, dict) else None
    return tuple(parts)


def _ajv_errors(found: list[dict[str, Any]], instance: Any) -> set[tuple[Path, str]]:
    branches = [(e["instancePath"], e["schemaPath"] + "/") for e in found if e["keyword"] in _BRANCHING]
    kept: set[tuple[Path, str]] = set()
    for error in found:
        if error["keyword"] in _WRAPPERS:
            continue
        inside = any(
            error["schemaPath"].startswith(prefix) and error["instancePath"].startswith(where)
            for where, prefix in branches
        )
        if not inside:
            kept.add((_path(error["instancePath"], instance), error["keyword"]))
    return kept


def errors(schema: dict[str, Any], instance: Any) -> set[tuple[Path, str]]:
    """``{(instance path, keyword)}`` of the instance's errors, the same under both validators."""
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    python = {(tuple(error.absolute_path), str(error.validator)) for error in validator.iter_errors(instance)}
    reply = _AJV.ask(schema, [instance])
    assert reply["compiled"], f"ajv (draft 2020-12, strict off) refuses the schema: {reply['error']}"
    javascript = _ajv_errors(reply["results"][0], instance)
    assert javascript == python, f"ajv and jsonschema disagree: ajv {javascript}, jsonschema {python}"
    return python


def messages(schema: dict[str, Any], instance: Any) -> list[str]:
    """Readable errors (``path: message``) after checking both validators agree (for asserts
    whose failure should show what is wrong)."""
    errors(schema, instance)
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(instance)]
