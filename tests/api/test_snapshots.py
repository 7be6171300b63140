"""Each answer is built from one snapshot of the store, while another process writes."""

from __future__ import annotations

import time

from tests.api.support import writer_process

ROUNDS = 200


def test_every_answer_is_one_moment_while_another_process_renames_the_project(api, tmp_path):
    """The writer renames the project (the settings' `projectName`) and edits a script in a loop;
    `_meta.projectName` must be the name of the ProjectSettings document in the same answer, and
    /info's project name that of its settings."""
    stop = tmp_path / "stop"
    writer = writer_process(api.project.id, "renames", str(stop))
    names: set[str] = set()
    try:
        deadline = time.monotonic() + 120
        while api.project.settings()["projectName"] == "Garden":  # the writer has started
            assert time.monotonic() < deadline and writer.poll() is None, writer.stderr
            time.sleep(0.01)
        for _ in range(ROUNDS):
            export = api.get("/game-export", params={"collections": "ProjectSettings,Scripts"})
            assert export.status_code == 200, export.text
            body = export.json()
            (settings,) = body["projectSettings"]
            assert body["_meta"]["projectName"] == settings["projectName"], "one answer mixes two moments"
            names.add(settings["projectName"])
            info = api.get("/info").json()["project"]
            assert info["name"] == info["settings"]["projectName"], "one answer mixes two moments"
    finally:
        stop.touch()
        out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err
    assert int(out) > 0 and len(names) > 10, "the writer did not rename the project during the requests"
