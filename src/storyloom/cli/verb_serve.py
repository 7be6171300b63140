"""``storyloom serve PROJECT``: the local REST API without the desktop app.

It opens the project as a session (``storyloom.app``), the same object the desktop app drives,
with the API options resolved here held in memory only (never saved). Prints the URL, serves
until Ctrl-C or SIGTERM, then stops cleanly (exit code 0, no traceback). ``/navigate`` answers
409: no app is attached to open documents.

The API key never appears on the command line (``ps`` shows command lines to every user of the
machine): it comes from ``--key-file PATH`` (a file only its owner may read), else
``$STORYLOOM_API_KEY``, else the app options.
"""

from __future__ import annotations

import argparse
import os
import signal
import stat
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from storyloom.api.keys import api_key_problem
from storyloom.app.options import (
    ANSWER_CACHE_EXPECTED,
    DEFAULT_ANSWER_CACHE_MB,
    OptionsError,
    parse_answer_cache_mb,
)
from storyloom.cli.main import CliError

KEY_ENV = "STORYLOOM_API_KEY"


@dataclass
class ServeOptions:
    """The options ``ApiServer`` reads, resolved from the command line, environment and app options."""

    api_key: str
    api_port: int
    username: str
    api_answer_cache_mb: int


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve the local REST API for a project, headless (until Ctrl-C or SIGTERM)",
        description=(
            "Serve the local REST API (see docs/api.md) for PROJECT without the desktop app. "
            f"The API key is read from --key-file, else ${KEY_ENV}, else the app options (never from the "
            "command line, which other users can see); the port is --port, else the port in the app "
            "options (9001 by default); the answer cache's bound is --answer-cache-mb, else the app "
            "options' (64 MiB by default)."
        ),
    )
    parser.add_argument("project", metavar="PROJECT", help="project name or id")
    parser.add_argument("--port", type=int, default=None, help="TCP port (default: the app options' API port)")
    parser.add_argument(
        "--answer-cache-mb", default=None, metavar="N",
        help="keep at most N MiB of export answers in memory, to answer repeated /game-export and "
        "/schema-export requests at once (0 to 4096; 0 keeps none); default: the app options' value (64)",
    )
    parser.add_argument(
        "--key-file", default=None, metavar="PATH",
        help=f"read the API key from this file (mode 0600: only you may read it); default: ${KEY_ENV}, "
        "then the app options' key",
    )
    # Not an option any more; kept so that `--key K` is refused with the reason instead of being
    # taken as an abbreviation of --key-file (which would then print the key in an error).
    parser.add_argument("--key", default=None, help=argparse.SUPPRESS)
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="bind address (default 127.0.0.1; anything else exposes the API beyond this machine)",
    )
    parser.add_argument(
        "--allow-host", action="append", default=[], metavar="NAME",
        help="also accept this Host name (repeatable); loopback names are always accepted",
    )
    parser.add_argument(
        "--allow-origin", action="append", default=[], metavar="ORIGIN",
        help="allow browser requests (CORS) from this origin, e.g. http://localhost:5173 (repeatable)",
    )
    parser.set_defaults(func=run)


def read_key_file(file: str) -> str:
    """The API key in ``file`` (surrounding whitespace ignored); :class:`CliError` when the file
    is missing, empty, not text, or readable or writable by anyone but its owner."""
    path = Path(file)
    try:
        info = path.stat()
    except OSError as exc:
        raise CliError(f"cannot read the key file {file}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise CliError(f"the key file {file} is not a regular file: give the path of a file holding the key")
    if os.name == "posix" and info.st_mode & 0o077:
        raise CliError(
            f"the key file {file} is open to other users (mode {stat.S_IMODE(info.st_mode):04o}): anyone who "
            f"can read it can use the API; make it private with `chmod 600 {file}` and try again"
        )
    try:
        key = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read the key file {file}: {exc}") from None
    if not key:
        raise CliError(f"the key file {file} is empty: write the API key in it (one line)")
    return key


def resolve_options(args: argparse.Namespace, app_options: Any) -> ServeOptions:
    if getattr(args, "key", None) is not None:
        raise CliError(
            "--key is not accepted: a key on the command line is visible to every user of this machine "
            f"(ps); set {KEY_ENV} or pass --key-file PATH (a file holding the key, mode 0600) instead"
        )
    if getattr(args, "key_file", None):
        key, source = read_key_file(args.key_file), f"the key in {args.key_file}"
    elif os.environ.get(KEY_ENV):
        key, source = os.environ[KEY_ENV], f"${KEY_ENV}"
    else:
        key, source = getattr(app_options, "api_key", "") or "", "the app options' API key"
    if not key.strip():
        raise CliError(
            f"no API key: set {KEY_ENV}, pass --key-file PATH (a file holding the key, mode 0600), or "
            "enable the API in the app options (which generates a key)"
        )
    problem = api_key_problem(key, source)
    if problem is not None:
        raise CliError(problem)
    port = args.port if args.port is not None else getattr(app_options, "api_port", 9001)
    username = getattr(app_options, "username", "") or os.environ.get("USER", "") or ""
    return ServeOptions(api_key=key, api_port=int(port), username=username,
                        api_answer_cache_mb=answer_cache_mb(args, app_options))


def answer_cache_mb(args: argparse.Namespace, app_options: Any) -> int:
    """``--answer-cache-mb``, else the app options' ``api_answer_cache_mb``; :class:`CliError`
    when the flag is not a whole number from 0 to the maximum."""
    value = getattr(args, "answer_cache_mb", None)
    if value is None:
        return int(getattr(app_options, "api_answer_cache_mb", DEFAULT_ANSWER_CACHE_MB))
    try:
        return parse_answer_cache_mb(value)
    except OptionsError:
        raise CliError(f"--answer-cache-mb: expected {ANSWER_CACHE_EXPECTED}, got {value!r}") from None


def run(args: argparse.Namespace) -> int:
    from storyloom.cli.workspace import open_workspace, project_session

    stop = threading.Event()
    received: list[int] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        workspace = open_workspace()
        options = resolve_options(args, workspace.options)
        # In memory only: what this command resolved never overwrites the saved options.
        workspace.options.api_enabled = True
        workspace.options.api_key = options.api_key
        workspace.options.api_port = options.api_port
        workspace.options.api_answer_cache_mb = options.api_answer_cache_mb
        server_options = {
            "host": args.host,
            "allowed_hosts": args.allow_host,
            "allowed_origins": args.allow_origin,
            # Printed once, here (the server's default is to log it, which would print it again).
            "on_warning": lambda warning: print(f"storyloom: {warning}", file=sys.stderr, flush=True),
        }
        with project_session(args.project, workspace, api_server_options=server_options) as session:
            status = session.start_api()
            if not status.running:
                raise CliError(status.error or "the API did not start", code=1)
            print(f"Serving project {session.name!r} at {status.url} (Ctrl-C to stop)", flush=True)
            while not stop.wait(0.5):
                if not session.api.server.running:
                    raise CliError("the API server stopped unexpectedly", code=1)
            print("Stopping...", flush=True)
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if received:
            print("Stopped.", flush=True)
