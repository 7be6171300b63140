"""An API server in a process that has only a few file descriptors to spare (for the EMFILE test).

    python -m tests.api.fd_limited_server SPARE

Starts a server (no project, a connection cap far above what the process can hold), then lowers
the process's open-file limit to what it holds plus SPARE, prints ``PORT``, and serves until a
line arrives on standard input. Its log goes to stderr, as `storyloom serve`'s does.
"""

from __future__ import annotations

import logging
import os
import resource
import sys

from storyloom.api import ApiServer
from tests.api.support import Options


def main(spare: int) -> None:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    server = ApiServer(lambda: None, Options(), max_connections=100_000, head_timeout=60.0)
    server.start()
    try:
        held = len(os.listdir("/proc/self/fd"))
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (held + spare, hard))
        print(server.port, flush=True)
        sys.stdin.readline()
    finally:
        server.stop()


if __name__ == "__main__":
    main(int(sys.argv[1]))
