"""``storyloom clone URL --username USER [--name NAME]``: join a team's project.

Makes a new local project from the remote database at URL (the project's id and name come from
the remote ProjectSettings), keeps the remote settings and the password, and pulls everything.
The password comes from ``STORYLOOM_REMOTE_PASSWORD`` or a prompt, never from the command line.
On a terminal the pull draws a progress bar on stderr (documents of the remote's count); with
``--quiet``, or when stderr is not a terminal, only the result is printed.

Exit codes: 0 cloned; 1 failed (no Storyloom project there, no access, the project is here
already, the pull failed: nothing is left behind); 2 bad usage or input (a malformed URL).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from storyloom.cli.main import CliError
from storyloom.cli.progress import add_quiet_option, progress_bars
from storyloom.words import counted


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "clone",
        help="join a team: a new local project from a remote database",
        description="Create a local copy of the project in the remote database URL "
        "(http(s)://host[:port]/dbname) and keep its remote settings, so `storyloom sync` works at once. "
        "The password comes from $STORYLOOM_REMOTE_PASSWORD or a prompt.",
    )
    parser.add_argument("url", metavar="URL", help="the remote database, http(s)://host[:port]/dbname")
    parser.add_argument("--username", "-u", required=True, metavar="USER", help="your user name on the server")
    parser.add_argument("--name", metavar="NAME", help="a local name, when the project's own is taken here "
                        "(the name is shared: the team sees it after your next sync)")
    add_quiet_option(parser)
    parser.set_defaults(func=run_clone)


def run_clone(args: argparse.Namespace) -> int:
    from storyloom.app.clone import clone_project
    from storyloom.app.terms import InvalidRemote, parse_remote_url
    from storyloom.cli.verb_remote import read_password
    from storyloom.cli.workspace import open_workspace
    from storyloom.errors import StoryloomError

    try:
        parsed = parse_remote_url(args.url)
    except InvalidRemote as exc:
        raise CliError(exc, code=2) from None
    if parsed.password is not None:
        raise CliError("do not put the password in the URL (other users can see command lines); "
                       "set STORYLOOM_REMOTE_PASSWORD or type it at the prompt", code=2)
    password = read_password(args.username)
    try:
        # A bar on a terminal (documents pulled out of the remote's count); nothing when piped.
        with progress_bars(args) as progress:
            result = clone_project(open_workspace(), args.url, args.username, password, name=args.name,
                                   progress=progress)
    except InvalidRemote as exc:
        raise CliError(exc, code=2) from None
    except StoryloomError as exc:
        raise CliError(exc, code=1) from None
    for note in result.notes:
        if note.startswith("warning: "):
            print(f"storyloom: {note}", file=sys.stderr)
        else:
            print(f"note: {note}")
    print(f"Cloned {result.name!r} (id {result.project_id}) from {result.database_url} as {result.username!r} "
          f"({result.mode} mode): {counted(result.docs_written, 'document')}")
    print(f"Sync it with: storyloom sync {_quoted(result.name)}")
    return 0


def _quoted(name: str) -> str:
    import shlex

    return shlex.quote(name)
