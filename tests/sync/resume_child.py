"""Child process of the resume test: pulls a remote database into a store file with a
checkpoint after every batch, printing one line per batch (``checkpoint <last_seq>``). After
the third checkpoint it blocks on stdin (inside the event callback, so the pull cannot write
or checkpoint anything more) until the parent kills it: the kill always lands mid-pull,
whatever the machine's speed."""

from __future__ import annotations

import sys

from storyloom.store import Database
from storyloom.sync import RemoteDatabase, ReplicationOptions, SyncEvent, pull

BLOCK_AFTER = 3


def main() -> int:
    url, user, password, store_path = sys.argv[1:5]
    db = Database(store_path)
    remote = RemoteDatabase(url, username=user, password=password)
    checkpoints = 0

    def on_event(event: SyncEvent) -> None:
        nonlocal checkpoints
        if event.type == "change":
            checkpoints += 1
            print(f"checkpoint {event.status.last_seq}", flush=True)
            if checkpoints == BLOCK_AFTER:
                sys.stdin.readline()  # until killed (or the parent closes our stdin)

    status = pull(remote, db, ReplicationOptions(batch_size=100, checkpoint_interval=0), on_event=on_event)
    print(f"done {status.state}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
