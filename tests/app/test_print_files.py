"""``storyloom print`` and the app's print function on the real Drafft sample (read in place):
the files read back with python-docx, html.parser and screenplain. PDF is tested where Qt runs
(tests/gui/test_print_dialog.py, and the command line in a process of its own below)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

import docx
import pytest
from pypdf import PdfReader
from screenplain.parsers import fountain as screenplain

from storyloom.app import Workspace
from storyloom.app import print_files as pf
from storyloom.cli.main import main
from storyloom.drafft import import_backup
from tests.support.fixtures import DRAFFT_PROJECTS

GARDEN = DRAFFT_PROJECTS / "v2" / "the-garden-of-fading-memories.json"
REFLECTION = "Reflection (Ending)"
SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture
def session(storyloom_home: Path):  # type: ignore[no-untyped-def]
    workspace = Workspace()
    project, _report = import_backup(workspace.manager, GARDEN, name="Garden")
    project.close()
    opened = workspace.open_session("Garden")
    yield opened
    opened.close()
    workspace.close()


def _script_text(session, name: str) -> str:  # type: ignore[no-untyped-def]
    (summary,) = [s for s in session.index.summaries() if s.name == name]
    return str(session.db.get(summary.id)["content"]["script"])


def test_a_garden_script_prints_as_fountain_screenplain_reads(session, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "reflection.fountain"
    assert main(["print", "Garden", REFLECTION, "-o", str(target)]) == 0
    assert capsys.readouterr().out.strip() == f"{target} (1 document, fountain)"
    parsed = screenplain.parse(io.StringIO(target.read_text(encoding="utf-8")))
    assert parsed.title_page["Title"] == [REFLECTION]
    script = _script_text(session, REFLECTION)
    dialogs = [p for p in parsed.paragraphs if type(p).__name__ == "Dialog"]
    # One cue per speech line of the script, with the speaker as the game has it.
    speeches = [line.strip() for line in script.splitlines() if line.strip().startswith("::")]
    assert len(dialogs) == len(speeches)
    assert [str(d.character) for d in dialogs] == [s.split("::")[1].strip().upper() for s in speeches]
    assert str(dialogs[0].blocks[-1][1]) == "I knew you would come back. In my heart, I always knew."
    # Every @if, @else and @endif is a centered marker.
    centered = [p for p in parsed.paragraphs if type(p).__name__ == "Action" and p.centered]
    directives = [line.strip() for line in script.splitlines() if line.strip().startswith(("@if", "@else", "@endif"))]
    assert len(centered) == len(directives) == 10


def test_the_whole_gdd_prints_as_docx_with_real_structure(session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "gdd.docx"
    result = pf.print_documents(session, target, collection="GDD")
    assert (result.path, result.format, result.documents) == (target, "docx", 1)
    doc = docx.Document(str(target))
    styles = [(p.style.name, p.text) for p in doc.paragraphs if p.text.strip()]
    assert styles[0] == ("Heading 1", "Master GDD")
    assert ("Heading 2", "The Garden of Fading Memories") in styles
    assert ("Heading 3", "1. Overview") in styles
    assert any(style == "List Bullet" for style, _ in styles)
    header = [cell.text for cell in doc.tables[0].rows[0].cells]
    assert header == ["Character", "Role", "Description"]
    # :doc{#Narrator_Actor} prints as the actor's name, never as the raw reference.
    assert not any(":doc{" in text for _, text in styles)
    assert any(cell.text.startswith("Narrator") for cell in doc.tables[0].columns[0].cells)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _gdd_with_image(session) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """A GDD folder holding a page that shows an attachment of the sample and a missing image."""
    folder = session.editor.create("Folder", "World", collection="Gdd").doc
    page = session.editor.create("Gdd", "The Garden", parent=folder["_id"], content={
        "gdd": "The garden at dusk:\n\n![woman](drafft://image/c862720e-11b5-4ad9-a684-ad069e4e10e9)\n\n"
               "![lost](drafft://image/no-such-image)\n"}).doc
    return folder["_id"], page["_id"]


def test_pages_print_in_tree_order_with_their_images(session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder_id, _page_id = _gdd_with_image(session)
    target = tmp_path / "gdd.html"
    result = pf.print_documents(session, target, collection="GDD")
    assert result.documents == 3
    assert result.missing_images == [
        "drafft://image/no-such-image: Image not shown: no attachment with id “no-such-image”"]
    parsed = _Text()
    html = target.read_text(encoding="utf-8")
    parsed.feed(html)
    images = [attrs["src"] for tag, attrs in parsed.tags if tag == "img"]
    assert len(images) == 1 and str(images[0]).startswith("data:image/jpeg;base64,/9j/")
    # Tree order: the sample's page, then the folder's heading, then the page inside it, deeper.
    assert html.index("<h1>Master GDD</h1>") < html.index("<h1>World</h1>") < html.index("<h2>The Garden</h2>")
    # A folder by its id prints what it holds.
    docx_file = tmp_path / "world.docx"
    assert pf.print_documents(session, docx_file, [folder_id]).documents == 2
    doc = docx.Document(str(docx_file))
    assert [p.text for p in doc.paragraphs if p.style.name.startswith("Heading")] == ["World", "The Garden"]
    assert len(doc.inline_shapes) == 1


def test_refusals_say_what_prints(session, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["print", "Garden", REFLECTION, "-o", str(tmp_path / "x.txt")]) != 0
    assert ".pdf, .docx, .html or .fountain" in capsys.readouterr().err
    assert main(["print", "Garden", "--collection", "GDD", "-o", str(tmp_path / "gdd.fountain")]) != 0
    assert "“Master GDD” is a GDD page, not a script: a .fountain file holds screenplays only" in (
        capsys.readouterr().err)
    actor = next(s for s in session.index.summaries() if s.type == "Actor")
    with pytest.raises(pf.NotPrintable, match="Actor document, which has no printed form"):
        pf.print_documents(session, tmp_path / "d.html", [actor.id])
    dialogue = next(s for s in session.index.summaries() if s.type == "Dialogue")
    assert main(["print", "Garden", dialogue.id, "-o", str(tmp_path / "d.fountain")]) != 0
    assert f"“{dialogue.name}” is a dialogue, not a script" in capsys.readouterr().err
    with pytest.raises(pf.PrintError, match="No document with the id or name “Nope”"):
        pf.print_documents(session, tmp_path / "d.html", ["Nope"])
    with pytest.raises(pf.PrintError, match="GDD, Scripts and Dialogues print"):
        pf.print_documents(session, tmp_path / "d.html", collection="Actors")
    assert main(["print", "Garden", "-o", str(tmp_path / "x.pdf")]) != 0
    assert "name the documents to print" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # nothing refused was written


def test_the_scripts_collection_prints_in_one_file(session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "scripts.docx"
    result = pf.print_documents(session, target, collection="Scripts")
    scripts = [s for s in session.index.summaries() if s.type == "Script"]
    assert result.documents >= len(scripts) == 9
    doc = docx.Document(str(target))
    scenes = [p.text for p in doc.paragraphs if p.style.name == "Scene Heading"]
    assert sorted(scenes) == sorted(str(s.name).upper() for s in scripts)
    assert doc.paragraphs[0].style.name == "Title"


@pytest.mark.integration
def test_the_command_line_prints_a_pdf_without_a_window(session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    session.close()
    target = tmp_path / "reflection.pdf"
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    env["PYTHONPATH"] = str(SRC)
    done = subprocess.run([sys.executable, "-m", "storyloom", "print", "Garden", REFLECTION, "-o", str(target)],
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    text = "\n".join(page.extract_text() for page in PdfReader(str(target)).pages)
    # Compared without spaces: pypdf guesses the spaces of monospaced text from glyph positions
    # ("p ocket"), and reads "fi" as the ligature Qt writes.
    letters = "".join(unicodedata.normalize("NFKC", text).split())
    assert "REFLECTION(ENDING)" in letters and "WOMAN" in letters
    assert 'IFvariables.woman.final_response_type=="open"' in letters
    assert "Iknewyouwouldcomeback.Inmyheart,Ialwaysknew." in letters


def test_a_dialogue_prints_node_by_node_with_its_scripts(session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "meeting.docx"
    # The name is a Scripts folder's too: the dialogue is named by its id.
    with pytest.raises(pf.PrintError, match="More than one document is named “2 - Garden Meeting”"):
        pf.print_documents(session, target, ["2 - Garden Meeting"])
    dialogue = next(s for s in session.index.summaries() if s.type == "Dialogue" and s.name == "2 - Garden Meeting")
    result = pf.print_documents(session, target, [dialogue.id])
    assert (result.format, result.documents) == ("docx", 1)
    doc = docx.Document(str(target))
    styled = [(p.style.name, p.text) for p in doc.paragraphs if p.text.strip()]
    headings = [text for style, text in styled if style.startswith("Heading")]
    # From Start, along the links: the script node, the choice, each option's response, the end.
    assert headings[:4] == ["2 - Garden Meeting", "1 - Start (Start)", "A familiar stranger (Script)",
                            "How do you respond? (Choice)"]
    assert doc.paragraphs[0].style.name == "Heading 1"  # the dialogue's name once, not also as a title
    assert headings[-1] == "4 - End (End)"
    options = [text for style, text in styled if style == "List Bullet"]
    assert any(text.startswith("Tell me directly → ") and '@set variables.player.path = "direct"' in text
               for text in options)
    # The linked script follows its node, as a screenplay.
    scene = styled.index(next(item for item in styled if item[0] == "Scene Heading"))
    assert styled[scene - 1] == ("Heading 2", "A familiar stranger (Script)")
    assert any(style == "Character" for style, _ in styled)


def test_the_dialog_offers_what_prints(session) -> None:  # type: ignore[no-untyped-def]
    script = next(s for s in session.index.summaries() if s.name == REFLECTION)
    targets = pf.print_targets(session, script.id)
    assert [(t.key, t.formats[-1]) for t in targets] == [("document", "fountain"), ("gdd", "html"),
                                                         ("scripts", "fountain")]
    assert targets[0].label == "This script, as a screenplay: Reflection (Ending)"
    assert targets[1].label == "The whole GDD, in tree order (1 page)"
    assert pf.output_for("/out", targets[0], "pdf") == Path("/out/reflection-ending.pdf")
    folder = next(s for s in session.index.summaries() if s.type == "Folder" and s.collection == "Script")
    assert pf.print_targets(session, folder.id)[0].label.startswith("This folder, with what it holds: ")
    dialogue = next(s for s in session.index.summaries() if s.type == "Dialogue")
    (first, *_rest) = pf.print_targets(session, dialogue.id)
    assert first.label == f"This dialogue, node by node: {dialogue.name}" and "fountain" not in first.formats
    actor = next(s for s in session.index.summaries() if s.type == "Actor")
    assert [t.key for t in pf.print_targets(session, actor.id)] == ["gdd", "scripts"]


def test_all_scripts_print_as_one_fountain_with_folders_as_sections(session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "scripts.fountain"
    pf.print_documents(session, target, collection="Scripts")
    text = target.read_text(encoding="utf-8")
    parsed = screenplain.parse(io.StringIO(text))
    slugs = [str(p.line) for p in parsed.paragraphs if type(p).__name__ == "Slug"]
    scripts = [s for s in session.index.summaries() if s.type == "Script"]
    assert sorted(slugs) == sorted(str(s.name).upper() for s in scripts)
    # Folders are Fountain sections (# at their depth): structure a Fountain app shows in its outline.
    assert "\n# Dialogues\n" in text and "\n## 3 - Memory Exploration\n" in text
    assert text.index("## 3 - Memory Exploration") < text.index(".REFLECTION (ENDING)")


def test_a_folder_cycle_prints_each_document_once(session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Two concurrent moves, replicated, can leave folders inside each other.
    first = session.editor.create("Folder", "First", collection="Script").doc
    second = session.editor.create("Folder", "Second", collection="Script", parent=first["_id"]).doc
    session.editor.create("Script", "Inside", parent=second["_id"], content={"script": "::A:: Hi.\n"})
    looped = session.db.get(first["_id"])
    looped["parent"] = second["_id"]
    session.editor.db.put(looped)  # straight into the store: the gate would refuse it
    target = tmp_path / "loop.fountain"
    assert pf.print_documents(session, target, [first["_id"]]).documents == 3
    text = target.read_text(encoding="utf-8")
    assert text.count("# First") == 1 and text.count(".INSIDE") == 1
