"""Catalogs the translation file format tests write and read back: the texts that break naive
writers (quotes, commas, newlines inside a line, ``%`` signs, unicode, empty targets)."""

from __future__ import annotations

from storyloom.l10n.catalog import Catalog, CatalogEntry, ReadEntry

ENTRIES = (
    CatalogEntry("flax_PDba", 'Hello, "friend"!', "Olá, \"amigo\"!", speaker="Mara", document_id="d-intro",
                 document="Act 1/Intro", location="3", notes=("Said with a grin.",)),
    CatalogEntry("j5ubqdb2k7xa", "Two lines,\nthen a second one", "Duas linhas,\ndepois outra", speaker="Rodney",
                 document_id="d-intro", document="Act 1/Intro", location="5"),
    CatalogEntry("u6auozkvlbrj", "100% sure: %s of %d, 50%% off", "100% certo: %s de %d", needs_review=True,
                 previous_source="99% sure", speaker="Mara", document_id="d-intro", document="Act 1/Intro",
                 location="7"),
    # The same text as another line: its id keeps it apart.
    CatalogEntry("dvqym45tkynh", 'Hello, "friend"!', None, speaker="Ann", document_id="d-intro",
                 document="Act 1/Intro", location="9"),
    CatalogEntry("q3xk2m7a4bnd", "Yes, gladly — ça va ? 日本語 🐉", "Sim, com prazer", needs_review=True,
                 document_id="d-dlg", document="Market", location="n3/h1", kind="option",
                 notes=("Friendly tone", "Max 30 characters")),
    CatalogEntry("bob_hi.2", "  padded, with a tab\t ", "", document_id="d-dlg", document="Market",
                 location="n4/h2", kind="option"),
)

CATALOG = Catalog(project="Saga", source_locale="en", target_locale="pt-BR", entries=ENTRIES)


def expected_entries(catalog: Catalog = CATALOG) -> tuple[ReadEntry, ...]:
    """What reading the catalog's file back gives: ids, sources, targets (None when empty), flags."""
    return tuple(ReadEntry(entry.line_id, entry.source, entry.target or None, entry.needs_review)
                 for entry in catalog.entries)
