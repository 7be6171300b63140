"""The dialogue graph benchmark cannot rot: its ``main`` runs on a small graph (offscreen), laid
out and scattered, and prints its targets (frames as ratios to the 16 ms budget); the figures
themselves are docs/benchmarks.md's business."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # a benchmark's main on a small graph


def test_graph_bench_runs_on_a_small_graph(tmp_path, capsys, qapp) -> None:  # type: ignore[no-untyped-def]
    from bench import graph_bench

    code = graph_bench.main(["--nodes", "60", "--frames", "6", "--dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code in (0, 1), out
    assert "graph: " in out and " targets met" in out
    assert "laid out: dialogue of 60 nodes" in out and "scattered: dialogue of 60 nodes" in out
    for layout in ("laid out", "scattered"):
        for figure in ("graph pan frame p95 / 16 ms", "graph zoom frame p95 / 16 ms", "graph auto layout (ms)"):
            assert f"{figure}, {layout}" in out
    assert "GUI thread's CPU p95" in out
    assert "pytest" not in graph_bench.__dict__
