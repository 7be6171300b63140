from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from storyloom import paths
from storyloom.app.options import (
    DEFAULT_ANSWER_CACHE_MB,
    DEFAULT_API_PORT,
    DEFAULT_BACKUPS_KEEP,
    AppOptions,
    OptionsError,
    default_username,
    generate_api_key,
)


def test_defaults() -> None:
    options = AppOptions()
    assert options.username == default_username() and options.username
    assert options.api_enabled is False and options.api_key == ""
    assert options.api_port == DEFAULT_API_PORT == 9001
    assert options.api_answer_cache_mb == DEFAULT_ANSWER_CACHE_MB == 64
    assert options.auto_backups_keep == DEFAULT_BACKUPS_KEEP == 10


def test_enabling_the_api_with_an_empty_key_generates_a_strong_one() -> None:
    options = AppOptions(username="ana")
    options.enable_api()
    assert options.api_enabled and len(options.api_key) >= 40
    assert AppOptions(username="ana", api_enabled=True).api_key != options.api_key
    kept = AppOptions(username="ana", api_enabled=True, api_key="my-key-of-16-chars")
    assert kept.api_key == "my-key-of-16-chars"
    old = kept.api_key
    assert kept.regenerate_api_key() != old


def test_a_typed_key_needs_16_characters_and_the_refusal_never_shows_it() -> None:
    from storyloom.app.options import ApiKeyError

    options = AppOptions(username="ana", api_key="the-previous-key-0001")
    for short in ("abc", "  fifteen-chars-  "):
        with pytest.raises(ApiKeyError) as info:
            options.set_api_key(short)
        assert isinstance(info.value, OptionsError) and info.value.field == "api_key"
        assert str(info.value).startswith(f"the API key is too short ({len(short.strip())} characters)")
        assert short.strip() not in str(info.value)
        assert options.api_key == "the-previous-key-0001"
    options.set_api_key("  sixteen-chars-00  ")  # 16 once the surrounding spaces are dropped
    assert options.api_key == "sixteen-chars-00"
    options.set_api_key("")  # none: one is generated when the API is enabled
    options.enable_api()
    assert len(options.api_key) >= 43


def test_a_short_key_already_saved_still_loads_so_it_can_be_replaced() -> None:
    AppOptions.path().parent.mkdir(parents=True, exist_ok=True)
    AppOptions.path().write_text(json.dumps({"username": "ana", "api_enabled": True, "api_key": "short"}))
    options = AppOptions.load()
    assert options.api_key == "short"
    options.regenerate_api_key()
    options.save()
    assert len(AppOptions.load().api_key) >= 43


@pytest.mark.parametrize("port", [0, -1, 65536, "9001", True, 90.5])
def test_port_range_is_checked(port: object) -> None:
    with pytest.raises(OptionsError) as info:
        AppOptions(username="ana", api_port=port)  # type: ignore[arg-type]
    assert info.value.field == "api_port"
    assert "1 to 65535" in str(info.value)
    options = AppOptions(username="ana")
    with pytest.raises(OptionsError):
        options.set_port(70000)
    assert options.api_port == 9001
    options.set_port(8080)
    assert options.api_port == 8080


def test_save_and_load_in_the_config_dir() -> None:
    assert AppOptions.load() == AppOptions()
    options = AppOptions(username="ana", api_enabled=True, api_port=9100)
    file = options.save()
    assert file.parent == paths.config_dir()
    saved = json.loads(file.read_text())
    assert saved == {"username": "ana", "api_enabled": True, "api_key": options.api_key, "api_port": 9100,
                     "api_answer_cache_mb": 64, "auto_backups_keep": 10, "theme": "system",
                     "editor_font_family": "", "editor_font_size": 0}
    assert AppOptions.load() == options
    options.set_answer_cache_mb(0)
    options.save()
    assert json.loads(file.read_text())["api_answer_cache_mb"] == 0
    assert AppOptions.load().api_answer_cache_mb == 0


@pytest.mark.parametrize("megabytes", [0, 1, 128, 4096])
def test_the_answer_cache_takes_whole_megabytes_from_0_to_4096(megabytes: int) -> None:
    assert AppOptions(username="ana", api_answer_cache_mb=megabytes).api_answer_cache_mb == megabytes


@pytest.mark.parametrize("megabytes", [-1, 4097, 2**40, 64.0, 12.5, "64", True, None])
def test_a_wrong_answer_cache_size_says_what_is_expected(megabytes: object) -> None:
    with pytest.raises(OptionsError) as info:
        AppOptions(username="ana", api_answer_cache_mb=megabytes)  # type: ignore[arg-type]
    assert info.value.field == "api_answer_cache_mb"
    assert str(info.value) == (
        "api_answer_cache_mb: expected a whole number of MiB from 0 to 4096 (0 keeps no answers: each "
        f"request builds its export), got {megabytes!r}"
    )
    options = AppOptions(username="ana", api_answer_cache_mb=32)
    with pytest.raises(OptionsError):
        options.set_answer_cache_mb(megabytes)  # type: ignore[arg-type]
    assert options.api_answer_cache_mb == 32


@pytest.mark.parametrize("count", [0, 1, 10, 1000])
def test_the_automatic_backups_kept_are_a_whole_number_from_0_to_1000(count: int) -> None:
    options = AppOptions(username="ana", auto_backups_keep=count)
    assert options.auto_backups_keep == count
    options.save()
    assert AppOptions.load().auto_backups_keep == count


@pytest.mark.parametrize("count", [-1, 1001, 2.0, "10", True, None])
def test_a_wrong_number_of_backups_says_what_is_expected(count: object) -> None:
    with pytest.raises(OptionsError) as info:
        AppOptions(username="ana", auto_backups_keep=count)  # type: ignore[arg-type]
    assert info.value.field == "auto_backups_keep"
    assert str(info.value) == (
        f"auto_backups_keep: expected a whole number from 0 to 1000 (0 turns automatic backups off), got {count!r}"
    )
    options = AppOptions(username="ana", auto_backups_keep=3)
    with pytest.raises(OptionsError):
        options.set_backups_keep(count)  # type: ignore[arg-type]
    assert options.auto_backups_keep == 3


def test_an_options_file_from_before_the_answer_cache_loads_with_its_default() -> None:
    AppOptions.path().write_text(json.dumps({"username": "ana", "api_enabled": False, "api_key": "",
                                             "api_port": 9100}))
    options = AppOptions.load()
    assert options.api_port == 9100 and options.api_answer_cache_mb == 64 and options.auto_backups_keep == 10
    AppOptions.path().write_text(json.dumps({"username": "ana", "api_answer_cache_mb": -5}))
    with pytest.raises(OptionsError) as info:
        AppOptions.load()
    assert info.value.field == "api_answer_cache_mb" and "got -5" in str(info.value)


def test_a_broken_options_file_is_a_clear_error() -> None:
    AppOptions.path().write_text("{not json")
    with pytest.raises(OptionsError) as info:
        AppOptions.load()
    assert "options.json" in str(info.value)
    AppOptions.path().write_text(json.dumps({"username": "ana", "api_port": 99999}))
    with pytest.raises(OptionsError) as info:
        AppOptions.load()
    assert info.value.field == "api_port"
    AppOptions.path().write_text(json.dumps({"username": "ana", "future_option": 1}))
    assert AppOptions.load().username == "ana"


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_the_options_file_is_never_readable_by_others(monkeypatch: pytest.MonkeyPatch) -> None:
    """The file holds the API key: it is created 0600, not created with the umask's mode and
    narrowed afterwards (a window in which others could read the key)."""
    seen: list[tuple[str, str, int]] = []
    real_chmod, real_replace = os.chmod, os.replace

    def spy_chmod(path: Any, mode: int, *args: Any, **kwargs: Any) -> None:
        seen.append(("chmod", str(path), _mode(path)))
        real_chmod(path, mode, *args, **kwargs)

    def spy_replace(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        seen.append(("replace", str(src), _mode(src)))
        real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "chmod", spy_chmod)
    monkeypatch.setattr(os, "replace", spy_replace)
    old_umask = os.umask(0)  # the most open umask: whatever is not asked for explicitly is 0666
    try:
        options = AppOptions(username="ana", api_enabled=True)
        file = options.save()
        AppOptions.path().chmod(0o644)  # a file left by an older version...
        options.regenerate_api_key()
        assert options.save() == file  # ...is replaced by a 0600 one
    finally:
        os.umask(old_umask)
    assert seen, "the save went through neither os.replace nor os.chmod"
    assert [(what, mode) for what, _, mode in seen if mode != 0o600] == []
    assert _mode(file) == 0o600
    assert AppOptions.load() == options
    assert sorted(p.name for p in file.parent.iterdir()) == ["options.json"]  # no temporary file left


def test_a_failed_save_keeps_the_previous_file_and_leaves_no_temporary_file(monkeypatch: pytest.MonkeyPatch) -> None:
    AppOptions(username="ana").save()

    def broken_replace(*args: Any, **kwargs: Any) -> None:
        raise OSError("disk full")

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", broken_replace)
        with pytest.raises(OSError, match="disk full"):
            AppOptions(username="bob").save()
    assert AppOptions.load().username == "ana"
    assert sorted(p.name for p in AppOptions.path().parent.iterdir()) == ["options.json"]


def test_generate_api_key_is_the_options_key_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("storyloom.app.options.generate_api_key", lambda: "from-the-one-generator")
    assert AppOptions(username="ana", api_enabled=True).api_key == "from-the-one-generator"
    assert len(generate_api_key()) >= 40 and generate_api_key() != generate_api_key()


def test_the_theme_and_the_editor_font_default_to_the_systems() -> None:
    options = AppOptions(username="ana")
    assert (options.theme, options.editor_font_family, options.editor_font_size) == ("system", "", 0)


@pytest.mark.parametrize("theme", ["system", "light", "dark"])
def test_a_theme_is_saved_and_loaded(theme: str) -> None:
    options = AppOptions(username="ana")
    options.set_theme(theme)
    options.save()
    assert AppOptions.load().theme == theme


def test_a_wrong_theme_is_refused_and_the_previous_one_stays() -> None:
    options = AppOptions(username="ana", theme="dark")
    with pytest.raises(OptionsError) as info:
        options.set_theme("blue")
    assert info.value.field == "theme" and options.theme == "dark"
    with pytest.raises(OptionsError):
        AppOptions(username="ana", theme="sepia")


def test_the_editor_font_is_a_family_and_a_size_in_points() -> None:
    options = AppOptions(username="ana")
    options.set_editor_font("  JetBrains Mono ", 14)
    options.save()
    loaded = AppOptions.load()
    assert (loaded.editor_font_family, loaded.editor_font_size) == ("JetBrains Mono", 14)


@pytest.mark.parametrize("size", [-1, 3, 49, 12.5, True, "12"])
def test_a_wrong_editor_font_size_is_refused_and_the_font_stays(size: object) -> None:
    options = AppOptions(username="ana", editor_font_family="Mono", editor_font_size=11)
    with pytest.raises(OptionsError) as info:
        options.set_editor_font("Other", size)  # type: ignore[arg-type]
    assert info.value.field == "editor_font_size"
    assert (options.editor_font_family, options.editor_font_size) == ("Mono", 11)
