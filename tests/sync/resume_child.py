"""Child process of the resume test: pulls a remote database into a store file and prints one
line per checkpointed batch (``checkpoint <last_seq>``), slowly, until it is killed."""

from __future__ import annotations

import sys
import time

from storyloom.store import Database
from storyloom.sync import RemoteDatabase, ReplicationOptions, SyncEvent, pull


def main() -> int:
    url, user, password, store_path = sys.argv[1:5]
    db = Database(store_path)
    remote = RemoteDatabase(url, username=user, password=password)

    def on_event(event: SyncEvent) -> None:
        if event.type == "change":
            print(f"checkpoint {event.status.last_seq}", flush=True)
            time.sleep(0.05)  # leave the parent time to kill us mid-pull

    status = pull(remote, db, ReplicationOptions(batch_size=100), on_event=on_event)
    print(f"done {status.state}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
