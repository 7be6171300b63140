"""The import of a read translation file and its report (docs/localization.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from storyloom.l10n.catalog import ReadEntry
from storyloom.l10n.gather import catalog
from storyloom.l10n.importing import (
    LocaleMismatch,
    LocaleNotGiven,
    NotATargetLocale,
    import_translations,
)
from storyloom.l10n.translations import entries_of, translation_id
from storyloom.project import TeamLocks, WriteIntent, locked_fields
from storyloom.project.manager import Project, ProjectManager
from tests.l10n.conftest import read_file, script

TEXT = "::Ann:: Good morning.\n::Bob:: Is it?\n::Ann:: It was.\n"


def _lines(project: Project, doc_id: str) -> list[tuple[str, str]]:
    return [(e.line_id, e.source) for e in catalog(project, "fr").entries if e.document_id == doc_id]


def test_the_report_sorts_every_entry_and_the_source_is_never_touched(project: Project) -> None:
    doc_id = script(project, "Intro", TEXT)
    (a, a_src), (b, b_src), (c, c_src) = _lines(project, doc_id)
    first = import_translations(project, read_file("fr", (a, a_src, "Bonjour."), (b, b_src, "Ah bon ?")), locale="fr")
    assert (first.new, first.changed, first.documents, first.refused) == ([a, b], [], 1, False)
    source_rev = project.editor.get(doc_id)["_rev"]

    second = import_translations(project, read_file(
        "fr", (a, a_src, "Bonjour."), (b, b_src, "Vraiment ?"), (c, c_src, ""), ("gone_1", "Farewell.", "Adieu.")),
        locale="fr")
    assert second.counts() == {"new": 0, "changed": 1, "unchanged": 1, "empty": 1, "source_changed": 0,
                               "unknown": 1, "locked": 0}
    assert (second.changed, second.unchanged, second.empty) == ([b], [a], [c])
    assert [(r.line_id, r.source) for r in second.unknown] == [("gone_1", "Farewell.")] and second.refused
    assert project.editor.get(doc_id)["_rev"] == source_rev  # the Script was not written
    stored = entries_of(project.editor.get(translation_id("fr", doc_id)))
    assert {k: v.text for k, v in stored.items()} == {a: "Bonjour.", b: "Vraiment ?"}  # empty deletes nothing


def test_a_translation_of_a_source_changed_since_the_export_is_stored_and_flagged(project: Project) -> None:
    doc_id = script(project, "Intro", TEXT)
    (a, _), (b, b_src), _ = _lines(project, doc_id)
    report = import_translations(project, read_file(
        "fr", (a, "Good mornin'.", "Salut."), ReadEntry(b, b_src, "Ah bon ?", needs_review=True)), locale="fr")
    assert report.source_changed == [a] and report.new == [a, b]
    entries = {e.line_id: e for e in catalog(project, "fr").entries}
    assert (entries[a].target, entries[a].needs_review, entries[a].previous_source) == ("Salut.", True, "Good mornin'.")
    assert (entries[b].needs_review, entries[b].previous_source) == (True, None)  # the file said to review it


def test_a_dry_run_reports_and_writes_nothing(project: Project) -> None:
    doc_id = script(project, "Intro", TEXT)
    (a, a_src), _, _ = _lines(project, doc_id)
    seq = project.store.update_seq
    report = import_translations(project, read_file("fr", (a, a_src, "Bonjour.")), locale="fr", dry_run=True)
    assert (report.new, report.documents, report.dry_run) == ([a], 1, True)
    assert project.editor.index.get(translation_id("fr", doc_id)) is None
    assert project.store.update_seq == seq


def test_a_locale_the_project_does_not_translate_into_is_refused_with_the_fix(project: Project) -> None:
    doc_id = script(project, "Intro", TEXT)
    (a, a_src), _, _ = _lines(project, doc_id)
    with pytest.raises(NotATargetLocale) as caught:
        import_translations(project, read_file("de", (a, a_src, "Guten Morgen.")), locale=None)
    assert caught.value.fix is not None and caught.value.fix.action == "add_target_locale"
    assert "'de' is not one of the project's target locales (fr, pt-BR)" in str(caught.value)
    with pytest.raises(LocaleMismatch, match="holds 'fr' translations, not 'pt-BR'"):
        import_translations(project, read_file("fr", (a, a_src, "Bonjour.")), locale="pt-BR")
    with pytest.raises(LocaleNotGiven):
        import_translations(project, read_file(None, (a, a_src, "Bonjour.")), locale=None)
    # the file's locale, or the one asked, in any case, is the project's spelling
    assert import_translations(project, read_file(None, (a, a_src, "Olá.")), locale="PT-br").locale == "pt-BR"
    assert import_translations(project, read_file("FR", (a, a_src, "Bonjour.")), locale=None).locale == "fr"
    project.editor.update_settings({"targetLocales": ["fr"]})
    assert import_translations(project, read_file(None, (a, a_src, "Bonjour.")), locale=None).locale == "fr"


def test_a_translation_locked_by_another_translator_is_refused_and_nothing_else_is_lost(project: Project) -> None:
    locked_doc = script(project, "Intro", TEXT)
    free_doc = script(project, "Outro", "::Ann:: Bye.\n")
    (a, a_src), _, _ = _lines(project, locked_doc)
    [(z, z_src)] = _lines(project, free_doc)
    import_translations(project, read_file("fr", (a, a_src, "Bonjour.")), locale="fr")
    editor = project.editor
    editor.lock_policy = TeamLocks(lambda: "bea", lambda: True)  # Bea takes the lock of the French Intro
    held = editor.get(translation_id("fr", locked_doc))
    editor.update(held | locked_fields("bea", "2026-11-28T10:00:00.000Z"), intent=WriteIntent.LOCK)

    editor.lock_policy = TeamLocks(lambda: "ana", lambda: True)  # Ana imports, in a team project
    file = read_file("fr", (a, a_src, "Salut."), (z, z_src, "Au revoir."))
    dry = import_translations(project, file, locale="fr", dry_run=True)
    report = import_translations(project, file, locale="fr")
    for said in (dry, report):
        assert [(r.line_id, r.holder, r.document) for r in said.locked] == [(a, "bea", "Intro")]
        assert said.new == [z] and said.refused
    assert entries_of(editor.get(translation_id("fr", locked_doc)))[a].text == "Bonjour."
    outro = editor.get(translation_id("fr", free_doc))
    assert entries_of(outro)[z].text == "Au revoir."
    # the import took no lock: Bea may import the Outro next
    assert outro.get("locked") is not True
    again = import_translations(project, read_file("fr", (z, z_src, "Salut.")), locale="fr")
    assert again.changed == [z] and editor.get(translation_id("fr", free_doc)).get("locked") is not True


def test_a_line_id_two_documents_share_is_imported_into_both(project: Project) -> None:
    one = script(project, "One", "[#greet]::Ann:: Hello.\n")
    two = script(project, "Two", "[#greet]::Ann:: Hello.\n")
    report = import_translations(project, read_file("fr", ("greet", "Hello.", "Bonjour.")), locale="fr")
    assert report.new == ["greet", "greet"] and report.documents == 2
    assert all(entries_of(project.editor.get(translation_id("fr", d)))["greet"].text == "Bonjour." for d in (one, two))


def test_a_drafft_projects_translations_follow_a_drafft_teammates_edit(manager: ProjectManager) -> None:
    """one-bullet (Drafft 1), read in place: every line translated, then a teammate on Drafft
    edits one tagged line (a replicated write: no gate, no line table) and Storyloom edits an
    untagged one: only those two read as to be reviewed."""
    from storyloom.drafft import import_backup
    from tests.support.fixtures import DRAFFT_PROJECTS

    project, _ = import_backup(manager, DRAFFT_PROJECTS / "v1" / "one-bullet.json")
    try:
        project.editor.update_settings({"targetLocales": ["es"]})
        lines = catalog(project, "es").entries
        report = import_translations(project, read_file("es", *((e.line_id, e.source, f"ES {e.source}")
                                                                for e in lines)), locale="es")
        assert len(report.new) == len(lines) and not report.refused
        tagged = next(e for e in lines if e.kind == "speech" and len(e.line_id) != 12)
        untagged = next(e for e in lines if e.kind == "speech" and len(e.line_id) == 12
                        and e.document_id != tagged.document_id)

        doc = project.store.get(tagged.document_id)  # Drafft's write, as replication brings it
        text = doc["content"]["script"] if isinstance(doc["content"], dict) else doc["content"]
        edited = text.replace(tagged.source, tagged.source + " (rewritten)", 1)
        assert edited != text
        doc["content"] = {**doc["content"], "script": edited} if isinstance(doc["content"], dict) else edited
        project.store.put(doc)
        script_doc = project.editor.get(untagged.document_id)
        script_doc["content"]["script"] = script_doc["content"]["script"].replace(
            untagged.source, untagged.source + " Again.", 1)
        project.editor.update(script_doc)

        after = catalog(project, "es").entries
        review = {(e.document_id, e.line_id) for e in after if e.needs_review}
        assert review == {(tagged.document_id, tagged.line_id), (untagged.document_id, untagged.line_id)}
        assert all(e.target == f"ES {e.previous_source or e.source}" for e in after)
    finally:
        project.close()


@pytest.mark.parametrize(("name", "dialect"), [("t.po", "godot"), ("t.xlf", "godot"), ("godot.csv", "godot"),
                                               ("unity.csv", "unity")])
def test_a_file_exported_and_imported_untouched_changes_nothing(project: Project, tmp_path: Path, name: str,
                                                                dialect: str) -> None:
    """Every format through the app's workflow: a translator who sends the file back untouched
    leaves every translation, review flag and previous source as it was."""
    from storyloom.app.l10n_files import export_catalog, import_file
    from tests.l10n.conftest import set_text

    doc_id = script(project, "Intro", TEXT)
    (a, a_src), (b, b_src), _ = _lines(project, doc_id)
    import_translations(project, read_file("pt-BR", (a, a_src, "Bom dia."), (b, b_src, "É?")), locale="pt-BR")
    set_text(project, doc_id, "::Ann:: Good morning!\n::Bob:: Is it?\n::Ann:: It was.\n")
    before = catalog(project, "pt-BR").entries
    assert [e.needs_review for e in before] == [True, False, False]

    exported = export_catalog(project, "pt-br", tmp_path / name, csv_dialect=dialect)
    assert (exported.locale, exported.lines, exported.translated, exported.to_review) == ("pt-BR", 3, 2, 1)
    rev = project.editor.get(translation_id("pt-BR", doc_id))["_rev"]
    report = import_file(project, tmp_path / name, locale="pt-BR", csv_dialect=dialect)
    assert (report.unchanged, report.new, report.changed, report.refused) == ([a, b], [], [], False)
    assert catalog(project, "pt-BR").entries == before
    assert project.editor.get(translation_id("pt-BR", doc_id))["_rev"] == rev  # nothing written
