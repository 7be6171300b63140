"""The store's JSON codec: orjson where it writes what the stdlib writes, the stdlib otherwise."""

from __future__ import annotations

import json
import math

import pytest

from storyloom.store.codec import _has_non_finite, encode


@pytest.mark.parametrize(
    "value",
    [
        {"a": None, "b": [1, 2.5, None, True, "x"]},
        {"deep": [[{"n": None, "f": 1e300}]]},
        (None, -0.0),
    ],
)
def test_a_null_beside_finite_numbers_is_orjson_text(value: object) -> None:
    text, raw = encode(value)
    assert raw is not None and raw.decode() == text
    assert json.loads(text) == json.loads(json.dumps(value))
    assert not _has_non_finite(value)


@pytest.mark.parametrize(
    "value",
    [
        float("nan"),
        {"a": None, "b": math.inf},
        {"a": [None, {"b": [-math.inf]}]},
        [[[[None, float("nan")]]]],
        (None, (math.inf,)),
    ],
)
def test_a_nan_or_infinity_anywhere_goes_to_the_stdlib_encoder(value: object) -> None:
    # orjson would write null for it and lose the number; the stdlib keeps it.
    assert _has_non_finite(value)
    text, raw = encode(value)
    assert raw is None
    assert "NaN" in text or "Infinity" in text
    assert json.dumps(json.loads(text)) == json.dumps(value)  # the number reads back as it was
