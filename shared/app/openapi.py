"""OpenAPI pieces both APIs use: the problem+json answers and the bearer scheme (RFC 9457)."""

from __future__ import annotations

import msgspec
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Components, SecurityScheme


def problem_body(code: str, status: int, detail: str, instance: str, **extra: object) -> bytes:
    """The RFC 9457 body both APIs send: a stable `code` beside the standard members."""
    body = {
        "type": f"https://seksenbir.example/problems/{code}",
        "title": code.replace("_", " "),
        "status": status,
        "code": code,
        "detail": detail,
        "instance": instance,
        **extra,
    }
    return msgspec.json.encode(body)


class ProblemDoc(msgspec.Struct):
    """RFC 9457 problem details; `code` is stable, `detail` readable text in the language asked
    for (Turkish by default; `Accept-Language: en` or `?lang=en`: English)."""

    type: str
    title: str
    status: int
    code: str
    detail: str
    instance: str


_TEXT = {
    400: "Malformed request (malformed_json, idempotency_key_required, token_in_query, …)",
    401: "Missing or invalid token (missing_token, bad_token, bad_ticket)",
    403: "Not allowed for this caller (token_wrong_season, not_your_province, forbidden, …)",
    404: "No such season or resource (season_not_found, not_found)",
    409: "Conflicts with the season's state (divan_locked, wrong_divan, offer_exists, …)",
    413: "Request body too large (body_too_large)",
    422: "Refused by the rules or the schema (not_a_neighbour, not_enough_gold, unknown_field, …)",
    429: "Too many invalid tokens, or open event streams, from this client; try again after "
    "Retry-After (too_many_failed_attempts, too_many_streams)",
    503: "Try again after Retry-After (store_busy, projection_rebuilding, read_unavailable, "
    "streams_full)",
}


def problems(*statuses: int) -> dict[int, ResponseSpec]:
    """ResponseSpecs for the given error statuses, all application/problem+json."""
    return {
        s: ResponseSpec(
            data_container=ProblemDoc,
            media_type="application/problem+json",
            description=_TEXT[s],
            generate_examples=False,
        )
        for s in statuses
    }


COMMAND_PROBLEMS = problems(400, 401, 403, 404, 409, 413, 422, 429, 503)
READ_PROBLEMS = problems(400, 401, 403, 404, 429, 503)
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
