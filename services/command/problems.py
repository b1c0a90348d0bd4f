"""RFC 9457 problem details with a stable `code` for every refusal."""

from __future__ import annotations

from typing import Any

import structlog
from litestar import Request, Response
from litestar.exceptions import HTTPException, NotFoundException
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

from shared.app.openapi import problem_body
from shared.domain.commands import Rejection

log = structlog.get_logger(__name__)
PROBLEM = "application/problem+json"
IDEMPOTENCY_HEADER = ("idempotency-key", "idempotency_key")

# Rejection codes of the domain, each with its HTTP status.
STATUS = {
    "memleket_taken": 409,
    "season_full": 409,
    "offer_exists": 409,
    "divan_locked": 409,
    "wrong_divan": 409,
    "already_voted": 409,
    "season_exists": 409,
    "wrong_phase": 409,
    "registration_closed": 409,
    "not_allowed_in_mode": 403,
    "not_your_province": 403,
}


class Problem(Exception):
    """A refusal the API answers with problem+json."""

    def __init__(self, status: int, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.extra = extra
        self.headers: dict[str, str] = {}

    @classmethod
    def of(cls, r: Rejection) -> Problem:
        p = cls(STATUS.get(r.code, 422), r.code, r.message, **r.details)
        if r.code == "divan_locked":  # spending waits for the Divan to be stored
            p.headers["Retry-After"] = "1"
        return p


def problem_response(request: Request[Any, Any, Any], exc: Problem) -> Response[bytes]:
    body = problem_body(exc.code, exc.status, exc.detail, request.url.path, **exc.extra)
    return Response(body, status_code=exc.status, media_type=PROBLEM, headers=exc.headers)


def http_exception(request: Request[Any, Any, Any], exc: HTTPException) -> Response[bytes]:
    """Litestar's own refusals (body validation, 404, 405, 413) in the same shape and codes."""
    codes = {
        404: "not_found",
        405: "method_not_allowed",
        413: "body_too_large",
        429: "rate_limited",
    }
    status, code, detail = (
        exc.status_code,
        codes.get(exc.status_code, "bad_request"),
        str(exc.detail),
    )
    if status == 400:
        status, code, detail = _bad_request(exc, detail)
    if isinstance(exc, NotFoundException):
        code = "not_found"
    p = Problem(status, code, detail)
    p.headers = dict(exc.headers or {})
    return problem_response(request, p)


def _bad_request(exc: HTTPException, detail: str) -> tuple[int, str, str]:
    """Map Litestar's 400s onto our codes: malformed JSON, unknown or invalid fields, headers."""
    problems = [e for e in exc.extra if isinstance(e, dict)] if isinstance(exc.extra, list) else []
    messages = "; ".join(str(e.get("message", "")) for e in problems)
    if "malformed" in detail.lower() or "truncated" in detail.lower():
        return 400, "malformed_json", detail
    if any(
        str(e.get("key", "")).lower() in ("idempotency-key", "idempotency_key") for e in problems
    ):
        return 400, "bad_idempotency_key", "Idempotency-Key en fazla 200 karakter"
    if "unknown field" in messages.lower():
        return 422, "unknown_field", messages
    if any(e.get("key") == "data" and e.get("message") == "'data'" for e in problems):
        return 400, "malformed_json", "İstek gövdesi boş / empty request body"
    if any(e.get("source") == "body" for e in problems):
        return 422, "invalid_body", messages or detail
    return 400, "invalid_request", messages or detail


def too_deep(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    """A body nested deeper than shared.app.bodies.MAX_DEPTH, refused before decoding."""
    return problem_response(request, Problem(400, "malformed_json", str(exc)))


def internal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    log.exception("api.unhandled", path=request.url.path)
    return problem_response(
        request, Problem(HTTP_500_INTERNAL_SERVER_ERROR, "internal", "Beklenmeyen bir hata oldu")
    )


def unavailable(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    """The store is busy or its connection was lost: 503 with Retry-After, never a 500."""
    log.warning("api.store_unavailable", path=request.url.path, error=type(exc).__name__)
    p = Problem(503, "store_busy", "Sunucu meşgul, biraz sonra tekrar deneyin / try again")
    p.headers["Retry-After"] = "1"
    return problem_response(request, p)
