"""Translations stored as documents: their shape at the gate, where they do not show, and the
review flag a source edit raises (docs/localization.md)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from storyloom.app.views.outline import build_outline
from storyloom.app.views.search import ProjectSearch, SearchOptions
from storyloom.export.stream import write_game_export
from storyloom.l10n.gather import catalog
from storyloom.l10n.importing import import_translations
from storyloom.l10n.translations import entries_of, translation_id
from storyloom.project import COLLECTIONS, TRANSLATION_TYPE, check_document
from storyloom.project.manager import Project, ProjectManager
from storyloom.project.validation import ValidationError
from tests.l10n.conftest import read_file, script, set_text

TEXT = "::Ann:: Good morning.\n::Bob:: Is it?\n::Ann:: It was.\n"


def _translate(project: Project, doc_id: str, *pairs: tuple[int, str]) -> list[str]:
    """Import French translations of lines (by index) of ``doc_id``; the line ids."""
    lines = [e for e in catalog(project, "fr").entries if e.document_id == doc_id]
    report = import_translations(project, read_file("fr", *((lines[i].line_id, lines[i].source, text)
                                                           for i, text in pairs)), locale="fr")
    assert not report.refused
    return [e.line_id for e in lines]


def test_a_translation_is_a_document_the_gate_checks(project: Project) -> None:
    doc_id = script(project, "Intro", TEXT)
    _translate(project, doc_id, (0, "Bonjour."))
    stored = project.editor.get(translation_id("fr", doc_id))
    assert (stored["type"], stored["collection"], stored["locale"], stored["document"]) == (
        TRANSLATION_TYPE, TRANSLATION_TYPE, "fr", doc_id)
    assert stored["modifiedBy"] == "ana" and check_document(stored) == []
    [entry] = stored["content"]["entries"].values()
    assert entry["text"] == "Bonjour." and entry["source"] == "Good morning." and entry["by"] == "ana"
    bad = dict(stored, locale="fr_FR")
    with pytest.raises(ValidationError, match="locale"):
        project.editor.update(bad)
    broken = dict(stored, content={"entries": {"x": {"source": "Hi"}}})
    with pytest.raises(ValidationError, match=r"content\.entries\.x\.text"):
        project.editor.update(broken)
    orphan = dict(stored, _id="l10n.fr.gone", document="gone")
    orphan.pop("_rev")
    warnings = project.editor.create_document(orphan).warnings
    assert [w.code for w in warnings] == ["dangling-reference"]


def _export(project: Project) -> dict:
    out = io.BytesIO()
    write_game_export(out, project, [c.export_name for c in COLLECTIONS])
    exported = json.loads(out.getvalue())
    exported["_meta"].pop("exportedAt")
    return exported


def test_translations_are_in_no_tree_and_leave_the_game_export_unchanged(project: Project) -> None:
    doc_id = script(project, "Intro", TEXT)
    before = _export(project)
    _translate(project, doc_id, (0, "Bonjour."), (1, "Ah bon ?"))
    assert _export(project) == before
    summary = project.editor.index.get(translation_id("fr", doc_id))
    assert summary is not None and not summary.is_tree
    shown = set()
    stack = [node for c in COLLECTIONS for node in build_outline(project.editor.index.summaries(), c.app_name)]
    while stack:
        node = stack.pop()
        shown.add(node.id)
        stack.extend(node.children)
    assert doc_id in shown and translation_id("fr", doc_id) not in shown
    search = ProjectSearch(project.db)
    search.rebuild()
    assert search.search(SearchOptions("Bonjour")).groups == []  # a translation is no document to open
    assert [g.doc_id for g in search.search(SearchOptions("Good morning")).groups] == [doc_id]


def test_a_translated_line_whose_source_changes_is_kept_and_needs_review(project: Project) -> None:
    doc_id = script(project, "Intro", TEXT)
    ids = _translate(project, doc_id, (0, "Bonjour."), (2, "C'était."))

    set_text(project, doc_id, "::Ann:: Good morning!\n::Bob:: Is it?\n::Ann:: It was.\n")
    entries = {e.line_id: e for e in catalog(project, "fr").entries}
    edited = entries[ids[0]]
    assert (edited.target, edited.needs_review, edited.previous_source) == ("Bonjour.", True, "Good morning.")
    assert edited.source == "Good morning!"
    assert (entries[ids[2]].target, entries[ids[2]].needs_review) == ("C'était.", False)

    # lines inserted above and an unrelated line edited: ids are stable, the translation current
    set_text(project, doc_id, "::Cy:: New first line.\n::Ann:: Good morning!\n::Bob:: Is it really?\n"
                              "::Ann:: It was.\n")
    entries = {e.line_id: e for e in catalog(project, "fr").entries}
    assert (entries[ids[2]].target, entries[ids[2]].needs_review, entries[ids[2]].location) == ("C'était.", False, "4")
    assert entries[ids[1]].target is None and entries[ids[1]].source == "Is it really?"

    # translating it again against the new source clears the flag
    _translate(project, doc_id, (1, "Bonjour !"))
    assert not {e.line_id: e for e in catalog(project, "fr").entries}[ids[0]].needs_review
    assert set(entries_of(project.editor.get(translation_id("fr", doc_id)))) == {ids[0], ids[2]}


def test_translations_of_each_locale_are_apart(project: Project) -> None:
    doc_id = script(project, "Intro", TEXT)
    ids = _translate(project, doc_id, (0, "Bonjour."))
    assert {e.line_id: e.target for e in catalog(project, "pt-BR").entries}[ids[0]] is None
    assert {e.line_id: e.target for e in catalog(project, "fr").entries}[ids[0]] == "Bonjour."


def test_two_translators_lines_of_one_document_merge_without_conflict(project: Project) -> None:
    """Two replicas import different lines of the same document and locale: the same document
    (the id is derived), merged field by field when sync meets both revisions."""
    from storyloom.project.merge import merge_documents

    doc_id = script(project, "Intro", TEXT)
    ids = _translate(project, doc_id, (0, "Bonjour."))
    base = project.editor.get(translation_id("fr", doc_id))
    ours = json.loads(json.dumps(base))
    theirs = json.loads(json.dumps(base))
    ours["content"]["entries"][ids[1]] = {"text": "Ah bon ?", "source": "Is it?", "review": False, "by": "ana",
                                          "at": "2026-11-28T10:00:00.000Z"}
    theirs["content"]["entries"][ids[2]] = {"text": "C'était.", "source": "It was.", "review": False, "by": "bea",
                                            "at": "2026-11-28T10:01:00.000Z"}
    merged = merge_documents(base, ours, theirs)
    assert merged.conflicts == [] and merged.merged is not None
    assert {k: v["text"] for k, v in merged.merged["content"]["entries"].items()} == {
        ids[0]: "Bonjour.", ids[1]: "Ah bon ?", ids[2]: "C'était."}


def test_a_backup_restored_keeps_its_translations(project: Project, manager: ProjectManager, tmp_path: Path) -> None:
    doc_id = script(project, "Intro", TEXT)
    ids = _translate(project, doc_id, (0, "Bonjour."))
    file = manager.backup(project, tmp_path / "saga.json")
    copy = manager.restore(file, "Saga copy", new_id=True)
    try:
        entries = {e.line_id: e for e in catalog(copy, "fr").entries}
        assert (entries[ids[0]].target, entries[ids[0]].needs_review) == ("Bonjour.", False)
    finally:
        copy.close()


def test_one_line_written_in_place_passes_the_gate_and_another_users_lock_refuses_it(project: Project) -> None:
    """write_entry (the Localization view's edit in place): creates the document, then sets one
    entry of it, keeps the others, clears a review flag, and is refused by a teammate's lock."""
    from storyloom.l10n.translations import write_entry
    from storyloom.project import LockRefused, TeamLocks, WriteIntent, locked_fields

    doc_id = script(project, "Intro", TEXT)
    lines = [e for e in catalog(project, "fr").entries if e.document_id == doc_id]
    written = write_entry(project.editor, "fr", doc_id, "Intro", lines[0].line_id, "Bonjour.", lines[0].source)
    assert written["_id"] == translation_id("fr", doc_id) and written["name"] == "fr: Intro"
    write_entry(project.editor, "fr", doc_id, "Intro", lines[1].line_id, "Ah bon ?", lines[1].source)
    stored = entries_of(project.editor.get(translation_id("fr", doc_id)))
    assert {k: (v.text, v.source, v.by) for k, v in stored.items()} == {
        lines[0].line_id: ("Bonjour.", "Good morning.", "ana"), lines[1].line_id: ("Ah bon ?", "Is it?", "ana")}
    assert project.editor.get(translation_id("fr", doc_id)).get("locked") is not True  # no lock taken

    set_text(project, doc_id, "::Ann:: Good morning!\n::Bob:: Is it?\n::Ann:: It was.\n")
    assert {e.line_id: e for e in catalog(project, "fr").entries}[lines[0].line_id].needs_review
    write_entry(project.editor, "fr", doc_id, "Intro", lines[0].line_id, "Bonjour !", "Good morning!")
    assert not {e.line_id: e for e in catalog(project, "fr").entries}[lines[0].line_id].needs_review

    editor = project.editor
    editor.lock_policy = TeamLocks(lambda: "bea", lambda: True)
    held = editor.get(translation_id("fr", doc_id))
    editor.update(held | locked_fields("bea", "2026-11-28T10:00:00.000Z"), intent=WriteIntent.LOCK)
    editor.lock_policy = TeamLocks(lambda: "ana", lambda: True)
    with pytest.raises(LockRefused) as refused:
        write_entry(editor, "fr", doc_id, "Intro", lines[2].line_id, "C'était.", lines[2].source)
    assert refused.value.holder == "bea"
    assert lines[2].line_id not in entries_of(editor.get(translation_id("fr", doc_id)))
