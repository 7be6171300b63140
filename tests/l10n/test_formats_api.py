"""The translation file API: the format follows the suffix; other suffixes are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from storyloom.errors import Fix
from storyloom.l10n.formats import (
    TRANSLATION_EXTENSIONS,
    TranslationFileError,
    catalog_bytes,
    read_translation_file,
    write_catalog,
)
from tests.l10n.formats_samples import CATALOG, expected_entries


def test_an_unsupported_suffix_is_refused_naming_the_formats(tmp_path: Path) -> None:
    with pytest.raises(TranslationFileError) as caught:
        write_catalog(CATALOG, tmp_path / "saga.docx")
    assert "'.docx' is not a translation file format" in str(caught.value)
    assert all(suffix in str(caught.value) for suffix in TRANSLATION_EXTENSIONS)
    assert caught.value.fix == Fix("other_name", verb="write")
    assert caught.value.code == "translation_file_refused"
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    with pytest.raises(TranslationFileError, match=r"'\.txt' is not a translation file format") as read_error:
        read_translation_file(tmp_path / "notes.txt")
    assert read_error.value.fix is None
    with pytest.raises(TranslationFileError, match="no suffix is not a translation file format"):
        catalog_bytes(CATALOG, "")


@pytest.mark.parametrize("suffix", TRANSLATION_EXTENSIONS)
def test_every_format_reads_back_what_it_wrote_with_upper_case_suffixes(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"saga{suffix.upper()}"
    write_catalog(CATALOG, path)
    assert read_translation_file(path).entries == expected_entries()


def test_writing_replaces_a_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "saga.po"
    path.write_text("old", encoding="utf-8")
    write_catalog(CATALOG, path)
    assert path.read_bytes() == catalog_bytes(CATALOG, ".po")
    assert [item.name for item in tmp_path.iterdir()] == ["saga.po"]
