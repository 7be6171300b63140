"""Value rules of the expression language: types, truthiness, formatting, equality, comparison and
arithmetic, and the errors an expression raises. See ``docs/scripting.md`` for the type rules."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from storyloom.errors import StoryloomError

#: Largest integer magnitude, in bits, an operation may produce.
MAX_INT_BITS = 1024


class ExpressionError(StoryloomError):
    """A syntax or type error in an expression; ``column`` is 1-based within the expression text."""

    code = "bad_expression"

    def __init__(self, message: str, column: int = 1) -> None:
        super().__init__(message, column)
        self.message = message
        self.column = column

    def __str__(self) -> str:
        return f"{self.message} (column {self.column})"


class UnknownPath(ExpressionError):
    """A variable path that names nothing in the state; ``path`` is the path as resolved."""

    code = "unknown_path"

    def __init__(self, message: str, column: int = 1, path: str = "") -> None:
        super().__init__(message, column)
        self.path = path


def type_name(value: Any) -> str:
    """The script-language name of a value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def truthy(value: Any) -> bool:
    """False for false, null, 0, empty text, empty list and empty object; true otherwise."""
    if value is None or value is False:
        return False
    if isinstance(value, (int, float, str, list, tuple, Mapping)):
        return bool(value)
    return True


def format_value(value: Any) -> str:
    """How a value prints in ``${...}``: text as is, true/false/null, integral numbers without .0."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return repr(value)
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError, RecursionError):
        return str(value)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if type_name(a) != type_name(b):
        return False
    return bool(a == b)


def compare(op: str, a: Any, b: Any, column: int) -> bool:
    if not ((is_number(a) and is_number(b)) or (isinstance(a, str) and isinstance(b, str))):
        raise ExpressionError(f"cannot compare {type_name(a)} and {type_name(b)} with {op}", column)
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    return a >= b


_VERBS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "%": "take the remainder of",
          "^": "raise"}  # fmt: skip


def arithmetic(op: str, a: Any, b: Any, column: int) -> Any:
    if op == "+" and isinstance(a, str) and isinstance(b, str):
        return a + b
    if not (is_number(a) and is_number(b)):
        if op == "^":
            raise ExpressionError(f"cannot raise {type_name(a)} to a power of {type_name(b)}", column)
        raise ExpressionError(f"cannot {_VERBS[op]} {type_name(a)} and {type_name(b)}", column)
    try:
        if op == "+":
            result = a + b
        elif op == "-":
            result = a - b
        elif op == "*":
            result = a * b
        elif op == "/":
            if b == 0:
                raise ExpressionError("division by zero", column)
            exact = isinstance(a, int) and isinstance(b, int) and a % b == 0
            result = a // b if exact else a / b
        elif op == "%":
            if b == 0:
                raise ExpressionError("remainder by zero", column)
            if isinstance(a, int) and isinstance(b, int):
                # sign of the left operand, as in JavaScript, C# and GDScript
                result = abs(a) % abs(b)
                result = -result if a < 0 else result
            else:
                result = math.fmod(a, b)
        else:
            result = power(a, b, column)
    except OverflowError:
        raise ExpressionError("number too large", column) from None
    except ZeroDivisionError:
        raise ExpressionError("division by zero", column) from None
    except ValueError:
        raise ExpressionError("not a real number", column) from None
    if isinstance(result, int) and result.bit_length() > MAX_INT_BITS:
        raise ExpressionError("number too large", column)
    if isinstance(result, float) and not math.isfinite(result):
        raise ExpressionError("number too large" if not math.isnan(result) else "not a number", column)
    if isinstance(result, complex):  # pragma: no cover - power refuses these
        raise ExpressionError("not a real number", column)
    return result


def power(a: int | float, b: int | float, column: int) -> int | float:
    if isinstance(a, int) and isinstance(b, int) and b >= 0:
        if abs(a) > 1 and abs(a).bit_length() * b > MAX_INT_BITS + 64:
            raise ExpressionError("number too large", column)
        return a**b
    if a == 0 and b < 0:
        raise ExpressionError("division by zero", column)
    if a < 0 and not float(b).is_integer():
        raise ExpressionError("a negative number to a fractional power is not a real number", column)
    return math.pow(a, b)


def walk(root: Any, keys: Sequence[str | int]) -> tuple[bool, Any, int]:
    """(True, value, len(keys)) or (False, the container where it failed, index of the failing key)."""
    current = root
    for index, key in enumerate(keys):
        if isinstance(current, Mapping) and isinstance(key, str):
            if key not in current:
                return False, current, index
            current = current[key]
        elif isinstance(current, (list, tuple)) and isinstance(key, int) and not isinstance(key, bool):
            if not 0 <= key < len(current):
                return False, current, index
            current = current[key]
        else:
            return False, current, index
    return True, current, len(keys)
