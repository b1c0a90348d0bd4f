"""R-1.2 (issue 9 item 4): a trial Divan request names its Divan; a retry never advances.

The table below is the contract of `POST /seasons/{id}/divans` over HTTP: where the season is
(Divans resolved, and whether the next one is requested), the Divan the request names, and the
answer, the events it appends and whether it enqueues the resolution.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from services.resolver.divan import resolve
from shared.app.repository.seasons import Seasons
from shared.domain import codec
from shared.domain import events as ev
from tests.http.support import (
    Api,
    Bey,
    assert_problem,
    create_trial,
    open_api,
    play_divans,
    request_divan,
    state_of,
)

# (id, Divans resolved first, next one requested first?, n asked for,
#  status, body (or problem code), events appended, enqueued)
CASES: list[tuple[str, int, bool, int, int, Any, list[str], bool]] = [
    (
        "the next Divan",
        0,
        False,
        1,
        202,
        {"divan": 1, "status": "resolving"},
        ["divan_requested.v1"],
        True,
    ),
    (
        "the next Divan, later",
        2,
        False,
        3,
        202,
        {"divan": 3, "status": "resolving"},
        ["divan_requested.v1"],
        True,
    ),
    (
        "requested, not resolved: a retry",
        0,
        True,
        1,
        202,
        {"divan": 1, "status": "resolving"},
        [],
        True,
    ),
    ("resolved: a retry", 1, False, 1, 200, {"divan": 1, "status": "resolved"}, [], False),
    (
        "resolved long ago: an old retry",
        2,
        False,
        1,
        200,
        {"divan": 1, "status": "resolved"},
        [],
        False,
    ),
    (
        "resolved, the next one resolving",
        1,
        True,
        1,
        200,
        {"divan": 1, "status": "resolved"},
        [],
        False,
    ),
    ("a Divan skipped", 0, False, 2, 409, "wrong_divan", [], False),
    ("far ahead", 2, False, 9, 409, "wrong_divan", [], False),
    ("Divan 0: outside 1 … 17 (D-27)", 0, False, 0, 422, "invalid_body", [], False),
    ("Divan 18: outside 1 … 17 (D-27)", 0, False, 18, 422, "invalid_body", [], False),
    ("two ahead of one resolving", 0, True, 3, 409, "wrong_divan", [], False),
    ("the one after one resolving", 0, True, 2, 409, "divan_locked", [], False),
]
# The next Divan a refusal names (`divan` in the problem body): resolved + 1.


async def _types_after(api: Api, bey: Bey, version: int) -> list[str]:
    return [r.type for r in await api.store.read_stream(bey.season_id, from_version=version)]


@pytest.mark.parametrize(
    ("resolved", "requested", "n", "status", "want", "appended", "enqueues"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
async def test_r1_2_a_divan_request_names_its_divan(
    api: Api,
    resolved: int,
    requested: bool,
    n: int,
    status: int,
    want: Any,
    appended: list[str],
    enqueues: bool,
) -> None:
    bey = await create_trial(api.client)
    await play_divans(api, bey, resolved)
    if requested:
        assert (await request_divan(api.client, bey, resolved + 1)).status_code == 202
    _state, version = await state_of(api.store, bey.season_id)
    api.enqueued.clear()

    r = await request_divan(api.client, bey, n)

    if isinstance(want, str):
        assert_problem(r, status, want)
        if want == "wrong_divan":
            assert r.json()["divan"] == resolved + 1  # the next Divan, to ask for
    else:
        assert (r.status_code, r.json()) == (status, want)
    assert await _types_after(api, bey, version) == appended
    assert api.enqueued == ([(bey.season_id, n)] if enqueues else [])


async def test_r1_2_a_retry_with_the_same_idempotency_key_changes_nothing(api: Api) -> None:
    bey = await create_trial(api.client)
    first = await request_divan(api.client, bey, 1, key="divan-1")
    again = await request_divan(api.client, bey, 1, key="divan-1")
    assert (first.status_code, again.status_code) == (202, 202)
    assert again.json() == first.json() == {"divan": 1, "status": "resolving"}
    state, _v = await state_of(api.store, bey.season_id)
    assert (state.divan, state.locked_divan) == (0, 1)


def _requested_and_resolved(records: list[Any]) -> tuple[list[int], list[int]]:
    decoded = [codec.decode_event(r.data) for r in records]
    return (
        [e.divan for e in decoded if isinstance(e, ev.DivanRequested)],
        [e.divan for e in decoded if isinstance(e, ev.DivanResolved)],
    )


async def _resolve_everything_enqueued(apis: list[Api]) -> list[str]:
    """What resolver workers do with every message the APIs sent, all at once, each with its
    own cache (a racing loser re-appends the same event ids: an idempotent hit, no copy)."""
    jobs = [resolve(Seasons(a.store), s, d) for a in apis for s, d in a.enqueued]
    return list(await asyncio.gather(*jobs))


@pytest.mark.integration
async def test_r1_2_ten_identical_concurrent_requests_resolve_one_divan(pg_api: Api) -> None:
    """Issue 9 item 4: ten identical requests at once (one API process) append one
    DivanRequested, answer the same 202, and one Divan is resolved."""
    bey = await create_trial(pg_api.client)
    answers = await asyncio.gather(*(request_divan(pg_api.client, bey, 1) for _ in range(10)))
    assert {(r.status_code, r.text) for r in answers} == {(202, '{"divan":1,"status":"resolving"}')}
    assert len(pg_api.enqueued) == 10  # each 202 enqueues: harmless, the resolver is idempotent
    await _resolve_everything_enqueued([pg_api])
    records = await pg_api.store.read_stream(bey.season_id)
    assert _requested_and_resolved(records) == ([1], [1])
    again = await request_divan(pg_api.client, bey, 1)
    assert (again.status_code, again.json()) == (200, {"divan": 1, "status": "resolved"})


@pytest.mark.integration
async def test_r1_2_identical_requests_racing_on_two_api_processes_resolve_one_divan(
    pg_api: Api,
) -> None:
    """Two API processes (own caches, own locks) race on the store's expected version."""
    bey = await create_trial(pg_api.client)
    async with open_api(pg_api.store) as other:
        clients = [pg_api.client, other.client] * 5
        answers = await asyncio.gather(*(request_divan(c, bey, 1) for c in clients))
        assert {r.status_code for r in answers} == {202}
        await _resolve_everything_enqueued([pg_api, other])
    records = await pg_api.store.read_stream(bey.season_id)
    assert _requested_and_resolved(records) == ([1], [1])
