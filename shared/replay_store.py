"""Ops replay of a stored season: hash chain, fold, re-run of every Divan (R-12.3)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from shared.domain import codec
from shared.domain.replay import verify
from shared.eventstore import PostgresEventStore, create_pool, verify_chain
from shared.settings import Settings


async def verify_season(season_id: str, dsn: str | None = None) -> int:
    """Print a JSON verdict; exit status 0 when the chain and every Divan check out, else 1."""
    pool = await create_pool(dsn or Settings.from_env().pg_dsn)
    try:
        store = PostgresEventStore(pool, clock=lambda: datetime.now(UTC))
        records = await store.read_stream(season_id)
    finally:
        await pool.close()
    if not records:
        print(json.dumps({"season": season_id, "error": "no such season"}))
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
        "events": len(records),
        "divan": state.divan,
        "phase": state.phase,
        "rules_version": state.rules_version,
        "hash_chain": "ok" if chain_ok else f"broken: {chain_error}",
        "mismatches": [{"divan": p.divan, "what": p.what} for p in problems],
    }
    print(json.dumps(verdict, ensure_ascii=False, indent=2))
    return 0 if chain_ok and not problems else 1
