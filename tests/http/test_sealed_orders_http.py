"""Sealed orders (ADR-57): every season the API creates, trial, live or forked, is of report
version 3, so each Divan's locked orders are sealed; a Divan resolved after orders sent over
HTTP seals exactly those orders (docs/export.md's recipe on the body that was sent).

The bey's own check from its private report, and that no other bey sees its salt, are in
tests/projections/test_secrecy.py (the read side serves the private reports)."""

from __future__ import annotations

from datetime import timedelta

from services.resolver.divan import resolve
from shared.app.ops.export import export_lines
from shared.app.ops.export_check import check
from shared.app.ops.export_read import parse
from shared.app.repository.seasons import Seasons
from shared.domain import codec, seal
from shared.domain import events as ev
from shared.domain.seal import seals_orders
from shared.domain.state import UPRISING_REPORT_VERSION
from tests.audit.support import store_season
from tests.http.support import ANKARA, Api, create_trial, request_divan, state_of
from tests.sealing import recipe

SENT = [
    {"province": ANKARA, "kind": "hold"},  # target and units left out, as a player may
]


async def _created(api: Api, season_id: str) -> ev.SeasonCreated:
    first = codec.decode_event((await api.store.read_stream(season_id))[0].data)
    assert isinstance(first, ev.SeasonCreated)
    return first


async def test_trial_live_and_forked_seasons_created_through_the_api_seal_their_orders(
    memory_api: Api,
) -> None:
    """Every season the API creates is of the newest report version (ADR-157; ADR-62 before
    it), which seals its orders (ADR-57)."""
    assert seals_orders(UPRISING_REPORT_VERSION)
    trial = await create_trial(memory_api.client)
    assert (await _created(memory_api, trial.season_id)).report_version == UPRISING_REPORT_VERSION
    close = (memory_api.clock() + timedelta(hours=2)).isoformat()
    r = await memory_api.client.post(
        "/v1/seasons", json={"mode": "live", "registration_closes_at": close}
    )
    assert r.status_code == 201, r.text
    live = await _created(memory_api, r.json()["season_id"])
    assert (live.mode, live.report_version) == ("live", UPRISING_REPORT_VERSION)
    await store_season(memory_api.store, "finished", 3)  # a season of report version 2
    r = await memory_api.client.post("/v1/seasons/finished/fork", json={"divan": 8, "seat": 5})
    assert r.status_code == 201, r.text
    fork = await _created(memory_api, r.json()["season_id"])
    assert fork.report_version == UPRISING_REPORT_VERSION


async def test_a_divan_seals_the_orders_a_bey_sent_over_http(memory_api: Api) -> None:
    """The orders sent with POST /orders, encoded by the documented recipe and salted with the
    bey's salt, are the digest `orders_sealed.v1` holds for its seat, right after the lock; the
    season's export verifies its seals."""
    bey = await create_trial(memory_api.client)
    r = await memory_api.client.post(bey.url("/orders"), headers=bey.auth(), json={"orders": SENT})
    assert r.status_code == 200, r.text
    assert (await request_divan(memory_api.client, bey, 1)).status_code == 202
    assert await resolve(Seasons(memory_api.store), bey.season_id, 1) == "resolved"
    records = await memory_api.store.read_stream(bey.season_id)
    events = [codec.decode_event(x.data) for x in records]
    lock = next(i for i, e in enumerate(events) if isinstance(e, ev.DivanLocked))
    sealed = events[lock + 1]
    assert isinstance(sealed, ev.OrdersSealed) and sealed.divan == 1
    state, _v = await state_of(memory_api.store, bey.season_id)
    salt = seal.salt(state.seed_salt, state.seed, bey.season_id, 1, bey.seat)
    assert recipe()["sealed_digest"](salt, SENT) == sealed.digests[bey.seat]
    verdict = check(parse(list(export_lines(bey.season_id, records, records[-1].hash))))
    assert verdict.ok, verdict.as_json(True)
    assert str(verdict.sealed_orders).startswith("ok: at 1 Divan(s)")
