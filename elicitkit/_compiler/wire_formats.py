"""Parsing and checking the string formats of the wire: date, date-time, email, uri.

A client's answer is untrusted and decoded on the server's event loop, so every check here
runs in time linear in the length of the text, whatever it contains: lengths are checked
before anything else, and the only regular expressions are single character classes
(scanned once) or fixed-shape patterns that fail within a bounded number of steps.

Written here rather than delegated to ``date.fromisoformat``, whose accepted forms differ
between Python versions (3.11 also takes ``20240131`` and week dates, which are not the
RFC 3339 ``full-date`` a client is asked for).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
from collections.abc import Callable

from pydantic_core import SchemaError, SchemaValidator, ValidationError, core_schema

# re.ASCII: \d must not match other scripts' digits, which int() would then accept.
DATE_SHAPE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_DATETIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?"
    r"(?:([Zz])|([+-])(\d{2}):(\d{2}))?",
    re.ASCII,
)
_DATE_LENGTH = 10
_MAX_DATETIME_LENGTH = 35  # 2024-12-31T18:30:00.123456789+02:00
_MAX_EMAIL_LENGTH = 254  # RFC 5321 path limit

# Characters no form answer should carry, whatever the field: C0 and C1 controls, the
# bidirectional marks, embeddings, overrides and isolates (they make "evil.com/gpj.exe"
# display as "evil.com/exe.jpg"), and surrogates, which are not text (no UTF-8 encoder
# accepts them). One character class: a single linear scan.
ODD_CHARACTER = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_SURROGATE = re.compile("[\ud800-\udfff]")

# RFC 3986 characters outside percent-encodings, by where they may appear. Non-ASCII
# characters are allowed everywhere but the scheme, as in RFC 3987 IRIs (people paste
# https://de.wikipedia.org/wiki/München); ODD_CHARACTER still refuses the unsafe ones.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*", re.ASCII)
_NOT_URI_CHARACTER = re.compile(r"[^A-Za-z0-9\-._~!$&'()*+,;=:@/?#%\[\]\u00a0-\U0010ffff]")
_PORT = re.compile(r"[0-9]+", re.ASCII)
_URI_BYTES = (
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?#%[]"
)
_IP_FUTURE = re.compile(r"v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+", re.ASCII)
_SPACE = re.compile(r"\s")
_HEX = frozenset("0123456789abcdefABCDEF")


def parse_date(text: str) -> dt.date:
    """Parse an RFC 3339 ``full-date`` (``2024-12-31``).

    Raises:
        ValueError: ``text`` is not such a date, or names a day that does not exist.
    """
    if len(text) != _DATE_LENGTH or DATE_SHAPE.fullmatch(text) is None:
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
    match = _DATETIME.fullmatch(text) if len(text) <= _MAX_DATETIME_LENGTH else None
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


def has_surrogate(text: str) -> bool:
    """Tell whether ``text`` holds a surrogate code point, which no UTF-8 encoder accepts."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def is_email(text: str) -> bool:
    """Tell whether ``text`` looks like ``name@example.com``.

    One ``@``; a non-empty local part; a domain of at least two non-empty dot-separated
    labels; no white space, controls or bidirectional formatting characters; at most 254
    characters (checked first, so the rest costs a bounded amount).
    """
    if len(text) > _MAX_EMAIL_LENGTH or ODD_CHARACTER.search(text) is not None:
        return False
    local, at, domain = text.partition("@")
    if not at or not local or "@" in domain or any(char.isspace() for char in text):
        return False
    labels = domain.split(".")
    return len(labels) >= 2 and all(labels)


def is_uri(text: str) -> bool:
    """Tell whether ``text`` is an absolute URI (RFC 3986 ``URI``), such as ``https://a.b``.

    The authority may be empty (``file:///etc/hosts``), and non-ASCII characters are
    accepted outside the scheme, as in RFC 3987 IRIs. Linear: one scan for characters
    that may not appear at all, one for ``%`` escapes, then searches between known
    positions. Positions rather than slices, so a megabyte is not copied again and again.
    """
    colon = text.find(":")
    if colon < 1 or _SCHEME.fullmatch(text, 0, colon) is None:
        return False
    if _has_non_uri_character(text) or not _percent_encodings_complete(text):
        return False
    end = len(text)
    fragment = text.find("#", colon)
    if fragment >= 0:
        if text.find("#", fragment + 1) >= 0:
            return False
        end = fragment
    query = text.find("?", colon, end)
    hier_end = query if query >= 0 else end
    path = colon + 1
    if text.startswith("//", path):
        slash = text.find("/", path + 2, hier_end)
        authority_end = slash if slash >= 0 else hier_end
        if not _is_authority(text, path + 2, authority_end):
            return False
        path = authority_end
    # "[" and "]" belong to an IP literal in the authority, nowhere else.
    return text.find("[", path) < 0 and text.find("]", path) < 0


def _has_non_uri_character(text: str) -> bool:
    if text.isascii():
        # bytes.translate deletes the allowed bytes at memory speed, ten times faster
        # than a regular-expression scan; anything left over is not allowed.
        return bool(text.encode("ascii").translate(None, _URI_BYTES))
    return (
        _NOT_URI_CHARACTER.search(text) is not None
        or ODD_CHARACTER.search(text) is not None
        or _SPACE.search(text) is not None
    )


def _percent_encodings_complete(text: str) -> bool:
    # Every % starts a %HH escape. Only the two characters after each % are looked at.
    start = text.find("%")
    while start >= 0:
        if text[start + 1 : start + 2] not in _HEX or text[start + 2 : start + 3] not in _HEX:
            return False
        start = text.find("%", start + 3)
    return True


def _is_authority(text: str, start: int, end: int) -> bool:
    # authority = [ userinfo "@" ] host [ ":" port ], each part possibly empty. The text
    # holds only URI characters by now, and the authority none of "/?#": what is left to
    # refuse is "@" in the userinfo, "[" or "]" outside an IP literal, and a bad port.
    at = text.rfind("@", start, end)
    host = start
    if at >= 0:
        if any(text.find(char, start, at) >= 0 for char in "@[]"):
            return False
        host = at + 1
    if text.startswith("[", host, end):
        close = text.find("]", host, end)
        if close < 0 or not _is_ip_literal(text[host + 1 : close]):
            return False
        port = close + 1
        if port < end and text[port] != ":":
            return False
    else:
        port = text.find(":", host, end)
        if port < 0:
            port = end
        if text.find("[", host, end) >= 0 or text.find("]", host, end) >= 0:
            return False
    return port >= end - 1 or _PORT.fullmatch(text, port + 1, end) is not None


def _is_ip_literal(host: str) -> bool:
    return _is_ipv6(host) or _IP_FUTURE.fullmatch(host) is not None


def _is_ipv6(host: str) -> bool:
    if len(host) > 45:  # the longest IPv6 text form; also bounds the parse below
        return False
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        return False
    return "%" not in host  # RFC 3986 has no zone identifiers


def pattern_matcher(pattern: str) -> Callable[[str], bool]:
    """Compile ``pattern`` for a linear-time search: ``matches(text)`` is ``re.search``-like.

    Python's ``re`` backtracks: ``^(a|aa)+$`` against 30 characters takes a third of a
    second, and each extra character doubles it. pydantic-core's engine (Rust's ``regex``
    crate, which pydantic uses for ``Field(pattern=...)`` by default) runs in time linear
    in the text, at the price of look-around and backreferences.

    Raises:
        ValueError: The pattern is invalid or needs look-around or backreferences; the
            message is the engine's own, naming the feature.
    """
    try:
        validator = SchemaValidator(core_schema.str_schema(pattern=pattern))
    except SchemaError as error:
        # The engine's message ends with the line that says what is wrong, after the
        # pattern with a caret under the culprit; keep that line.
        reason = str(error).strip().splitlines()[-1].strip()
        for prefix in ("SchemaError: ", "error: "):
            reason = reason.removeprefix(prefix)
        raise ValueError(reason.rstrip(".")) from None

    def matches(text: str) -> bool:
        try:
            validator.validate_python(text)
        except ValidationError:
            return False
        return True

    return matches


def sendable_text(text: str) -> str:
    r"""Return ``text`` as every JSON encoder accepts it: without surrogate code points.

    A tool argument can hold a lone surrogate (``"\ud800"``: JSON can spell one, Python
    keeps it), and a message or title that quotes it cannot be encoded as UTF-8, which
    fails the whole response. A surrogate pair written as two code points becomes the one
    character it stands for; a lone surrogate becomes U+FFFD, the replacement character.
    """
    if not has_surrogate(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
