"""Tokens for both APIs: one strict parser, one hash, one constant-time comparison.

A bey token is `sb1.<season_id>.<seat>.<secret>`, exactly as `new_token` makes it:
- season_id: 32 lowercase hexadecimal digits, the shape `new_season_id` (uuid4().hex) gives;
- seat: 1 … 19 in ASCII digits, no sign, no leading zero, no whitespace;
- secret: 32 characters of the URL-safe base64 alphabet (`secrets.token_urlsafe(24)`, 192 bits).
Anything else is not a bey token: 401 `bad_token`, like a wrong secret (and so counted by the
failed-token limiter). Only a well-formed token of another season is 403 `token_wrong_season`.

Ops and auditor tokens are free-form strings configured by their SHA-256 hashes (Settings). A
valid one on a bey endpoint is 403 `forbidden`: a known caller in the wrong place, not a guess,
so it is not counted as a failed attempt. So is a live season's season-admin token
(`sba1.<season>.<secret>`) on a bey endpoint of its own season, once it matches the hash the
season keeps (ADR-61); any other `sba1.` string is no token of anyone's: 401 `bad_token`.

Every service checks tokens here; each turns a `TokenRefused` into its own problem answer.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import uuid
from collections.abc import Callable, Mapping
from typing import NamedTuple

from shared.domain import messages
from shared.domain.state import SEATS

PREFIX = "sb1"
SECRET_BYTES = 24  # 192 bits
SECRET_CHARS = 32  # len(secrets.token_urlsafe(24))
_SEASON = re.compile(r"[0-9a-f]{32}")
_TOKEN = re.compile(r"sb1\.([0-9a-f]{32})\.([1-9][0-9]?)\.([A-Za-z0-9_-]{32})")
_ADMIN = re.compile(r"sba1\.[0-9a-f]{32}\.[A-Za-z0-9_-]{32}")
# A secret part as the server draws it, and as a client may bring its own (ADR-178)
SECRET_PATTERN = r"[A-Za-z0-9_-]{32}"
_SECRET = re.compile(SECRET_PATTERN)
QUERY_NAMES = ("token", "access_token")


class BeyToken(NamedTuple):
    season_id: str
    seat: int


class TokenRefused(Exception):
    """A token check's refusal: the service answers it as problem+json with this code."""

    def __init__(self, status: int, key: str) -> None:
        super().__init__(key)
        self.status, self.key, self.code = status, key, messages.code_of(key)


def missing_token(key: str = "missing_token") -> TokenRefused:
    """401 missing_token; `key` the text that says which token (shared.domain.messages)."""
    return TokenRefused(401, key)


def bad_token() -> TokenRefused:
    return TokenRefused(401, "bad_token")


def new_season_id() -> str:
    return uuid.uuid4().hex


def is_season_id(value: str) -> bool:
    return _SEASON.fullmatch(value) is not None


def parse(token: str) -> BeyToken | None:
    """The season and seat a bey token names, or None if it is not exactly a bey token."""
    m = _TOKEN.fullmatch(token)
    if m is None:
        return None
    seat = int(m[2])
    return BeyToken(m[1], seat) if seat <= SEATS else None


def secret_of(given: str | None) -> str:
    """A token's secret part: the one the client drew itself (ADR-178; exactly the shape the
    server draws, else ValueError: the request schemas refuse any other first), or a new one
    of 192 bits."""
    if given is None:
        return secrets.token_urlsafe(SECRET_BYTES)
    if _SECRET.fullmatch(given) is None:
        raise ValueError("a secret is 32 characters of the URL-safe base64 alphabet")
    return given


def new_token(season_id: str, seat: int, secret: str | None = None) -> str:
    """`sb1.<season>.<seat>.<secret>`: season and seat route the check; the secret has 192 bits
    (the client's own when it brings one, ADR-178: its retry makes the same token again)."""
    if not is_season_id(season_id):  # a token the parser would refuse is never issued
        raise ValueError(f"not a season id: {season_id!r}")
    # the seat is the domain's to check (RotateToken: unknown_seat); every bey's is 1 … SEATS
    return f"{PREFIX}.{season_id}.{seat}.{secret_of(secret)}"


ADMIN_PREFIX = "sba1"


def new_admin_token(season_id: str, secret: str | None = None) -> str:
    """A live season's season-admin token, `sba1.<season>.<secret>` (192 bits): never a bey
    token (the bey parser refuses it), kept only as its hash (AdminTokenSet); the secret the
    client's own when it brings one (ADR-178)."""
    if not is_season_id(season_id):
        raise ValueError(f"not a season id: {season_id!r}")
    return f"{ADMIN_PREFIX}.{season_id}.{secret_of(secret)}"


def holds(stored: str | None, token: str) -> bool:
    """Whether a kept hash (None or "": nothing kept) is this token's, in constant time: how
    a retry that brings its own secret is recognised (ADR-178)."""
    return bool(stored) and same_hash(stored or "", token_hash(token))


def token_hash(token: str) -> str:
    """The SHA-256 hex digest a token is kept as (events, projections, settings)."""
    return hashlib.sha256(token.encode()).hexdigest()


def same_hash(stored: str, digest: str) -> bool:
    """Whether two token hashes are equal, in constant time."""
    return hmac.compare_digest(stored.encode(), digest.encode())


def _any_hash(digest: str, hashes: tuple[str, ...]) -> bool:
    found = False
    for h in hashes:  # every hash compared: the time does not say which one matched
        found |= same_hash(h, digest)
    return found


def matches_any(token: str, hashes: tuple[str, ...]) -> bool:
    """Whether the token is one of those whose hashes are given (constant time in each)."""
    return _any_hash(token_hash(token), hashes)


def bearer(authorization: str, query: Mapping[str, object]) -> str | None:
    """The bearer token of a request, or None; a token in the URL is refused (400)."""
    if any(name in query for name in QUERY_NAMES):
        raise TokenRefused(400, "token_in_query")
    scheme, _, value = authorization.partition(" ")
    value = value.strip()
    return value if scheme.lower() == "bearer" and value else None


def staff_role(token: str, ops: tuple[str, ...], auditors: tuple[str, ...]) -> str | None:
    """'ops' or 'auditor' for a staff token, else None."""
    if matches_any(token, ops):
        return "ops"
    if matches_any(token, auditors):
        return "auditor"
    return None


def of_a_known_kind(token: str) -> bool:
    """Whether `token` has the exact shape of a bey's or a season admin's token: on an endpoint
    that takes neither, such a token is a known caller in the wrong place (403, or the public
    view), never a guess (ADR-61); any other string is one (401 `bad_token`, counted)."""
    return parse(token) is not None or _ADMIN.fullmatch(token) is not None


def not_staff(token: str) -> TokenRefused:
    """The refusal of a token that is no staff token on a staff endpoint: a bey's or a season
    admin's token there is 403 `forbidden`; anything else is 401 `bad_token` (a guess)."""
    if not of_a_known_kind(token):
        return bad_token()
    return TokenRefused(403, "forbidden.staff")


def bey_seat(
    token: str | None,
    season_id: str,
    stored: Callable[[int], str | None],
    staff: tuple[str, ...] = (),
    admin: str = "",
) -> int:
    """The seat whose token this is in `season_id` (`stored(seat)`: the seat's token hash, or
    None), or a TokenRefused: 401 missing or bad, 403 another season's, a staff token, or the
    season's own season-admin token (`admin`: the hash the season keeps, "" for none)."""
    if token is None:
        raise missing_token()
    known = _VERIFIED.get((token, staff))
    remembered = known is not None
    if known is None:
        digest = token_hash(token)
        if _any_hash(digest, staff):
            raise TokenRefused(403, "forbidden.staff_token")
        parsed = parse(token)
        if parsed is None:
            if admin and token.startswith(f"{ADMIN_PREFIX}.") and same_hash(admin, digest):
                raise TokenRefused(403, "forbidden.admin_token")  # verified: no guess, not counted
            raise bad_token()
        known = (digest.encode(), parsed.season_id, parsed.seat)
    if known[1] != season_id:
        raise TokenRefused(403, "token_wrong_season")
    kept = stored(known[2])
    if kept is None or not hmac.compare_digest(kept.encode(), known[0]):
        raise bad_token()
    if not remembered:
        _verified(token, staff, known)
    return known[2]


# Tokens that matched their seat's hash once (ADR-140): (token, the staff hashes) → the token's
# SHA-256 hex digest (bytes), its season and seat: what the checks above derive from the token
# alone, so a memo hit skips the hash, the staff comparisons and the parse. What decides is
# still compared on every request: the season, and the digest against the hash the state holds
# for the seat now (a rotated or reissued token is refused at once). Only a token that matched
# enters (a guess never does); at most _VERIFIED_MAX entries, emptied when full. A hit costs a
# dict look-up whose time says only that this exact token was seen: no guess learns from it.
_VERIFIED: dict[tuple[str, tuple[str, ...]], tuple[bytes, str, int]] = {}
_VERIFIED_MAX = 4096


def _verified(token: str, staff: tuple[str, ...], known: tuple[bytes, str, int]) -> None:
    if len(_VERIFIED) >= _VERIFIED_MAX:
        _VERIFIED.clear()
    _VERIFIED[(token, staff)] = known
