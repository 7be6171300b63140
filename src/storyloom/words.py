"""How a count reads: ``counted(1, "state")`` is "1 state", ``counted(3, "state")`` "3 states".

A shared module (it imports no layer), so every message that counts, in any layer, says its
noun in the number's form: "Matches the variables (1 state)", never "(1 states)".
"""

from __future__ import annotations


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``noun`` for a count of one, else ``many`` (default: ``noun`` + "s", or + "es" after
    s, x, z, ch and sh)."""
    if count == 1:
        return noun
    if many is not None:
        return many
    return noun + ("es" if noun.endswith(("s", "x", "z", "ch", "sh")) else "s")


def counted(count: int, noun: str, many: str | None = None, *, grouped: bool = True) -> str:
    """``count`` and its noun: "1 state", "2 states", "1,204 documents" (``grouped``: with
    thousands separators)."""
    number = f"{count:,}" if grouped else str(count)
    return f"{number} {plural(count, noun, many)}"
