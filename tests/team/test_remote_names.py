"""Remote settings input rules: database names, the default name, server URLs, user names, and
the settings themselves (issue 10, "Remote replication settings")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from storyloom.app.remote import build_settings
from storyloom.project.remote_settings import RemoteSettings, RemoteSettingsError, default_database_name
from storyloom.sync import InvalidRemote, validate_db_name
from storyloom.sync.urls import (
    check_server_url,
    check_username,
    insecure_http_warning,
    normalize_database_name,
    parse_remote_url,
)

# -- database names ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a", "story", "my_db", "a$b", "a(b)", "a+b", "a-b", "a/b", "x9", "app_v2_demo"])
def test_valid_names_pass_unchanged(name: str) -> None:
    assert normalize_database_name(name) == (name, [])


def test_uppercase_is_converted_and_said() -> None:
    name, notes = normalize_database_name("MyStory")
    assert name == "mystory"
    assert len(notes) == 1 and "lowercase" in notes[0] and "'MyStory'" in notes[0] and "'mystory'" in notes[0]


@pytest.mark.parametrize(
    ("name", "char", "position"),
    [
        ("my db", "a space", 3),
        ("team@home", "'@'", 5),
        ("wow!", "'!'", 4),
        ("café", "'é'", 4),
        ("Été", "'É'", 1),
        ("a.b", "'.'", 2),
        ("a\tb", "U+0009", 2),
    ],
)
def test_other_characters_are_refused_with_their_position(name: str, char: str, position: int) -> None:
    with pytest.raises(InvalidRemote) as info:
        normalize_database_name(name)
    message = str(info.value)
    assert char in message
    assert f"position {position}" in message
    assert "lowercase" in message  # the rule is stated


@pytest.mark.parametrize(("name", "first"), [("9lives", "'9'"), ("_users", "'_'"), ("$x", "'$'"), ("-a", "'-'")])
def test_names_must_start_with_a_lowercase_letter(name: str, first: str) -> None:
    with pytest.raises(InvalidRemote, match="position 1") as info:
        normalize_database_name(name)
    assert f"starts with {first}" in str(info.value)


def test_empty_name_is_refused() -> None:
    with pytest.raises(InvalidRemote, match="empty"):
        normalize_database_name("")


def test_validate_db_name_keeps_working_for_its_callers() -> None:
    assert validate_db_name("_users") == "_users"  # system databases stay addressable by URL
    with pytest.raises(InvalidRemote, match="did you mean 'story'"):
        validate_db_name("Story")
    assert parse_remote_url("http://127.0.0.1:5984/a%2Fb").db_name == "a/b"


# -- the default name ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("project", "expected"),
    [
        ("Demo", "app_v2_demo"),
        ("The Lighthouse Keeper", "app_v2_the_lighthouse_keeper"),
        ("1984", "app_v2_1984"),
        ("Ça va? (v2)", "app_v2__a_va__(v2)"),
        ("a+b-c/d$e", "app_v2_a+b-c/d$e"),
        ("  ", "app_v2_project"),
    ],
)
def test_default_database_name(project: str, expected: str) -> None:
    assert default_database_name(project) == expected


@given(st.text(max_size=300))
def test_default_database_name_is_always_valid(project: str) -> None:
    name = default_database_name(project)
    assert validate_db_name(name) == name
    assert normalize_database_name(name) == (name, [])
    assert name.startswith("app_v2_") and len(name) <= 200


# -- server URLs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("ftp://couch.example.com", "'ftp://'"),
        ("couchdb://couch.example.com", "'couchdb://'"),
        ("file:///tmp/x", "'file://'"),
        ("couch.example.com:5984", "no scheme"),
        ("", "empty"),
        ("http://", "no host"),
        ("https://alice:pw@couch.example.com", "remove the user name and password"),
        ("https://couch.example.com/?x=1", "query string"),
    ],
)
def test_bad_server_urls_say_what_is_wrong(url: str, fragment: str) -> None:
    with pytest.raises(InvalidRemote) as info:
        check_server_url(url)
    assert fragment in str(info.value)
    assert "pw" not in str(info.value).replace("password", "")


def test_remote_url_scheme_error_names_the_scheme() -> None:
    with pytest.raises(InvalidRemote, match="'ftp://'"):
        parse_remote_url("ftp://host/db")


@pytest.mark.parametrize(
    ("url", "normalized"),
    [
        ("https://Couch.Example.com/", "https://couch.example.com"),
        ("http://127.0.0.1:5984", "http://127.0.0.1:5984"),
        ("http://localhost:5984/couch/", "http://localhost:5984/couch"),
        ("HTTP://[::1]:5984", "http://[::1]:5984"),
    ],
)
def test_server_urls_are_normalized_and_loopback_http_is_quiet(url: str, normalized: str) -> None:
    assert check_server_url(url) == (normalized, [])


@pytest.mark.parametrize("url", ["http://couch.example.com", "http://10.0.0.5:5984", "http://192.168.1.2/couch"])
def test_plain_http_to_another_machine_warns_and_advises_https(url: str) -> None:
    normalized, warnings = check_server_url(url)
    assert normalized == url
    assert len(warnings) == 1 and "https://" in warnings[0] and "unencrypted" in warnings[0]
    assert insecure_http_warning("https" + url[4:]) is None


# -- user names and the settings -----------------------------------------------------------------


@pytest.mark.parametrize(("name", "fragment"), [("", "empty"), ("a:b", "':' at position 2"), ("_x", "'_'"),
                                                 (" bob", "space"), ("a\nb", "control")])
def test_bad_user_names(name: str, fragment: str) -> None:
    with pytest.raises(InvalidRemote, match=fragment):
        check_username(name)


def test_build_settings_collects_notes_and_warnings() -> None:
    settings, notes = build_settings("Big Story", server="http://couch.example.com:5984/", username="alice")
    assert settings == RemoteSettings(True, "http://couch.example.com:5984", "app_v2_big_story", "alice")
    assert settings.database_url == "http://couch.example.com:5984/app_v2_big_story"
    assert any("app_v2_big_story" in n for n in notes)
    assert any(n.startswith("warning: ") and "https://" in n for n in notes)
    settings, notes = build_settings("x", server="https://h", username="bob", database="Team/Story",
                                     mode="advanced", interval=5, live=True)
    assert (settings.database, settings.mode, settings.interval, settings.live) == ("team/story", "advanced", 5.0, True)
    assert settings.database_url == "https://h/team%2Fstory"
    assert notes == ["the database name was converted to lowercase: 'Team/Story' becomes 'team/story'"]


@pytest.mark.parametrize("changes", [{"mode": "expert"}, {"interval": 0}, {"interval": -3}, {"interval": float("nan")},
                                     {"server": ""}, {"username": ""}])
def test_settings_refuse_nonsense(changes: dict[str, object]) -> None:
    fields: dict[str, object] = {"enabled": True, "server": "https://h", "database": "d", "username": "u", **changes}
    with pytest.raises(RemoteSettingsError):
        RemoteSettings(**fields)  # type: ignore[arg-type]
