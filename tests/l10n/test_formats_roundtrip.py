"""Any text and any line id read back as written, in every format, whatever the speakers,
documents and notes beside them hold (hypothesis draws them)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from storyloom.l10n.catalog import Catalog, CatalogEntry, ReadEntry
from storyloom.l10n.formats import catalog_bytes, read_translation_bytes

# Ids as Drafft tags ([\w.]+) and Storyloom's generated ids (12 base32 characters) are.
line_ids = st.one_of(st.from_regex(r"[\w.]{1,16}", fullmatch=True),
                     st.text(alphabet="abcdefghijklmnopqrstuvwxyz234567", min_size=12, max_size=12))
# U+0004 is left out: a PO file cannot hold it (test_formats_po checks the refusal).
texts = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x04"), max_size=40)
entries = st.lists(
    st.builds(CatalogEntry, line_id=line_ids, source=texts, target=st.one_of(st.none(), texts),
              needs_review=st.booleans(), previous_source=st.one_of(st.none(), texts),
              speaker=st.one_of(st.none(), texts), document_id=texts, document=texts, location=texts,
              kind=st.sampled_from(["speech", "option"]), notes=st.lists(texts, max_size=3).map(tuple)),
    max_size=6, unique_by=lambda entry: entry.line_id)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries)
def test_any_text_reads_back_in_every_format(drawn: list[CatalogEntry]) -> None:
    catalog = Catalog("Saga", "en", "fr", tuple(drawn))
    expected = tuple(ReadEntry(entry.line_id, entry.source, entry.target or None,
                               entry.needs_review and bool(entry.target)) for entry in catalog.entries)
    for fmt, dialect in ((".po", "godot"), (".xlf", "godot"), (".csv", "godot"), (".csv", "unity")):
        data = catalog_bytes(catalog, fmt, csv_dialect=dialect)  # type: ignore[arg-type]
        read = read_translation_bytes(data, fmt, csv_dialect=dialect)  # type: ignore[arg-type]
        # XLIFF groups the lines by document (a <file> each), so the order is compared apart.
        assert sorted((entry.line_id, entry.source, entry.target) for entry in read.entries) == \
            sorted((entry.line_id, entry.source, entry.target) for entry in expected), (fmt, dialect)
        # A flag to review without a translation is kept by the PO and the CSV (XLIFF has no state for it).
        assert sorted((entry.line_id, entry.needs_review) for entry in read.entries if entry.target) == \
            sorted((entry.line_id, entry.needs_review) for entry in expected if entry.target), (fmt, dialect)
        if fmt != ".xlf":
            assert [entry.line_id for entry in read.entries] == [entry.line_id for entry in expected]
