"""Timestamps: one format everywhere, ISO-8601 UTC with milliseconds (``2021-03-30T23:08:49.000Z``).

That is JavaScript's ``Date.prototype.toISOString()`` format, which Drafft's newer documents
already use, so imported and native documents look the same. Drafft files mix three formats;
:func:`normalise_date` turns any of them into this one:

- JS ``Date.toString()`` text: ``"Tue Mar 30 2021 20:08:49 GMT-0300 (Argentina Standard Time)"``
  (the offset is applied; the parenthesised zone name is ignored);
- ISO-8601 text, with ``Z``, an offset, or none (taken as UTC), with or without fractions;
- epoch milliseconds (an ``int`` or ``float``, or digit-only text of 11 to 14 digits).

Anything else raises :class:`DateFormatError`, never another exception: text that is no date,
but also numbers no calendar holds (``1e20``, ``NaN``, infinities) and moments outside years
1 to 9999 once moved to UTC.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta, timezone

from storyloom.errors import StoryloomError

_MONTHS = {
    name: index
    for index, name in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), start=1
    )
}

_JS_DATE = re.compile(
    r"^\s*(?:[A-Z][a-z]{2}\s+)?(?P<mon>[A-Z][a-z]{2})\s+(?P<day>\d{1,2})\s+(?P<year>\d{4})\s+"
    r"(?P<h>\d{1,2}):(?P<m>\d{2})(?::(?P<s>\d{2}))?\s*"
    r"(?:(?:GMT|UTC)\s*(?P<off>[+-]\d{2}:?\d{2})?)?\s*(?:\(.*\))?\s*$"
)

# What :func:`is_iso_utc` accepts: the canonical form, with or without fractions.
_ISO_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z$")

_EPOCH_TEXT = re.compile(r"^\d{11,14}$")


class DateFormatError(StoryloomError, ValueError):
    """The value is none of the three date formats."""

    code = "bad_date_format"


def format_iso(moment: datetime) -> str:
    """``moment`` in UTC as ``YYYY-MM-DDTHH:MM:SS.mmmZ`` (naive datetimes are taken as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    moment = moment.astimezone(UTC)
    # The year is padded by hand: ``strftime("%Y")`` writes year 1 as "1", not "0001".
    return f"{moment.year:04d}-" + moment.strftime("%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def now_iso() -> str:
    """The current time, in the canonical format."""
    return format_iso(datetime.now(UTC))


def is_iso_utc(value: object) -> bool:
    """True when ``value`` is ISO-8601 UTC text ending in ``Z`` (what documents store)."""
    return isinstance(value, str) and bool(_ISO_UTC.match(value))


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _from_epoch_millis(millis: int | float, value: object) -> datetime:
    """Epoch milliseconds as an aware UTC datetime; :class:`DateFormatError` for a number that is
    not finite or falls outside the years 1 to 9999 (where ``datetime`` would raise
    OverflowError, OSError or ValueError, depending on the platform and the size)."""
    if isinstance(millis, float) and not math.isfinite(millis):
        raise DateFormatError(f"not a date: {_short(value)} (not a finite number)")
    try:
        return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=millis)
    except (OverflowError, OSError, ValueError):
        raise DateFormatError(
            f"not a date: {_short(value)} (as epoch milliseconds it falls outside the years 1 to 9999)"
        ) from None


def _to_utc(moment: datetime, value: object) -> datetime:
    try:
        return moment.astimezone(UTC)
    except (OverflowError, OSError, ValueError):
        raise DateFormatError(f"not a date: {_short(value)} (outside the years 1 to 9999 in UTC)") from None


def parse_date(value: object) -> datetime:
    """Parse any of the three formats to an aware UTC datetime; :class:`DateFormatError` otherwise
    (and for no other exception: out-of-range and non-finite numbers are DateFormatError too)."""
    if isinstance(value, bool):
        raise DateFormatError(f"not a date: {value!r}")
    if isinstance(value, int | float):
        return _from_epoch_millis(value, value)
    if not isinstance(value, str) or not value.strip():
        raise DateFormatError(f"not a date: {value!r}")
    text = value.strip()
    if _EPOCH_TEXT.match(text):
        return _from_epoch_millis(int(text), value)
    match = _JS_DATE.match(text)
    if match:
        month = _MONTHS.get(match["mon"])
        if month is None:
            raise DateFormatError(f"unknown month in date {value!r}")
        offset = timedelta(0)
        if match["off"]:
            digits = match["off"].replace(":", "")
            sign = -1 if digits[0] == "-" else 1
            offset = sign * timedelta(hours=int(digits[1:3]), minutes=int(digits[3:5]))
        try:
            local = datetime(
                int(match["year"]), month, int(match["day"]), int(match["h"]), int(match["m"]),
                int(match["s"] or 0), tzinfo=timezone(offset),
            )
        except ValueError as exc:
            raise DateFormatError(f"invalid date {value!r}: {exc}") from None
        return _to_utc(local, value)
    iso = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        raise DateFormatError(
            f"not a date: {value!r} (expected ISO-8601, a JS Date string or epoch milliseconds)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return _to_utc(moment, value)


def normalise_date(value: object) -> str:
    """Any of the three formats as canonical ISO-8601 UTC text."""
    return format_iso(parse_date(value))
