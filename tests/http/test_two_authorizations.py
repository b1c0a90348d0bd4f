"""Issue 20 item 9, ADR-75: two Authorization headers are refused, never first-wins.

A proxy, a log or a reviewer may read the other one; the API read the first. Every route of
both APIs now answers 400 `ambiguous_authorization` before any token is read (shared.app.access.request_auth,
an app guard), whichever of the two is valid, and changes nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from shared.eventstore import InMemoryEventStore
from tests.clock import StepClock
from tests.http.support import (
    OPS_TOKEN,
    Api,
    assert_problem,
    create_trial,
    open_api,
    open_litestar_client,
    unchanged,
)


@pytest.fixture(params=["two field lines", "joined by a comma"])
async def transport(request: pytest.FixtureRequest, clock: StepClock) -> AsyncIterator[Api]:
    """httpx's ASGI transport passes two header lines as they are; Litestar's test client
    joins them into one with a comma, as an intermediary may (RFC 9110 §5.3)."""
    store = InMemoryEventStore(clock=clock)
    opened = open_api(store) if request.param == "two field lines" else open_litestar_client(store)
    async with opened as api:
        yield api


@pytest.mark.parametrize("valid_first", [True, False])
async def test_two_authorization_headers_are_400_on_commands_reads_and_ops(
    transport: Api, valid_first: bool
) -> None:
    """R-14: a bey's token is its own; no request decides which of two it meant."""
    memory_api = transport
    bey = await create_trial(memory_api.client)
    pair = [f"Bearer {bey.token}", "Bearer guess-0123456789"]
    if not valid_first:
        pair.reverse()
    calls = [
        ("POST", bey.url("/orders"), b'{"divan": 1, "orders": []}'),
        ("POST", bey.url("/token"), b""),
        ("GET", bey.url("/me"), b""),
        ("GET", bey.url(), b""),  # a public read: two headers are still not one
        ("GET", f"/v1/ops/seasons/{bey.season_id}/export", b""),
        ("POST", f"/v1/ops/seasons/{bey.season_id}/beys/{bey.seat}/token", b""),
    ]
    for lang, said in (("tr", "iki Authorization"), ("en", "two Authorization")):
        for method, path, body in calls:
            headers = [
                ("Authorization", pair[0]),
                ("Authorization", pair[1]),
                ("Content-Type", "application/json"),
                ("Idempotency-Key", "two"),
                ("Accept-Language", lang),
            ]
            r = await unchanged(
                memory_api.store,
                memory_api.client.request(method, path, content=body, headers=headers),
            )
            problem = assert_problem(r, 400, "ambiguous_authorization")
            assert said in problem["detail"], (path, problem)
    # one header, as before: the bey's own token works, ops' too
    r = await memory_api.client.get(bey.url("/me"), headers={"Authorization": pair[0]})
    assert r.status_code == (200 if valid_first else 401), r.text
    ops = [("Authorization", f"Bearer {OPS_TOKEN}"), ("Authorization", f"Bearer {OPS_TOKEN}")]
    r = await memory_api.client.get(f"/v1/ops/seasons/{bey.season_id}/export", headers=ops)
    assert_problem(r, 400, "ambiguous_authorization")  # even two copies of one token
