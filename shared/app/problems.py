"""RFC 9457 problem details for both APIs: one refusal type, one set of exception handlers.

Every refusal either API makes is a `Problem` (status, stable `code`, Turkish / English
`detail`, optional extra members and headers); `exception_handlers()` is the one mapping of
exceptions to problem+json answers, registered once on the app that serves both APIs
(services/command/app.py). The read side adds only its Redis handlers, on its own router.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import asyncpg
import structlog
from litestar import Request, Response
from litestar.exceptions import HTTPException, NotFoundException
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

from shared.app import tokens
from shared.app.bodies import TooDeep
from shared.app.openapi import problem_body
from shared.domain.commands import Rejection
from shared.eventstore import StoreBusyError

log = structlog.get_logger(__name__)
PROBLEM = "application/problem+json"

# Rejection codes of the domain, each with its HTTP status (any other rejection is 422).
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
    "season_cancelled": 409,
    "already_paused": 409,
    "not_paused": 409,
    "not_allowed_in_mode": 403,
    "not_your_province": 403,
}


class Problem(Exception):
    """A refusal either API answers with problem+json; `retry_after` sets Retry-After."""

    def __init__(
        self, status: int, code: str, detail: str, *, retry_after: int | None = None, **extra: Any
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.extra = extra
        self.headers: dict[str, str] = {}
        self.raw: bytes | None = None  # a refusal stored under an Idempotency-Key, as stored
        if retry_after:
            self.headers["Retry-After"] = str(retry_after)

    @classmethod
    def of(cls, r: Rejection) -> Problem:
        """The domain's refusal; `divan_locked` waits for the Divan to be stored (R-7.9)."""
        retry = 1 if r.code == "divan_locked" else None
        return cls(STATUS.get(r.code, 422), r.code, r.message, retry_after=retry, **r.details)

    @classmethod
    def refused(cls, refused: tokens.TokenRefused) -> Problem:
        """A token check's refusal (shared.app.tokens)."""
        return cls(refused.status, refused.code, refused.detail)

    @classmethod
    def stored(cls, status: int, body: bytes) -> Problem:
        """A refusal replayed from an Idempotency-Key's record: the very bytes first sent."""
        p = cls(status, "stored", "stored refusal")
        p.raw = body
        return p

    def body(self, instance: str) -> bytes:
        if self.raw is not None:
            return self.raw
        return problem_body(self.code, self.status, self.detail, instance, **self.extra)


def store_busy() -> Problem:
    return Problem(
        503, "store_busy", "Sunucu meşgul, biraz sonra tekrar deneyin / try again", retry_after=1
    )


def problem_response(request: Request[Any, Any, Any], exc: Problem) -> Response[bytes]:
    return Response(
        exc.body(request.url.path), status_code=exc.status, media_type=PROBLEM, headers=exc.headers
    )


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
    return problem_response(request, store_busy())


Handler = Callable[[Request[Any, Any, Any], Any], Response[Any]]


def exception_handlers() -> dict[int | type[Exception], Handler]:
    """Every exception either API turns into problem+json, registered once on the app."""
    return {
        Problem: problem_response,
        HTTPException: http_exception,
        TooDeep: too_deep,
        StoreBusyError: unavailable,
        asyncpg.PostgresConnectionError: unavailable,
        asyncpg.InterfaceError: unavailable,
        asyncpg.exceptions.OperatorInterventionError: unavailable,
        ConnectionError: unavailable,
        Exception: internal_error,
    }
