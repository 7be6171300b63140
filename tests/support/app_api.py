"""Waiting for an app process's local API, as the tests that start the real app do."""

from __future__ import annotations

import subprocess
import time
from typing import IO, Any

import httpx


def wait_for_info(process: subprocess.Popen[Any], port: int, key: str, log: IO[str],
                  timeout: float = 60.0) -> dict[str, Any]:
    """The body of ``GET /info`` once ``process``'s local API on ``port`` answers (asserted 200).
    Fails with the process's ``log`` when it ends first or never answers within ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            response = httpx.get(f"http://127.0.0.1:{port}/info", headers={"x-api-key": key}, timeout=2)
        except httpx.TransportError:
            time.sleep(0.2)
            continue
        assert response.status_code == 200, response.text
        return dict(response.json())
    log.seek(0)
    raise AssertionError(f"the app never answered /info (exit code {process.poll()}):\n{log.read()}")
