"""``/db-dump``: the store's CouchDB ``_all_docs``, streamed from one producer thread."""

from __future__ import annotations

import queue
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
from fastapi import Query, Request
from starlette.responses import Response, StreamingResponse

from storyloom.api.openapi import BOOLEAN_PATTERN, COMMON, INTEGER_PATTERN, error_responses
from storyloom.api.query import parse_all_docs_query
from storyloom.api.responses import StreamCut, no_body, store_api_error
from storyloom.api.state import State, route
from storyloom.store.errors import StoreError

CHUNK_BYTES = 64 * 1024  # /db-dump hands the response over in pieces of about this size


def _bool(name: str, default: bool | None = None) -> Any:
    shown = "as CouchDB" if default is None else f"`{str(default).lower()}`"
    text = f"`true` or `false` (any case). Default {shown}."
    return Query(None, alias=name, description=text, json_schema_extra={"pattern": BOOLEAN_PATTERN})


def _json(name: str, what: str) -> Any:
    return Query(None, alias=name, description=f"{what}, as a JSON value (a document id is a JSON string: "
                                                f"`{name}=\"abc\"`).")


@route(
    "/db-dump",
    summary="Every document, as CouchDB `_all_docs`",
    description=(
        "The CouchDB `_all_docs` response of the project's store, streamed. Options and their parsing "
        "are CouchDB's; `include_docs` and `attachments` default to true. `_local` documents never "
        "appear."
    ),
    response_model=None,
    responses={200: {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/AllDocs"}}}},
               **error_responses(*COMMON, 400, 503)},
    tags=["project"],
)
def db_dump(  # noqa: PLR0917 - a FastAPI endpoint: each argument is a query parameter
    request: Request,
    state: State,
    include_docs: str | None = _bool("include_docs", True),
    attachments: str | None = _bool("attachments", True),
    conflicts: str | None = _bool("conflicts", False),
    descending: str | None = _bool("descending", False),
    inclusive_end: str | None = _bool("inclusive_end", True),
    update_seq: str | None = _bool("update_seq", False),
    limit: str | None = Query(None, description="Non-negative integer: at most this many rows.",
                              json_schema_extra={"pattern": INTEGER_PATTERN}),
    skip: str | None = Query(None, description="Non-negative integer: rows to skip first.",
                             json_schema_extra={"pattern": INTEGER_PATTERN}),
    startkey: str | None = _json("startkey", "First id of the range"),
    start_key: str | None = _json("start_key", "Alias of `startkey`"),
    endkey: str | None = _json("endkey", "Last id of the range"),
    end_key: str | None = _json("end_key", "Alias of `endkey`"),
    key: str | None = _json("key", "Only this id"),
    keys: str | None = _json("keys", "Only these ids, a JSON array (rows for unknown ids say so)"),
) -> Response:
    options = parse_all_docs_query(request.query_params.multi_items())
    project = state.project()
    # all_docs_stream opens its own connection and does not check that the store is open;
    # info() does (a closed store must answer 503, not a dump).
    project.db.info()
    return stream_all_docs(project.db, options, head=request.method == "HEAD")


def stream_all_docs(db: Any, options: dict[str, Any], *, head: bool = False) -> Response:
    """Stream ``db.all_docs_stream(**options)`` from one producer thread.

    The generator runs entirely in one thread (SQLite connections and read transactions are bound
    to a thread) and hands chunks over a small bounded queue, so a slow client holds at most a few
    chunks in memory. Errors raised before the first chunk (bad option combinations) become
    answers with their status; the response has not started yet. With ``head``, the dump stops
    after its first chunk (so a HEAD gets the status a GET would) and no body is sent.
    """
    chunks: queue.Queue[Any] = queue.Queue(maxsize=4)
    stop = threading.Event()
    done = object()

    def put(item: Any) -> bool:
        """Hand ``item`` to the consumer unless it went away (``stop``): never blocks for good."""
        while not stop.is_set():
            try:
                chunks.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def hand_over(text: str) -> bool:
        return put(text.encode("utf-8"))

    def produce() -> None:
        iterator: Iterator[str] | None = None
        try:
            iterator = iter(db.all_docs_stream(**options))
            batch: list[str] = []
            size = 0
            for chunk in iterator:
                batch.append(chunk)
                size += len(chunk)
                if size < CHUNK_BYTES:
                    continue
                if not hand_over("".join(batch)):
                    return
                batch, size = [], 0
            if batch and not hand_over("".join(batch)):
                return
            put(done)
        except BaseException as exc:  # noqa: BLE001 - producer thread: handed to the consumer, which raises it
            put(exc)
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()

    threading.Thread(target=produce, name="storyloom-db-dump", daemon=True).start()
    first = chunks.get()
    if isinstance(first, StoreError):
        stop.set()
        raise store_api_error(first)
    if isinstance(first, BaseException):
        stop.set()
        raise first
    if head:
        stop.set()
        return StreamingResponse(no_body(), media_type="application/json")

    async def body() -> AsyncIterator[bytes]:
        item = first
        try:
            while item is not done:
                if isinstance(item, StoreError):
                    raise StreamCut(str(item))
                if isinstance(item, BaseException):
                    raise item
                yield item
                item = chunks.get_nowait() if not chunks.empty() else await anyio.to_thread.run_sync(chunks.get)
        finally:
            stop.set()

    return StreamingResponse(body(), media_type="application/json")
