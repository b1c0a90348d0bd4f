"""RFC 9457 problem details for both APIs: one refusal type, one set of exception handlers.

Every refusal either API makes is a `Problem` (status, stable `code`, a `detail` in the
request's language from the one catalogue shared.domain.messages, optional extra members and
headers); `exception_handlers()` is the one mapping of
exceptions to problem+json answers, registered once on the app that serves both APIs
(entrypoints/gateway.py, `create_app`). The read side adds only its Redis handlers, on its
own router.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import asyncpg
import msgspec
import structlog
from litestar import Request, Response
from litestar.exceptions import HTTPException, NotFoundException
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

from shared.app.access import tokens
from shared.app.http.bodies import TooDeep
from shared.app.http.bounds import bound_of, query_bound
from shared.app.http.decode_refusal import kind_words
from shared.app.http.language import STORED_LANGUAGE, negotiate
from shared.app.http.openapi_problems import problem_body
from shared.app.http.problem_codes import CODES
from shared.app.repository.seasons import AuditCopyRefused
from shared.domain import messages
from shared.domain.commands import Rejection
from shared.eventstore import StoreBusyError

log = structlog.get_logger(__name__)
PROBLEM = "application/problem+json"


# A domain rejection's HTTP status is its code's in the one table of codes (shared.app.http.openapi
# CODES, which the documented answers are built from); a code not there is 422.
def status_of(code: str) -> int:
    return CODES.get(code, (422, ""))[0]


class Problem(Exception):
    """A refusal either API answers with problem+json; `retry_after` sets Retry-After.

    `key` is a message key of shared.domain.messages (`code` or `code.variant`): the answer's
    code is its first part, its `detail` the key's text in the request's language, filled from
    `params` and the extra members. A `detail` given (the old "Türkçe / English" style) is
    answered as written, each language its half: move it to the catalogue instead."""

    def __init__(
        self,
        status: int,
        key: str,
        detail: str = "",
        *,
        retry_after: int | None = None,
        params: Mapping[str, object] | None = None,
        parts: Sequence[tuple[str, Mapping[str, object]]] = (),
        **extra: Any,
    ) -> None:
        super().__init__(detail or key)
        self.status = status
        self.key = key
        self.code = messages.code_of(key)
        self.fallback = detail
        self.params = {**extra, **(params or {})}
        self.parts = tuple(parts)  # several texts, joined (Litestar's validation errors)
        self.extra = extra
        self.headers: dict[str, str] = {}
        self.raw: bytes | None = None  # a refusal stored under an Idempotency-Key, as stored
        self.lang: messages.Lang | None = None  # the language of `raw`
        if retry_after:
            self.headers["Retry-After"] = str(retry_after)

    def text(self, lang: messages.Lang) -> str:
        if self.parts:
            return "; ".join(messages.render(k, lang, p) for k, p in self.parts)
        if self.fallback or self.key not in messages.CATALOGUE:  # written the old way
            return getattr(messages.legacy(self.fallback or self.key), lang)  # type: ignore[no-any-return]
        return messages.render(self.key, lang, self.params)

    @property
    def detail(self) -> str:
        return self.text(messages.DEFAULT)

    @classmethod
    def of(cls, r: Rejection) -> Problem:
        """The domain's refusal; `divan_locked` waits for the Divan to be stored (R-7.9)."""
        retry = 1 if r.code == "divan_locked" else None
        legacy = "" if r.key else r.message  # a refusal written the old way keeps its text
        p = cls(status_of(r.code), r.key or r.code, legacy, retry_after=retry)
        p.extra, p.params = dict(r.details), dict(r.details)
        return p

    @classmethod
    def refused(cls, refused: tokens.TokenRefused) -> Problem:
        """A token check's refusal (shared.app.access.tokens)."""
        return cls(refused.status, refused.key)

    @classmethod
    def stored(cls, status: int, body: bytes) -> Problem:
        """A refusal replayed from an Idempotency-Key's record: the very bytes first sent, in
        the language they were first sent in (found again from the catalogue)."""
        p = cls(status, "stored", "stored refusal")
        p.raw = body
        p.lang = stored_language(body)
        return p

    def body(self, instance: str, lang: messages.Lang = messages.DEFAULT) -> bytes:
        if self.raw is not None:
            return self.raw
        return problem_body(self.code, self.status, self.text(lang), instance, lang, **self.extra)


def stored_language(body: bytes) -> messages.Lang | None:
    """The language a problem body was written in: its `detail` is one of its code's texts in
    that language (shared.domain.messages.language_of); None if it is none of them."""
    try:
        doc = msgspec.json.decode(body)
    except msgspec.DecodeError:
        return None
    if not isinstance(doc, dict):
        return None
    code, detail = doc.get("code"), doc.get("detail")
    if not isinstance(code, str) or not isinstance(detail, str):
        return None
    return messages.language_of(code, detail)


def store_busy() -> Problem:
    return Problem(503, "store_busy", retry_after=1)


def problem_response(request: Request[Any, Any, Any], exc: Problem) -> Response[bytes]:
    """The problem in the request's language (shared.app.http.language); a stored one in its own."""
    lang = negotiate(request.scope)
    # Said here too: Litestar answers 404 and 405 outside the middleware (shared.app.http.language)
    headers = {**exc.headers, "Content-Language": exc.lang or lang, "Vary": "Accept-Language"}
    if exc.raw is not None and exc.lang is not None:
        headers[STORED_LANGUAGE.decode()] = exc.lang
    body = exc.body(request.url.path, lang)
    return Response(body, status_code=exc.status, media_type=PROBLEM, headers=headers)


def http_exception(request: Request[Any, Any, Any], exc: HTTPException) -> Response[bytes]:
    """Litestar's own refusals (body validation, 404, 405, 413) in the same shape and codes,
    their text from the catalogue like every other refusal's."""
    codes = {
        404: "not_found",
        405: "method_not_allowed",
        413: "body_too_large",
        429: "rate_limited",
    }
    status = exc.status_code
    p = Problem(status, codes.get(status, "bad_request"))
    if status == 400:
        p = _bad_request(exc, str(exc.detail), request.scope.get("route_handler"))
    if isinstance(exc, NotFoundException):
        p = Problem(404, "not_found")
    p.headers.update(exc.headers or {})
    return problem_response(request, p)


_AT = re.compile(r" - at `(?P<at>[^`]+)`$")
_VALIDATION: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^Object contains unknown field `(?P<field>[^`]+)`$"), "unknown_field"),
    (re.compile(r"^Object missing required field `(?P<field>[^`]+)`$"), "invalid_body.missing"),
    (re.compile(r"^Expected `(?P<expected>[^`]+)`, got `(?P<got>[^`]+)`$"), "invalid_body.type"),
    (re.compile(r"^Expected `(?P<expected>[^`]+)` (?P<constraint>.+)$"), "invalid_body.constraint"),
)


def _validation_part(error: dict[str, Any]) -> tuple[str, dict[str, object]]:
    """One of msgspec's (English) validation messages as a catalogue key and its parameters."""
    message, key = str(error.get("message", "")), str(error.get("key", ""))
    where = _AT.search(message)
    message = _AT.sub("", message)
    at = where["at"] if where else ("$" if key in ("", "data") else key)
    for pattern, found in _VALIDATION:
        if m := pattern.match(message):
            groups = m.groupdict()
            if "field" in groups:  # a field of the object at `at`
                field = groups["field"] if at == "$" else f"{at}.{groups['field']}"
                return found, {"field": field, "at": field}
            # a kind msgspec names (`int | null`) in words, as a decoded body's (strict.py)
            words = {k: kind_words(v) for k, v in groups.items() if k in ("expected", "got")}
            return found, {"at": at, **groups, **words}
    return "invalid_body.value", {"at": at}


def _bad_request(exc: HTTPException, detail: str, handler: Any = None) -> Problem:  # noqa: PLR0911 — one answer per kind of 400, in the order they are told apart
    """Map Litestar's 400s onto our codes: malformed JSON, unknown or invalid fields, headers."""
    problems = [e for e in exc.extra if isinstance(e, dict)] if isinstance(exc.extra, list) else []
    if "malformed" in detail.lower() or "truncated" in detail.lower():
        return Problem(400, "malformed_json")
    if any(
        str(e.get("key", "")).lower() in ("idempotency-key", "idempotency_key") for e in problems
    ):
        return Problem(400, "bad_idempotency_key")
    if any(e.get("key") == "data" and e.get("message") == "'data'" for e in problems):
        return Problem(400, "malformed_json.empty")
    body = [_validation_part(e) for e in problems if e.get("source") == "body"]
    if any(key == "unknown_field" for key, _ in body):
        unknown = [(k, v) for k, v in body if k == "unknown_field"]
        return Problem(422, "unknown_field", parts=unknown)
    if body:
        return Problem(422, body[0][0], parts=body)
    params = [str(e.get("key", "")) for e in problems if e.get("key")]
    if params:  # a path or query parameter outside its bounds (D-27), the first one named
        bound = bound_of(params[0], path=True)
        if not bound and handler is not None:  # a query parameter: the route's declaration
            bound = query_bound(handler, params[0])
        return parameter_refused(params[0], bound)
    return Problem(422, "invalid_body")


def parameter_refused(field: str, bound: Mapping[str, int]) -> Problem:
    """422 `invalid_parameter` naming the path or query parameter `field` and, where it has
    them, its bounds (`minimum`, `maximum`) as members, as a body problem has them (D-27)."""
    key = "invalid_parameter.bounded" if bound else "invalid_parameter"
    members: dict[str, object] = {"field": field, **bound}
    problem = Problem(422, key, params=members)
    problem.extra = members
    return problem


def too_deep(request: Request[Any, Any, Any], exc: TooDeep) -> Response[bytes]:
    """A body nested deeper than shared.app.http.bodies.MAX_DEPTH, refused before decoding."""
    return problem_response(
        request, Problem(400, "malformed_json.too_deep", params={"limit": exc.limit})
    )


def internal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    log.exception("api.unhandled", path=request.url.path)
    return problem_response(request, Problem(HTTP_500_INTERNAL_SERVER_ERROR, "internal"))


def unavailable(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    """The store is busy or its connection was lost: 503 with Retry-After, never a 500."""
    log.warning("api.store_unavailable", path=request.url.path, error=type(exc).__name__)
    return problem_response(request, store_busy())


def audit_copy(request: Request[Any, Any, Any], exc: AuditCopyRefused) -> Response[bytes]:
    """An imported audit copy is read-only (ADR-58): every write to it is 409 `audit_copy`."""
    return problem_response(request, Problem(409, "audit_copy"))


Handler = Callable[[Request[Any, Any, Any], Any], Response[Any]]


def exception_handlers() -> dict[int | type[Exception], Handler]:
    """Every exception either API turns into problem+json, registered once on the app."""
    return {
        Problem: problem_response,
        HTTPException: http_exception,
        TooDeep: too_deep,
        StoreBusyError: unavailable,
        AuditCopyRefused: audit_copy,
        asyncpg.PostgresConnectionError: unavailable,
        asyncpg.InterfaceError: unavailable,
        asyncpg.exceptions.OperatorInterventionError: unavailable,
        ConnectionError: unavailable,
        Exception: internal_error,
    }
