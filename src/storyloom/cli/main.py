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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="storyloom",
        description="Storyloom: narrative-design studio for game teams. With no verb, opens the desktop app.",
    )
    parser.add_argument("--version", action="version", version=f"storyloom {storyloom.__version__}")
    subparsers = parser.add_subparsers(dest="verb", metavar="VERB")
    for module_info in sorted(pkgutil.iter_modules(cli_package.__path__), key=lambda m: m.name):
        if module_info.name.startswith("verb_"):
            module = importlib.import_module(f"{cli_package.__name__}.{module_info.name}")
            module.register(subparsers)
    return parser


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
    if (sys.argv[1:] if argv is None else argv) == ["--version"]:
        # Answered before the verbs are registered: a build script's version check is instant.
        print(f"storyloom {storyloom.__version__}")
        return 0
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        # No verb: the desktop app, as a double-click on the app would open it.
        args = parser.parse_args(["app"])
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
