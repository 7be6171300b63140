"""Voice-over recording scripts (docs/localization.md, "Voice-over recording scripts"): the rows
of the sample project and of a Drafft project, their stable ids, audio files, context, the text
in a locale, the actor filter, the ``voiceOverPath`` setting, and ``storyloom l10n vo`` as a
real process."""

from __future__ import annotations

import csv
import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest

from storyloom.app.l10n_files import export_recording_script
from storyloom.drafft import import_backup
from storyloom.l10n.gather import catalog
from storyloom.l10n.importing import NotATargetLocale, import_translations
from storyloom.l10n.vo import (
    FROM_FALLBACK,
    FROM_REVIEW,
    FROM_SOURCE,
    FROM_TRANSLATION,
    HEADER,
    UnknownActor,
    file_safe,
    recording_script,
)
from storyloom.project import create_sample_project, voice_over_path
from storyloom.project.manager import Project, ProjectManager
from storyloom.project.validation import ValidationError
from tests.l10n.conftest import read_file, script, set_text
from tests.support.fixtures import DRAFFT_PROJECTS

TEXT = ("// She has waited all night\n::Ann:: Good morning. [tired]\n<Wait(1)>\n::Bob:: Is it? {\"volume\": 2}\n"
        "::Ann:: It was. [sad]\n")


def test_the_sample_projects_rows_are_its_speech_lines_with_their_context(manager: ProjectManager) -> None:
    project = create_sample_project(manager, "Sample")
    try:
        rows = recording_script(project)
        speech = [e for e in catalog(project, "de").entries if e.kind == "speech"]
        # One row per speech line, in the catalog's order, with the catalog's ids: choice options
        # are not recorded.
        assert [(r.line_id, r.text, r.actor, r.document) for r in rows] == [
            (e.line_id, e.source, e.speaker, e.document) for e in speech]
        assert any(r.expression for r in rows) and all("[" not in r.text[-1:] for r in rows)
        for before, row in itertools.pairwise(rows):
            if row.document_id == before.document_id:  # the previous line of the same script
                assert (row.context_actor, row.context_text) == (before.actor, before.text)
            else:  # a script's first line answers nobody
                assert (row.context_actor, row.context_text) == ("", "")
        assert all(r.audio_file == f"{file_safe(r.actor)}/{r.line_id}.ogg" for r in rows)
        assert all(r.text_from == FROM_SOURCE for r in rows)
        assert len({r.audio_file for r in rows}) == len(rows)
    finally:
        project.close()


def test_a_row_has_the_expression_the_context_and_the_actors_name(project: Project) -> None:
    project.editor.create("Actor", "Ann Reyes", alias="Ann")
    doc_id = script(project, "Intro", TEXT)
    rows = recording_script(project)
    assert [(r.actor, r.expression, r.text, r.context_actor, r.context_text, r.line) for r in rows] == [
        ("Ann Reyes", "tired", "Good morning.", "", "", 2),
        ("Bob", "", "Is it?", "Ann Reyes", "Good morning.", 4),
        ("Ann Reyes", "sad", "It was.", "Bob", "Is it?", 5),
    ]
    assert rows[0].audio_file == f"Ann_Reyes/{rows[0].line_id}.ogg" and rows[0].document_id == doc_id


def test_ids_and_audio_files_stay_while_the_writer_edits(project: Project) -> None:
    doc_id = script(project, "Intro", TEXT)
    before = {r.text: (r.line_id, r.audio_file) for r in recording_script(project)}
    assert {r.text: (r.line_id, r.audio_file) for r in recording_script(project)} == before  # read twice
    set_text(project, doc_id, "::Cid:: Who's there?\n" + TEXT.replace("Is it?", "Is it, now?"))
    after = {r.text: (r.line_id, r.audio_file) for r in recording_script(project)}
    assert after["Good morning."] == before["Good morning."] and after["It was."] == before["It was."]
    assert after["Is it, now?"] == before["Is it?"]  # an edited line keeps its id and its file
    assert after["Who's there?"][0] not in {i for i, _ in before.values()}


def test_with_a_locale_the_text_is_the_translation_or_the_source_marked(project: Project) -> None:
    doc_id = script(project, "Intro", TEXT)
    a, b, _ = recording_script(project)
    import_translations(project, read_file("fr", (a.line_id, a.text, "Bonjour."), (b.line_id, b.text, "Ah bon ?")),
                        locale="fr")
    set_text(project, doc_id, TEXT.replace("Is it?", "Is it really?"))  # the translation is now to review
    rows = recording_script(project, locale="fr")
    assert [(r.text, r.text_from) for r in rows] == [
        ("Bonjour.", FROM_TRANSLATION), ("Ah bon ?", FROM_REVIEW), ("It was.", FROM_FALLBACK)]
    assert (rows[1].context_actor, rows[1].context_text) == ("Ann", "Bonjour.")  # the context in the locale too
    assert rows[0].line_id == a.line_id


def test_the_audio_file_pattern_is_a_project_setting(project: Project) -> None:
    script(project, "Intro", TEXT, parent=project.editor.create("Folder", "Act 1", collection="Script").id)
    project.editor.update_settings({"voiceOverPath": "vo/{locale}/{document}/{actor}_{lineId}.wav"})
    rows = recording_script(project, locale="pt-BR")
    assert rows[0].audio_file == f"vo/pt-BR/Act_1/Intro/Ann_{rows[0].line_id}.wav"
    assert recording_script(project)[0].audio_file == f"vo/en/Act_1/Intro/Ann_{rows[0].line_id}.wav"


@pytest.mark.parametrize(("pattern", "said"), [
    ("{actor}.ogg", "does not name {lineId}"),
    ("{actor}/{line}.ogg", "unknown placeholder {line}"),
    ("/audio/{lineId}.ogg", "absolute path"),
    ("../{lineId}.ogg", "'..'"),
    ("{actor/{lineId}.ogg", "unmatched brace"),
    ("vo:{lineId}.ogg", "':'"),
    ("{lineId!r}", "a format or conversion"),
    ("", "empty"),
    (3, "empty"),
])
def test_a_bad_audio_file_pattern_is_refused_by_the_settings_gate(project: Project, pattern: object,
                                                                   said: str) -> None:
    before = project.editor.settings()
    with pytest.raises(ValidationError) as caught:
        project.editor.update_settings({"voiceOverPath": pattern})
    problem = caught.value.problems[0]
    assert problem.field == "voiceOverPath" and said in problem.message
    assert "{actor}/{lineId}.ogg" in problem.message  # what a good one looks like
    assert project.editor.settings()["_rev"] == before["_rev"]
    assert voice_over_path(project.editor.settings()) == "{actor}/{lineId}.ogg"


@pytest.mark.parametrize(("name", "safe"), [
    ("Ann", "Ann"),
    ("Wren Hale", "Wren_Hale"),
    ("Zoë  Ström", "Zoë_Ström"),
    ("Mr. Smith?", "Mr._Smith"),
    ("AC/DC: <live>", "AC_DC___live"),
    ("..hidden.", "hidden"),
    ("CON", "CON_"),
    ("nul.txt", "nul.txt_"),
    ("???", "_"),
    ("", "_"),
    ("x" * 300, "x" * 100),
])
def test_an_actors_name_is_made_file_safe(name: str, safe: str) -> None:
    assert file_safe(name) == safe


def test_the_actor_filter_takes_a_name_or_an_alias_and_names_the_known_actors(project: Project) -> None:
    project.editor.create("Actor", "Ann Reyes", alias="Ann")
    script(project, "Intro", TEXT)
    assert [r.text for r in recording_script(project, actor="ann")] == ["Good morning.", "It was."]
    assert [r.text for r in recording_script(project, actor="Ann Reyes")] == ["Good morning.", "It was."]
    ann = recording_script(project, actor="ANN REYES")
    assert (ann[1].context_actor, ann[1].context_text) == ("Bob", "Is it?")  # the context is not filtered
    with pytest.raises(UnknownActor) as caught:
        recording_script(project, actor="Cid")
    assert str(caught.value) == "no actor named 'Cid' speaks in the project; the actors who speak are: Ann Reyes, Bob"


def test_a_drafft_projects_tags_are_its_audio_file_names(manager: ProjectManager) -> None:
    project, _report = import_backup(manager, DRAFFT_PROJECTS / "v1" / "one-bullet.json")
    try:
        rows = recording_script(project)
        assert len(rows) == 24  # every speech line (docs/localization.md: 7 tagged, 17 untagged)
        tagged = [r for r in rows if "_" in r.line_id and len(r.line_id) != 12]
        assert len(tagged) == 7
        assert all(r.audio_file == f"{file_safe(r.actor)}/{r.line_id}.ogg" for r in rows)
        assert [r.line_id for r in recording_script(project)] == [r.line_id for r in rows]  # derived the same
        first = rows[0]
        assert (first.context_actor, first.context_text) == ("", "")
    finally:
        project.close()


def test_the_app_writes_the_csv_and_checks_the_locale(project: Project, tmp_path: Path) -> None:
    script(project, "Intro", TEXT)
    target = tmp_path / "vo.csv"
    done = export_recording_script(project, target, locale="PT-br")
    assert (done.locale, done.lines, done.actors, done.untranslated) == ("pt-BR", 3, 2, 3)
    with target.open(newline="", encoding="utf-8") as f:
        read = list(csv.reader(f))
    assert tuple(read[0]) == HEADER and len(read) == 4
    assert read[1][HEADER.index("text_from")] == FROM_FALLBACK
    with pytest.raises(NotATargetLocale):
        export_recording_script(project, tmp_path / "de.csv", locale="de")
    assert not (tmp_path / "de.csv").exists()


def storyloom(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "storyloom", *argv], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ), check=False)


@pytest.mark.integration  # the storyloom CLI in subprocesses
def test_storyloom_l10n_vo_writes_the_recording_script(tmp_path: Path) -> None:
    assert storyloom("new", "Lamp", "--sample").returncode == 0
    out = tmp_path / "vo.csv"
    done = storyloom("l10n", "vo", "Lamp", "-o", str(out))
    assert done.returncode == 0, done.stderr
    with out.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert f"{len(rows)} lines for 5 actors in the source language" in done.stdout and len(rows) > 20
    wren = [r for r in rows if r["actor"] == "Wren Hale"]
    assert all(r["audio_file"] == f"Wren_Hale/{r['line_id']}.ogg" for r in wren)
    assert any(r["expression"] for r in rows) and rows[1]["context_text"] == rows[0]["text"]

    one = storyloom("l10n", "vo", "Lamp", "--actor", "wren hale", "-o", str(out))
    assert one.returncode == 0, one.stderr
    with out.open(newline="", encoding="utf-8") as f:
        assert [r["line_id"] for r in csv.DictReader(f)] == [r["line_id"] for r in wren]

    unknown = storyloom("l10n", "vo", "Lamp", "--actor", "Nobody", "-o", str(tmp_path / "n.csv"))
    assert unknown.returncode == 1 and not (tmp_path / "n.csv").exists()
    assert "the actors who speak are: Edda Vane, Maud Pell, Narrator, Tobias Marsh, Wren Hale" in unknown.stderr

    assert storyloom("doc", "set", "Lamp", "ProjectSettings", 'targetLocales=["fr"]',
                     "voiceOverPath={locale}/{lineId}.wav").returncode == 0
    french = storyloom("l10n", "vo", "Lamp", "--locale", "fr", "-o", str(out))
    assert f"{len(rows)} lines for 5 actors in fr, {len(rows)} untranslated (source text)" in french.stdout
    with out.open(newline="", encoding="utf-8") as f:
        assert all(r["audio_file"] == f"fr/{r['line_id']}.wav" and r["text_from"] == FROM_FALLBACK
                   for r in csv.DictReader(f))


@pytest.mark.integration  # the storyloom CLI in a subprocess
def test_storyloom_l10n_vo_loads_no_web_stack_no_http_client_and_no_game_export(tmp_path: Path) -> None:
    from tests.test_cli_imports import HTTP, NEVER, _modules

    home = Path(os.environ["STORYLOOM_HOME"])
    assert storyloom("new", "Saga", "--sample").returncode == 0
    code, names = _modules(home, "l10n", "vo", "Saga", "-o", str(tmp_path / "vo.csv"))
    assert code == 0 and (tmp_path / "vo.csv").exists()
    top = {name.split(".")[0] for name in names}
    assert not top & set(NEVER + HTTP), sorted(top & set(NEVER + HTTP))
    assert not {name for name in names if name.startswith("storyloom.export")}
