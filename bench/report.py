"""What every benchmark shares: a temporary ``STORYLOOM_HOME``, the machine line, and the table of
ratios beside their targets whose verdict is the exit status (0: every target met, 1: one missed)."""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import sqlite3
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

MIN_DOCS, MAX_DOCS = 1_000, 100_000


@dataclass
class Check:
    """One measured figure and its target: ``value <= target``, ``>=`` or ``==`` (``compare``)."""

    name: str
    value: float
    target: float
    compare: str = "<="
    unit: str = "x"
    note: str = ""
    #: Decimals shown (default: 2 for a ratio, none for anything else).
    decimals: int | None = None

    @property
    def ok(self) -> bool:
        if self.compare == "<=":
            return self.value <= self.target
        if self.compare == ">=":
            return self.value >= self.target
        return self.value == self.target

    def line(self, width: int) -> str:
        verdict = "ok" if self.ok else "MISSED"
        note = f"  ({self.note})" if self.note else ""
        decimals = self.decimals if self.decimals is not None else 2 if self.unit == "x" else 0
        value = f"{self.value:>9,.{decimals}f}"
        return (f"  {self.name:<{width}} {value}{self.unit:<3} target {self.compare} {self.target:,g}{self.unit}"
                f"   {verdict}{note}")


def verdict(title: str, checks: list[Check]) -> int:
    """Print the targets table; 0 when every target is met, else 1."""
    width = max((len(c.name) for c in checks), default=10)
    missed = [c for c in checks if not c.ok]
    print()
    print(f"{title}: {len(checks) - len(missed)} of {len(checks)} targets met")
    for check in checks:
        print(check.line(width))
    if missed:
        print(f"MISSED: {', '.join(c.name for c in missed)}")
    return 1 if missed else 0


def machine() -> str:
    """One line: CPUs, memory, Python, SQLite (docs/benchmarks.md quotes it)."""
    memory = ""
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open("/proc/meminfo") as handle:
            kib = int(handle.readline().split()[1])
        memory = f", {kib / 2**20:.0f} GiB"
    return (f"{os.cpu_count()} CPUs{memory}, {platform.system()} {platform.machine()}, "
            f"Python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}")


def check_docs(count: int) -> None:
    if not MIN_DOCS <= count <= MAX_DOCS:
        print(f"note: --docs {count} is outside {MIN_DOCS:,}..{MAX_DOCS:,}, the sizes the targets are set for",
              file=sys.stderr)


@contextlib.contextmanager
def storyloom_home(directory: str | None, prefix: str) -> Iterator[str]:
    """``STORYLOOM_HOME`` for the benchmark: ``directory`` (kept) or a temporary one (deleted at the
    end, whatever happens)."""
    home = directory or tempfile.mkdtemp(prefix=prefix)
    previous = os.environ.get("STORYLOOM_HOME")
    os.environ["STORYLOOM_HOME"] = home
    try:
        yield home
    finally:
        if previous is None:
            os.environ.pop("STORYLOOM_HOME", None)
        else:
            os.environ["STORYLOOM_HOME"] = previous
        if not directory:
            shutil.rmtree(home, ignore_errors=True)


def peak_rss_mb() -> float:
    """This process's peak resident set size so far, in MB (Linux: ``VmHWM``)."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
