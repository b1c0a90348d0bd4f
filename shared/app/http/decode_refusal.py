"""msgspec's refusal of a value (its English, `str(exc)`) read once: where, and what it broke.

msgspec says why it refused a value in English only ("Expected `int` <= 19 - at `$.seat`").
Two edges turn that into the catalogue's words: a request body's 422 (shared.app.http.strict)
and an export's event that is not a possible one (shared.app.ops.export_read). Both read it
here, each saying what it knows how to say; a message read as none of these is `other`.
A kind msgspec names (`int`, `str | null`) is said in words by `kind_words`, for both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from shared.domain.messages import CATALOGUE, Said

Reading = Literal[
    "unknown_field", "missing", "bound", "length", "pattern", "kind", "value", "other"
]

# the place: `$.seat`, `$.computer_beys[0][1]`, or a dict's key: `key` in `$.missions`
_AT = re.compile(r"^(?P<what>.*?)(?: - at `(?P<path>[^`]*)`(?: in `(?P<within>[^`]*)`)?)?$", re.S)
_READINGS: tuple[tuple[Reading, re.Pattern[str]], ...] = (
    ("unknown_field", re.compile(r"^Object contains unknown field `(?P<name>[^`]*)`$")),
    ("missing", re.compile(r"^Object missing required field `(?P<name>[^`]*)`$")),
    ("bound", re.compile(r"^Expected `(?P<kind>\w+)` (?P<op>[<>]=?) (?P<limit>-?\d+)$")),
    (
        "length",
        re.compile(r"^Expected `(?P<kind>\w+)` of length (?:(?P<op>[<>]=?) )?(?P<limit>\d+)$"),
    ),
    ("pattern", re.compile(r"^Expected `str` matching regex ")),
    ("kind", re.compile(r"^Expected `(?P<kind>[\w |]+)`(?:, got `(?P<got>\w+)`)?$")),
    ("value", re.compile(r"^Invalid (?:enum )?value (?P<value>.*)$")),
)


@dataclass(frozen=True, slots=True)
class Refusal:
    """One msgspec message read: `what` is the message without its place, `path` the place
    (`$.seat`; `key` for a dict's key, `within` then the dict's path); the rest what `reading`
    names: the field's `name` (unknown_field, missing), the `kind` wanted and the one `got`, a
    bound's or length's `op` (`<=`, `>=`, `<`, `>`; None for an exact length) and `limit`, the
    `value` refused."""

    what: str
    path: str | None
    within: str | None
    reading: Reading
    name: str | None = None
    kind: str | None = None
    got: str | None = None
    op: str | None = None
    limit: int | None = None
    value: str | None = None


def read(message: str) -> Refusal:
    """`message` (msgspec's `str(exc)` of a ValidationError) read."""
    found = _AT.match(message)
    assert found is not None  # every part of the pattern is optional
    what, path, within = found["what"], found["path"], found["within"]
    for reading, pattern in _READINGS:
        if (m := pattern.match(what)) is not None:
            parts = m.groupdict()
            limit = parts.pop("limit", None)
            return Refusal(
                what, path, within, reading, **parts, limit=None if limit is None else int(limit)
            )
    return Refusal(what, path, within, "other")


def kind_words(kind: str) -> Said | str:
    """A JSON kind msgspec names, in the catalogue's words in either language: `int` "bir
    tamsayı" / "an integer", `str | null` "bir metin ya da boş (null)" / "a string or null"; a
    union of more is said one "or" at a time; a name the catalogue does not hold (msgspec may
    add one) stays as it is."""
    first, _, rest = kind.partition(" | ")
    key = f"decode.kind_{first}"
    word: Said | str = Said(key) if key in CATALOGUE else first
    return word if not rest else Said("decode.kind_or", a=word, b=kind_words(rest))
