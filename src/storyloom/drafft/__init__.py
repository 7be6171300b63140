"""Import a Drafft backup (an ``allDocs`` dump of a v1 or v2 project) as a new Storyloom project.

Nothing is lost: every document is imported (converted to the v2 shapes where it still has a
v1 one), unknown fields are kept, attachments are kept byte for byte; only rows that are not
project data are skipped (PouchDB design documents, deleted rows), each with its reason in the
:class:`ImportReport`. The mapping is written down in ``docs/data-model.md`` ("Drafft import").

Documents validation would refuse are repaired where the intent is clear (a missing
``collection``, a null ``name``, a parent that is not a folder of the same collection, map
entries outside the map, non-text content text), each repair reported as a warning, with the
original value kept beside it. What still cannot be imported (an unknown document type, a
document validation refuses after the repairs, an attachment without data) makes the import
fail with :class:`ImportWouldDropError`, listing each, and nothing is created, unless
``allow_skips=True`` (``storyloom import --allow-skips``) asks to import the rest; the report
then lists what was left out. An attachment whose base64 ``data`` does not decode fails the
import too (it would be lost), and so do attachments whose bytes do not match the digest the
backup recorded with them (they were damaged), unless ``accept_damaged=True`` (``storyloom
import --accept-damaged``) keeps them as they are, each with a warning.

In short, for every document: ``_rev`` dropped (imported documents are fresh documents in the
new project), the three date formats normalised to ISO-8601 UTC, locks released, ``path``
dropped and folders' ``children`` arrays turned into each child's ``parent`` + ``sortKey``.
v1 shapes: string ``content`` moves into the v2 content field of its type, dialogue ``graph``
becomes ``content.tree`` (as Drafft's own migration does; the graph is kept), ``prefix``
becomes ``alias``, actor ``bio``/``properties`` move into ``content`` and ``expression_<name>``
attachments become Attachment documents listed in ``content.expressions``, Hotkeys become
Misc documents holding their data as JSON. Drafft v1's replication settings (URL, user) leave
the replicated settings document for a ``_local`` document; the remote password is not kept
anywhere (the report says it must be entered again when syncing).
"""

from storyloom.drafft.convert import LEGACY_REMOTE_LOCAL_ID, PASSWORD_NOT_KEPT, Conversion, convert_rows
from storyloom.drafft.importer import import_backup
from storyloom.drafft.report import DamagedDrafftBackupError, DrafftImportError, ImportReport, ImportWouldDropError
from storyloom.drafft.shapes import convert_graph

__all__ = [
    "LEGACY_REMOTE_LOCAL_ID",
    "PASSWORD_NOT_KEPT",
    "Conversion",
    "DamagedDrafftBackupError",
    "DrafftImportError",
    "ImportReport",
    "ImportWouldDropError",
    "convert_graph",
    "convert_rows",
    "import_backup",
]
