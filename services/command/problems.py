"""RFC 9457 problem details with a stable `code` for every refusal."""

from __future__ import annotations

from typing import Any

import msgspec
import structlog
from litestar import Request, Response
from litestar.exceptions import HTTPException, NotFoundException, ValidationException
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

from shared.domain.commands import Rejection

log = structlog.get_logger(__name__)
PROBLEM = "application/problem+json"

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
    body = {
        "type": f"https://seksenbir.example/problems/{exc.code}",
        "title": exc.code.replace("_", " "),
        "status": exc.status,
        "code": exc.code,
        "detail": exc.detail,
        "instance": request.url.path,
        **exc.extra,
    }
    return Response(
        msgspec.json.encode(body), status_code=exc.status, media_type=PROBLEM, headers=exc.headers
    )


def http_exception(request: Request[Any, Any, Any], exc: HTTPException) -> Response[bytes]:
    """Litestar's own refusals (404, 405, 413, validation) in the same shape."""
    codes = {
        404: "not_found",
        405: "method_not_allowed",
        413: "body_too_large",
        429: "rate_limited",
    }
    code = codes.get(exc.status_code, "bad_request")
    if isinstance(exc, ValidationException):
        code = "invalid_request"
    if isinstance(exc, NotFoundException):
        code = "not_found"
    p = Problem(exc.status_code, code, str(exc.detail))
    p.headers = dict(exc.headers or {})
    return problem_response(request, p)


def internal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    log.exception("api.unhandled", path=request.url.path)
    return problem_response(
        request, Problem(HTTP_500_INTERNAL_SERVER_ERROR, "internal", "Beklenmeyen bir hata oldu")
    )
