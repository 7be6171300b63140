from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from storyloom.project.dates import DateFormatError, format_iso, is_iso_utc, normalise_date, now_iso, parse_date


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # JS Date.toString(), offsets applied, zone name ignored
        ("Tue Mar 30 2021 20:08:49 GMT-0300 (Argentina Standard Time)", "2021-03-30T23:08:49.000Z"),
        ("Sun Mar 28 2021 22:08:22 GMT+0300 (Eastern European Summer Time)", "2021-03-28T19:08:22.000Z"),
        ("Tue Feb 23 2021 10:00:00 GMT-0300 (Hora estándar de Argentina)", "2021-02-23T13:00:00.000Z"),
        ("Sat Dec 31 2022 23:30:00 GMT-0100", "2023-01-01T00:30:00.000Z"),
        # ISO-8601
        ("2026-02-19T16:41:59.161Z", "2026-02-19T16:41:59.161Z"),
        ("2026-02-19T16:41:59Z", "2026-02-19T16:41:59.000Z"),
        ("2026-02-19T13:41:59.161-03:00", "2026-02-19T16:41:59.161Z"),
        ("2026-02-19T16:41:59", "2026-02-19T16:41:59.000Z"),
        # epoch milliseconds
        (1771519319161, "2026-02-19T16:41:59.161Z"),
        (1738163920874.0, "2025-01-29T15:18:40.874Z"),
        ("1771519319161", "2026-02-19T16:41:59.161Z"),
    ],
)
def test_three_formats_normalise_to_iso_utc(value: object, expected: str) -> None:
    assert normalise_date(value) == expected
    assert is_iso_utc(expected)


@pytest.mark.parametrize("value", ["", "yesterday", "Foo Bar 99 2021 10:00:00", None, True, [1]])
def test_non_dates_are_refused(value: object) -> None:
    with pytest.raises(DateFormatError):
        normalise_date(value)


def test_now_and_format() -> None:
    assert is_iso_utc(now_iso())
    assert format_iso(datetime(2021, 1, 2, 3, 4, 5, 678_999, tzinfo=UTC)) == "2021-01-02T03:04:05.678Z"
    assert not is_iso_utc("2021-01-02T03:04:05+00:00")
    assert not is_iso_utc(1234)


@pytest.mark.parametrize(
    "value",
    [
        1e20, -1e20, 10**30, -(10**30), 10**400, math.nan, math.inf, -math.inf, 1e300,
        "0001-01-01T00:00:00+01:00",  # before year 1 once moved to UTC
        "9999-12-31T23:59:59-01:00",  # after year 9999 once moved to UTC
        "Fri Dec 31 9999 23:30:00 GMT-0100",
        "Tue Mar 30 2021 20:08:49 GMT-9900",  # an offset no time zone has
    ],
)
def test_dates_no_calendar_holds_are_date_format_errors(value: object) -> None:
    """Not OverflowError, OSError or ValueError from datetime: the import catches DateFormatError."""
    with pytest.raises(DateFormatError, match=r"not a date|invalid date") as info:
        parse_date(value)
    assert type(info.value) is DateFormatError
    assert len(str(info.value)) < 200  # a huge number is not printed in full
    with pytest.raises(DateFormatError):
        normalise_date(value)


def test_the_calendar_limits_are_dates() -> None:
    assert normalise_date(-62135596800000) == "0001-01-01T00:00:00.000Z"  # year 1, written with 4 digits
    assert is_iso_utc(normalise_date(-62135596800000))
    assert normalise_date(253402300799999) == "9999-12-31T23:59:59.999Z"
    assert normalise_date("99999999999999") == "5138-11-16T09:46:39.999Z"
    assert format_iso(datetime(5, 6, 7, tzinfo=UTC)) == "0005-06-07T00:00:00.000Z"
    assert normalise_date(0) == "1970-01-01T00:00:00.000Z"
