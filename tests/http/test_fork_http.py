"""`POST /v1/seasons/{id}/fork` (issue 13, D-32): a new trial season from the state after
Divan n of another season, the human in any seat; it records where it came from, never counts
on the boards, replays from its own stream, and is answered like a trial create."""

from __future__ import annotations

import msgspec

from shared.app.ops.export import export_lines
from shared.app.ops.export_check import check
from shared.app.ops.export_read import parse
from shared.domain import codec
from shared.domain import events as ev
from shared.domain.evolve import fold
from shared.domain.fork import after_divan, fork_events
from shared.domain.state import SeasonState
from tests.audit.support import store_season
from tests.http.support import (
    OPS_TOKEN,
    Api,
    Bey,
    assert_problem,
    bearer,
    play_divans,
    state_of,
)


async def _fork(api: Api, source: str, divan: int, seat: int, **kw: object) -> Bey:
    r = await api.client.post(
        f"/v1/seasons/{source}/fork", json={"divan": divan, "seat": seat}, **kw
    )  # type: ignore[arg-type]
    assert r.status_code == 201, r.text
    body = r.json()
    assert r.headers["location"] == f"/v1/seasons/{body['season_id']}"
    assert (body["source_season"], body["source_divan"], body["seat"]) == (source, divan, seat)
    return Bey(body["season_id"], body["seat"], body["token"], 0)


async def test_anyone_forks_a_finished_season_from_any_divan(memory_api: Api) -> None:
    """The fork's state is the source's after Divan 8, the human in seat 5, every other bey a
    computer bey; its own seed; it never counts on the boards; SeasonForked names the source,
    the Divan and the source's chain head there."""
    await store_season(memory_api.store, "finished", 3)
    bey = await _fork(memory_api, "finished", 8, 5)
    source_records = await memory_api.store.read_stream("finished")
    source_events = [codec.decode_event(r.data) for r in source_records]
    upto = after_divan(source_events, 8)
    assert upto is not None
    source = fold(source_events[:upto])
    state, _version = await state_of(memory_api.store, bey.season_id)
    assert (state.mode, state.phase, state.divan, state.counts_on_boards) == (
        "trial",
        "running",
        8,
        False,
    )
    assert state.provinces == source.provinces and state.treaties == source.treaties
    assert [(b.seat, b.computer) for b in state.beys] == [(s, s != 5) for s in range(1, 20)]
    assert [b.gold for b in state.beys] == [b.gold for b in source.beys]
    assert state.seed != source.seed and state.seed_commitment != source.seed_commitment
    records = await memory_api.store.read_stream(bey.season_id)
    forked = next(
        e for e in (codec.decode_event(r.data) for r in records) if isinstance(e, ev.SeasonForked)
    )
    assert forked.source_head == source_records[upto - 1].hash.hex()
    assert (forked.source_season, forked.source_divan, forked.source_version) == (
        "finished",
        8,
        upto,
    )
    r = await memory_api.client.get(bey.url("/me"), headers=bey.auth())
    assert r.status_code == 200 and r.json()["seat"] == 5


async def test_the_fork_plays_on_and_its_export_verifies(memory_api: Api) -> None:
    """R-12.3: the fork replays from its own stream: two Divans played over HTTP, then the
    offline check re-runs every Divan of the export and finds nothing."""
    await store_season(memory_api.store, "finished", 3)
    bey = await _fork(memory_api, "finished", 14, 2)
    await play_divans(memory_api, bey, 2)
    records = await memory_api.store.read_stream(bey.season_id)
    verdict = check(parse(list(export_lines(bey.season_id, records, records[-1].hash))))
    assert verdict.ok, verdict.as_json(True)
    assert verdict.state is not None and verdict.state.divan == 16


async def test_a_running_season_is_forked_by_ops_only(memory_api: Api) -> None:
    await store_season(memory_api.store, "running", 3, divans=3)
    url = "/v1/seasons/running/fork"
    body = assert_problem(
        await memory_api.client.post(url, json={"divan": 2, "seat": 1}), 403, "forbidden"
    )
    assert "Kurultay" in body["detail"]
    await _fork(memory_api, "running", 2, 1, headers=bearer(OPS_TOKEN))
    assert_problem(
        await memory_api.client.post(url, json={"divan": 5, "seat": 1}, headers=bearer(OPS_TOKEN)),
        404,
        "divan_not_found",
    )
    assert_problem(
        await memory_api.client.post(url, json={"divan": 16, "seat": 1}, headers=bearer(OPS_TOKEN)),
        422,
        "invalid_body",
    )
    assert_problem(
        await memory_api.client.post("/v1/seasons/nobody/fork", json={"divan": 1, "seat": 1}),
        404,
        "season_not_found",
    )


def test_a_fork_refuses_a_seat_the_source_does_not_have() -> None:
    source = SeasonState(season_id="s", phase="running", divan=3)
    refused = fork_events(source, 9, "00", divan=3, seat=4, season_id="f", seed=1, salt="x")
    assert not isinstance(refused, list) and refused.code == "unknown_seat"
    assert msgspec.to_builtins(refused.details) == {"seat": 4}
