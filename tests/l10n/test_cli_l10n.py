"""``storyloom l10n export`` and ``import`` as a translator's round trip: real CLI processes on
the sample project, the file edited as a translation tool would (polib)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polib
import pytest

pytestmark = pytest.mark.integration  # the storyloom CLI in subprocesses


def storyloom(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "storyloom", *argv], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ), check=False)


def test_a_translators_round_trip_through_a_po_file(tmp_path: Path) -> None:
    assert storyloom("new", "Lamp", "--sample").returncode == 0
    refused = storyloom("l10n", "export", "Lamp", "--locale", "fr", "-o", str(tmp_path / "x.po"))
    assert refused.returncode == 1 and not (tmp_path / "x.po").exists()
    assert "'fr' is not one of the project's target locales (none yet)" in refused.stderr
    assert """storyloom doc set Lamp ProjectSettings 'targetLocales=["fr"]'""" in refused.stderr
    assert storyloom("doc", "set", "Lamp", "ProjectSettings", 'targetLocales=["fr","de"]').returncode == 0

    exported = tmp_path / "lamp.fr.po"
    done = storyloom("l10n", "export", "Lamp", "--locale", "fr", "-o", str(exported))
    assert done.returncode == 0, done.stderr
    po = polib.pofile(str(exported))
    lines = len(po)
    assert f"{lines} lines for fr (0 translated, 0 to review)" in done.stdout and lines > 20
    po[0].msgstr = "La lampe est éteinte."
    po[1].msgstr = "Bonjour."
    po[1].msgid = "What the line said when the file was made"  # the writer edited it since
    po.append(polib.POEntry(msgctxt="gone_1", msgid="A deleted line", msgstr="Une ligne effacée"))
    translated = tmp_path / "lamp.fr.translated.po"
    po.save(str(translated))

    dry = storyloom("l10n", "import", "Lamp", str(translated), "--dry-run")
    assert dry.returncode == 1, dry.stderr  # a line was refused: the unknown id
    assert dry.stdout.startswith("Dry run, nothing written: fr translations")
    assert "     2  new" in dry.stdout and "     1  unknown ids (refused)" in dry.stdout
    assert "gone_1  'A deleted line'" in dry.stdout

    mismatch = storyloom("l10n", "import", "Lamp", str(translated), "--locale", "de")
    assert mismatch.returncode == 1 and "the file holds 'fr' translations, not 'de'" in mismatch.stderr
    assert "--locale fr" in mismatch.stderr

    again = storyloom("l10n", "export", "Lamp", "--locale", "fr", "-o", str(exported))
    assert "(0 translated, 0 to review)" in again.stdout  # the dry run wrote nothing

    imported = storyloom("l10n", "import", "Lamp", str(translated))
    assert imported.returncode == 1 and "1 translation document written" in imported.stdout
    assert "     1  source changed since the export (stored, flagged for review)" in imported.stdout

    back = storyloom("l10n", "export", "Lamp", "--locale", "fr", "-o", str(exported))
    assert f"{lines} lines for fr (2 translated, 1 to review)" in back.stdout
    po = polib.pofile(str(exported))
    assert po[0].msgstr == "La lampe est éteinte." and not po[0].fuzzy
    assert po[1].msgstr == "Bonjour." and po[1].fuzzy
    assert po[1].previous_msgid == "What the line said when the file was made"

    del po[1]  # a clean file: every line is known
    po.save(str(translated))
    clean = storyloom("l10n", "import", "Lamp", str(translated))
    assert clean.returncode == 0 and "     1  unchanged" in clean.stdout, clean.stdout + clean.stderr


def test_the_l10n_verbs_load_no_web_stack_no_http_client_and_no_game_export(tmp_path: Path) -> None:
    from tests.test_cli_imports import HTTP, NEVER, _modules

    home = Path(os.environ["STORYLOOM_HOME"])
    assert storyloom("new", "Saga").returncode == 0
    assert storyloom("doc", "set", "Saga", "ProjectSettings", 'targetLocales=["fr"]').returncode == 0
    code, names = _modules(home, "l10n", "export", "Saga", "--locale", "fr", "-o", str(tmp_path / "s.xlf"))
    assert code == 0
    top = {name.split(".")[0] for name in names}
    assert not top & set(NEVER + HTTP), sorted(top & set(NEVER + HTTP))
    assert not {name for name in names if name.startswith("storyloom.export")}
