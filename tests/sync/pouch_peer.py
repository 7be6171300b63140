"""Python handle on the PouchDB 9 peer (``pouch_peer.js``) running in Node."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

from tests.support.couch import stop_process_group
from tests.support.node import ensure_node_packages, node_binary

SCRIPT = Path(__file__).with_name("pouch_peer.js")


class PouchError(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message"))
        self.status = error.get("status")
        self.name = error.get("name")
        self.reason = error.get("reason")


class PouchPeer:
    """A Node process holding PouchDB databases (LevelDB in ``workdir``)."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        node_modules = ensure_node_packages()
        env = dict(os.environ, NODE_PATH=str(node_modules))
        self.stderr = open(self.workdir / "stderr.txt", "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [node_binary(), str(SCRIPT), str(self.workdir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=env,
            cwd=self.workdir,
            start_new_session=True,
        )
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def call(self, cmd: str, **args: Any) -> Any:
        with self._lock:
            msg_id = next(self._ids)
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write((json.dumps({"id": msg_id, "cmd": cmd, "args": args}) + "\n").encode())
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the PouchDB peer died: {(self.workdir / 'stderr.txt').read_text()[-2000:]}")
        reply = json.loads(line)
        if "error" in reply:
            raise PouchError(reply["error"])
        return reply["result"]

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (subprocess.TimeoutExpired, OSError):
                pass
        stop_process_group(self.proc)
        self.stderr.close()

    def __enter__(self) -> PouchPeer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
