"""The API on a damaged store: a documented error body before the first byte, an answer cut off
(never a short but well-formed one) after it, and a log that names the document, never its text."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest

from storyloom.project.manager import ProjectManager
from tests.api.support import running_server

SECRET = "the-lighthouse-keeper-lies"


def _damaged_project(storyloom_home: Path, damaged_id: str):
    """A project of 300 scripts (about 300 KB of dump) whose ``damaged_id`` has one changed
    character in its stored body; returned open."""
    manager = ProjectManager(username="t")
    project = manager.create("harbour")
    docs = [{"_id": f"script-{i:03d}", "type": "Script", "name": f"S{i}",
             "content": f"{SECRET} {i:03d} " + "::Mara:: words\n" * 60} for i in range(300)]
    project.store.bulk_docs(docs)
    path = project.path / "store.sqlite3"
    project.close()
    number = damaged_id.split("-")[1]
    data = path.read_bytes()
    needle = f"{SECRET} {number} ".encode()
    assert data.count(needle) == 1
    path.write_bytes(data.replace(needle, needle.replace(b"keeper", b"keepet")))
    return manager.open("harbour")


@pytest.mark.parametrize("where", ["script-000", "script-290"])
def test_damage_is_an_error_answer_or_a_cut_off_stream(storyloom_home, caplog, where: str) -> None:
    project = _damaged_project(storyloom_home, where)
    try:
        with caplog.at_level(logging.INFO), running_server(project) as api:
            if where == "script-000":  # met before the first chunk: the documented error body
                response = api.get("/db-dump?attachments=false")
                assert response.status_code == 500
                body = response.json()
                assert body["error"] == "damaged" and body["docId"] == "script-000"
                assert "damaged" in body["reason"] and SECRET not in body["reason"]
            else:  # met mid-stream: the client cannot take the part for a whole answer
                with pytest.raises(httpx.RemoteProtocolError), \
                        api.client.stream("GET", "/db-dump?attachments=false") as response:
                    assert response.status_code == 200
                    for _ in response.iter_bytes():
                        pass
            assert api.get("/info").status_code == 200  # the server goes on
        logged = "\n".join(record.getMessage() for record in caplog.records)
        assert where in logged and "damaged" in logged
        assert SECRET not in logged and "keepet" not in logged
        assert not any(record.exc_info for record in caplog.records), "no traceback for damage"
    finally:
        project.close()
