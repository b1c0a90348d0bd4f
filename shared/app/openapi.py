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

from shared.app.openapi_problems import PROBLEM_MEDIA, ProblemBase, problem_body, problem_type

# Every problem code either API answers: its status and what it means (docs/api.md, "Error
# codes"). An operation's documented answers are built from these (see `answers`).
CODES: dict[str, tuple[int, str]] = {
    "malformed_json": (
        400,
        "the body is not UTF-8 JSON, nests deeper than 32 levels, or repeats a key in an object",
    ),
    "idempotency_key_required": (400, "this command needs an Idempotency-Key header"),
    "bad_idempotency_key": (400, "the Idempotency-Key is empty or longer than 200 characters"),
    "token_in_query": (400, "a token in the URL (?token=, ?access_token=)"),
    "ambiguous_authorization": (400, "two Authorization headers: never one of them guessed"),
    "bad_last_event_id": (400, "a Last-Event-ID that is no stream id (V-k) or version (V)"),
    "missing_token": (401, "no bearer token"),
    "bad_token": (401, "a token that is not valid here (counted by the failed-token limit)"),
    "bad_ticket": (401, "an event-stream ticket that is unknown, used or of another season"),
    "token_wrong_season": (403, "a well-formed bey token of another season"),
    "forbidden": (403, "a token whose role may not do this"),
    "not_your_province": (403, "the province is another bey's"),
    "not_allowed_in_mode": (403, "not in this season's mode (Divan requests: trial only)"),
    "season_not_found": (404, "no such season"),
    "not_found": (404, "no such resource (a path parameter that is not a decimal integer)"),
    "receiver_not_found": (404, "no such webhook or push subscription of the caller's"),
    "receivers_full": (409, "the caller has as many webhooks or push subscriptions as allowed"),
    "receiver_refused": (
        422,
        "a URL the server does not call: not https, not port 443, a private address (`reason`)",
    ),
    "divan_not_found": (404, "a Divan outside 1 … 16, or not resolved yet"),
    "divan_locked": (409, "a Divan is being resolved (Retry-After)"),
    "wrong_divan": (409, "not the Divan this counts for; `divan` names that one"),
    "wrong_phase": (409, "the season's phase does not take this"),
    "offer_exists": (409, "an offer between these beys is open"),
    "already_voted": (409, "this bey has voted"),
    "idempotency_key_in_flight": (409, "the first request with this key is still running"),
    "conflict": (409, "too many concurrent writes to the season; retry"),
    "audit_copy": (409, "the season is an imported audit copy: read-only (ADR-58)"),
    "body_too_large": (413, "the body is larger than 64 KiB"),
    "unsupported_media_type": (415, "a body whose Content-Type is not JSON (ADR-61)"),
    "unknown_field": (422, "a field the schema does not have (`field`)"),
    "invalid_body": (422, "the body does not match its schema (`field`, bounds: D-27)"),
    "invalid_parameter": (422, "a path or query parameter outside its bounds (D-27)"),
    "duplicate_province": (422, "two orders for one province (`province`)"),
    "missing_target": (422, "an advance or support without a target"),
    "not_a_neighbour": (422, "the target is not a neighbour"),
    "bad_units": (422, "an advance or support with fewer than 1 unit (R-4.2)"),
    "not_enough_gold": (422, "not enough gold (`cost`, `gold`)"),
    "sur_exists": (422, "the province has a sur"),
    "over_cap": (422, "the province would hold more than 12 units"),
    "not_purchasable": (422, "not an unowned neighbour with milis at most 2"),
    "no_offer": (422, "no such offer"),
    "bad_partner": (422, "an offer to oneself"),
    "allied_already": (422, "a pact with an ally"),
    "perde_3": (422, "no treaties in perde 3"),
    "vote_self": (422, "a vote for oneself"),
    "idempotency_key_reused": (422, "the key was used with another request"),
    # The domain's, refused at the edge first today (D-27): no operation lists them.
    "unknown_province": (422, "no province with this plate"),
    "unknown_seat": (422, "no bey in this seat"),
    "season_exists": (409, "a season with this id exists (never answered: ids are fresh)"),
    # Live seasons (issue 12): joining, the calendar, season admin (D-29 … D-31)
    "memleket_taken": (409, "another bey has this memleket (`free_neighbours`)"),
    "season_full": (409, "all 19 seats are taken"),
    # R-15.5: beys' names (issue 23)
    "invalid_name": (422, "not a name: 2 … 24 letters, digits, spaces, `. - _ '` (`field`)"),
    "name_reserved": (422, "a reserved whole name or its lookalike (seat forms, Han, ops …)"),
    "name_taken": (409, "another bey of the season has this name or its lookalike"),
    # Players (issue 23, ADR-87)
    "player_already_seated": (409, "the player holds a seat of this season already"),
    "bad_player_key": (401, "a player key that is no player's, or a player's who left"),
    "player_not_found": (404, "no such player, or one who left"),
    "registration_closed": (409, "registration is closed"),
    "season_cancelled": (409, "the season was cancelled; it takes no command"),
    "already_paused": (409, "the season is paused already"),
    "not_paused": (409, "the season is not paused"),
    "registration_close_required": (422, "a live season needs registration_closes_at"),
    "registration_too_soon": (422, "the registration close is too soon (`earliest`)"),
    "invalid_instant": (422, "an instant without an offset, or a close more than a year ahead"),
    "bad_interval": (422, "divan_interval_seconds outside 2 … 86400"),
    "not_later": (422, "a postponement to an instant not later than the close"),
    "reason_required": (422, "an admin act or a correction without a reason"),
    "invalid_correction": (422, "a correction that is out of bounds or changes nothing (ADR-53)"),
    "chain_broken": (
        409,
        "a stored event of the season does not decode, or its hash chain does not verify "
        "(an export): `seksenbir verify` names it",
    ),
    "redaction_unavailable": (
        409,
        "an auditor's export of a season on hash-chain version 1, which a redacted export "
        "cannot prove (ADR-52)",
    ),
    "too_many_failed_attempts": (429, "too many invalid tokens from this client (Retry-After)"),
    "too_many_requests": (
        429,
        "too many requests of this kind from this client address or token (Retry-After)",
    ),
    "too_many_streams": (429, "too many open event streams from this client (Retry-After)"),
    "store_busy": (503, "the event store is busy or unreachable (Retry-After)"),
    "projection_rebuilding": (503, "the season's read model is being rebuilt (Retry-After)"),
    "not_yet_projected": (
        503,
        "the read side has not reached the season version asked for (`?min_version=`), or "
        "a new season's first one, within 2 s: `version`, `projected_version` (Retry-After)",
    ),
    "read_unavailable": (503, "the read side's Redis does not answer (Retry-After)"),
    "streams_full": (503, "this process serves all the event streams it can (Retry-After)"),
    "audit_unavailable": (503, "an ops read of secret data could not be recorded (Retry-After)"),
}


# What the edge can answer, one group per concern; each operation lists the groups it passes
# through and the refusals of its own (the domain's, for a command).
# any request with an Authorization header (ratelimit), or with two (shared.app.request_auth)
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
    description="a strong validator of this answer (shared/app/etag.py): send it back as "
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
    """A GET answering JSON goes through the conditional-GET middleware (shared/app/etag.py):
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
