from __future__ import annotations

import json

import pytest

from storyloom import paths
from storyloom.project.options import DEFAULT_API_PORT, AppOptions, OptionsError, default_username


def test_defaults() -> None:
    options = AppOptions()
    assert options.username == default_username() and options.username
    assert options.api_enabled is False and options.api_key == ""
    assert options.api_port == DEFAULT_API_PORT == 9001


def test_enabling_the_api_with_an_empty_key_generates_a_strong_one() -> None:
    options = AppOptions(username="ana")
    options.enable_api()
    assert options.api_enabled and len(options.api_key) >= 40
    assert AppOptions(username="ana", api_enabled=True).api_key != options.api_key
    kept = AppOptions(username="ana", api_enabled=True, api_key="my-key")
    assert kept.api_key == "my-key"
    old = kept.api_key
    assert kept.regenerate_api_key() != old


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
    assert saved == {"username": "ana", "api_enabled": True, "api_key": options.api_key, "api_port": 9100}
    assert AppOptions.load() == options


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
