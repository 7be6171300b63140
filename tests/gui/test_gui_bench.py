"""The desktop app benchmark cannot rot: its ``main`` runs on a tiny project (offscreen) and
prints its targets (the grid scroll too); the figures themselves are docs/benchmarks.md's business."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # a benchmark's main on a tiny project


def test_gui_bench_runs_on_a_tiny_project(tmp_path, capsys, qapp) -> None:  # type: ignore[no-untyped-def]
    from bench import gui_bench

    code = gui_bench.main(["--docs", "60", "--lines", "300", "--keys", "12", "--rounds", "1", "--switches", "4",
                           "--grid-rows", "200", "--grid-frames", "5", "--dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code in (0, 1), out
    assert "gui: " in out and " targets met" in out
    for figure in ("window usable", "keystroke to repaint p95", "tab switch p95", "grid scroll p95, wheel",
                   "grid scroll p95, jumps", "grid GUI-thread CPU per frame p50, wheel",
                   "grid GUI-thread CPU per frame p50, jumps", "grid sort by a numeric column",
                   "grid tab open", "x the target", "typing continuously: keystroke to repaint p95 (frames)",
                   "typing continuously: longest GUI thread stall (frames)", "GUI thread stalls longer than a frame"):
        assert figure in out
    assert "pytest" not in gui_bench.__dict__


def test_gui_bench_measures_typing_alone_when_asked(tmp_path, capsys, qapp) -> None:  # type: ignore[no-untyped-def]
    import gc

    from bench import gui_bench

    code = gui_bench.main(["--docs", "60", "--lines", "300", "--keys", "12", "--only", "typing",
                           "--typing-runs", "2", "--dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code in (0, 1), out
    assert out.count("typing continuously (") == 2 and "run 2, typing continuously: longest GUI thread stall" in out
    assert "the most CPU time the process spent in one stall" in out and "full garbage collections meanwhile" in out
    assert out.count("the most CPU time the GUI thread spent in one stall") == 2
    assert "tab switch" not in out and "grid scroll" not in out
    assert gc.get_freeze_count() == 0  # the app's collection policy, installed as run() does, stopped


def test_the_bench_project_has_no_speaker_without_an_actor() -> None:
    """The Problems dock checks the project while the bench types: its long script's speakers are
    actors, so the dock holds the generated project's planted problems only, not thousands of
    unknown-actor warnings."""
    from bench import gui_bench

    from storyloom.app import AppOptions, Workspace
    from storyloom.app.views.problems import UNKNOWN_ACTOR, ProjectProblems

    workspace = Workspace(options=AppOptions(username="bench"))
    try:
        gui_bench._fill(workspace, "Bench", 60, 300)
        with workspace.open_session("Bench") as session:
            problems = ProjectProblems(session.db, session.index).rebuild()
        assert [p for p in problems if p.diagnostic.code == UNKNOWN_ACTOR] == []
    finally:
        workspace.close()
