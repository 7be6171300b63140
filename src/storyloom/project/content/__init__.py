"""Typed content: property text by language, Variables, Scenarios and Maps (one module each).

Everything here works on plain document dicts and never touches the store, so the editing
service, the exporter, the API and the desktop app share one implementation of each rule.

- :func:`parse_text` parses property text written in ``json``, ``hjson``, ``yaml``, ``toml``
  or ``text`` to a JSON-compatible value, or raises :class:`ContentError` with a 1-based
  line and column a writer can act on.
- Variables: :func:`parse_variables_doc` turns a Variable document's source
  (``content.variables``) into its state object carrying ``_sid``;
  :func:`check_unique_sids` reports two documents claiming the same ``_sid``.
- Scenarios: :func:`validate_scenario` checks a Scenario's diff (``content.scenario``)
  against the variables' states: unknown state ids, unknown properties, changed types.
- Maps: :func:`validate_map` checks the Map document shape (see ``docs/export-format.md``):
  ``width``, ``height``, ``cells`` keyed ``"x,y"``, ``edges`` keyed ``"x,y:N|E|S|W"``, named
  ``markers``; out-of-bounds keys are errors.

Types are inferred from authored values by :func:`infer_schema` (a JSON Schema fragment); the
scenario checks and the schema export use the same function, so what the editor reports and
what the exported schema rejects never disagree.
"""

from storyloom.project.content.languages import (
    detect_language,
    locate_key,
    parse_detected,
    parse_text,
)
from storyloom.project.content.maps import (
    CELL_KEY,
    EDGE_KEY,
    MAP_CONTENT_KEYS,
    MAX_MAP_SIZE,
    SIDES,
    check_map_content,
    validate_map,
)
from storyloom.project.content.problems import (
    LANGUAGES,
    SID_PATTERN,
    STRUCTURED_LANGUAGES,
    ContentError,
    ContentProblem,
    content_problem,
)
from storyloom.project.content.schemas import (
    describe_schema,
    infer_schema,
    json_type,
    merge_schemas,
    partial_schema,
)
from storyloom.project.content.variables import (
    SCENARIO_TEMPLATE,
    check_scenario_diff,
    check_unique_sids,
    collect_states,
    is_untouched_template,
    parse_scenario_doc,
    parse_variables_doc,
    scenario_source,
    sid_for,
    validate_scenario,
    variables_source,
    variables_template,
)
from storyloom.project.content.yaml12 import dump_yaml12

__all__ = [
    "CELL_KEY",
    "EDGE_KEY",
    "LANGUAGES",
    "MAP_CONTENT_KEYS",
    "MAX_MAP_SIZE",
    "SCENARIO_TEMPLATE",
    "SIDES",
    "SID_PATTERN",
    "STRUCTURED_LANGUAGES",
    "ContentError",
    "ContentProblem",
    "check_map_content",
    "check_scenario_diff",
    "check_unique_sids",
    "collect_states",
    "content_problem",
    "describe_schema",
    "detect_language",
    "dump_yaml12",
    "infer_schema",
    "is_untouched_template",
    "json_type",
    "locate_key",
    "merge_schemas",
    "parse_detected",
    "parse_scenario_doc",
    "parse_text",
    "parse_variables_doc",
    "partial_schema",
    "scenario_source",
    "sid_for",
    "validate_map",
    "validate_scenario",
    "variables_source",
    "variables_template",
]
