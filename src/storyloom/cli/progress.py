"""Progress bars on the terminal for the long verbs (import, export, backup, restore, sync, clone).

``with progress_bars(args) as progress:`` gives the callback to hand to the work
(:data:`storyloom.progress.ProgressCallback`), or ``None`` when nothing is to be drawn: stderr is
not a terminal (a build server, a pipe, a file), or the verb got ``--quiet``. Then the verb
prints only its result. Each phase gets its own bar (tqdm: documents done and total, rate, time
left); a phase's last event closes its bar, and leaving the block closes whatever is open, so an
error message never lands in the middle of a bar.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from typing import IO, Any

from storyloom.progress import Progress, ProgressCallback

PHASE_LABELS = {
    "import": "Importing",
    "export": "Exporting",
    "schema": "Schema",
    "backup": "Backing up",
    "restore": "Restoring",
    "pull": "Pulling",
    "push": "Pushing",
    "clone": "Cloning",
}


def add_quiet_option(parser: argparse.ArgumentParser) -> None:
    """``--quiet``/``-q``: no progress bar, only the result (the default when stderr is not a terminal)."""
    parser.add_argument(
        "-q", "--quiet", action="store_true",
        help="draw no progress bar on stderr, print only the result (the default when stderr is not a terminal)",
    )


def wants_bars(args: argparse.Namespace | None, stream: IO[str] | None = None) -> bool:
    """Whether to draw bars: stderr is a terminal and ``--quiet`` was not given."""
    stream = stream if stream is not None else sys.stderr
    if args is not None and getattr(args, "quiet", False):
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):
        return False


class TerminalProgress:
    """A callback that draws one tqdm bar per phase on ``stream``."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._bar: Any = None
        self._phase: str | None = None
        # A terminal that reports no width (a fresh pseudo-terminal) would get empty bars.
        try:
            self._sized = os.get_terminal_size(stream.fileno()).columns > 0
        except (AttributeError, OSError, ValueError):
            self._sized = False

    def __call__(self, event: Progress) -> None:
        from tqdm import tqdm  # imported when a bar is drawn: verbs that draw none never pay for it

        if event.phase != self._phase or self._bar is None:
            self.close()
            self._phase = event.phase
            self._bar = tqdm(
                total=event.total,
                desc=PHASE_LABELS.get(event.phase, event.phase.capitalize()),
                unit=" " + event.unit if event.unit else "",
                unit_scale=False,
                file=self._stream,
                dynamic_ncols=self._sized,
                ncols=None if self._sized else 80,
                leave=True,
                mininterval=0.1,
            )
        bar = self._bar
        if event.total != bar.total:
            bar.total = event.total
        if event.detail:
            bar.set_postfix_str(event.detail, refresh=False)
        bar.update(max(0, event.done - bar.n))
        if event.finished:
            self.close()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        self._bar = None
        self._phase = None


@contextlib.contextmanager
def progress_bars(
    args: argparse.Namespace | None = None, stream: IO[str] | None = None
) -> Iterator[ProgressCallback | None]:
    """The progress callback for a verb's work, or ``None`` when no bar is to be drawn."""
    stream = stream if stream is not None else sys.stderr
    if not wants_bars(args, stream):
        yield None
        return
    bars = TerminalProgress(stream)
    try:
        yield bars
    finally:
        bars.close()
