"""OpenAPI pieces both APIs use: the problem+json answers and the bearer scheme (RFC 9457)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar, cast

import msgspec
from litestar.datastructures import ResponseHeader
from litestar.handlers import HTTPRouteHandler
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import (
    Components,
    Example,
    OpenAPIHeader,
    OpenAPIResponse,
    OpenAPIType,
    Operation,
    Parameter,
    Reference,
    RequestBody,
    Schema,
    SecurityScheme,
)

from shared.app.http.openapi_problems import PROBLEM_MEDIA, ProblemBase, problem_body, problem_type
from shared.app.http.problem_codes import CODES

# What the edge can answer, one group per concern; each operation lists the groups it passes
# through and the refusals of its own (the domain's, for a command).
# any request with an Authorization header (ratelimit), or with two (shared.app.access.request_auth)
EVERY = ("too_many_failed_attempts", "ambiguous_authorization")
# creating a season, joining, a command (ratelimit.request_kind); every read (read_limits.is_read)
RATE = ("too_many_requests",)
BODY = (
    "malformed_json",
    "unknown_field",
    "invalid_body",
    "body_too_large",
    "unsupported_media_type",
)
BEY_AUTH = ("missing_token", "bad_token", "token_wrong_season", "forbidden", "token_in_query")
STAFF_AUTH = ("missing_token", "bad_token", "forbidden", "token_in_query")
# An Idempotency-Key's record is keyed by a hash of the request, body included: reading the
# body can meet its limits even on a route that takes none.
KEY = (
    "bad_idempotency_key",
    "idempotency_key_reused",
    "idempotency_key_in_flight",
    "malformed_json",
    "body_too_large",
)
KEY_REQUIRED = ("idempotency_key_required",)
# a command reads its season from the store: a stored event that does not decode is 409
# `chain_broken` (written behind the store's back, or by another build)
STORE = ("season_not_found", "store_busy", "chain_broken")
# … and appends to it, retrying on concurrent writes; never to an imported audit copy (ADR-58)
APPEND = ("conflict", "audit_copy")
PATH = ("invalid_parameter", "not_found")  # an integer path parameter (D-27)
READ = ("season_not_found", "projection_rebuilding", "not_yet_projected", "read_unavailable")
# a season read that takes `?min_version=` (services/projections/context.py): its bounds
VERSIONED = ("invalid_parameter",)
STREAM = ("bad_ticket", "too_many_streams", "streams_full")
OPS_READ = ("audit_unavailable",)  # an ops read of secret data, recorded first (ADR-53)


# Every answer that names a season version says it in this header too (issue 20): the read
# side's season reads, the status and the commands that answer a `version`.
SEASON_VERSION = ResponseHeader(
    name="X-Season-Version",
    description="the season version this answer reflects (its `version`): a read's "
    "`?min_version=` to read your writes",
    documentation_only=True,
)


def example_problem(
    code: str, instance: str = "/v1/seasons/0123456789abcdef0123456789abcdef"
) -> dict[str, object]:
    """A problem+json body of `code`, as the API sends it with `Accept-Language: en` (for the
    document's examples: CODES' meanings are English)."""
    status, meaning = CODES[code]
    return msgspec.json.decode(problem_body(code, status, meaning, instance, "en"))  # type: ignore[no-any-return]


def answers(*groups: tuple[str, ...] | str) -> dict[int, ResponseSpec]:
    """An operation's problem answers: exactly the codes of `groups` (tuples above, or single
    codes), by status, each status described by its codes and with one example per code."""
    codes = sorted({c for g in groups for c in ((g,) if isinstance(g, str) else g)})
    unknown = [c for c in codes if c not in CODES]
    if unknown:
        raise ValueError(f"problem codes not in CODES: {unknown}")
    by_status: dict[int, list[str]] = {}
    for code in codes:
        by_status.setdefault(CODES[code][0], []).append(code)
    return {
        status: ResponseSpec(
            data_container=ProblemBase,  # each operation's own: `with_examples`
            media_type=PROBLEM_MEDIA,
            description="; ".join(f"`{c}`: {CODES[c][1]}" for c in listed),
            generate_examples=False,
            examples=[Example(id=c, summary=CODES[c][1], value=example_problem(c)) for c in listed],
        )
        for status, listed in sorted(by_status.items())
    }


BEARER: list[dict[str, list[str]]] = [{"bearer": []}]
# Public at some times, a token's at others (battles, all orders: public after the Kurultay).
OPTIONAL_BEARER: list[dict[str, list[str]]] = [{"bearer": []}, {}]
COMPONENTS = Components(
    security_schemes={
        "bearer": SecurityScheme(
            type="http", scheme="bearer", description="bey, auditor or ops token"
        )
    }
)


H = TypeVar("H", bound=HTTPRouteHandler)
Examples = Mapping[str | int, object]  # "request" and/or a 2xx status -> a Struct or JSON value


@dataclass
class RawExample(Example):
    """An example whose value is served as given: Litestar's own drops every null in it (a
    field that is null in a real answer would then be missing from its example)."""

    def to_schema(self) -> dict[str, object]:
        out = super().to_schema()
        out["value"] = self.value
        return out


def _example(value: object, summary: str) -> dict[str, Example | Reference]:
    return {"example": RawExample(summary=summary, value=msgspec.to_builtins(value))}


def _is_problem(response: OpenAPIResponse | Reference) -> bool:
    media = (
        (response.content or {}).get("application/problem+json")
        if isinstance(response, OpenAPIResponse)
        else None
    )
    return media is not None and bool(media.examples)


def _add_examples(op: Operation, examples: Examples) -> None:
    """Put an operation's request and 2xx examples into its document (problem examples come
    from `answers`)."""
    body = op.request_body
    if "request" in examples and isinstance(body, RequestBody):
        for media in body.content.values():
            media.examples = _example(examples["request"], "a request")
    # Litestar adds a 400 of its own to every operation with parameters; the API answers
    # only the problems `answers` listed (its own 400s among them, where it has any).
    for status in [s for s, r in (op.responses or {}).items() if s[0] in "45"]:
        if not _is_problem((op.responses or {})[status]):
            del (op.responses or {})[status]
    for status, response in (op.responses or {}).items():
        documented = status.startswith("2") and int(status) in examples
        if documented and isinstance(response, OpenAPIResponse) and response.content:
            for media in response.content.values():
                media.examples = _example(examples[int(status)], f"a {status} answer")


ETAG = OpenAPIHeader(
    schema=Schema(type=OpenAPIType.STRING),
    description="a strong validator of this answer (shared/app/http/etag.py): send it back as "
    "If-None-Match",
)
IF_NONE_MATCH = Parameter(
    name="If-None-Match",
    param_in="header",
    schema=Schema(type=OpenAPIType.STRING),
    required=False,
    description="the ETag of an answer you have: 304 with no body while it is still current",
)


LANG = Parameter(
    name="lang",
    param_in="query",
    schema=Schema(type=OpenAPIType.STRING, examples=["en"]),
    required=False,
    description="`tr` or `en`: the language of the texts for people (problem `detail`, report "
    "lines' `text`), for links a browser follows; it wins over Accept-Language, any other "
    "value leaves the choice to it",
)
ACCEPT_LANGUAGE = Parameter(
    name="Accept-Language",
    param_in="header",
    schema=Schema(type=OpenAPIType.STRING, examples=["en"]),
    required=False,
    description="the better of `tr` and `en` by quality value; anything else is Turkish",
)
CONTENT_LANGUAGE = OpenAPIHeader(
    schema=Schema(type=OpenAPIType.STRING, enum=["tr", "en"]),
    description="the language this answer's texts for people are in",
)


RETRY_AFTER = OpenAPIHeader(
    schema=Schema(type=OpenAPIType.INTEGER, minimum=0),
    description="seconds to wait before retrying (every 429 and 503; a 409 `divan_locked`)",
)
STRING = Schema(type=OpenAPIType.STRING)


def _headers(op: Operation) -> None:
    """Every operation takes `?lang=` and Accept-Language, and every answer names its
    Content-Language (docs/api.md Language); every 429 and 503, and a 409 that may be
    `divan_locked`, carries Retry-After; every header has a type (a `Location` had none), so a
    generated client types them all."""
    op.parameters = [*(op.parameters or []), LANG, ACCEPT_LANGUAGE]
    for status, response in (op.responses or {}).items():
        if not isinstance(response, OpenAPIResponse):
            continue
        headers = {**(response.headers or {}), "Content-Language": CONTENT_LANGUAGE}
        if status in ("429", "503") or "`divan_locked`" in response.description:
            headers["Retry-After"] = RETRY_AFTER
        for header in headers.values():
            if isinstance(header, OpenAPIHeader) and header.schema is None:
                header.schema = STRING
        response.headers = headers


def _conditional(op: Operation) -> None:
    """A GET answering JSON goes through the conditional-GET middleware (shared/app/http/etag.py):
    its 200 carries an ETag, it takes If-None-Match, and it may answer 304 (issue 11)."""
    responses = op.responses or {}
    ok = responses.get("200")
    if not isinstance(ok, OpenAPIResponse) or "application/json" not in (ok.content or {}):
        return  # the event stream, the NDJSON exports: no ETag
    ok.headers = {**(ok.headers or {}), "ETag": ETAG}
    responses["304"] = OpenAPIResponse(
        description="Not Modified: If-None-Match names the current ETag; no body",
        headers={"ETag": ETAG},
    )
    op.parameters = [*(op.parameters or []), IF_NONE_MATCH]


def _documented(base: type[Operation], examples: Examples, *, get: bool) -> type[Operation]:
    def __post_init__(self: Operation) -> None:
        parent = getattr(base, "__post_init__", None)
        if parent is not None:
            parent(self)
        _add_examples(self, examples)
        if get:
            _conditional(self)
        _headers(self)

    cls = type(f"Documented{base.__name__}", (base,), {"__post_init__": __post_init__})
    return cast("type[Operation]", dataclass(cls))


def with_examples(handlers: Sequence[H], table: Mapping[str, Examples]) -> list[H]:
    """The route handlers, each documenting the examples `table` gives for its function's name
    (its operation class keeps what it did before, then adds them)."""
    for handler in handlers:
        examples = table.get(handler.handler_name, {})
        get = "GET" in handler.http_methods
        handler.operation_class = _documented(handler.operation_class, examples, get=get)
        _type_problems(handler)
    return list(handlers)


def problem_name(handler_name: str) -> str:
    """An operation's problem schema's name: `submit_orders` → SubmitOrdersProblem."""
    return "".join(part.capitalize() for part in handler_name.split("_")) + "Problem"


def _type_problems(handler: HTTPRouteHandler) -> None:
    """Every problem answer of `handler` gets the operation's own schema (`problem_type`) of
    the codes `answers` listed for it (the examples' ids), so a generated client knows each
    operation's codes and their members (issue 20)."""
    responses = handler.responses or {}
    codes = [
        str(example.id)
        for spec in responses.values()
        if spec.media_type == PROBLEM_MEDIA
        for example in spec.examples or ()
    ]
    if not codes:
        return
    typed = problem_type(problem_name(handler.handler_name), codes)
    handler.responses = {
        status: replace(spec, data_container=typed) if spec.media_type == PROBLEM_MEDIA else spec
        for status, spec in responses.items()
    }
