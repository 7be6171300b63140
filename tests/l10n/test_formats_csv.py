"""CSV string tables, Godot's and Unity's: written from a catalog, read back with the same ids,
texts and review flags; several locale columns, the dialect found from the header, damaged
tables refused with their line."""

from __future__ import annotations

import csv
import io
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
from storyloom.l10n.formats.csv_table import unity_column
from tests.l10n.formats_samples import CATALOG, expected_entries


def _table(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))


@pytest.mark.parametrize("dialect", ["godot", "unity"])
def test_a_catalog_written_as_csv_reads_back_the_same(tmp_path: Path, dialect: str) -> None:
    path = tmp_path / "saga.csv"
    write_catalog(CATALOG, path, csv_dialect=dialect)  # type: ignore[arg-type]
    for given in (None, dialect):
        read = read_translation_file(path, csv_dialect=given)  # type: ignore[arg-type]
        assert read.entries == expected_entries()
        assert (read.source_locale, read.target_locale) == ("en", "pt-BR")


def test_godot_s_table_has_the_keys_the_locales_as_godot_names_them_and_comment_columns() -> None:
    rows = _table(catalog_bytes(CATALOG, ".csv"))
    assert rows[0] == ["keys", "en", "pt_BR", "_speaker", "_document", "_location", "_notes", "_review"]
    assert rows[1] == ["flax_PDba", 'Hello, "friend"!', 'Olá, "amigo"!', "Mara", "Act 1/Intro", "3",
                       "Said with a grin.", ""]
    assert rows[3][0] == "u6auozkvlbrj" and rows[3][-1] == "needs review"
    assert rows[5][6] == "Friendly tone\nMax 30 characters"
    assert all(len(row) == len(rows[0]) for row in rows)


def test_locale_tags_with_script_and_region_map_to_godot_s_codes_and_back() -> None:
    catalog = Catalog("Saga", "zh-Hant-TW", "es-419", (CatalogEntry("a", "甲", "A"),))
    data = catalog_bytes(catalog, ".csv")
    assert _table(data)[0][:3] == ["keys", "zh_Hant_TW", "es_419"]
    read = read_translation_bytes(data, ".csv")
    assert (read.source_locale, read.target_locale) == ("zh-Hant-TW", "es-419")


def test_unity_s_table_has_its_export_s_columns() -> None:
    rows = _table(catalog_bytes(CATALOG, ".csv", csv_dialect="unity"))
    assert rows[0] == ["Key", "Id", "Shared Comments", "English(en)", "Portuguese (Brazil)(pt-BR)", "_review"]
    assert rows[1] == ["flax_PDba", "", "Speaker: Mara\nLocation: Act 1/Intro:3\nSaid with a grin.",
                       'Hello, "friend"!', 'Olá, "amigo"!', ""]
    assert rows[5][2] == "Location: Market:n3/h1\nA choice option the player picks\nFriendly tone\nMax 30 characters"
    assert rows[5][-1] == "needs review"


@pytest.mark.parametrize(("tag", "column"), [
    ("en", "English(en)"), ("pt-BR", "Portuguese (Brazil)(pt-BR)"), ("zh-Hans", "Chinese (Simplified)(zh-Hans)"),
    ("qaa", "qaa(qaa)"),  # a private-use code has no name
])
def test_unity_s_locale_columns_are_named_as_unity_names_its_locales(tag: str, column: str) -> None:
    assert unity_column(tag) == column
    catalog = Catalog("Saga", "fr", tag, (CatalogEntry("a", "A", "B"),))
    read = read_translation_bytes(catalog_bytes(catalog, ".csv", csv_dialect="unity"), ".csv")
    assert (read.source_locale, read.target_locale) == ("fr", tag)


def test_a_table_unity_exported_with_comments_is_read() -> None:
    data = (b"Key,Id,Shared Comments,English(en),English(en) Comments,French(fr),French(fr) Comments\n"
            b"GREETING,2,Shared,Hello.,en note,Bonjour.,fr note\n"
            b"EXAMPLE_KEY,1,,Example text.,,,\n")
    read = read_translation_bytes(data, ".csv")
    assert (read.source_locale, read.target_locale) == ("en", "fr")
    assert read.entries == (ReadEntry("GREETING", "Hello.", "Bonjour."),
                            ReadEntry("EXAMPLE_KEY", "Example text.", None))


def test_godot_s_backslash_escapes_read_as_godot_reads_them() -> None:
    catalog = Catalog("Saga", "en", "fr", (CatalogEntry("path", r"C:\saves\slot 1", r"C:\sauvegardes\emplacement 1"),))
    data = catalog_bytes(catalog, ".csv")
    assert _table(data)[1][1] == r"C:\\saves\\slot 1"
    assert read_translation_bytes(data, ".csv").entries == (ReadEntry("path", r"C:\saves\slot 1",
                                                                      r"C:\sauvegardes\emplacement 1"),)
    # A translator types \n for a line break, as Godot reads it; Unity's cells are plain text.
    typed = b"keys,en,fr\nhi,Hi,Salut\\ntoi \\q\n"
    assert read_translation_bytes(typed, ".csv").entries == (ReadEntry("hi", "Hi", "Salut\ntoi \\q"),)
    unity = b"Key,Id,English(en),French(fr)\nhi,,Hi,Salut\\ntoi\n"
    assert read_translation_bytes(unity, ".csv").entries == (ReadEntry("hi", "Hi", "Salut\\ntoi"),)


MULTI = b"keys,en,fr,pt_BR,_notes,?context\nhello,Hello,Bonjour,Ol\xc3\xa1,a note,\n"


def test_the_target_locale_picks_a_column_of_several() -> None:
    assert read_translation_bytes(MULTI, ".csv", target_locale="fr").entries == (ReadEntry("hello", "Hello",
                                                                                           "Bonjour"),)
    read = read_translation_bytes(MULTI, ".csv", target_locale="pt-BR")
    assert read.entries == (ReadEntry("hello", "Hello", "Olá"),)
    assert (read.source_locale, read.target_locale) == ("en", "pt-BR")


def test_several_target_columns_without_a_target_locale_or_a_missing_one_are_refused_naming_them() -> None:
    with pytest.raises(TranslationFileError, match=r"several target locale columns \(fr, pt_BR\)"):
        read_translation_bytes(MULTI, ".csv")
    with pytest.raises(TranslationFileError, match=r"no column for the locale 'de'.* en \(the source\).* fr, pt_BR"):
        read_translation_bytes(MULTI, ".csv", target_locale="de")
    with pytest.raises(TranslationFileError, match=r"no target locale column"):
        read_translation_bytes(b"keys,en,_notes\nhello,Hello,\n", ".csv")


def test_a_spreadsheet_s_semicolons_and_byte_order_mark_are_read() -> None:
    data = "\ufeffkeys;en;fr;_review\nhello;\"Hello; you\";Salut;needs review\n".encode()
    assert read_translation_bytes(data, ".csv").entries == (ReadEntry("hello", "Hello; you", "Salut", True),)


def test_an_unterminated_quote_is_refused_with_its_line() -> None:
    data = b'keys,en,fr\nhello,Hello,Bonjour\nbye,"Bye,Salut\n'
    with pytest.raises(TranslationFileError, match="not a valid CSV record") as caught:
        read_translation_bytes(data, ".csv", name="saga.csv")
    assert caught.value.line == 3
    assert "saga.csv, line 3" in str(caught.value)


def test_a_row_of_the_wrong_width_or_without_an_id_is_refused_with_its_line() -> None:
    with pytest.raises(TranslationFileError, match="2 cells; expected 3") as caught:
        read_translation_bytes(b'keys,en,fr\n"a\nb",A\n', ".csv")
    assert caught.value.line == 2
    with pytest.raises(TranslationFileError, match="a row without a line id in its keys column") as caught:
        read_translation_bytes(b"keys,en,fr\nhi,Hi,Salut\n\n,Lost,Perdu\n", ".csv")
    assert caught.value.line == 4


def test_a_line_id_twice_is_refused_with_both_lines() -> None:
    with pytest.raises(TranslationFileError, match=r"'hi' is given twice \(first at line 2\)") as caught:
        read_translation_bytes(b"keys,en,fr\nhi,Hi,Salut\nhi,Hey,Coucou\n", ".csv")
    assert caught.value.line == 3


def test_tables_that_are_not_string_tables_are_refused() -> None:
    with pytest.raises(TranslationFileError, match="the file is empty"):
        read_translation_bytes(b"", ".csv")
    with pytest.raises(TranslationFileError, match="no locale column in the header"):
        read_translation_bytes(b"keys,_notes\nhi,x\n", ".csv")
    with pytest.raises(TranslationFileError, match="no Key column"):
        read_translation_bytes(b"Name,English(en),French(fr)\nhi,Hi,Salut\n", ".csv", csv_dialect="unity")
    with pytest.raises(TranslationFileError, match="not UTF-8 text") as caught:
        read_translation_bytes(b"keys,en,fr\nhi,Hi,Salut\nbye,Bye,Adi\xf3s\n", ".csv")
    assert caught.value.line == 3
