"""The face of :mod:`storyloom.script`: read by :func:`lazy_loader.attach_stub` (each name is
imported from its module at first use) and by type checkers."""

from .expr import (
    ASSIGNMENT_OPERATORS as ASSIGNMENT_OPERATORS,
    Expression as Expression,
    ExpressionError as ExpressionError,
    PathRef as PathRef,
    SetStatement as SetStatement,
    SetSyntaxError as SetSyntaxError,
    UnknownPath as UnknownPath,
    apply_set as apply_set,
    evaluate as evaluate,
    find_interpolations as find_interpolations,
    format_value as format_value,
    interpolate as interpolate,
    parse_expression as parse_expression,
    parse_set as parse_set,
    truthy as truthy,
    type_name as type_name,
)
from .lines import (
    CommandLine as CommandLine,
    CommentLine as CommentLine,
    ElseLine as ElseLine,
    EndIfLine as EndIfLine,
    IfLine as IfLine,
    Interpolation as Interpolation,
    Problem as Problem,
    ScriptLine as ScriptLine,
    SetLine as SetLine,
    SpeechLine as SpeechLine,
    TextLine as TextLine,
)
from .mappings import (
    MAPPING_VARIABLES as MAPPING_VARIABLES,
    join_params as join_params,
    render_line as render_line,
    render_mapping as render_mapping,
)
from .parser import (
    PROBLEM_CODES as PROBLEM_CODES,
    ParsedScript as ParsedScript,
    parse_script as parse_script,
)
