"""Localization: translation catalogs of a project's lines, the files translators' tools read
(gettext PO, XLIFF, CSV string tables), translations stored as documents, their import.

See ``docs/localization.md``.
"""
