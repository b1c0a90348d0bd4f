"""Ops replay of a stored season: hash chain, fold, re-run of every Divan (R-12.3)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from shared.domain import codec
from shared.domain.replay import verify
from shared.eventstore import RecordedEvent, verify_chain


def verify_season(season_id: str, records: Sequence[RecordedEvent]) -> int:
    """Print a JSON verdict on a season's stored records (`seksenbir verify` reads them); exit
    status 0 when the chain and every Divan check out, else 1."""
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
