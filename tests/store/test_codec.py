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


def test_a_lone_surrogate_is_stored_as_its_escape_and_reads_back(tmp_path) -> None:
    """UTF-8 cannot hold a lone surrogate (JSON and JavaScript can): the body keeps it as its
    escape; a put, a replicated write and every read give the same string back."""
    from storyloom.store import Database
    from storyloom.store.codec import escape_surrogates

    assert escape_surrogates('{"a":"x\ud800é"}') == '{"a":"x\\ud800é"}'
    assert escape_surrogates('{"a":"é"}') == '{"a":"é"}'
    db = Database(tmp_path / "s.sqlite")
    db.put({"_id": "a", "name": "x\ud800y"})
    db.bulk_docs([{"_id": "b", "_rev": "1-abc", "name": "\udc00"}], new_edits=False)
    assert db.get("a")["name"] == "x\ud800y" and db.get("b")["name"] == "\udc00"
    rows = db.all_docs(include_docs=True)["rows"]
    assert [row["doc"]["name"] for row in rows] == ["x\ud800y", "\udc00"]
    db.close()
