"""The dialogue graph benchmark cannot rot: its ``main`` runs on a small graph (offscreen) and
prints its three targets; the figures themselves are docs/benchmarks.md's business."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # a benchmark's main on a small graph


def test_graph_bench_runs_on_a_small_graph(tmp_path, capsys, qapp) -> None:  # type: ignore[no-untyped-def]
    from bench import graph_bench

    code = graph_bench.main(["--nodes", "60", "--frames", "6", "--dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code in (0, 1), out
    assert "graph: " in out and " targets met" in out
    assert "dialogue of 60 nodes" in out
    for figure in ("graph pan frame p95", "graph zoom frame p95", "graph auto layout"):
        assert figure in out
    assert "pytest" not in graph_bench.__dict__
