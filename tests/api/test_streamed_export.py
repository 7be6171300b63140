"""``/game-export`` streams its answer: the exact bytes of the built export, over real HTTP, from
the cache or from the spools of a streamed build; the answer cache keeps within its byte bound."""

from __future__ import annotations

import re
from typing import Any

from storyloom.export.answers import AnswerCache, ExportCache
from storyloom.export.game_export import build_game_export, dumps_export
from storyloom.project.collections import EXPORT_NAMES
from tests.api.support import running_server

_EXPORTED_AT = re.compile(r'"exportedAt":"([^"]*)"')


def _expected(project: Any, collections: list[str] | None, exported_at: str) -> bytes:
    export = build_game_export(project, collections, "tester")
    export["_meta"]["exportedAt"] = exported_at
    return dumps_export(export).encode("utf-8")


def _check(answer: Any, project: Any, collections: list[str] | None) -> None:
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert int(answer.headers["content-length"]) == len(answer.content)
    exported_at = _EXPORTED_AT.search(answer.text)
    assert exported_at is not None
    assert answer.content == _expected(project, collections, exported_at.group(1))


def test_streamed_game_export_equals_the_built_one_cached_and_not(garden) -> None:
    everything = ",".join(EXPORT_NAMES)
    # A bound of 0 keeps nothing: every answer comes from the spools of a streamed build.
    for cache_bytes in (None, 0):
        with running_server(garden, answer_cache_bytes=cache_bytes) as api:
            for _ in range(2):  # the second answer of the default bound comes from the cache
                _check(api.get("/game-export"), garden, None)
                _check(api.get("/game-export", params={"collections": everything}), garden, list(EXPORT_NAMES))
            head = api.client.head("/game-export")
            assert head.status_code == 200 and head.content == b""
            assert int(head.headers["content-length"]) == len(api.get("/game-export").content)


def test_game_export_without_a_cache_streams_the_same_bytes(garden) -> None:
    with running_server(garden, exports=ExportCache(reuse=False)) as api:
        _check(api.get("/game-export", params={"collections": "Scripts,Actors"}), garden, ["Scripts", "Actors"])


def test_answer_cache_keeps_within_its_byte_bound() -> None:
    cache = AnswerCache(max_bytes=100, max_entries=8)
    built: list[str] = []

    def builder(name: str, size: int):
        def build() -> tuple[bytes, int]:
            built.append(name)
            return b"x" * size, size
        return build

    for index in range(6):
        cache.get_or_build(f"k{index}", builder(f"k{index}", 40))
        assert cache.held_bytes <= 100
    assert cache.held_bytes == 80  # the two most recent answers of 40 bytes fit, no third
    cache.get_or_build("k5", builder("k5", 40))  # kept: no rebuild
    cache.get_or_build("big", builder("big", 101))  # larger than the bound: answered, never kept
    cache.get_or_build("big", builder("big", 101))
    assert built.count("k5") == 1 and built.count("big") == 2
    assert cache.held_bytes == 80


def test_a_served_project_keeps_at_most_the_bound_in_its_cache(garden) -> None:
    exports = ExportCache(max_bytes=64 * 1024)
    with running_server(garden, exports=exports) as api:
        for collections in (None, "Scripts", "Actors", "Items", "Scripts,Actors", ",".join(EXPORT_NAMES)):
            params = {"collections": collections} if collections else {}
            assert api.get("/game-export", params=params).status_code == 200
            assert api.get("/schema-export", params=params).status_code == 200
            assert exports.max_bytes == 64 * 1024 and exports.held_bytes <= 64 * 1024


def test_an_export_too_large_to_keep_is_answered_from_its_spools_until_a_change(garden, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import threading

    from storyloom.export import answers as answers_module  # the cache builds through its import

    builds: list[int] = []
    real = answers_module.stream_game_export

    def counting(*args: Any, **kwargs: Any) -> Any:
        builds.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(answers_module, "stream_game_export", counting)
    with running_server(garden, answer_cache_bytes=0) as api:
        answers: list[Any] = []

        def fetch() -> None:
            answers.append(api.get("/game-export", params={"collections": "Scripts,Items"}))

        threads = [threading.Thread(target=fetch) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        fetch()
        assert len(answers) == 5
        for answer in answers:
            _check(answer, garden, ["Scripts", "Items"])
        assert len(builds) == 1  # one build, answered five times from its spools
        item = next(row["doc"] for row in garden.store.all_docs(include_docs=True)["rows"]
                    if row["doc"].get("type") == "Item")
        item["name"] = "Changed"
        garden.store.put(item)
        changed = api.get("/game-export", params={"collections": "Scripts,Items"})
        _check(changed, garden, ["Scripts", "Items"])
        assert b'"name":"Changed"' in changed.content and len(builds) == 2
