"""Where the benchmarks find Storyloom: ``src/`` of this checkout, unless ``PYTHONPATH`` names
another copy (to measure an older commit: ``PYTHONPATH=/tmp/wt_old/src``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"


def setup() -> None:
    """Make ``bench`` and ``storyloom`` importable (idempotent)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    given = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    elsewhere = [p for p in given if p and (Path(p) / "storyloom").is_dir()]
    if not elsewhere and str(SRC) not in sys.path:
        sys.path.insert(0, str(SRC))
