"""The face of :mod:`storyloom.project`, the domain layer: what the layers above it may use.

Read by :func:`lazy_loader.attach_stub` (each name is imported from its module at first use,
so a quick CLI verb pays only for what it touches) and by type checkers. The public modules
at the end are namespaces of their own (the board editors' rules, typed content)."""

from .actors import (
    actor_keys as actor_keys,
    actor_lines as actor_lines,
    ActorLine as ActorLine,
    ActorLines as ActorLines,
    NodeRef as NodeRef,
    speaker_index as speaker_index,
    SpeakerIndex as SpeakerIndex,
    speaker_column as speaker_column,
    speaker_key as speaker_key,
)
from .attachment_digests import (
    damaged_warnings as damaged_warnings,
    DamagedAttachment as DamagedAttachment,
    DamagedAttachmentsError as DamagedAttachmentsError,
    digest_matches as digest_matches,
    md5_digest as md5_digest,
)
from .bulk import (
    batches as batches,
    BulkContext as BulkContext,
)
from .checking import (
    ValidationError as ValidationError,
)
from .collections import (
    ATTACHMENT_TYPE as ATTACHMENT_TYPE,
    BY_APP_NAME as BY_APP_NAME,
    BY_EXPORT_NAME as BY_EXPORT_NAME,
    COLLECTIONS as COLLECTIONS,
    EXPORT_NAMES as EXPORT_NAMES,
    FOLDER_TYPE as FOLDER_TYPE,
    NOT_LINKABLE_TYPES as NOT_LINKABLE_TYPES,
    SETTINGS_ID as SETTINGS_ID,
    TRANSLATION_TYPE as TRANSLATION_TYPE,
    USER_TYPE as USER_TYPE,
)
from .conflicts import (
    auto_merge as auto_merge,
    common_ancestor as common_ancestor,
    Conflict as Conflict,
    ConflictError as ConflictError,
    list_conflicts as list_conflicts,
    list_refused as list_refused,
    RefusedEdit as RefusedEdit,
    resolve as resolve,
    SUPERSEDED_BY as SUPERSEDED_BY,
)
from .dates import (
    DateFormatError as DateFormatError,
    normalise_date as normalise_date,
    now_iso as now_iso,
)
from .documents import (
    DATE_FIELDS as DATE_FIELDS,
    EDITOR_MODES as EDITOR_MODES,
    KNOWN_TYPES as KNOWN_TYPES,
    new_document as new_document,
    new_id as new_id,
    NODE_TYPES as NODE_TYPES,
    permalink as permalink,
    permalink_target as permalink_target,
    SCENE_ITEM_TYPES as SCENE_ITEM_TYPES,
    TREE_COLLECTIONS as TREE_COLLECTIONS,
    UNLOCKED_BY as UNLOCKED_BY,
)
from .editor import (
    Editor as Editor,
    StoreContext as StoreContext,
    WriteIntent as WriteIntent,
    WriteResult as WriteResult,
)
from .index import (
    DocSummary as DocSummary,
    ProjectIndex as ProjectIndex,
)
from .lock_contest import (
    contest_winner as contest_winner,
    lost_contest as lost_contest,
)
from .line_ids import (
    LINE_ID as LINE_ID,
    LINE_IDS as LINE_IDS,
    choice_options as choice_options,
    dialogue_option_ids as dialogue_option_ids,
    script_line_ids as script_line_ids,
    without_line_ids as without_line_ids,
)
from .locks import (
    apply_lock_fields as apply_lock_fields,
    broken_lock as broken_lock,
    BrokenLock as BrokenLock,
    free_fields as free_fields,
    LOCK_FIELDS as LOCK_FIELDS,
    lock_info as lock_info,
    locked_fields as locked_fields,
    LockInfo as LockInfo,
    LockPolicy as LockPolicy,
    LockRefused as LockRefused,
    LockStateError as LockStateError,
    NoLocks as NoLocks,
    TeamLocks as TeamLocks,
)
from .manager import (
    backup_file_name as backup_file_name,
    DumpError as DumpError,
    Project as Project,
    ProjectError as ProjectError,
    ProjectExists as ProjectExists,
    ProjectInfo as ProjectInfo,
    ProjectManager as ProjectManager,
    read_dump_rows as read_dump_rows,
)
from .names import (
    display_name as display_name,
    name_problem as name_problem,
)
from .protocols import (
    collection_of_revision as collection_of_revision,
    ProjectLike as ProjectLike,
)
from .remote_settings import (
    clear_remote_settings as clear_remote_settings,
    default_database_name as default_database_name,
    DEFAULT_INTERVAL as DEFAULT_INTERVAL,
    load_remote_settings as load_remote_settings,
    MODES as MODES,
    RemoteSettings as RemoteSettings,
    RemoteSettingsError as RemoteSettingsError,
    save_remote_settings as save_remote_settings,
)
from .revisions import (
    diff_documents as diff_documents,
    document_info as document_info,
    exact_time as exact_time,
    field_excerpts as field_excerpts,
    field_label as field_label,
    FieldDiff as FieldDiff,
    flatten_fields as flatten_fields,
    is_text_field as is_text_field,
    list_revisions as list_revisions,
    NOT_COMPARED as NOT_COMPARED,
    restore_revision as restore_revision,
    Revision as Revision,
    RevisionList as RevisionList,
    value_text as value_text,
    when_text as when_text,
)
from .salvage import (
    salvage_project as salvage_project,
    SalvageReport as SalvageReport,
)
from .sample import (
    create_sample_project as create_sample_project,
    SAMPLE_NAME as SAMPLE_NAME,
)
from .settings import (
    COMMAND_MAPPING as COMMAND_MAPPING,
    DEFAULT_EXPORT_SECTIONS as DEFAULT_EXPORT_SECTIONS,
    DEFAULT_SOURCE_LOCALE as DEFAULT_SOURCE_LOCALE,
    default_settings as default_settings,
    EXPORT_COMPAT as EXPORT_COMPAT,
    EXPORT_COMPAT_MODES as EXPORT_COMPAT_MODES,
    fill_defaults as fill_defaults,
    INTERPOLATE as INTERPOLATE,
    is_uuid as is_uuid,
    LEGACY_REMOTE_FIELDS as LEGACY_REMOTE_FIELDS,
    LOCAL_ONLY_PREFIXES as LOCAL_ONLY_PREFIXES,
    LOCAL_ONLY_SETTINGS as LOCAL_ONLY_SETTINGS,
    locale_problem as locale_problem,
    LOCALE_EXAMPLES as LOCALE_EXAMPLES,
    MAX_STALE_LOCK_MINUTES as MAX_STALE_LOCK_MINUTES,
    MIN_STALE_LOCK_MINUTES as MIN_STALE_LOCK_MINUTES,
    public_settings as public_settings,
    require_lock_to_edit as require_lock_to_edit,
    SECRET_WORDS as SECRET_WORDS,
    SOURCE_LOCALE as SOURCE_LOCALE,
    source_locale as source_locale,
    SPEECH_MAPPING as SPEECH_MAPPING,
    STALE_LOCK as STALE_LOCK,
    stale_lock_minutes as stale_lock_minutes,
    TARGET_LOCALES as TARGET_LOCALES,
    target_locales as target_locales,
    DEFAULT_VOICE_OVER_PATH as DEFAULT_VOICE_OVER_PATH,
    VOICE_OVER_PATH as VOICE_OVER_PATH,
    VOICE_OVER_PLACEHOLDERS as VOICE_OVER_PLACEHOLDERS,
    voice_over_path as voice_over_path,
    voice_over_path_problem as voice_over_path_problem,
)
from .spool import (
    DiskMapping as DiskMapping,
    FileSpool as FileSpool,
    MemorySpool as MemorySpool,
    Spool as Spool,
)
from .summary import (
    project_summary as project_summary,
    ProjectSummary as ProjectSummary,
)
from .tree import (
    TreeTable as TreeTable,
    derive_tree as derive_tree,
    order_key as order_key,
    spread_keys as spread_keys,
)
from .users import (
    os_username as os_username,
)
from .validation import (
    check_document as check_document,
)

# Public modules: namespaces of their own.
from . import canvas as canvas
from . import content as content
from . import dialogue_graph as dialogue_graph
from . import dialogue_layout as dialogue_layout
from . import grids as grids
from . import kanban as kanban
from . import maps as maps
