"""Entry point of the ``storyloom`` command.

Verbs live in sibling modules named ``verb_*.py``; each defines ``register(subparsers)``
which adds its sub-command and sets ``func`` (returning an exit code) on its parser.
Discovery keeps each verb in its own module, so adding one touches no shared file.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

import storyloom
from storyloom import cli as cli_package


class CliError(Exception):
    """A user-facing failure: printed as ``storyloom: error: <message>``, exit code ``code``."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="storyloom",
        description="Storyloom: narrative-design studio for game teams.",
    )
    parser.add_argument("--version", action="version", version=f"storyloom {storyloom.__version__}")
    subparsers = parser.add_subparsers(dest="verb", metavar="VERB")
    for module_info in sorted(pkgutil.iter_modules(cli_package.__path__), key=lambda m: m.name):
        if module_info.name.startswith("verb_"):
            module = importlib.import_module(f"{cli_package.__name__}.{module_info.name}")
            module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        print(f"storyloom: error: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
