"""Line ids in documents: the editor gate keeps them, copies get new ones (docs/localization.md)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from storyloom.app.views.outline import duplicate
from storyloom.project import script_line_ids
from storyloom.project.dialogue_graph import DialogueGraph, new_node
from storyloom.project.editor import WriteIntent
from storyloom.project.manager import Project
from storyloom.script.line_ids import anchor, fingerprint

TEXT = "::Ann:: Hello.\n<Wait(1)>\n::Bob:: Hi, Ann.\n[#bob_fine]::Bob:: Fine.\n"


def table(project: Project, doc_id: str) -> list[list[str]]:
    return project.editor.get(doc_id)["content"]["lineIds"]


def test_the_gate_gives_a_new_script_its_line_table(project: Project) -> None:
    result = project.editor.create("Script", "Intro", content={"script": TEXT})
    stored = table(project, result.id)
    assert [fp for _, fp in stored] == [fingerprint("::Ann:: Hello."), fingerprint("::Bob:: Hi, Ann.")]
    assert stored == anchor(None, TEXT, result.id)  # deterministic from the document id
    assert script_line_ids(project.editor.get(result.id)) == [stored[0][0], stored[1][0], "bob_fine"]


def test_edits_keep_the_ids_of_lines_that_survive(project: Project) -> None:
    doc_id = project.editor.create("Script", "Intro", content={"script": TEXT}).id
    ann, bob = (line_id for line_id, _ in table(project, doc_id))
    doc = project.editor.get(doc_id)
    doc["content"]["script"] = "::Eve:: Before everything.\n" + TEXT.replace("Hi, Ann.", "Hi there, Ann.")
    project.editor.update(doc)
    ids = script_line_ids(project.editor.get(doc_id))
    assert ids[1:] == [ann, bob, "bob_fine"]
    assert ids[0] not in (ann, bob)


def test_a_write_that_leaves_the_text_alone_leaves_the_table_alone(project: Project) -> None:
    doc_id = project.editor.create("Script", "Intro", content={"script": TEXT}).id
    before = table(project, doc_id)
    project.editor.rename(doc_id, "Opening")
    project.editor.patch(doc_id, {"comments": "a note"})
    assert table(project, doc_id) == before


def test_the_gate_re_anchors_from_the_previous_revision_not_from_what_the_writer_sent(project: Project) -> None:
    doc_id = project.editor.create("Script", "Intro", content={"script": TEXT}).id
    before = table(project, doc_id)
    doc = project.editor.get(doc_id)
    doc["content"]["script"] = TEXT + "::Ann:: More.\n"
    doc["content"]["lineIds"] = [["forged", "0"]]  # a client's stale or damaged copy of the table
    project.editor.update(doc)
    assert table(project, doc_id)[:2] == before


def test_a_drafft_teammates_edit_without_the_table_is_anchored_on_the_next_write(project: Project) -> None:
    doc_id = project.editor.create("Script", "Intro", content={"script": TEXT}).id
    ann, bob = (line_id for line_id, _ in table(project, doc_id))
    drafft = project.editor.get(doc_id)  # replicated from Drafft: the text changed, the table kept as is
    drafft["content"]["script"] = "::Cid:: New from Drafft.\n" + TEXT
    project.store.put(drafft)
    assert script_line_ids(project.store.get(doc_id))[1:3] == [ann, bob]  # a reader anchors it
    doc = project.editor.get(doc_id)
    doc["content"]["script"] += "::Ann:: And from Storyloom.\n"
    project.editor.update(doc)
    assert script_line_ids(project.editor.get(doc_id))[1:3] == [ann, bob]


def test_a_restore_writes_its_stale_table_as_it_is_and_the_next_edit_anchors_it(project: Project) -> None:
    """The gate skips the check of a table against its text only for a revision it anchored
    itself: a restore (written as it was) or a lock write after it does not count as one."""
    doc_id = project.editor.create("Script", "Intro", content={"script": TEXT}).id
    ann, bob = (line_id for line_id, _ in table(project, doc_id))
    project.editor.patch(doc_id, {"comments": "anchored by the gate"})
    restored = project.editor.get(doc_id)
    restored["content"]["script"] = "::Cid:: Restored.\n" + TEXT  # its table as it was: stale
    project.editor.update(restored, intent=WriteIntent.RESTORE)
    doc = project.editor.get(doc_id)
    assert len(doc["content"]["lineIds"]) == 2
    doc["content"]["script"] += "::Ann:: Then edited.\n"
    project.editor.update(doc)
    stored = project.editor.get(doc_id)
    ids = script_line_ids(stored)
    assert ids[1:3] == [ann, bob] and len(set(ids)) == len(ids) == 5
    assert stored["content"]["lineIds"] == anchor(stored["content"]["lineIds"], stored["content"]["script"], doc_id)


def test_a_duplicate_gets_ids_of_its_own(project: Project) -> None:
    doc_id = project.editor.create("Script", "Intro", content={"script": TEXT}).id
    copy_id = duplicate(project.editor, doc_id).id
    original, copied = table(project, doc_id), table(project, copy_id)
    assert [fp for _, fp in copied] == [fp for _, fp in original]
    assert not {i for i, _ in copied} & {i for i, _ in original}


def test_an_imports_ids_are_derived_on_read_and_the_first_edit_stores_the_same(project: Project) -> None:
    docs = [{"_id": "s1", "type": "Script", "collection": "Script", "name": "S", "parent": None,
             "sortKey": "a1", "content": {"script": TEXT}}]
    _, refused = project.editor.write_many(copy.deepcopy(docs), WriteIntent.IMPORT)
    assert not refused
    imported = project.editor.get("s1")
    assert imported["content"] == {"script": TEXT}  # the import keeps what Drafft wrote
    on_read = script_line_ids(imported)
    assert on_read == [anchor(None, TEXT, "s1")[0][0], anchor(None, TEXT, "s1")[1][0], "bob_fine"]
    project.editor.patch("s1", {"content": {"script": TEXT + "::Ann:: Later.\n"}})
    assert script_line_ids(project.editor.get("s1"))[:3] == on_read
    restored = dict(project.store.get("s1"))
    restored["content"] = {"script": TEXT + "::Ann:: Restored.\n"}
    restored["_rev"] = "9-" + "a" * 32
    project.editor.write_many([restored], WriteIntent.RESTORE, new_edits=False)
    assert "lineIds" not in project.store.get("s1")["content"]  # a restore writes what it restores


def test_a_drafft_dialogue_gets_on_its_first_edit_the_option_ids_readers_derived(project: Project) -> None:
    from storyloom.project import dialogue_option_ids

    choice = new_node("choice")
    docs = [{"_id": "d1", "type": "Dialogue", "collection": "Dialogue", "name": "D", "parent": None,
             "sortKey": "a1", "content": {"tree": {"nodes": [choice], "edges": []}}}]
    _, refused = project.editor.write_many(copy.deepcopy(docs), WriteIntent.IMPORT)
    assert not refused
    on_read = dialogue_option_ids(project.editor.get("d1"))
    assert len(on_read) == 2
    project.editor.rename("d1", "Renamed")
    assert dialogue_option_ids(project.editor.get("d1")) == on_read
    assert {(n, h): v for (n, h), v in _options(project, "d1").items()} == {
        tuple(place.split("/")): line_id for place, line_id in on_read.items()}


# ------------------------------------------------------------------------ dialogue options


def _dialogue(project: Project) -> tuple[str, dict[str, Any]]:
    choice = new_node("choice", 0, 0)
    start = new_node("start", -200, 0)
    doc_id = project.editor.create("Dialogue", "Talk", content={"tree": {"nodes": [start, choice], "edges": []}}).id
    return doc_id, choice


def _options(project: Project, doc_id: str) -> dict[tuple[str, str], str]:
    nodes = project.editor.get(doc_id)["content"]["tree"]["nodes"]
    return {(node["id"], handle["id"]): handle.get("lineId")
            for node in nodes if node["data"]["nodeType"] == "choice"
            for handle in node["data"]["handles"] if handle["type"] == "source"}


def test_choice_options_get_line_ids_that_other_edits_leave_alone(project: Project) -> None:
    doc_id, choice = _dialogue(project)
    first = _options(project, doc_id)
    assert len(first) == 2 and all(first.values()) and len(set(first.values())) == 2
    doc = project.editor.get(doc_id)
    graph = DialogueGraph(doc["content"]["tree"])
    graph.apply(graph.add_node("event", 300, 0))
    graph.apply(graph.add_port(choice["id"], "Option 3"))
    for node in graph.nodes:
        if node["id"] == choice["id"]:
            node["position"] = {"x": 50, "y": 80}
            node["data"]["handles"][1]["label"] = "Yes, gladly"  # the option's own text edited
    doc["content"]["tree"] = graph.to_tree()
    project.editor.update(doc)
    now = _options(project, doc_id)
    assert {k: v for k, v in now.items() if k in first} == first
    assert len(now) == 3 and len(set(now.values())) == 3


def test_pasted_and_duplicated_options_get_new_ids(project: Project) -> None:
    doc_id, choice = _dialogue(project)
    first = _options(project, doc_id)
    doc = project.editor.get(doc_id)
    graph = DialogueGraph(doc["content"]["tree"])
    patch, _ = graph.paste(graph.copy([choice["id"]]), (40, 40))
    graph.apply(patch)
    doc["content"]["tree"] = graph.to_tree()
    project.editor.update(doc)
    now = _options(project, doc_id)
    assert len(now) == 4 and len(set(now.values())) == 4
    assert {k: v for k, v in now.items() if k in first} == first
    copy_id = duplicate(project.editor, doc_id).id
    assert not set(_options(project, copy_id).values()) & set(now.values())


def test_an_option_id_copied_by_hand_onto_another_option_is_replaced(project: Project) -> None:
    doc_id, choice = _dialogue(project)
    first = _options(project, doc_id)
    doc = project.editor.get(doc_id)
    node = next(n for n in doc["content"]["tree"]["nodes"] if n["id"] == choice["id"])
    sources = [h for h in node["data"]["handles"] if h["type"] == "source"]
    sources[1]["lineId"] = sources[0]["lineId"]
    project.editor.update(doc)
    assert _options(project, doc_id) == first


# ------------------------------------------------------------------------ three-way merges


def _script_doc(text: str, table: list[list[str]], modified: str) -> dict[str, Any]:
    return {"_id": "doc-m", "_rev": "1-x", "type": "Script", "collection": "Script", "name": "S",
            "modified": modified, "modifiedBy": "w", "content": {"script": text, "lineIds": table}}


def _ids(doc: dict[str, Any]) -> dict[str, list[str]]:
    """``{speech line: [ids of its occurrences]}`` of a Script body."""
    from storyloom.script.line_ids import speech_line_ids, speech_lines

    text = doc["content"]["script"]
    found: dict[str, list[str]] = {}
    for (_, line), line_id in zip(speech_lines(text), speech_line_ids(text, doc["content"].get("lineIds"), "doc-m"),
                                  strict=True):
        found.setdefault(line, []).append(line_id)
    return found


def test_a_merge_keeps_the_ids_of_both_sides_and_never_conflicts_on_the_table() -> None:
    from storyloom.project.merge import merge_documents

    base_text = "".join(f"::Ann:: Line {n}.\n" for n in range(9))
    base_table = anchor(None, base_text, "doc-m")
    ours_text = base_text.replace("Line 1.", "Line 1!") + "::Ann:: Ten (ours).\n"
    theirs_text = base_text.replace("::Ann:: Line 4.\n", "::Ann:: Line 4.\n::Cid:: Between (theirs).\n")
    theirs_text = theirs_text.replace("Line 6.", "Line 6?")
    ours = _script_doc(ours_text, anchor(base_table, ours_text, "doc-m"), "2030-01-02T00:00:00.000Z")
    theirs = _script_doc(theirs_text, anchor(base_table, theirs_text, "doc-m"), "2030-01-01T00:00:00.000Z")
    outcome = merge_documents(_script_doc(base_text, base_table, "2030-01-01T00:00:00.000Z"), ours, theirs)
    assert outcome.clean, outcome.conflicts
    assert outcome.merged is not None
    merged = _ids(outcome.merged)
    for side in (ours, theirs):
        for line, ids in _ids(side).items():
            if line in merged:
                assert ids[0] in merged[line], line
    assert outcome.merged["content"]["lineIds"][1][0] == base_table[1][0]  # "Line 1!" edited on ours
    assert outcome.merged["content"]["lineIds"][7][0] == base_table[6][0]  # "Line 6?" edited on theirs


def _merge(base: list[str], ours: list[list[str]], theirs: list[list[str]]) -> tuple[Any, list[Any], Any]:
    """Merge two replicas' edit histories of a script of lines ``base``: each side a list of
    texts (lists of lines) written one after another through the gate's rule. Returns the base
    document, the two sides' documents and the outcome."""
    from storyloom.project.merge import merge_documents

    def text(lines: list[str]) -> str:
        return "".join(f"{line}\n" for line in lines)

    base_doc = _script_doc(text(base), anchor(None, text(base), "doc-m"), "2030-01-01T00:00:00.000Z")
    sides = []
    for steps, modified in ((ours, "2030-01-03T00:00:00.000Z"), (theirs, "2030-01-02T00:00:00.000Z")):
        table = base_doc["content"]["lineIds"]
        for lines in steps:
            table = anchor(table, text(lines), "doc-m")
        sides.append(_script_doc(text(steps[-1]), table, modified))
    return base_doc, sides, merge_documents(base_doc, sides[0], sides[1])


_L = [f"::Bob:: line {n}." for n in range(9)]


def test_each_merged_line_keeps_the_id_its_side_gave_it() -> None:
    # Theirs pasted a copy of line 0 above it and edited the copy (their editor kept line 0's id
    # on the first of the two equal lines, so on the copy); ours edited the last line.
    _, (ours, theirs), outcome = _merge(_L[:6], [[*_L[:5], "::Bob:: line 5 changed."]],
                                        [[_L[0], *_L[:6]], ["::Bob:: line 0 edited.", *_L[:6]]])
    assert outcome.clean and outcome.merged is not None
    table = outcome.merged["content"]["lineIds"]
    assert table[:6] == theirs["content"]["lineIds"][:6]  # theirs' region: theirs' ids, as theirs has them
    assert table[6] == ours["content"]["lineIds"][5]  # ours' edit
    assert len({line_id for line_id, _ in table}) == 7


def test_an_edited_line_keeps_its_id_against_a_copy_the_other_side_pasted() -> None:
    # Ours deleted line 0 and pasted a copy of line 6 above the tagged lines: ours' editor, which
    # cannot tell a copy from its original, gave line 6's id to the copy. Theirs edited line 6
    # in place. The edit keeps the id; ours' copy takes ours' other id.
    tags = ["[#t_1]::Ann:: One.", "[#t_2]::Ann:: Two."]
    base = [*_L[:6], *tags, *_L[6:]]
    pasted = [*_L[1:6], _L[6], *tags, *_L[6:]]
    edited = [*_L[:6], *tags, "::Bob:: line 6 edited.", *_L[7:]]
    _, (ours, theirs), outcome = _merge(base, [[*_L[1:6], *tags, *_L[6:]], pasted], [edited])
    assert _ids(ours)["::Bob:: line 6."][0] == _ids(theirs)["::Bob:: line 6 edited."][0]  # the case
    assert outcome.clean and outcome.merged is not None
    merged = _ids(outcome.merged)
    assert merged["::Bob:: line 6 edited."] == _ids(theirs)["::Bob:: line 6 edited."]
    assert merged["::Bob:: line 6."] == _ids(ours)["::Bob:: line 6."][1:]
    assert len(outcome.merged["content"]["lineIds"]) == len(set(map(tuple, outcome.merged["content"]["lineIds"])))


def test_a_line_both_sides_moved_to_different_places_is_left_to_a_person() -> None:
    # Ours moved line 0 below line 3; theirs moved it below line 2, then edited it (two writes:
    # the edit keeps the id). The three-way text merge alone would keep both (one shared
    # deletion, two insertions): one line twice, under one id.
    ours = [*_L[1:4], _L[0], *_L[4:]]
    moved = [*_L[1:3], _L[0], *_L[3:]]
    theirs = [*_L[1:3], "::Bob:: line 0 edited.", *_L[3:]]
    _, sides, outcome = _merge(_L, [ours], [moved, theirs])
    assert not outcome.clean and outcome.merged is None
    assert [c.path for c in outcome.conflicts] == ["content.script"]
    conflict = outcome.conflicts[0]
    assert (conflict.ours, conflict.theirs) == (sides[0]["content"]["script"], sides[1]["content"]["script"])
    assert outcome.partial is not None and outcome.partial["content"] == sides[0]["content"]  # the winner's, whole
    # Moved to the same place, it merges.
    assert _merge(_L, [ours], [ours])[2].clean


def test_a_tagged_line_both_sides_moved_to_different_places_is_left_to_a_person() -> None:
    tagged = "[#intro_1]::Ann:: Hello."
    base = [tagged, *_L[:5]]
    ours = [*_L[:3], tagged, *_L[3:5]]
    theirs = [*_L[:1], "[#intro_1]::Ann:: Hello there.", *_L[2:5]]  # moved, edited, line 1 gone
    outcome = _merge(base, [ours], [theirs])[2]
    assert outcome.merged is None
    assert not outcome.clean and [c.path for c in outcome.conflicts] == ["content.script"]


_merge_counter = iter(range(10**9))


def _merge_step(lines: list[str], step: tuple[str, int, int]) -> list[str]:
    kind, a, b = step
    lines = list(lines)
    n = len(lines)
    if kind == "insert" or n == 0:
        lines.insert(a % (n + 1), f"::Ann:: new {next(_merge_counter)}.")
    elif kind == "delete":
        del lines[a % n]
    elif kind == "edit":
        lines[a % n] = lines[a % n].rstrip(".") + f" e{next(_merge_counter)}."
    else:
        line = lines.pop(a % n)
        lines.insert(b % n, line)
    return lines


_steps = st.lists(st.tuples(st.sampled_from(["insert", "delete", "edit", "move"]), st.integers(0, 40),
                            st.integers(0, 40)), max_size=5)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 8), _steps, _steps)
def test_merges_of_two_replicas_keep_the_id_of_every_line_either_side_has(
        start: int, ours_steps: list[tuple[str, int, int]], theirs_steps: list[tuple[str, int, int]]) -> None:
    from storyloom.project.merge import merge_documents

    def text(lines: list[str]) -> str:
        return "".join(f"{line}\n" for line in lines)

    base_lines = [f"::Bob:: base {next(_merge_counter)}." for _ in range(start)]
    base = _script_doc(text(base_lines), anchor(None, text(base_lines), "doc-m"), "2030-01-01T00:00:00.000Z")
    sides = []
    for steps, modified in ((ours_steps, "2030-01-03T00:00:00.000Z"), (theirs_steps, "2030-01-02T00:00:00.000Z")):
        lines, table = base_lines, base["content"]["lineIds"]
        for step in steps:  # each edit written through the gate's rule
            lines = _merge_step(lines, step)
            table = anchor(table, text(lines), "doc-m")
        sides.append(_script_doc(text(lines), table, modified))
    outcome = merge_documents(base, sides[0], sides[1])
    assert not any(c.path.startswith("content.lineIds") for c in outcome.conflicts)
    assert outcome == merge_documents(base, sides[0], sides[1])  # every machine merges alike
    event("clean" if outcome.clean else "conflict")
    if outcome.merged is None or outcome.deleted:
        return
    merged = _ids(outcome.merged)
    all_ids = [i for ids in merged.values() for i in ids]
    assert len(set(all_ids)) == len(all_ids), "ids are distinct"
    # Which merged lines claim each id: a line present in a side claims that side's id. Two lines
    # claim one id when one side edited a line the other side kept (and the merge holds both):
    # then one of them has it (ours first).
    claims: dict[str, set[str]] = {}
    for side in sides:
        for line, ids in _ids(side).items():
            if line in merged:
                claims.setdefault(ids[0], set()).add(line)
    for line_id, lines in claims.items():
        holders = {line for line in lines if line_id in merged[line]}
        assert holders, f"{sorted(lines)!r} lost id {line_id}"
        if len(lines) == 1:
            assert holders == lines


def test_merges_of_documents_without_tables_add_none() -> None:
    from storyloom.project.merge import merge_documents

    base = {"_id": "d", "type": "Script", "content": {"script": "::A:: one\n"}}
    ours = {"_id": "d", "type": "Script", "content": {"script": "::A:: one\n::A:: two\n"}}
    theirs = {"_id": "d", "type": "Script", "content": {"script": "::A:: zero\n::A:: one\n"}}
    merged = merge_documents(base, ours, theirs).merged
    assert merged is not None and "lineIds" not in merged["content"]


def test_an_option_written_without_its_line_id_keeps_the_one_it_had(project: Project) -> None:
    doc_id, _ = _dialogue(project)
    first = _options(project, doc_id)
    doc = project.editor.get(doc_id)
    for node in doc["content"]["tree"]["nodes"]:  # a writer whose model lacks the field
        for handle in node["data"]["handles"]:
            handle.pop("lineId", None)
    project.editor.update(doc)
    assert _options(project, doc_id) == first


def test_a_revision_diff_leaves_the_line_table_out(project: Project) -> None:
    from storyloom.project import diff_documents

    doc_id = project.editor.create("Script", "Intro", content={"script": TEXT}).id
    old = project.editor.get(doc_id)
    project.editor.patch(doc_id, {"content": {"script": TEXT + "::Ann:: More.\n"}})
    new = project.editor.get(doc_id)
    assert old["content"]["lineIds"] != new["content"]["lineIds"]
    assert [d.path for d in diff_documents(old, new)] == ["content.script"]
