"""A second process writing to a project while a test's server serves it (as `storyloom sync` would).

    python -m tests.api.writer_process PROJECT_ID changes COUNT
        COUNT changes of several kinds (new documents, updates, a deletion, bulk writes), then
        prints the store's update seq.
    python -m tests.api.writer_process PROJECT_ID renames STOP_FILE
        renames the project and edits a script, again and again, until STOP_FILE exists; prints
        how many rounds it made.

The project is found under $STORYLOOM_HOME, as every Storyloom process finds it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from storyloom.project.collections import SETTINGS_ID
from storyloom.project.manager import ProjectManager


def changes(project, count: int) -> None:
    db = project.store
    editor = project.editor
    made = 0
    rev = None
    while made < count:
        kind = made % 5
        if kind == 0:
            db.put({"_id": f"other-{made}", "type": "Item", "collection": "Item", "name": f"i{made}"})
        elif kind == 1:  # the same document again and again
            doc = {"_id": "other-hot", "type": "Quest", "collection": "Quest", "name": f"q{made}"}
            if rev:
                doc["_rev"] = rev
            rev = db.put(doc)["rev"]
        elif kind == 2:
            db.bulk_docs([{"_id": f"other-bulk-{made}-{i}", "type": "Misc", "collection": "Misc"} for i in range(3)])
        elif kind == 3:
            editor.rename(SETTINGS_ID, f"Garden {made}")
        else:
            gone = db.put({"_id": f"other-gone-{made}", "type": "Gdd", "collection": "Gdd"})
            db.remove(f"other-gone-{made}", gone["rev"])
        made += 1
    print(db.info()["update_seq"], flush=True)


def renames(project, stop_file: Path) -> None:
    db = project.store
    rounds = 0
    rev = None
    while not stop_file.exists():
        project.editor.rename(SETTINGS_ID, f"Garden round {rounds}")
        doc = {"_id": "writer-script", "type": "Script", "collection": "Script", "name": f"s{rounds}"}
        if rev:
            doc["_rev"] = rev
        rev = db.put(doc)["rev"]
        rounds += 1
        time.sleep(0.001)
    print(rounds, flush=True)


def main(argv: list[str]) -> int:
    project_id, mode, arg = argv
    project = ProjectManager().open(project_id)
    try:
        if mode == "changes":
            changes(project, int(arg))
        elif mode == "renames":
            renames(project, Path(arg))
        else:
            raise SystemExit(f"unknown mode {mode!r}")
    finally:
        project.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
