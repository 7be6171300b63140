"""gettext PO files: written from a catalog, checked by GNU msgfmt, read by translate-toolkit and
read back by Storyloom with the same ids, texts and review flags."""

from __future__ import annotations

import gettext
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from storyloom.l10n.catalog import Catalog, CatalogEntry, ReadEntry
from storyloom.l10n.formats import (
    TranslationFileError,
    catalog_bytes,
    read_translation_bytes,
    read_translation_file,
    write_catalog,
)
from tests.l10n.formats_samples import CATALOG, expected_entries

MSGFMT = shutil.which("msgfmt")
needs_msgfmt = pytest.mark.skipif(MSGFMT is None, reason="GNU gettext's msgfmt is not installed "
                                  "(scripts/_venv.sh installs the gettext package for the tests)")


def test_a_catalog_written_as_po_reads_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / "saga.pt-BR.po"
    write_catalog(CATALOG, path)
    read = read_translation_file(path)
    assert read.entries == expected_entries()
    assert (read.source_locale, read.target_locale) == ("en", "pt-BR")
    assert path.read_bytes() == catalog_bytes(CATALOG, ".po")


def test_po_entries_carry_the_id_as_context_the_notes_and_the_review_flag() -> None:
    text = catalog_bytes(CATALOG, "po").decode("utf-8")
    assert text.startswith("# Saga: its lines in en, to translate into pt-BR. The msgctxt of each entry is the "
                           "line's id: keep it.\n")
    assert '"Language: pt_BR\\n"' in text
    assert '"X-Source-Language: en\\n"' in text
    assert '"Project-Id-Version: Saga\\n"' in text
    assert '"Content-Type: text/plain; charset=UTF-8\\n"' in text
    first = text.split("\n\n")[1]
    assert first.splitlines() == [
        "#. Speaker: Mara",
        "#. Said with a grin.",
        "#: \u2068Act 1/Intro:3\u2069",
        'msgctxt "flax_PDba"',
        'msgid "Hello, \\"friend\\"!"',
        'msgstr "Olá, \\"amigo\\"!"',
    ]
    review = text.split("\n\n")[3]
    assert "#, fuzzy" in review.splitlines()
    assert '#| msgid "99% sure"' in review.splitlines()
    option = text.split("\n\n")[5]
    assert "#. A choice option the player picks" in option.splitlines()
    assert "#: Market:n3/h1" in option.splitlines()
    # A % sign is text: no entry claims a C format, so msgfmt checks none.
    assert "c-format" not in text


@needs_msgfmt
def test_msgfmt_accepts_the_written_po_and_compiles_what_the_game_looks_up(tmp_path: Path) -> None:
    path = tmp_path / "saga.po"
    write_catalog(CATALOG, path)
    mo = tmp_path / "saga.mo"
    done = subprocess.run([MSGFMT or "msgfmt", "--check-format", "-o", str(mo), str(path)], capture_output=True,
                          text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    with mo.open("rb") as handle:
        translations = gettext.GNUTranslations(handle)
    assert translations.pgettext("flax_PDba", 'Hello, "friend"!') == 'Olá, "amigo"!'
    assert translations.pgettext("j5ubqdb2k7xa", "Two lines,\nthen a second one") == "Duas linhas,\ndepois outra"
    # A fuzzy translation is not used by the game (msgfmt leaves it out); an untranslated line shows its source.
    assert translations.pgettext("u6auozkvlbrj", "100% sure: %s of %d, 50%% off") == "100% sure: %s of %d, 50%% off"
    assert translations.pgettext("dvqym45tkynh", 'Hello, "friend"!') == 'Hello, "friend"!'


def test_translate_toolkit_reads_the_same_units(tmp_path: Path) -> None:
    from translate.storage import factory

    path = tmp_path / "saga.po"
    write_catalog(CATALOG, path)
    store = factory.getobject(str(path))
    units = [unit for unit in store.units if not unit.isheader()]
    assert [unit.getcontext() for unit in units] == [entry.line_id for entry in CATALOG.entries]
    assert [unit.source for unit in units] == [entry.source for entry in CATALOG.entries]
    assert [unit.target or None for unit in units] == [entry.target or None for entry in CATALOG.entries]
    assert [unit.isfuzzy() for unit in units] == [entry.needs_review for entry in CATALOG.entries]
    assert "Speaker: Mara" in units[0].getnotes("developer")
    assert store.gettargetlanguage() == "pt_BR"


def test_a_translator_s_edit_is_read_back(tmp_path: Path) -> None:
    from translate.storage import factory

    path = tmp_path / "saga.po"
    write_catalog(CATALOG, path)
    store = factory.getobject(str(path))
    untranslated = next(unit for unit in store.units if unit.getcontext() == "dvqym45tkynh")
    untranslated.target = "Olá, 100% \"amigo\",\ncom vírgula"
    reviewed = next(unit for unit in store.units if unit.getcontext() == "u6auozkvlbrj")
    reviewed.markfuzzy(False)
    store.save()
    read = {entry.line_id: entry for entry in read_translation_file(path).entries}
    assert read["dvqym45tkynh"].target == "Olá, 100% \"amigo\",\ncom vírgula"
    assert not read["u6auozkvlbrj"].needs_review
    assert read["q3xk2m7a4bnd"].needs_review


def test_obsolete_entries_are_not_read() -> None:
    data = catalog_bytes(CATALOG, ".po") + b'\n#~ msgctxt "gone_1"\n#~ msgid "Old line"\n#~ msgstr "Velha"\n'
    read = read_translation_bytes(data, ".po")
    assert [entry.line_id for entry in read.entries] == [entry.line_id for entry in CATALOG.entries]


def test_an_entry_without_a_line_id_is_refused_with_its_line() -> None:
    data = catalog_bytes(CATALOG, ".po") + b'\nmsgid "No context"\nmsgstr "Sem contexto"\n'
    line = data.decode("utf-8").splitlines().index('msgid "No context"') + 1
    with pytest.raises(TranslationFileError) as caught:
        read_translation_bytes(data, ".po", name="saga.po")
    assert caught.value.line == line
    assert f"saga.po, line {line}" in str(caught.value)
    assert "no msgctxt" in str(caught.value) and "'No context'" in str(caught.value)


def test_a_malformed_po_is_refused_with_its_line() -> None:
    data = b'msgctxt "a"\nmsgid "Hello"\nmsgstr "Ol\xc3\xa1\nmsgctxt "b"\n'
    with pytest.raises(TranslationFileError) as caught:
        read_translation_bytes(data, "po", name="broken.po")
    assert caught.value.line == 3
    assert "expected a keyword (msgctxt, msgid, msgstr) and a string in double quotes" in str(caught.value)


def test_a_po_that_is_not_its_charset_is_refused_with_its_line() -> None:
    data = catalog_bytes(CATALOG, ".po").replace("Olá".encode(), b"Ol\xe1")
    with pytest.raises(TranslationFileError, match="not UTF-8 text") as caught:
        read_translation_bytes(data, "po")
    assert caught.value.line == data[:data.index(b"Ol\xe1")].count(b"\n") + 1


def test_a_line_id_given_twice_is_refused() -> None:
    data = catalog_bytes(CATALOG, ".po") + b'\nmsgctxt "flax_PDba"\nmsgid "Other"\nmsgstr ""\n'
    with pytest.raises(TranslationFileError, match="'flax_PDba' is given twice"):
        read_translation_bytes(data, "po")


def test_a_catalog_with_a_line_twice_or_without_an_id_is_not_written(tmp_path: Path) -> None:
    twice = Catalog("Saga", "en", "fr", (CatalogEntry("tag_1", "A", document="One", location="1"),
                                         CatalogEntry("tag_1", "B", document="Two", location="4")))
    with pytest.raises(TranslationFileError, match=r"'tag_1' is used twice \(One:1 and Two:4\)"):
        write_catalog(twice, tmp_path / "twice.po")
    nameless = Catalog("Saga", "en", "fr", (CatalogEntry("", "A", document="One", location="1"),))
    with pytest.raises(TranslationFileError, match="no line id"):
        write_catalog(nameless, tmp_path / "nameless.po")
    assert list(tmp_path.iterdir()) == []


def test_a_string_without_quotes_is_refused_not_misread() -> None:
    data = b'msgctxt "a"\nmsgid "Hello"\nmsgstr Ola\n'
    with pytest.raises(TranslationFileError, match="got 'msgstr Ola'") as caught:
        read_translation_bytes(data, "po")
    assert caught.value.line == 3


def test_a_quote_inside_a_string_must_be_escaped() -> None:
    data = b'msgctxt "a"\nmsgid "He said "hi""\nmsgstr ""\n'
    with pytest.raises(TranslationFileError) as caught:
        read_translation_bytes(data, "po")
    assert caught.value.line == 2


def test_a_po_saved_with_windows_line_ends_and_a_byte_order_mark_reads_the_same() -> None:
    data = b"\xef\xbb\xbf" + catalog_bytes(CATALOG, ".po").replace(b"\n", b"\r\n")
    assert read_translation_bytes(data, ".po").entries == expected_entries()


@needs_msgfmt
def test_control_characters_pass_msgfmt_and_the_one_it_refuses_is_refused_first(tmp_path: Path) -> None:
    controls = "".join(chr(code) for code in range(1, 32) if code != 4) + "\x7f\x85\u2028\u2029"
    catalog = Catalog("Saga", "en", "fr", (CatalogEntry("ctl", f"a{controls}b", f"c{controls}d"),))
    path = tmp_path / "controls.po"
    write_catalog(catalog, path)
    done = subprocess.run([MSGFMT or "msgfmt", "--check-format", "-o", os.devnull, str(path)], capture_output=True,
                          text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    assert read_translation_file(path).entries == (ReadEntry("ctl", f"a{controls}b", f"c{controls}d"),)
    separator = Catalog("Saga", "en", "fr", (CatalogEntry("eot", "a\x04b"),))
    with pytest.raises(TranslationFileError, match="'eot' holds the control character U\\+0004"):
        write_catalog(separator, tmp_path / "eot.po")
