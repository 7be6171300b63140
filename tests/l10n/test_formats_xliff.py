"""XLIFF 2.0 files: well-formed, of the core's structure, read by translate-toolkit, read back by
Storyloom with the same ids, texts and review flags, whatever characters the ids and texts hold."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from lxml import etree

from storyloom.l10n.catalog import Catalog, CatalogEntry, ReadEntry
from storyloom.l10n.formats import (
    TranslationFileError,
    catalog_bytes,
    read_translation_bytes,
    read_translation_file,
    write_catalog,
)
from storyloom.l10n.formats.xliff import NS, decode_id, encode_id
from tests.l10n.formats_samples import CATALOG, expected_entries

X = f"{{{NS}}}"
# XML's NMTOKEN, as far as these files use it (the name characters of ASCII, and any above it).
NMTOKEN = re.compile(r"^[-A-Za-z0-9_.:\u00b7\u00c0-\U000effff]+$")
STATES = {"initial", "translated", "reviewed", "final"}


def _unit(line_id: str, state: str | None, target: str | None, *, segments: str = "") -> bytes:
    state_attribute = f' state="{state}"' if state else ""
    target_element = f"<target>{target}</target>" if target is not None else ""
    body = segments or f"<segment{state_attribute}><source>Hello</source>{target_element}</segment>"
    return (f'<?xml version="1.0"?>\n<xliff xmlns="{NS}" version="2.0" srcLang="en" trgLang="fr">\n'
            f'<file id="f1">\n<unit id="{line_id}">{body}</unit>\n</file>\n</xliff>\n').encode()


@pytest.mark.parametrize("suffix", [".xlf", ".xliff"])
def test_a_catalog_written_as_xliff_reads_back_the_same(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"saga{suffix}"
    write_catalog(CATALOG, path)
    read = read_translation_file(path)
    assert read.entries == expected_entries()
    assert (read.source_locale, read.target_locale) == ("en", "pt-BR")
    assert path.read_bytes() == catalog_bytes(CATALOG, suffix)


def test_the_xliff_has_the_core_s_structure() -> None:
    """The XLIFF 2.0 core schema is not available offline: its constraints that these files touch
    are checked one by one."""
    root = etree.fromstring(catalog_bytes(CATALOG, ".xlf"))
    assert root.tag == f"{X}xliff"
    assert (root.get("version"), root.get("srcLang"), root.get("trgLang")) == ("2.0", "en", "pt-BR")
    assert set(root.nsmap.values()) == {NS}
    files = list(root)
    assert [file.tag for file in files] == [f"{X}file"] * 2
    assert [(file.get("id"), file.get("original")) for file in files] == [
        ("d-2d-intro", "Act 1/Intro"), ("d-2d-dlg", "Market")]
    for file in files:
        assert NMTOKEN.match(file.get("id"))
        unit_ids = [unit.get("id") for unit in file]
        assert len(set(unit_ids)) == len(unit_ids)
        for unit in file:
            assert unit.tag == f"{X}unit" and NMTOKEN.match(unit.get("id"))
            assert [child.tag for child in unit] == [f"{X}notes", f"{X}segment"]
            assert all(note.tag == f"{X}note" and note.get("category") for note in unit[0])
            segment = unit[1]
            assert segment.get("state") in STATES
            assert segment.get("subState") in (None, "storyloom:needs-review")
            assert [child.tag for child in segment] in ([f"{X}source"], [f"{X}source", f"{X}target"])
    assert [unit.get("id") for file in files for unit in file] == [entry.line_id for entry in CATALOG.entries]
    review = root.find(f".//{X}unit[@id='u6auozkvlbrj']")
    assert review is not None
    assert {note.get("category"): note.text for note in review.find(f"{X}notes")} == {
        "speaker": "Mara", "location": "Act 1/Intro:7", "kind": "a speech line", "previous-source": "99% sure"}


def test_translate_toolkit_reads_the_same_units(tmp_path: Path) -> None:
    from translate.storage.xliff2 import Xliff2File

    store = Xliff2File.parsestring(catalog_bytes(CATALOG, ".xlf"))
    assert [unit.getid() for unit in store.units] == [entry.line_id for entry in CATALOG.entries]
    assert [unit.source for unit in store.units] == [entry.source for entry in CATALOG.entries]
    assert [unit.target or None for unit in store.units] == [entry.target or None for entry in CATALOG.entries]
    # A translation to review is what the toolkit (and Weblate, Pootle) call fuzzy.
    assert [unit.isfuzzy() for unit in store.units] == [entry.needs_review for entry in CATALOG.entries]
    assert (store.sourcelanguage, store.targetlanguage) == ("en", "pt-BR")


def test_a_translator_s_edit_in_translate_toolkit_is_read_back(tmp_path: Path) -> None:
    from translate.storage.xliff2 import Xliff2File

    path = tmp_path / "saga.xlf"
    write_catalog(CATALOG, path)
    store = Xliff2File.parsefile(str(path))
    units = {unit.getid(): unit for unit in store.units}
    units["dvqym45tkynh"].target = "Olá, 100% \"amigo\" & <companheiro>,\nsim"
    units["dvqym45tkynh"].marktranslated()
    units["u6auozkvlbrj"].markfuzzy(False)
    units["flax_PDba"].markapproved()
    store.savefile(str(path))
    read = {entry.line_id: entry for entry in read_translation_file(path).entries}
    assert read["dvqym45tkynh"] == ReadEntry("dvqym45tkynh", 'Hello, "friend"!',
                                             "Olá, 100% \"amigo\" & <companheiro>,\nsim", needs_review=False)
    assert not read["u6auozkvlbrj"].needs_review
    assert read["flax_PDba"].target == 'Olá, "amigo"!' and not read["flax_PDba"].needs_review
    assert read["q3xk2m7a4bnd"].needs_review


def test_ids_of_any_characters_are_nmtokens_that_read_back() -> None:
    ids = ["tag_é", "a-b", "with space", "x:y::z", "-2d-", "日本", "plain_ID.1"]
    for line_id in ids:
        assert decode_id(encode_id(line_id)) == line_id
        assert re.fullmatch(r"[-A-Za-z0-9_.]+", encode_id(line_id))
    catalog = Catalog("Saga", "en", "fr", tuple(CatalogEntry(line_id, f"Line {line_id}", document_id=f"doc {index}")
                                                 for index, line_id in enumerate(ids)))
    data = catalog_bytes(catalog, ".xlf")
    assert [entry.line_id for entry in read_translation_bytes(data, ".xlf").entries] == ids
    root = etree.fromstring(data)
    unit = root.find(f".//{X}unit[@name='with space']")
    assert unit is not None and unit.get("id") == "with-20-space"
    # Ids made only of kept characters are written as they are, without a name.
    assert root.find(f".//{X}unit[@id='plain_ID.1']").get("name") is None


def test_control_characters_and_carriage_returns_read_back() -> None:
    entry = CatalogEntry("bell", "Ring\x07 it,\r\nthen\x1b stop\r", "Toque\x07\r\n", document_id="d")
    catalog = Catalog("Saga", "en", "fr", (entry,))
    data = catalog_bytes(catalog, ".xlf")
    assert b'<cp hex="0007" />' in data and b"&#13;" in data
    etree.fromstring(data)  # well-formed
    assert read_translation_bytes(data, ".xlf").entries == (ReadEntry("bell", entry.source, entry.target),)


@pytest.mark.parametrize(("state", "target", "needs_review"), [
    ("initial", "Bonjour", True),  # a target not yet past the initial state: to review
    (None, "Bonjour", True),  # the schema's default state is initial
    ("translated", "Bonjour", False),
    ("reviewed", "Bonjour", False),
    ("final", "Bonjour", False),
    ("initial", None, False),
])
def test_the_segment_state_says_whether_a_translation_is_to_review(state: str | None, target: str | None,
                                                                   needs_review: bool) -> None:
    read = read_translation_bytes(_unit("hello", state, target), ".xlf")
    assert read.entries == (ReadEntry("hello", "Hello", target, needs_review),)
    assert (read.source_locale, read.target_locale) == ("en", "fr")


def test_a_unit_a_tool_split_into_segments_reads_as_one_line() -> None:
    segments = ('<segment state="translated"><source>One.</source><target>Un.</target></segment>'
                "<ignorable><source> </source></ignorable>"
                '<segment state="final"><source>Two <pc id="1">bold</pc>.</source>'
                '<target>Deux <pc id="1">gras</pc>.</target></segment>')
    read = read_translation_bytes(_unit("two", None, None, segments=segments), ".xlf")
    assert read.entries == (ReadEntry("two", "One. Two bold.", "Un. Deux gras.", needs_review=False),)


def test_malformed_xml_is_refused_with_its_line() -> None:
    data = _unit("hello", "translated", "Bonjour").replace(b"</target>", b"</targe>")
    with pytest.raises(TranslationFileError, match="not well-formed XML") as caught:
        read_translation_bytes(data, ".xlf", name="saga.xlf")
    assert caught.value.line == 4
    assert "saga.xlf, line 4" in str(caught.value)


def test_a_unit_without_an_id_or_a_segment_is_refused_with_its_line() -> None:
    data = _unit("hello", "translated", "Bonjour").replace(b' id="hello"', b"")
    with pytest.raises(TranslationFileError, match="a <unit> without an id") as caught:
        read_translation_bytes(data, ".xlf")
    assert caught.value.line == 4
    data = _unit("hello", None, None, segments="<notes><note>only</note></notes>")
    with pytest.raises(TranslationFileError, match="has no <segment>") as caught:
        read_translation_bytes(data, ".xlf")
    assert caught.value.line == 4


def test_a_line_id_twice_is_refused() -> None:
    twice = _unit("hello", "translated", "Bonjour").replace(b"</file>", b'<unit id="hello"><segment>'
                                                            b"<source>Hi</source></segment></unit></file>")
    with pytest.raises(TranslationFileError, match="'hello' is given twice") as caught:
        read_translation_bytes(twice, ".xlf")
    assert caught.value.line == 5
    assert "first at line 4" in str(caught.value)


def test_other_documents_are_refused_naming_what_they_are() -> None:
    v12 = (b'<?xml version="1.0"?>\n<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2">'
           b'<file original="a" source-language="en" datatype="plaintext"><body/></file></xliff>')
    with pytest.raises(TranslationFileError, match=r"this is XLIFF 1\.2; Storyloom reads XLIFF 2\.0"):
        read_translation_bytes(v12, ".xlf")
    with pytest.raises(TranslationFileError, match="the root element is <html>") as caught:
        read_translation_bytes(b"<?xml version='1.0'?>\n<html><body/></html>", ".xliff")
    assert caught.value.line == 2


def test_entities_are_not_expanded() -> None:
    bomb = (b'<?xml version="1.0"?>\n<!DOCTYPE xliff [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>\n'
            + _unit("hello", "translated", "&b;").split(b"\n", 1)[1])
    with pytest.raises(TranslationFileError, match="declares a DOCTYPE"):
        read_translation_bytes(bomb, ".xlf")


def test_lines_without_a_document_go_to_a_file_of_their_own() -> None:
    catalog = replace(CATALOG, entries=(CatalogEntry("loose", "Loose line"), *CATALOG.entries[:1]))
    root = etree.fromstring(catalog_bytes(catalog, ".xlf"))
    assert [(file.get("id"), file.get("original")) for file in root] == [("-", None), ("d-2d-intro", "Act 1/Intro")]
