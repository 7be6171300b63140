"""Search across names and content: what is searched, how a query matches, where each hit is
(line, column, the line's text), the bounds, and keeping the text current from change events."""

from __future__ import annotations

import pytest

from storyloom.app import AppOptions, DocumentChanged, Workspace
from storyloom.app.views.search import (
    PREVIEW_CHARS,
    ProjectSearch,
    SearchError,
    SearchOptions,
    compile_query,
    searchable_fields,
)


@pytest.fixture
def workspace():  # type: ignore[no-untyped-def]
    ws = Workspace(options=AppOptions(username="ana"))
    yield ws
    ws.close()


@pytest.fixture
def session(workspace):  # type: ignore[no-untyped-def]
    workspace.manager.create("Search").close()
    with workspace.open_session("Search") as opened:
        yield opened


def _events(session) -> list[DocumentChanged]:  # type: ignore[no-untyped-def]
    events: list[DocumentChanged] = []
    unsubscribe = session.subscribe(lambda e: events.append(e) if isinstance(e, DocumentChanged) else None)
    return events, unsubscribe  # type: ignore[return-value]


SCRIPT = "::Ana:: Hello there.\n  @if v.player.brave\n::Ana:: The LANTERN is lit.\n@endif\n"


def test_fields_cover_names_scripts_markdown_properties_and_dialogue_nodes() -> None:
    dialogue = {"_id": "d", "type": "Dialogue", "name": "Talk", "content": {"tree": {"nodes": [
        {"id": "n1", "data": {"label": "Greeting", "notes": "say hi", "handles": [
            {"id": "h1", "type": "target", "label": "In"},
            {"id": "h2", "type": "source", "label": "Ask about the lantern", "portScript": "@set v.x = 1"},
            {"id": "h3", "type": "source", "label": "Out"}]}}]}}}
    paths = {f.path: f for f in searchable_fields(dialogue)}
    assert paths["name"].text == "Talk"
    assert paths["content.tree.nodes.0.data.label"].label == "Node “Greeting” · label"
    assert paths["content.tree.nodes.0.data.notes"].text == "say hi"
    assert paths["content.tree.nodes.0.data.handles.1.label"].text == "Ask about the lantern"
    assert paths["content.tree.nodes.0.data.handles.1.portScript"].label == "Node “Greeting” · port script"
    assert not any(".handles.0." in p or ".handles.2." in p for p in paths)  # In/Out ports say nothing
    actor = {"_id": "a", "type": "Actor", "name": "Ana", "comments": "lead",
             "content": {"bio": "# Ana", "properties": "age: 3", "json": '{"age": 3}', "expressions": []}}
    assert [(f.path, f.label) for f in searchable_fields(actor)] == [
        ("name", "Name"), ("content.bio", "Biography"), ("content.properties", "Properties"), ("comments", "Comments")]
    canvas = {"_id": "c", "type": "Canvas", "name": "Board", "content": {"nodes": [
        {"id": "x", "data": {"text": "Who lit the lantern?", "color": "#fff"}}], "edges": []}}
    assert [f.path for f in searchable_fields(canvas)] == ["name", "content.nodes.0.data.text"]


def test_hits_have_line_column_and_the_lines_text(session) -> None:  # type: ignore[no-untyped-def]
    editor = session.editor
    script = editor.create("Script", "Lighthouse night", content={"script": SCRIPT}).id
    gdd = editor.create("Gdd", "Design", content={"gdd": "# The lantern\n\nNo lanterns here.\n"}).id
    editor.create("Item", "Key", content={"item": "weight: 1\n"})
    search = ProjectSearch(session.db)
    assert search.rebuild() >= 3
    results = search.search(SearchOptions("lantern"))
    assert [g.doc_id for g in results.groups] == [gdd, script]  # the collections' order: GDD, Scripts, ...
    hit = results.groups[1].hits[0]
    assert (hit.field, hit.field_label, hit.line, hit.column, hit.length) == ("content.script", "Script", 3, 13, 7)
    assert hit.preview == "::Ana:: The LANTERN is lit." and hit.matched == "LANTERN"
    assert [(h.line, h.column) for h in results.groups[0].hits] == [(1, 7), (3, 4)]
    assert results.total == 3 and results.summary() == "3 results in 2 documents"
    assert not results.truncated


def test_indented_lines_are_shown_without_their_indentation(session) -> None:  # type: ignore[no-untyped-def]
    session.editor.create("Script", "Indented", content={"script": SCRIPT})
    search = ProjectSearch(session.db)
    search.rebuild()
    hit = search.search(SearchOptions("brave")).groups[0].hits[0]
    assert (hit.line, hit.column) == (2, 16)  # the column counts the indentation
    assert hit.preview == "@if v.player.brave" and hit.matched == "brave"


def test_case_whole_word_and_regex(session) -> None:  # type: ignore[no-untyped-def]
    session.editor.create("Gdd", "Words", content={"gdd": "lantern lanterns Lantern\nlan tern\n"})
    search = ProjectSearch(session.db)
    search.rebuild()

    def count(**options: object) -> int:
        return search.search(SearchOptions(**options)).total  # type: ignore[arg-type]

    assert count(query="lantern") == 3
    assert count(query="lantern", case_sensitive=True) == 2
    assert count(query="lantern", whole_word=True) == 2
    assert count(query="lantern", whole_word=True, case_sensitive=True) == 1
    assert count(query=r"lan\s?terns?", regex=True) == 4
    assert count(query="lan.tern") == 0  # plain text: the dot is a dot
    assert count(query="a*", regex=True) > 0  # empty matches are skipped, real ones found
    with pytest.raises(SearchError, match="position 5"):
        compile_query(SearchOptions("lant(ern", regex=True))
    assert compile_query(SearchOptions("")) is None
    assert search.search(SearchOptions("")).groups == []


def test_names_match_and_names_come_first(session) -> None:  # type: ignore[no-untyped-def]
    doc = session.editor.create("Script", "Storm at sea", content={"script": "::Ana:: The storm comes.\n"}).id
    search = ProjectSearch(session.db)
    search.rebuild()
    hits = search.search(SearchOptions("storm")).groups[0].hits
    assert hits[0].doc_id == doc and [h.field for h in hits] == ["name", "content.script"]


def test_results_are_bounded_per_document_and_overall(session) -> None:  # type: ignore[no-untyped-def]
    editor = session.editor
    for number in range(5):
        editor.create("Gdd", f"Page {number}", content={"gdd": "echo " * 300})
    search = ProjectSearch(session.db)
    search.rebuild()
    results = search.search(SearchOptions("echo"), per_document=50)
    assert all(len(g.hits) == 50 and g.more == 250 and g.count == 300 for g in results.groups)
    assert results.total == 1500 and results.kept == 250
    limited = search.search(SearchOptions("echo"), limit=120, per_document=50)
    assert limited.kept == 120 and limited.truncated
    assert "stopped at" in limited.summary()


def test_a_long_line_is_cut_around_the_match(session) -> None:  # type: ignore[no-untyped-def]
    line = "word " * 200 + "needle " + "word " * 200
    session.editor.create("Gdd", "Long", content={"gdd": line})
    search = ProjectSearch(session.db)
    search.rebuild()
    hit = search.search(SearchOptions("needle")).groups[0].hits[0]
    assert hit.column == 1001 and hit.matched == "needle"
    assert len(hit.preview) <= PREVIEW_CHARS + 2 and hit.preview.startswith("…") and hit.preview.endswith("…")


def test_collections_narrow_the_search(session) -> None:  # type: ignore[no-untyped-def]
    editor = session.editor
    editor.create("Script", "Bell", content={"script": "::Ana:: bell\n"})
    editor.create("Gdd", "Bell page", content={"gdd": "bell"})
    search = ProjectSearch(session.db)
    search.rebuild()
    assert [g.collection for g in search.search(SearchOptions("bell"), collections=["Gdd"]).groups] == ["Gdd"]


def test_changes_keep_the_text_current(session) -> None:  # type: ignore[no-untyped-def]
    editor = session.editor
    events, unsubscribe = _events(session)
    doc = editor.create("Script", "Sea", content={"script": "::Ana:: low tide\n"}).id
    search = ProjectSearch(session.db)
    search.rebuild()
    session.wait_for_events()
    events.clear()
    editor.patch(doc, {"content": {"script": "::Ana:: high water\n"}})
    other = editor.create("Gdd", "Tides", content={"gdd": "tide tables"}).id
    session.wait_for_events()
    assert search.apply(list(events)) == {doc, other}
    assert [g.doc_id for g in search.search(SearchOptions("tide")).groups] == [other]
    assert search.search(SearchOptions("high water")).groups[0].doc_id == doc
    events.clear()
    editor.delete(other)
    session.wait_for_events()
    search.apply(list(events))
    assert search.search(SearchOptions("tide")).groups == []
    unsubscribe()


def test_changes_before_the_first_build_are_applied_after_it(session) -> None:  # type: ignore[no-untyped-def]
    search = ProjectSearch(session.db)
    doc = session.editor.create("Script", "Late", content={"script": "::Ana:: late\n"}).id
    assert search.apply([DocumentChanged(doc, "1-x", 1, "Script", False, "local")]) == set()  # type: ignore[arg-type]
    assert not search.built
    search.rebuild()
    assert search.built and search.search(SearchOptions("late")).groups[0].doc_id == doc


def test_local_documents_and_folders_are_not_searched(session) -> None:  # type: ignore[no-untyped-def]
    session.editor.write_local({"_id": "_local/notes", "name": "secret lantern"})
    session.editor.create("Folder", "Secret folder", collection="Script")
    search = ProjectSearch(session.db)
    search.rebuild()
    assert search.search(SearchOptions("secret")).groups == []
