"""Parsing and checking the string formats of the wire: date, date-time, email, uri.

Written here rather than delegated to ``date.fromisoformat``, whose accepted forms differ
between Python versions (3.11 also takes ``20240131`` and week dates, which are not the
RFC 3339 ``full-date`` a client is asked for).
"""

from __future__ import annotations

import datetime as dt
import re

# re.ASCII: \d must not match other scripts' digits, which int() would then accept.
DATE_SHAPE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_DATETIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?"
    r"(?:([Zz])|([+-])(\d{2}):(\d{2}))?",
    re.ASCII,
)
_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(?:\.[^@\s.]+)+")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:(?://[^\s/?#]+\S*|(?!//)\S+)", re.ASCII)
_MAX_EMAIL_LENGTH = 254  # RFC 5321 path limit


def parse_date(text: str) -> dt.date:
    """Parse an RFC 3339 ``full-date`` (``2024-12-31``).

    Raises:
        ValueError: ``text`` is not such a date, or names a day that does not exist.
    """
    if DATE_SHAPE.fullmatch(text) is None:
        raise ValueError(text)
    # Safe now: every Python from 3.7 on parses exactly this shape the same way.
    return dt.date.fromisoformat(text)


def parse_datetime(text: str) -> dt.datetime:
    """Parse an RFC 3339 ``date-time``; the seconds and the offset may be left out.

    With an offset (``Z`` or ``+02:00``) the result is aware; without one it is naive, as
    the client sent it (HTML ``datetime-local`` inputs send no offset).

    Raises:
        ValueError: ``text`` is not such a date-time, or names a time that does not exist.
    """
    match = _DATETIME.fullmatch(text)
    if match is None:
        raise ValueError(text)
    year, month, day, hour, minute, second, fraction, zulu, sign, off_h, off_m = match.groups()
    tzinfo: dt.tzinfo | None = None
    if zulu:
        tzinfo = dt.timezone.utc
    elif sign:
        if int(off_h) > 23 or int(off_m) > 59:
            raise ValueError(text)
        offset = dt.timedelta(hours=int(off_h), minutes=int(off_m))
        tzinfo = dt.timezone(-offset if sign == "-" else offset)
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    return dt.datetime(
        int(year), int(month), int(day), int(hour), int(minute), int(second or 0), micro, tzinfo
    )


def is_email(text: str) -> bool:
    """Tell whether ``text`` looks like ``name@example.com``."""
    return len(text) <= _MAX_EMAIL_LENGTH and _EMAIL.fullmatch(text) is not None


def is_uri(text: str) -> bool:
    """Tell whether ``text`` is an absolute URI with a scheme (``https://example.com``)."""
    return _URI.fullmatch(text) is not None
