"""Entry point of the ``storyloom`` command.

Verbs live in sibling modules named ``verb_*.py``; each defines ``register(subparsers)``
which adds its sub-command and sets ``func`` (returning an exit code) on its parser.
Discovery keeps each verb in its own module, so adding one touches no shared file.
``storyloom`` with no verb opens the desktop app (``storyloom app``).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import pkgutil
import sys

import storyloom
from storyloom import cli as cli_package
from storyloom.errors import StoryloomError


class CliError(StoryloomError):
    """A user-facing failure: printed as ``storyloom: error: <message>``, exit code ``exit_code``
    (the ``code`` argument: verbs pass their exit code as ``code=``). A verb that gives an error
    another exit code passes the error itself: it is said as any error is
    (``storyloom.cli.explain``), its fix as a command line."""

    code = "command_failed"

    def __init__(self, message: str | StoryloomError, code: int = 2) -> None:
        #: The error this one gives another exit code, if any.
        self.error = message if isinstance(message, StoryloomError) else None
        super().__init__(str(message))
        self.exit_code = code


# Which module registers each verb, so that a run imports only its own verb's module (each
# module's import and its options' set-up are a noticeable part of a quick verb's start).
# tests/test_cli_imports.py checks it against what the modules register.
VERB_MODULES: dict[str, str] = {
    "app": "verb_app", "backups": "verb_backups", "check": "verb_check", "clone": "verb_clone",
    "conflicts": "verb_conflicts", "resolve": "verb_conflicts", "doc": "verb_doc",
    "export": "verb_export", "schema": "verb_export", "dump": "verb_export", "l10n": "verb_l10n",
    "lines": "verb_lines",
    "lock": "verb_locks", "unlock": "verb_locks", "locks": "verb_locks", "options": "verb_options",
    "print": "verb_print", "new": "verb_project", "list": "verb_project", "rename": "verb_project",
    "delete": "verb_project", "backup": "verb_project", "restore": "verb_project", "import": "verb_project",
    "remote": "verb_remote", "salvage": "verb_salvage", "serve": "verb_serve", "sync": "verb_sync",
}


def verb_modules() -> list[str]:
    """Every module of the package that registers verbs (``verb_*``), by name."""
    return sorted(m.name for m in pkgutil.iter_modules(cli_package.__path__) if m.name.startswith("verb_"))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command's parser: every verb, or with ``only``, that module's verbs alone (what a run
    of one of them needs: its options, its help and its errors are the same)."""
    parser = argparse.ArgumentParser(
        prog="storyloom",
        description="Storyloom: narrative-design studio for game teams. With no verb, opens the desktop app.",
    )
    parser.add_argument("--version", action="version", version=f"storyloom {storyloom.__version__}")
    subparsers = parser.add_subparsers(dest="verb", metavar="VERB")
    for name in [only] if only else verb_modules():
        module = importlib.import_module(f"{cli_package.__name__}.{name}")
        module.register(subparsers)
    return parser


def _module_of(argv: list[str]) -> str | None:
    """The module of the verb ``argv`` starts with, or None (no verb, an option first, a verb
    nobody registers: the whole parser answers those)."""
    return VERB_MODULES.get(argv[0]) if argv else None


DEBUG_ENV = "STORYLOOM_DEBUG"


def _printable_streams() -> None:
    """Print text that is not valid UTF-8 (a file name or an argument with undecodable bytes,
    carried as surrogates) as escapes instead of failing on it, where the stream would fail
    (``strict``; a stream that already passes such bytes through keeps doing so)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", None) == "strict":
            with contextlib.suppress(Exception):
                reconfigure(errors="backslashreplace")


def main(argv: list[str] | None = None) -> int:
    _printable_streams()
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments == ["--version"]:
        # Answered before the verbs are registered: a build script's version check is instant.
        print(f"storyloom {storyloom.__version__}")
        return 0
    parser = build_parser(only=_module_of(arguments))
    args = parser.parse_args(arguments)
    if not getattr(args, "func", None):
        # No verb: the desktop app, as a double-click on the app would open it.
        args = build_parser(only=VERB_MODULES["app"]).parse_args(["app"])
    try:
        return int(args.func(args) or 0)
    except StoryloomError as exc:  # every error meant for the user derives from the one root
        from storyloom.cli.explain import exit_code, say

        project = getattr(args, "project", None)
        print(f"storyloom: error: {say(exc, project=project if isinstance(project, str) else None)}",
              file=sys.stderr)
        return exit_code(exc)
    except KeyboardInterrupt:
        return 130
    except OSError as exc:  # the file system refused (permissions, a full disk...)
        if os.environ.get(DEBUG_ENV):
            raise
        from storyloom.cli.explain import os_error

        print(f"storyloom: error: {os_error(exc)}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug: say so plainly; the traceback is for whoever fixes it
        if os.environ.get(DEBUG_ENV):
            raise
        print(
            f"storyloom: internal error: {type(exc).__name__}: {exc}\n"
            f"This is a bug in Storyloom. Run the command again with {DEBUG_ENV}=1 to see the "
            "traceback, and report it.",
            file=sys.stderr,
        )
        return 70


if __name__ == "__main__":
    sys.exit(main())
