"""`storyloom export` and `storyloom schema` as a user runs them: a progress bar on a terminal's
stderr, none when stderr is piped or with --quiet (the real CLI, in a subprocess)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.export.helpers import GARDEN
from tests.project.test_progress_cli import _complete_bar, run_on_terminal, run_piped

#: The export's count of warnings, in the number's form ("1 warning", "3 warnings").
_WARNINGS = re.compile(r"storyloom: [\d,]+ warnings? \(_meta\.warningCount")

pytestmark = pytest.mark.integration  # storyloom CLIs in subprocesses (a pseudo-terminal)


def test_export_and_schema_draw_bars_on_a_terminal_and_none_when_piped(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert run_piped(home, "import", str(GARDEN), "--name", "Garden").returncode == 0

    game = tmp_path / "game.json"
    code, out, shown = run_on_terminal(home, "export", "Garden", "-o", str(game))
    assert code == 0 and out == "", shown
    assert "Exporting" in shown and _complete_bar(shown, "Exporting"), shown
    assert _WARNINGS.search(shown)  # the result: the garden's scripts use an unknown variable path

    schema = tmp_path / "game.schema.json"
    code, out, shown = run_on_terminal(home, "schema", "Garden", "-o", str(schema))
    assert code == 0 and "Schema" in shown and _complete_bar(shown, "Schema"), shown

    code, _, shown = run_on_terminal(home, "export", "Garden", "-o", str(tmp_path / "quiet.json"), "--quiet")
    assert code == 0 and "Exporting" not in shown and _WARNINGS.search(shown)
    code, _, shown = run_on_terminal(home, "schema", "Garden", "-o", str(tmp_path / "quiet.schema.json"), "-q")
    assert code == 0 and shown.strip() == ""

    piped = run_piped(home, "export", "Garden", "-o", str(tmp_path / "piped.json"))
    assert piped.returncode == 0 and "Exporting" not in piped.stderr and _WARNINGS.search(piped.stderr)
    piped = run_piped(home, "schema", "Garden", "-o", str(tmp_path / "piped.schema.json"))
    assert piped.returncode == 0 and piped.stderr == "" and piped.stdout == ""
    assert (tmp_path / "piped.schema.json").read_bytes() == schema.read_bytes()
