"""Strict request bodies (D-27): each body is decoded by msgspec, strictly, into its type.

Litestar decodes a body to Python objects and then converts them with `strict=False`, so
`"units": "3"` became 3 and `"memleket": "6"` created a season. `StrictRequest` (the app's
request class) decodes the raw bytes straight into the handler's declared `data` type with
`strict=True`: a string, float or boolean where an integer belongs, an integer outside the
bounds of shared.app.http.bounds, an unknown field or a missing one is refused while decoding,
before any handler runs, and Litestar's own conversion then only sees a finished Struct.

Path integers (`{seat:int}`) are parsed by Litestar with Python's `int`, which takes "+2",
"02", " 2", "2_0" and other scripts' digits ("٢"); `strict_path_integers` replaces that parser
with one that takes only an ASCII decimal integer without sign, leading zero or space (or a
minus sign, for the bounds to refuse): anything else matches no route (404 `not_found`), and a
number outside its bounds is 422 `invalid_parameter`.

Before that (ADR-61, ADR-75), a body is JSON only if it says so: a non-empty body without a
Content-Type, or whose type is neither `application/json` nor `application/*+json`, or whose
parameters are anything but one `charset=utf-8`, is 415 `unsupported_media_type`.
And an object that names one key twice is 400 `malformed_json` (`duplicate_key`, naming it):
JSON leaves duplicates undefined (RFC 8259 §4) and a decoder that keeps the last one would act
on a request other than the one a proxy, a log or a reviewer read.

Refusals (docs/api.md):
- a body that is not JSON by its Content-Type, or has none: 415 `unsupported_media_type`;
- bytes that are not UTF-8, or not JSON, or an object with a key twice: 400 `malformed_json`,
  even when what can be read of them already has a value of the wrong type (`[`,
  `{"orders": "hold", `);
- an unknown field: 422 `unknown_field`; any other mismatch with the schema (wrong type,
  out of bounds, a missing field, a value not in an enum): 422 `invalid_body`; both name the
  `field` as a JSON path (`$.orders[0].units`).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from litestar import Request
from litestar.routes import base as routes_base
from litestar.types import Empty

from shared.app.http import decode_refusal
from shared.app.http.bodies import ParsedBody
from shared.app.http.bounds import bound_of, bounds_in, choices_in
from shared.app.http.problems import Problem
from shared.domain.messages import Said, said_from_english

_DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)", re.ASCII)
# What a text refused by its field's pattern must be, by the field's name ("invalid value" told
# nobody what to send).
_PATTERN_TEXTS = {
    "seed": "invalid_body.seed_text",
    # a secret the client drew itself (ADR-178): its shape said, its value never echoed
    **dict.fromkeys(("token_secret", "admin_secret", "key_secret"), "invalid_body.secret_text"),
}
# A text or list refused by its schema's length bound. A field whose words the free-text check
# has says them (a description's schema bound, 1,000, is only a guard before that check's
# 280); any other says its bound.
_LENGTH_TEXTS = {"description": "invalid_body.description"}
_LENGTH_KEYS = {
    ("str", "<="): "invalid_body.too_long",
    ("str", ">="): "invalid_body.too_short",
    ("array", "<="): "invalid_body.too_many",
    ("array", ">="): "invalid_body.too_few",
}


def body_problem(exc: msgspec.MsgspecError, target: Any = None) -> Problem:
    """The refusal of a body msgspec could not decode into its type `target` (its English read
    by shared.app.http.decode_refusal): an integer's bounds are the type's own (`bounds_in`), else
    those its field's name has (`bound_of`)."""
    text = str(exc)
    if not isinstance(exc, msgspec.ValidationError):  # (a ValidationError is a DecodeError)
        if "UTF-8" in text:
            return Problem(400, "malformed_json.utf8")
        return Problem(400, "malformed_json.syntax", params={"error": json_error(text)})
    r = decode_refusal.read(text)
    # a body's field is a path; a dict's key (`key` in `$.x`) is said of the body as a whole
    where = r.path if r.path is not None and r.within is None else "$"
    if r.reading == "unknown_field":
        return Problem(422, "unknown_field", field=f"{where}.{r.name}")
    params: dict[str, object]
    if r.reading == "missing":
        where = f"{where}.{r.name}"
    found = None if target is None else bounds_in(target, where)
    bounds = bound_of(where) if found is None else found
    if r.reading == "missing":
        key, params = "invalid_body.missing", {"at": where}
    elif bounds:
        key, params = "invalid_body.bounded", {}
    elif r.reading == "kind" and r.got is not None:
        expected, got = decode_refusal.kind_words(r.kind or ""), decode_refusal.kind_words(r.got)
        key, params = "invalid_body.type", {"at": where, "expected": expected, "got": got}
    elif (told := _told(r, where)) is not None:
        key, params = told
    elif choices := choices_in(target, where) if target is not None else []:
        key, params = "invalid_body.choice", {"at": where, "choices": ", ".join(choices)}
    else:
        key, params = "invalid_body.value", {"at": where}
    members: dict[str, object] = {"field": where, **bounds}
    problem = Problem(422, key, params={**params, **members})
    problem.extra = members  # the problem's own members: `field` and its bounds (D-27)
    return problem


def _told(r: decode_refusal.Refusal, where: str) -> tuple[str, dict[str, object]] | None:
    """A text refused by its field's pattern or a text or list by its length bound, as the
    catalogue words it; None for any other message (a dict's key's length is not a field's)."""
    name = where.rsplit(".", 1)[-1]
    if r.reading == "pattern" and (text_key := _PATTERN_TEXTS.get(name)):
        return text_key, {"at": where}
    if r.reading == "length" and r.within is None and (r.kind, r.op) in _LENGTH_KEYS:
        key = _LENGTH_TEXTS.get(name) or _LENGTH_KEYS[(r.kind or "", r.op or "")]
        return key, {"at": where, "limit": r.limit}
    return None


_MALFORMED = re.compile(r"JSON is malformed: (?P<reason>.+) \(byte (?P<byte>\d+)\)")
_EXPECTED_SYNTAX = re.compile(r"expected (?P<a>.+?)(?: or (?P<b>.+))?")


def json_error(text: str) -> Said | str:
    """msgspec's JSON syntax error (English) as a text in either language; one it has not
    been seen to write stays as it is."""
    if found := said_from_english("json.truncated", text):
        return found
    m = _MALFORMED.fullmatch(text)
    if m is None:
        return text
    reason: Said | str = m.group("reason")
    if e := _EXPECTED_SYNTAX.fullmatch(m.group("reason")):
        what: Said | str = (
            e.group("a") if e.group("b") is None else Said("json.either", **e.groupdict())
        )
        reason = Said("json.expected", what=what)
    else:
        reason = said_from_english("json.", m.group("reason")) or m.group("reason")
    return Said("json.malformed", reason=reason, byte=m.group("byte"))


_JSON_TYPE = re.compile(r"application/(?:[^;/\s]+\+)?json", re.ASCII | re.IGNORECASE)
_KEY_SHOWN = 64  # characters of a repeated key a refusal names


# RFC 9110 §8.3.1: parameters = *( OWS ";" OWS [ name "=" ( token / quoted-string ) ] )
_PARAMETER = re.compile(
    r"(?P<name>[!#$%&'*+.^_`|~0-9A-Za-z-]+)=(?P<value>[!#$%&'*+.^_`|~0-9A-Za-z-]+|\"[^\"\\]*\")",
    re.ASCII,
)


def media_problem(content_type: str) -> Problem | None:
    """None if a body with this Content-Type is read as JSON (issue 20, ADR-75): the header is
    there, its type is `application/json` or `application/<x>+json` (any case) and its only
    parameter, if any, is `charset=utf-8` (JSON is UTF-8, RFC 8259 §8.1). Else the 415 that
    says what to send instead: no Content-Type, another type, another charset, or parameters
    that are not `name=value` or not JSON's."""
    if content_type == "application/json":  # what nearly every request sends: no parse
        return None
    if not content_type.strip():
        return Problem(415, "unsupported_media_type.missing")
    media, _, rest = content_type.partition(";")
    media = media.strip()
    if _JSON_TYPE.fullmatch(media) is None:
        return Problem(415, "unsupported_media_type", params={"media_type": media[:_KEY_SHOWN]})
    charsets = []
    for raw in rest.split(";"):
        part = raw.strip(" \t")
        if not part:  # an empty parameter is allowed by the grammar (`application/json;`)
            continue
        m = _PARAMETER.fullmatch(part)
        if m is None or m.group("name").lower() != "charset":
            return Problem(
                415, "unsupported_media_type.parameters", params={"parameters": part[:_KEY_SHOWN]}
            )
        charsets.append(m.group("value").strip('"'))
    if len(charsets) > 1 or any(c.lower() != "utf-8" for c in charsets):
        shown = ", ".join(charsets)[:_KEY_SHOWN]
        return Problem(415, "unsupported_media_type.charset", params={"charset": shown})
    return None


def duplicate_key(body: bytes | ParsedBody) -> str | None:
    """The first key an object of `body` repeats, or None (also for a body that is not JSON:
    msgspec refuses that, with its own reasons), as text a problem can carry (a lone surrogate
    escaped). One pass of the stdlib's C decoder (ParsedBody), shared with the canonical form
    of the request; it runs after the depth scan (shared.app.http.bodies), so it never meets more
    than MAX_DEPTH levels, and on at most the 64 KiB a body may have."""
    parsed = body if isinstance(body, ParsedBody) else ParsedBody(body)
    if parsed.repeated is None:
        return None
    return parsed.repeated.encode("utf-8", "backslashreplace").decode("utf-8")


def _syntax_first(body: bytes, exc: msgspec.MsgspecError) -> msgspec.MsgspecError:
    """The error a body is refused for: typed decoding stops at the first value of the wrong
    type, before it reads on, so `[` or `{"orders": "hold", ` (not JSON at all) were 422
    `invalid_body`; a body that is not JSON is 400 `malformed_json` whatever it holds. Only
    on the refusal path: an accepted body is decoded once."""
    if not isinstance(exc, msgspec.ValidationError) or not body:
        return exc
    try:
        msgspec.json.decode(body)
    except msgspec.DecodeError as syntax:
        return syntax
    return exc


def _data_type(request: Request[Any, Any, Any]) -> Any:
    parameter = request.route_handler.parsed_fn_signature.parameters.get("data")
    return None if parameter is None else parameter.annotation


class StrictRequest(Request[Any, Any, Any]):
    """A request whose JSON body decodes strictly into the handler's `data` type (D-27)."""

    _parsed: ParsedBody | None = None

    def parsed_body(self, body: bytes) -> ParsedBody:
        """`body` (this request's) parsed once: its duplicate-key check and its canonical form
        (services.command.request_context) read the same parse."""
        parsed = self._parsed
        if parsed is None or parsed.body is not body:
            parsed = self._parsed = ParsedBody(body)
        return parsed

    async def json(self) -> Any:
        if self._json is Empty:
            target = _data_type(self)
            if target is None:
                return await super().json()
            body = await self.body()
            parsed = self.parsed_body(body) if body else None
            decoded = decode_strict(body, self.headers.get("content-type", ""), target, parsed)
            self._json = self._connection_state.json = decoded
        return self._json


def decode_strict(body: bytes, content_type: str, target: Any, parsed: ParsedBody | None) -> Any:
    """A request body as `target`, strictly (D-27), or its refusal, in their order: its
    Content-Type (415), a key named twice (400), then msgspec's strict decode (400 malformed,
    422 invalid). `parsed` is the body's ParsedBody (None for an empty body). StrictRequest's
    json, and the order fast path's without a Request (ADR-134)."""
    if body and (refused := media_problem(content_type)):
        raise refused
    repeated = duplicate_key(parsed) if parsed is not None else None
    if repeated is not None:
        raise Problem(400, "malformed_json.duplicate_key", params={"key": repeated[:_KEY_SHOWN]})
    try:
        return msgspec.json.decode(body or b"null", type=target, strict=True)
    except msgspec.MsgspecError as exc:
        first = _syntax_first(body, exc)
        if not isinstance(first, msgspec.ValidationError) and (half := _HALF.search(body)):
            # msgspec says "truncated" of a lone high surrogate and English of a lone low one
            at = {"escape": half.group().decode(), "byte": half.start() + 1}
            raise Problem(400, "malformed_json.surrogate", params=at) from None
        raise body_problem(first, target) from None


# a \u escape naming half of a UTF-16 surrogate pair without its other half (RFC 8259 §8.2)
_HALF = re.compile(
    rb"(?<!\\)\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<![dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


def strict_int(text: str) -> int:
    """An integer path parameter: ASCII decimal digits only (ValueError: no route matches)."""
    if not _DECIMAL.fullmatch(text):
        raise ValueError(f"not a decimal integer: {text!r}")
    return int(text)


def strict_path_integers() -> None:
    """Parse every `{name:int}` path parameter with `strict_int` (D-27). Litestar keeps one
    table of path parsers for the process, read as routes are built: call before building an
    app (entrypoints/gateway.py's create_app does)."""
    routes_base.parsers_map[int] = strict_int
