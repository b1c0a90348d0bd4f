"""Ops replay of a stored season: hash chain, fold, re-run of every Divan (R-12.3)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from urllib.parse import urlsplit

from shared.domain import codec
from shared.domain.replay import verify
from shared.eventstore import RecordedEvent, verify_chain


def describe_dsn(dsn: str) -> str:
    """Which database a DSN names, for people: user, host, port and database, never a password."""
    parts = urlsplit(dsn)
    host = parts.hostname or "localhost"
    user = f"{parts.username}@" if parts.username else ""
    port = f":{parts.port}" if parts.port else ""
    return f"{user}{host}{port}{parts.path or '/'}"


def verify_season(
    season_id: str, records: Sequence[RecordedEvent], database: str | None = None
) -> int:
    """Print a JSON verdict on a season's stored records (`seksenbir verify` reads them, from
    `database`); exit status 0 when the chain and every Divan check out, else 1."""
    where = {"database": database} if database is not None else {}
    if not records:
        print(json.dumps({"season": season_id, **where, "error": "no such season"}))
        return 1
    chain_ok = True
    try:
        verify_chain(records)
    except Exception as exc:
        chain_ok = False
        chain_error = str(exc)
    state, problems = verify([codec.decode_event(r.data) for r in records])
    verdict = {
        "season": season_id,
        **where,
        "events": len(records),
        "divan": state.divan,
        "phase": state.phase,
        "rules_version": state.rules_version,
        "hash_chain": "ok" if chain_ok else f"broken: {chain_error}",
        "mismatches": [{"divan": p.divan, "what": p.what} for p in problems],
    }
    print(json.dumps(verdict, ensure_ascii=False, indent=2))
    return 0 if chain_ok and not problems else 1
