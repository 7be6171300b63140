"""bench/l10n_view_bench.py cannot rot: its ``main`` runs on a tiny project and prints its
targets table (the figures are docs/benchmarks.md's business)."""

from __future__ import annotations

import pytest
from bench import l10n_view_bench

pytestmark = pytest.mark.slow  # the benchmark's main on a tiny generated project


def test_l10n_view_bench(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    code = l10n_view_bench.main(["--docs", "100", "--repeat", "1", "--dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code in (0, 1), out
    assert "l10n view: " in out and " of 2 targets met" in out, out  # a tiny project's ratios are noise
    assert "first read, 2 locales" in out and "one document, kept" in out
