"""Bey, ops and auditor tokens: random, shown once, compared by SHA-256 hash in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any, Literal

from litestar import Request

from services.command.problems import Problem
from shared.domain.state import SeasonState

TOKEN_PREFIX = "sb1"


def new_token(season_id: str, seat: int) -> str:
    """`sb1.<season>.<seat>.<secret>`: season and seat route the check; the secret has 192 bits."""
    return f"{TOKEN_PREFIX}.{season_id}.{seat}.{secrets.token_urlsafe(24)}"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def bearer(request: Request[Any, Any, Any]) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


@dataclass(frozen=True, slots=True)
class Caller:
    role: Literal["bey", "ops", "auditor"]
    seat: int | None = None


def _matches(token: str, hashes: tuple[str, ...]) -> bool:
    digest = token_hash(token)
    return any(hmac.compare_digest(digest, h) for h in hashes)


def staff(
    request: Request[Any, Any, Any], ops: tuple[str, ...], auditors: tuple[str, ...]
) -> Caller | None:
    token = bearer(request)
    if token is None:
        return None
    if _matches(token, ops):
        return Caller("ops")
    if _matches(token, auditors):
        return Caller("auditor")
    return None


def bey(request: Request[Any, Any, Any], season_id: str, state: SeasonState) -> int:
    """The seat a bey token names in this season, or a 401/403 problem."""
    if request.scope["query_string"] and (
        "token" in request.query_params or "access_token" in request.query_params
    ):
        raise Problem(
            400, "token_in_query", "Jeton adres satırında gönderilmez / no tokens in URLs"
        )
    token = bearer(request)
    if token is None:
        raise Problem(401, "missing_token", "Authorization: Bearer <jeton> gerekli")
    parts = token.split(".", 3)
    if len(parts) != 4 or parts[0] != TOKEN_PREFIX or not parts[2].isdigit():
        raise Problem(401, "bad_token", "Jeton geçersiz / invalid token")
    if parts[1] != season_id:
        raise Problem(
            403, "token_wrong_season", "Bu jeton başka bir sezonun / another season's token"
        )
    seat = int(parts[2])
    stored = state.tokens.get(seat)
    if stored is None or not hmac.compare_digest(stored, token_hash(token)):
        raise Problem(401, "bad_token", "Jeton geçersiz / invalid token")
    return seat
