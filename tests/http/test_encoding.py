"""Accept-Encoding as RFC 9110 §12.5.3 reads it: whether gzip may be sent (cases as data)."""

from __future__ import annotations

import pytest

from shared.app.http.encoding import accepts_gzip

CASES = [
    (None, False),
    ("", False),
    ("identity", False),
    ("br", False),
    ("gzip", True),
    ("GZip", True),
    ("x-gzip", True),
    ("gzip, deflate, br, zstd", True),
    ("deflate, gzip;q=0.5", True),
    ("gzip;q=0", False),
    ("gzip; q=0.000", False),
    ("gzip;q=nonsense", False),
    ("*", True),
    ("*;q=0", False),
    ("*;q=0, gzip", True),  # named beats the wildcard, whichever comes first
    ("gzip;q=0, *", False),
    ("br, *;q=0.1", True),
]


@pytest.mark.parametrize(("header", "expected"), CASES)
def test_gzip_is_acceptable_only_as_the_header_says(header: str | None, expected: bool) -> None:
    assert accepts_gzip(header) is expected
