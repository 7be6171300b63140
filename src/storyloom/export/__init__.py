"""Game export and schema export (JSON Schema 2020-12). See docs/export-format.md and docs/schema.md."""
