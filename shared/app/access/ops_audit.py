"""Ops reads of secret data, recorded before the secret leaves (R-14, ADR-53).

Both APIs call `record_ops_read` where ops read what R-14 keeps secret during a season (all
orders, all battles, a bey's private view, the auditors' betrayal records, the export with its
seed, a Divan explained or re-run with what-if, a fork of a running season): the record goes
to the event store's own audit trail (shared.eventstore.ops_read_log: a PostgreSQL table, not the
season's stream), and a read whose record cannot be written is refused with 503
`audit_unavailable`, so no secret is ever read unrecorded.
"""

from __future__ import annotations

from typing import Any

import structlog
from litestar import Request

from shared.app.access import request_auth, tokens
from shared.app.http.problems import Problem
from shared.eventstore.ops_read_log import OpsRead, OpsReads

log = structlog.get_logger(__name__)

FINGERPRINT = 12  # hex digits of the token's SHA-256: names the operator, never the token


def fingerprint(token: str | None) -> str:
    """The first hex digits of the token's hash: the configured SHA-256 starts with them."""
    return tokens.token_hash(token)[:FINGERPRINT] if token else "unknown"


async def record_ops_read(
    reads: OpsReads, request: Request[Any, Any, Any], season_id: str, what: str
) -> OpsRead:
    """Record the read durably, then log it; 503 `audit_unavailable` if it cannot be recorded."""
    actor = fingerprint(request_auth.bearer(request))
    try:
        done = await reads.record(season_id, what, actor)
    except Exception as exc:  # any failure: the secret is not returned unrecorded
        log.warning(
            "ops.secret_read_unrecorded", season_id=season_id, what=what, error=type(exc).__name__
        )
        raise Problem(503, "audit_unavailable", retry_after=1) from None
    log.info("ops.secret_read", season_id=season_id, what=what, actor=actor, record=done.id)
    return done
