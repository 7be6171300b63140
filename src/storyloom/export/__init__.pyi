"""The face of :mod:`storyloom.export`: the game export and the schema export, as the layers
above use them (the CLI through the app, the app, the API).

Read by :func:`lazy_loader.attach_stub` (each name is imported from its module at first use)
and by type checkers."""

from .attachments import (
    referenced_attachments as referenced_attachments,
    REFERENCING_COLLECTIONS as REFERENCING_COLLECTIONS,
)
from .answers import (
    DEFAULT_ANSWER_BYTES as DEFAULT_ANSWER_BYTES,
    ExportAnswer as ExportAnswer,
    ExportCache as ExportCache,
)
from .collections_filter import (
    parse_collections as parse_collections,
    UnknownCollections as UnknownCollections,
)
from .compat import (
    COMPAT_VALUES as COMPAT_VALUES,
    DRAFFT_VERSION as DRAFFT_VERSION,
    parse_compat as parse_compat,
    UnknownCompat as UnknownCompat,
)
from .localized import (
    UnknownExportLocale as UnknownExportLocale,
    export_locale as export_locale,
)
from .game_export import (
    default_collections as default_collections,
    dumps_export as dumps_export,
)
from .schema_export import (
    sidecar_path as sidecar_path,
)
from .stream import (
    ExportStopped as ExportStopped,
    read_snapshot as read_snapshot,
    stream_game_export as stream_game_export,
    stream_schema as stream_schema,
)
