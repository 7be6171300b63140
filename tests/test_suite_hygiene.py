"""Rules the suite keeps so that no test reaches the machine's real data."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_no_test_undoes_the_whole_monkeypatch() -> None:
    """``monkeypatch.undo()`` undoes every patch of the test, the suite's own too: its
    ``STORYLOOM_HOME`` (tests/conftest.py) and password store, so what the test does next lands
    in the real home and keyring. ``with monkeypatch.context() as patch:`` scopes a patch instead."""
    found = [f"{path.relative_to(TESTS)}:{number}"
             for path in sorted(TESTS.rglob("*.py")) if path.name != Path(__file__).name
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"\bmonkeypatch\.undo\(\)", line.split("#", 1)[0])]  # code, not a comment
    assert found == [], f"monkeypatch.undo() in {found}: use monkeypatch.context() for the patches to undo"
