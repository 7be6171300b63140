"""The JSON codec of the store: compact bodies (orjson with a stdlib fallback) and the fast
encoding and decoding of revision trees."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, cast

from storyloom.store.revtree import Branch, Node, Tree

_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def _make_fast_dumps() -> Callable[[Any], str] | None:
    """Compact JSON with one C encoder built once (JSONEncoder.encode builds one per call).

    The stdlib encoder of the store (used for whatever orjson refuses, see ``encode``). It relies
    on the stdlib's C accelerator; when that is missing or encodes differently, ``_ENCODER.encode``
    is used.
    """
    try:
        from json import encoder

        # The C encoder factory is private (typeshed leaves it out) and None without the accelerator.
        c_make_encoder = getattr(encoder, "c_make_encoder", None)
        encode_basestring = encoder.encode_basestring
        if c_make_encoder is None:
            return None
        c_encode = c_make_encoder(None, _ENCODER.default, encode_basestring, None, ":", ",", False, False, True)

        def fast_dumps(value: Any) -> str:
            return "".join(c_encode(value, 0))

        sample = {"a": [1, 2.5, None, True, "é\n\"", {"b": -0.0}], "": 1e300}
        if fast_dumps(sample) != _ENCODER.encode(sample) or fast_dumps("x") != '"x"':
            return None
        return fast_dumps
    except Exception:  # noqa: BLE001 - any surprise in the private API: keep the plain encoder
        return None


_std_dumps: Callable[[Any], str] = _make_fast_dumps() or _ENCODER.encode


def _holds_float(value: Any, test: Callable[[float], bool]) -> bool:
    """True if ``value`` holds a float anywhere for which ``test`` is true.

    Performance (bench/sync_bench.py and bench/export_bench.py: a write or a pull runs it on
    every document holding a null, an export on every document that may hold an unusual float):
    only containers go on the stack and the scalars of each are looked at in place, most of them
    strings, integers and None with one type check each."""
    if isinstance(value, float):
        return test(value)
    if not isinstance(value, (dict, list, tuple)):
        return False
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        for child in (item.values() if isinstance(item, dict) else item):
            kind = type(child)
            if kind is str or kind is int or child is None or kind is bool:
                continue
            if kind is float:
                if test(child):
                    return True
            elif kind is dict or kind is list or kind is tuple:
                stack.append(child)
            elif isinstance(child, float):
                if test(child):
                    return True
            elif isinstance(child, (dict, list, tuple)):
                stack.append(child)
    return False


_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """JSON ``text`` that UTF-8 can hold: each lone surrogate (a string holding ``\ud800``, which
    JavaScript and JSON allow and UTF-8 cannot hold; only strings can hold one) becomes its
    ``\\u`` escape, which reads back as the same string. Other text is returned as it is."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def stdlib_text(value: Any) -> str:
    """The stdlib encoder's compact JSON of ``value`` (non-ASCII kept, NaN written as ``NaN``), as
    text that UTF-8 can hold (``escape_surrogates``): for what orjson refuses."""
    return escape_surrogates(_std_dumps(value))


def _non_finite(number: float) -> bool:
    return number - number != 0.0  # NaN and the infinities give NaN, every finite float 0.0


def _has_non_finite(value: Any) -> bool:
    """True if ``value`` holds a NaN or an infinite float anywhere (which orjson writes as null)."""
    return _holds_float(value, _non_finite)


def _unusual(number: float) -> bool:
    return number != number or (number != 0.0 and not 1e-4 <= abs(number) < 1e16)


def has_unusual_float(value: Any) -> bool:
    """True if ``value`` holds a float that orjson and the stdlib encoder spell differently: a NaN
    or an infinity (orjson writes null, the stdlib refuses or writes NaN) or a non-zero float
    outside ``1e-4 <= |x| < 1e16``, which the stdlib writes with an exponent (``1e-05``,
    ``1e+16``) and orjson otherwise (``0.00001``, ``1e16``). Inside that range both write the
    same shortest round-trip text."""
    return _holds_float(value, _unusual)


# A run of 19 digits: a number orjson may read as a float. It holds integers from -2**63 to
# 2**64 - 1 and reads one beyond as a float without an error; such an integer has at least 19
# digits, so JSON text without such a run is read exactly by orjson. Looked for as 19 zeros
# once every digit is a zero (``bytes.translate`` and a substring search run in C: about a
# tenth of a regex's time, a fifth of orjson's reading of the same body).
DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_RUN = b"0" * 19


def may_hold_long_integer(text: str | bytes) -> bool:
    """Whether JSON ``text`` may hold an integer orjson would read as a float (the stdlib's
    decoder keeps it exact): the store's bodies and the replicator's answers are read by the
    stdlib then."""
    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    return _LONG_RUN in raw.translate(DIGITS_AS_ZERO)


try:
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency; the stdlib encoder still works
    # A module's name cannot also be None for mypy: the fallback below is for a broken install only.
    orjson = None  # type: ignore[assignment]


if orjson is not None:
    _orjson_dumps = orjson.dumps
    # Types the stdlib encoder refuses or encodes differently go to the stdlib (``default=None``
    # makes orjson raise for them): dataclasses, datetimes, and subclasses of str/int/dict/list.
    _ORJSON_OPTIONS = (
        orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS
    )

    def encode(value: Any) -> tuple[str, bytes | None]:
        """Compact JSON of ``value``: (text, its UTF-8 bytes, or None when not at hand).

        Performance (bench/store_bench.py): orjson encodes a 1 KB body about ten times faster than
        the stdlib. Whatever orjson refuses (integers beyond 64 bits, non-str keys, lone
        surrogates, nesting deeper than 255, the passthrough types above) and whatever it would
        write differently in meaning (NaN and infinities, which it writes as null) is encoded by
        the stdlib encoder, exactly as before. Both write the same JSON text for the same value
        except in the spelling of some floats (``1e-07`` against ``1e-7``), which parse back to the
        same number.
        """
        try:
            raw = _orjson_dumps(value, option=_ORJSON_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError
            return stdlib_text(value), None
        text = raw.decode()
        if "null" in text and _has_non_finite(value):
            return _std_dumps(value), None
        return text, raw

    def dumps(value: Any) -> str:
        """Compact JSON text of ``value`` (see ``encode``)."""
        return encode(value)[0]

else:  # pragma: no cover
    dumps = stdlib_text

    def encode(value: Any) -> tuple[str, bytes | None]:
        return stdlib_text(value), None


def encode_tree(tree: Tree) -> str:
    """The rev tree as stored in ``docs.rev_tree``: the tree's own JSON (see revtree.py).

    A tree nests two JSON levels per generation, and json.dumps/json.loads hit Python's recursion
    limit at about 490 generations although revs_limit defaults to 1000, so deep trees go through
    the iterative encoder and decoder below; the stored text is the same JSON.
    """
    if len(tree) == 1 and not tree[0]["ids"][2] and tree[0]["pos"] == 1:  # a new document
        node = tree[0]["ids"]
        rev_hash: str = node[0]
        if node[1] == _OPTS_LIVE and _is_hex(rev_hash):
            return NEW_TREE_LIVE % rev_hash
    try:
        return dumps(tree)
    except RecursionError:
        return _encode_tree_deep(tree)


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)


def _encode_tree_deep(tree: Tree) -> str:
    parts = ["["]
    for index, branch in enumerate(tree):
        if index:
            parts.append(",")
        parts.append(f'{{"pos":{int(branch["pos"])},"ids":')
        stack: list[Any] = [branch["ids"]]  # nodes (lists) and literal text to emit (str)
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                parts.append(item)
                continue
            parts.append(f"[{dumps(item[0])},{dumps(item[1])},[")
            stack.append("]]")
            children = item[2]
            for i in range(len(children) - 1, -1, -1):
                stack.append(children[i])
                if i:
                    stack.append(",")
        parts.append("}")
    parts.append("]")
    return "".join(parts)


# ``encode_tree`` of a new document's one-node tree, to be completed with its (hex) hash.
_OPTS_LIVE = {"status": "available"}


NEW_TREE_LIVE = '[{"pos":1,"ids":["%s",{"status":"available"},[]]}]'


NEW_TREE_DELETED = '[{"pos":1,"ids":["%s",{"status":"available","deleted":true},[]]}]'


NEW_TREE_HEAD, NEW_TREE_TAIL = NEW_TREE_LIVE.split("%s")


_JSON = json.JSONDecoder()


def decode_tree(text: str) -> Tree:
    """The inverse of ``encode_tree``."""
    try:
        tree: Tree = json.loads(text)
        return tree
    except RecursionError:
        return _decode_tree_deep(text)


def _decode_tree_deep(text: str) -> Tree:
    """Parse ``[{"pos": N, "ids": node}, ...]`` where node is ``[hash, opts, [node, ...]]``, without
    recursion. Hashes, opts and ``pos`` are shallow and go through the stdlib decoder."""
    i = 0

    def skip(at: int) -> int:
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        return at

    def expect(at: int, char: str) -> int:
        at = skip(at)
        if text[at] != char:
            raise ValueError(f"rev tree JSON: expected {char!r} at {at}")
        return at + 1

    def value(at: int) -> tuple[Any, int]:
        return _JSON.raw_decode(text, skip(at))

    tree: Tree = []
    i = expect(i, "[")
    i = skip(i)
    if text[i] == "]":
        return tree
    while True:
        i = expect(i, "{")
        branch: dict[str, Any] = {}  # becomes a Branch once "pos" and "ids" are read
        while True:
            key, i = value(i)
            i = expect(i, ":")
            if key == "ids":
                # Iterative node parser: ``open`` holds the nodes whose children list is still open.
                root: Node | None = None
                open_nodes: list[Node] = []
                while True:
                    i = expect(i, "[")
                    rev_hash, i = value(i)
                    i = expect(i, ",")
                    opts, i = value(i)
                    i = expect(i, ",")
                    i = expect(i, "[")
                    node: Node = [rev_hash, opts, []]
                    if open_nodes:
                        open_nodes[-1][2].append(node)
                    else:
                        root = node
                    open_nodes.append(node)
                    i = skip(i)
                    if text[i] != "]":
                        continue  # the first child follows
                    # Close finished nodes: ``]`` ends a children list, the next ``]`` the node.
                    while open_nodes:
                        i = expect(i, "]")
                        i = expect(i, "]")
                        open_nodes.pop()
                        i = skip(i)
                        if open_nodes and text[i] == ",":
                            i += 1  # a sibling follows
                            break
                    if not open_nodes:
                        break
                branch["ids"] = root
            else:
                branch[key], i = value(i)
            i = skip(i)
            if text[i] == ",":
                i += 1
                continue
            i = expect(i, "}")
            break
        tree.append(cast(Branch, branch))  # the keys read are the JSON's, "pos" and "ids" in a stored tree
        i = skip(i)
        if text[i] == ",":
            i += 1
            continue
        expect(i, "]")
        return tree
