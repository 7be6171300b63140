"""A YAML loader with YAML 1.2 core-schema scalars (as js-yaml, which Drafft uses)."""

from __future__ import annotations

import datetime as _dt
import re
from typing import TYPE_CHECKING, Any

import yaml

# --------------------------------------------------------------------------------------
# YAML 1.2 core schema (as js-yaml, which Drafft uses): `yes`/`no`/`on`/`off` stay strings,
# no sexagesimal numbers, `0o17` octal.

if TYPE_CHECKING:
    # The C loader when libyaml is there: its API is SafeLoader's, which the type checker sees.
    _YamlBase = yaml.SafeLoader
else:
    _YamlBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Yaml12Loader(_YamlBase):
    pass


_YAML11_TAGS = ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in _YAML11_TAGS]
    for first, resolvers in _YamlBase.yaml_implicit_resolvers.items()
}
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:int",
    re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
    list("-+0123456789"),
)
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+.0123456789"),
)


def _yaml12_int(loader: Any, node: Any) -> int:
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text)


def _yaml_json_map(loader: Any, node: Any) -> Any:
    """Mappings with JSON keys (``1`` -> ``"1"``, ``true`` -> ``"true"``) built as they are read,
    so that keys equal in Python (``1`` and ``true``) stay apart, as in JavaScript."""
    data: dict[str, Any] = {}
    yield data
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        data[json_key(key)] = loader.construct_object(value_node, deep=False)


Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _yaml12_int)
Yaml12Loader.add_constructor("tag:yaml.org,2002:map", _yaml_json_map)


def json_key(key: Any) -> str:
    """A mapping key as JSON text: YAML and TOML keys may be booleans, null, numbers or dates."""
    if isinstance(key, str):
        return key
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, _dt.date | _dt.time):
        return key.isoformat()
    return str(key)


# --------------------------------------------------------------------------------------
# Writing YAML that reads back the same through Yaml12Loader (and js-yaml).


class Yaml12Dumper(yaml.SafeDumper):
    """A safe dumper that quotes every string a YAML 1.1 *or* 1.2 reader would take for
    something else: PyYAML's resolvers are YAML 1.1's, so it writes ``0E0`` or ``1e3`` bare,
    which the 1.2 core schema reads as numbers."""


for _first, _resolvers in Yaml12Loader.yaml_implicit_resolvers.items():
    for _tag, _regexp in _resolvers:
        Yaml12Dumper.add_implicit_resolver(_tag, _regexp, [_first])


def dump_yaml12(data: Any, *, allow_unicode: bool = True) -> str:
    """``data`` as block-style YAML, keys in their order, reading back equal with Yaml12Loader."""
    return yaml.dump(data, Dumper=Yaml12Dumper, sort_keys=False, allow_unicode=allow_unicode,
                     default_flow_style=False)
