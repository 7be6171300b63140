"""Game export, schema export (JSON Schema 2020-12) and Drafft import. See docs/export-format.md."""
