"""``docs/errors.md``'s two tables, made from the code: every error class (its code, what raises it,
the fixes it may carry, the command line's exit code, the local API's status) and every fix
action said by each front end.

Run from the checkout's root: ``python -m tools.errors_table`` prints the tables,
``--write`` puts them into ``docs/errors.md`` (between its ``<!-- errors-table -->`` and
``<!-- fixes-table -->`` markers). ``tests/test_errors.py`` fails when the file differs.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path
from typing import Any

import storyloom
from storyloom.errors import FIX_ACTIONS, Fix, StoryloomError

DOC = Path(__file__).resolve().parents[1] / "docs" / "errors.md"
#: Modules whose errors are not listed: the GUI's need Qt (it raises none of its own).
SKIPPED = ("storyloom.gui", "storyloom.__main__")

#: The facts the examples of the fixes table use.
SAMPLES: dict[str, Any] = {
    "project": "Saga",
    "username": "bea",
    "database": "app_v2_saga",
    "server": "https://couch.example.com",
    "url": "https://couch.example.com/app_v2_saga",
    "path": "/home/ana/.local/share/storyloom",
    "requests": ("curl -u ADMIN -X PUT https://couch.example.com/app_v2_saga",),
    "origins": ("file://",),
    "text": "check again",
    "setting": "[couchdb] max_document_size",
    "size": 9000000,
    "other": "Big",
    "verb": "clone",
    "holder": "bea",
    "doc_id": "a1b2",
    "admin_user": "admin",
    "locale": "pt-BR",
    "locales": ("fr", "pt-BR"),
}


def error_classes() -> list[type[StoryloomError]]:
    """Every error class of the package (but the GUI's), in module and name order."""
    found: dict[str, type[StoryloomError]] = {}
    for info in pkgutil.walk_packages(storyloom.__path__, "storyloom."):
        if info.name.startswith(SKIPPED):
            continue
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if obj.__module__ == info.name and issubclass(obj, StoryloomError) and not obj.__name__.startswith("_"):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    found["storyloom.errors.StoryloomError"] = StoryloomError
    return [found[name] for name in sorted(found)]


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _first_sentence(cls: type) -> str:
    doc = inspect.getdoc(cls) or ""
    paragraph = " ".join(doc.split("\n\n", 1)[0].split())
    match = re.match(r"(.+?[.:])(\s|$)", paragraph)
    return (match.group(1) if match else paragraph).rstrip(":.") + "."


def _exit_code(cls: type[StoryloomError]) -> str:
    from storyloom.cli.explain import EXIT_CODES

    if "exit_code" in inspect.signature(cls.__init__).parameters or cls.code == "command_failed":
        return "its own (`exit_code`)"
    return str(EXIT_CODES.get(cls.code, 1))


def _http(cls: type[StoryloomError]) -> str:
    from storyloom.api.errors import ANSWERS

    if cls.code == "api_error":
        return "its own (docs/api.md)"
    answer = ANSWERS.get(cls.code)
    if answer is not None:
        return f"{answer[0]} `{answer[1]}`"
    if getattr(cls, "status", None) == 400:
        return "400 `bad_request`"
    return "500 `internal_error`" if hasattr(cls, "status") else "—"


def codes_table() -> str:
    """The table of every error class."""
    rows = ["| Code | Error | Raised when | Fix | CLI exit | HTTP |", "|---|---|---|---|---|---|"]
    for cls in error_classes():
        layer = cls.__module__.split(".")[1] if cls.__module__.count(".") else "errors"
        fixes = ", ".join(f"`{action}`" for action in cls.fixes) or "—"
        rows.append(f"| `{cls.code}` | `{cls.__name__}` ({layer}) | {_cell(_first_sentence(cls))} | {fixes} | "
                    f"{_exit_code(cls)} | {_http(cls)} |")
    return "\n".join(rows)


def sample(action: str) -> Fix:
    """The example of ``action``: its details from :data:`SAMPLES`."""
    return Fix(action, **{p: SAMPLES[p] for p in FIX_ACTIONS[action].params if p in SAMPLES})


def fixes_table() -> str:
    """The table of every fix action, said by each front end (the details from :data:`SAMPLES`)."""
    from storyloom.app.views.explain import fix_words as app_words
    from storyloom.cli.explain import fix_words as cli_words

    rows = ["| Action | Details | Neutral words (a log, `str(error)`, the API) | Command line | Desktop app |",
            "|---|---|---|---|---|"]
    for action in sorted(FIX_ACTIONS):
        fix = sample(action)
        params = ", ".join(f"`{p}`" for p in FIX_ACTIONS[action].params) or "—"
        rows.append(f"| `{action}` | {params} | {_cell(fix.words())} | {_cell(cli_words(fix))} | "
                    f"{_cell(app_words(fix))} |")
    return "\n".join(rows)


def _between(text: str, name: str, table: str) -> str:
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    if start not in text or end not in text:
        raise SystemExit(f"{DOC} has no {start} ... {end} markers")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{table}\n{end}{tail}"


def render(text: str) -> str:
    """``docs/errors.md``'s text with both tables made anew."""
    return _between(_between(text, "errors-table", codes_table()), "fixes-table", fixes_table())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--write", action="store_true", help="write the tables into docs/errors.md")
    args = parser.parse_args(argv)
    if args.write:
        DOC.write_text(render(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        sys.stdout.write(codes_table() + "\n\n" + fixes_table() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
