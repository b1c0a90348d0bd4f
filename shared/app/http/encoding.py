"""Content codings a client accepts (RFC 9110 §12.5.3): one reading of `Accept-Encoding` for
every answer we may compress (the browser client's files, entrypoints/web.py; the API's JSON
reads, shared/app/http/etag.py)."""

from __future__ import annotations


def _quality(params: str) -> float:
    for param in params.split(";"):
        name, _, value = param.strip().partition("=")
        if name.strip().lower() == "q":
            try:
                return float(value.strip())
            except ValueError:
                return 0.0  # a weight that is no number: not taken as acceptance
    return 1.0


def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether `gzip` is acceptable: named with a weight above 0, or, not named, `*` is."""
    if not accept_encoding:
        return False
    star: float | None = None
    for part in accept_encoding.split(","):
        coding, _, params = part.strip().partition(";")
        coding = coding.strip().lower()
        if coding in {"gzip", "x-gzip"}:
            return _quality(params) > 0
        if coding == "*":
            star = _quality(params)
    return star is not None and star > 0
