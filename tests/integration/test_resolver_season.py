"""A whole trial season over HTTP with a real Dramatiq resolver, checked against the domain.

The API (gateway.create_app without reads: its own PostgreSQL pool and Redis broker) takes
the commands; a real Dramatiq worker (in this process) resolves each requested Divan. Afterwards the stored events
must equal, byte for byte, what the pure domain computes from the same commands; they fold to
the same state, replay verification finds no mismatch, and the hash chain verifies.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest
from litestar.testing import AsyncTestClient

from entrypoints.gateway import create_app
from shared.domain import bots, codec
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.evolve import fold
from shared.domain.lifecycle import run_divan
from shared.domain.replay import verify
from shared.domain.state import DIVANS, SeasonState
from shared.eventstore import PostgresEventStore, verify_chain
from tests.brokers import probe
from tests.integration.resolver_support import (
    decoded,
    inprocess_worker,
    namespace,
    settings_for,
    wait_for,
)

pytestmark = pytest.mark.integration

SPEND_KINDS = {
    c.BuildSur: "sur",
    c.HireMercenaries: "paralı_asker",
    c.PurchaseProvince: "satın_alma",
}


@dataclass(frozen=True)
class Resolved:
    """Marker in the command log: the human requested Divan n and the resolver resolved it."""

    divan: int


def _apply(state: SeasonState, events: list[ev.Event]) -> SeasonState:
    return fold(events, state)


def domain_rerun(prefix: list[ev.Event], log: list[Any], seat: int) -> list[ev.Event]:
    """What the pure domain records for the season: the creation events, then each command."""
    state = fold(prefix)
    out = list(prefix)
    for item in log:
        if isinstance(item, Resolved):
            requested = decide(state, c.RequestDivan(seat=seat, divan=item.divan))
            assert isinstance(requested, list), requested
            state = _apply(state, requested)
            divan = run_divan(state)
            state = _apply(state, divan)
            out += [*requested, *divan]
            assert state.divan == item.divan
        else:
            result = decide(state, item)
            assert isinstance(result, list), (item, result)
            state = _apply(state, result)
            out += result
    return out


async def test_a_whole_trial_season_over_http_with_a_real_worker(
    migrated_pg_dsn: str, redis_url: str, broker_url: str, event_store: PostgresEventStore
) -> None:
    """On each broker (tests/brokers.py, make test-rabbitmq)."""
    ns = namespace()
    settings = settings_for(migrated_pg_dsn, redis_url, ns, broker_url=broker_url)
    keys = probe(broker_url, ns)
    try:
        with inprocess_worker(settings) as worker:
            async with AsyncTestClient(app=create_app(settings, reads=False)) as client:
                await _play(client, event_store, worker.recorder)
    finally:
        keys.cleanup()


async def _play(client: AsyncTestClient[Any], store: PostgresEventStore, recorder: Any) -> None:  # noqa: PLR0915 — one season played in order; each step checks the one before
    r = await client.post("/v1/seasons", json={"memleket": 6, "seed": "7"})
    assert r.status_code == 201, r.text
    created = r.json()
    sid, seat = created["season_id"], created["seat"]
    auth = {"Authorization": f"Bearer {created['token']}"}
    status = (await client.get(f"/v1/seasons/{sid}")).json()
    assert (status["phase"], status["divan"], status["resolving"]) == ("running", 0, False)
    created_version = status["version"]

    log: list[Any] = []
    spends = 0
    for n in range(1, DIVANS + 1):
        state = fold(decoded(await store.read_stream(sid)))
        if n % 2 == 1:  # orders for every other Divan, planned like a computer bey's
            orders = bots.plan_orders(state, seat, n)
            body = {"orders": msgspec.to_builtins(orders), "divan": n}
            r = await client.post(f"/v1/seasons/{sid}/orders", json=body, headers=auth)
            assert r.status_code == 200, r.text
            log.append(c.SubmitOrders(seat=seat, divan=n, orders=orders))
            state = fold(decoded(await store.read_stream(sid)))
            # the answer names the season version after it (read your writes, ADR-73)
            version = await store.stream_version(sid)
            assert r.json() == {"divan": n, "orders": len(orders), "version": version}
        if n in (3, 9):  # spending, applied at once, under an Idempotency-Key
            for cmd in bots.plan_spending(state, seat, n)[:1]:
                body = {"kind": SPEND_KINDS[type(cmd)], "province": cmd.province}
                headers = {**auth, "Idempotency-Key": f"spend-{n}"}
                r = await client.post(f"/v1/seasons/{sid}/spend", json=body, headers=headers)
                assert r.status_code == 200, r.text
                log.append(cmd)
                spends += 1
        r = await client.post(f"/v1/seasons/{sid}/divans", json={"divan": n}, headers=auth)
        assert r.status_code == 202, r.text
        assert r.json() == {"divan": n, "status": "resolving"}
        log.append(Resolved(n))

        async def advanced(n: int = n) -> dict[str, Any] | None:
            s = (await client.get(f"/v1/seasons/{sid}")).json()
            return s if s["divan"] == n and not s["resolving"] else None

        status = await wait_for(advanced, f"Divan {n} to be resolved")
    assert status["phase"] == "kurultay"

    async def recorded() -> bool:  # the worker's wrapper records an outcome once resolve has
        return len(recorder.outcomes_of(sid)) >= DIVANS  # returned, after the append is read

    await wait_for(recorded, "the worker's outcome of Divan 16")
    assert recorder.outcomes_of(sid) == [(n, "resolved") for n in range(1, DIVANS + 1)]
    assert recorder.failures() == []

    candidate = next(s for s in itertools.count(1) if s != seat)
    r = await client.post(
        f"/v1/seasons/{sid}/kurultay/vote", json={"candidate": candidate}, headers=auth
    )
    assert r.status_code == 200, r.text
    log.append(c.CastVote(seat=seat, candidate=candidate))
    status = (await client.get(f"/v1/seasons/{sid}")).json()
    assert status["phase"] == "over"
    assert status["han"] is not None
    assert status["seed"] == "7"

    records = await store.read_stream(sid)
    events = decoded(records)
    # Stored bytes are canonical, and equal what the domain computes from the same commands.
    assert [r.data for r in records] == [codec.encode(e) for e in events]
    expected = domain_rerun(events[:created_version], log, seat)
    assert [codec.event_type(e) for e in events] == [codec.event_type(e) for e in expected]
    assert [r.data for r in records] == [codec.encode(e) for e in expected]
    state = fold(events)
    assert state == fold(expected)
    assert (state.phase, state.divan, state.han) == ("over", DIVANS, status["han"])
    replayed, problems = verify(events)
    assert problems == []
    assert replayed == state
    # One resolution per Divan, in order; versions and positions gap-free.
    assert [e.divan for e in events if isinstance(e, ev.DivanResolved)] == list(
        range(1, DIVANS + 1)
    )
    assert [r.version for r in records] == list(range(1, len(records) + 1))
    assert len(log) - DIVANS - 1 - spends >= DIVANS // 2
    # The hash chain verifies, and ends at the stream head.
    assert verify_chain(records) == records[-1].hash
    assert await store.verify_chain(sid) == records[-1].hash
