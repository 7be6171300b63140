"""The Localization view's rules (storyloom.app.views.localization), on the sample project in a
real session: progress, filters and search, edits in place through the gate, a lock that
refuses an edit and keeps the text, and the changes the view follows."""

from __future__ import annotations

from pathlib import Path

import pytest

from storyloom.app import AppOptions, Workspace
from storyloom.app.l10n_files import export_catalog, import_file
from storyloom.app.views.localization import (
    ALL,
    REVIEW,
    TRANSLATED,
    UNTRANSLATED,
    LocalizationState,
    export_summary,
    import_summary,
    load,
)
from storyloom.l10n.gather import catalog
from storyloom.l10n.translations import entries_of, translation_id
from storyloom.project import TeamLocks, WriteIntent, locked_fields
from storyloom.project.sample import create_sample_project
from tests.support.session_changes import Changes


@pytest.fixture
def session():  # type: ignore[no-untyped-def]
    ws = Workspace(options=AppOptions(username="ana"))
    project = create_sample_project(ws.manager)
    project.editor.update_settings({"targetLocales": ["fr", "de"]})
    name = project.name
    project.close()
    with ws.open_session(name) as opened:
        yield opened
    ws.close()


def _state(session) -> LocalizationState:  # type: ignore[no-untyped-def]
    state = LocalizationState()
    state.take(load(session.project))
    return state


def test_the_rows_are_the_catalogs_in_its_order_with_progress_per_locale(session) -> None:  # type: ignore[no-untyped-def]
    state = _state(session)
    assert state.locales == ("fr", "de") and state.locale == "fr" and state.source_locale == "en"
    expected = catalog(session.project, "fr").entries
    rows = state.rows()
    assert [(r.line_id, r.document, r.location, r.source, r.speaker) for r in rows] == [
        (e.line_id, e.document, e.location, e.source, e.speaker) for e in expected]
    assert len(rows) > 10 and {r.state for r in rows} == {UNTRANSLATED}
    progress = state.progress()
    assert (progress.lines, progress.translated, progress.review, progress.untranslated) == (len(rows), 0, 0, len(rows))
    assert progress.label() == f"fr — 0/{len(rows)} translated" and progress.percent == 0


def test_an_edit_in_place_writes_the_translation_document_and_filters_follow(session) -> None:  # type: ignore[no-untyped-def]
    state = _state(session)
    first, second = state.rows()[:2]
    outcome = state.edit(session.editor, first, "Bonjour.")
    assert outcome.saved
    stored = entries_of(session.editor.get(translation_id("fr", first.document_id)))
    assert (stored[first.line_id].text, stored[first.line_id].source, stored[first.line_id].by) == (
        "Bonjour.", first.source, "ana")
    assert state.rows()[0].state == TRANSLATED and state.rows()[0].translation == "Bonjour."
    assert state.progress().label().startswith(f"fr — 1/{len(state.rows())} translated")
    assert state.progress("de").translated == 0  # each locale apart
    state.filter = UNTRANSLATED
    assert first.line_id not in [r.line_id for r in state.rows()] and state.rows()[0].line_id == second.line_id
    state.filter = ALL
    state.search = "BONJOUR"
    assert [r.line_id for r in state.rows()] == [first.line_id]
    state.search = first.speaker or ""
    assert first.line_id in [r.line_id for r in state.rows()]
    # an empty text saves nothing
    assert not state.edit(session.editor, second, "  ").saved
    assert second.line_id not in entries_of(session.editor.get(translation_id("fr", first.document_id)))


def test_a_source_edit_flips_the_row_to_review_and_mark_reviewed_clears_it(session) -> None:  # type: ignore[no-untyped-def]
    state = _state(session)
    row = next(r for r in state.rows() if r.doc_type == "Script")
    state.edit(session.editor, row, "Bonjour.")
    changes = Changes(session)
    doc = session.editor.get(row.document_id)
    text = doc["content"]["script"]
    assert row.source in text
    doc["content"] = {**doc["content"], "script": text.replace(row.source, row.source + " Edited.", 1)}
    session.editor.update(doc)
    affected = state.affected(changes.take())
    assert affected.doc_ids == {row.document_id} and not affected.everything
    state.take(state.reader(session.project, affected.doc_ids)())
    flipped = next(r for r in state.rows() if r.line_id == row.line_id)
    assert (flipped.state, flipped.previous_source, flipped.source, flipped.translation) == (
        REVIEW, row.source, row.source + " Edited.", "Bonjour.")
    assert state.progress().review == 1 and state.progress().label().endswith("1 to review")
    state.filter = REVIEW
    assert [r.line_id for r in state.rows()] == [row.line_id]
    assert state.mark_reviewed(session.editor, flipped).saved
    assert state.rows() == []
    assert not next(e for e in catalog(session.project, "fr").entries if e.line_id == row.line_id).needs_review


def test_a_teammates_translation_and_a_folder_rename_show_after_the_changes(session) -> None:  # type: ignore[no-untyped-def]
    state = _state(session)
    row = state.rows()[0]
    changes = Changes(session)
    from storyloom.l10n.translations import write_entry

    write_entry(session.editor, "de", row.document_id, "x", row.line_id, "Guten Morgen.", row.source)
    affected = state.affected(changes.take())
    assert affected.doc_ids == {row.document_id}
    state.take(state.reader(session.project, affected.doc_ids)())
    assert [r.translation for r in state.all_rows("de") if r.line_id == row.line_id] == ["Guten Morgen."]
    assert state.rows()[0].translation is None  # fr unchanged
    parent = session.index.get(row.document_id).parent
    if parent:  # the sample's scripts sit in a folder: renaming it changes every path under it
        session.editor.rename(parent, "Renamed act")
        affected = state.affected(changes.take())
        state.take(state.reader(session.project, affected.doc_ids)())
        assert state.rows()[0].document.startswith("Renamed act/")
    session.editor.update_settings({"targetLocales": ["fr"]})
    assert state.affected(changes.take()).everything


def test_another_users_lock_refuses_the_edit_keeps_the_text_and_names_the_holder(session) -> None:  # type: ignore[no-untyped-def]
    state = _state(session)
    row = state.rows()[0]
    state.edit(session.editor, row, "Bonjour.")
    editor = session.editor
    policy = editor.lock_policy
    editor.lock_policy = TeamLocks(lambda: "bea", lambda: True)
    held = editor.get(translation_id("fr", row.document_id))
    editor.update(held | locked_fields("bea", "2026-11-28T10:00:00.000Z"), intent=WriteIntent.LOCK)
    editor.lock_policy = TeamLocks(lambda: "ana", lambda: True)
    try:
        outcome = state.edit(editor, state.rows()[0], "Salut.")
    finally:
        editor.lock_policy = policy
    assert not outcome.saved and outcome.holder == "bea"
    assert "bea holds the lock of the fr translation" in outcome.message and "kept" in outcome.message
    shown = state.rows()[0]
    assert state.shown_text(shown) == "Salut." and shown.translation == "Bonjour."
    assert entries_of(editor.get(translation_id("fr", row.document_id)))[row.line_id].text == "Bonjour."
    # saved later: the draft goes
    assert state.edit(editor, shown, "Salut.").saved and state.draft(state.rows()[0]) == ""


def test_tab_goes_to_the_next_untranslated_row(session) -> None:  # type: ignore[no-untyped-def]
    state = _state(session)
    rows = state.rows()
    state.edit(session.editor, rows[1], "Deux.")
    shown = state.rows()
    assert state.next_untranslated(shown, 0) == 2
    assert state.next_untranslated(shown, len(shown) - 1) == 0


def test_the_import_and_export_summaries_read_as_sentences(session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    exported = export_catalog(session.project, "fr", tmp_path / "sample.fr.po")
    assert export_summary(exported) == (f"Exported {exported.lines} lines for fr to sample.fr.po (0 translated).")
    import polib

    po = polib.pofile(str(tmp_path / "sample.fr.po"))
    po[0].msgstr = "Premier."
    po[1].msgstr = "Deuxième."
    po.append(polib.POEntry(msgctxt="gone_1", msgid="A deleted line", msgstr="Disparue."))
    po.save()
    report = import_file(session.project, tmp_path / "sample.fr.po")
    heading, text = import_summary(report, "sample.fr.po")
    assert heading == "fr translations from sample.fr.po: 2 lines stored"
    assert text.splitlines()[0] == "2 new translations, 0 changed translations, 0 unchanged."
    assert "gone_1 (“A deleted line”)" in text and "no line of the project has its id" in text
    assert text.splitlines()[-1] == "1 translation document written."


def test_a_line_edited_is_read_again_without_walking_the_tree(session) -> None:  # type: ignore[no-untyped-def]
    """A change that leaves the tree as it was keeps the last read's places (the walk of the
    whole tree is most of a partial read's time on a big project); a new document walks it."""
    state = _state(session)
    row = next(r for r in state.rows() if r.doc_type == "Script")
    changes = Changes(session)
    doc = session.editor.get(row.document_id)
    doc["content"] = {**doc["content"], "script": doc["content"]["script"].replace(row.source, "Changed.", 1)}
    session.editor.update(doc)
    partial = state.reader(session.project, state.affected(changes.take()).doc_ids)()
    assert partial.places is state.last.places and partial.shapes is state.last.shapes
    state.take(partial)
    assert next(r for r in state.rows() if r.line_id == row.line_id).source == "Changed."
    made = session.editor.create("Script", "Epilogue", content={"script": "::Narrator:: The end.\n"}).id
    partial = state.reader(session.project, state.affected(changes.take()).doc_ids)()
    assert partial.places is not state.last.places
    state.take(partial)
    assert [r.source for r in state.rows() if r.document_id == made] == ["The end."]
