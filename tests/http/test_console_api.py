"""What the ops console adds to the API (issue 26, ADR-103, ADR-104): each order set's
`submitted_at` and the lock instant in the explain answer, a correction's dry run that writes
nothing, and `verify` of a season over HTTP; ops only."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import msgspec

from shared.app.ops.divan_text import explain_text
from shared.app.ops.divan_tools import ExplainOut
from tests.http.support import (
    ANKARA,
    AUDITOR_TOKEN,
    OPS_TOKEN,
    Api,
    assert_problem,
    bearer,
    build_season,
    create_trial,
    play_divans,
    play_live_divans,
    state_of,
)

HOLD = [{"province": ANKARA, "kind": "hold"}]
ADVANCE = [{"province": ANKARA, "kind": "advance", "target": 71, "units": 2}]


async def test_adr103_explain_gives_each_order_set_its_submitted_at_and_the_sealed_one(
    memory_api: Api,
) -> None:
    """Two sets sent for Divan 1 (R-4.1: the newest replaces the first), then the lock: both
    listed with their instants, at or before the lock's; only the second is sealed, with the
    digest orders_sealed.v1 holds for the seat (ADR-57); the computer beys' sets too."""
    bey = await create_trial(memory_api.client)
    for orders in (HOLD, ADVANCE):
        r = await memory_api.client.post(
            bey.url("/orders"), headers=bey.auth(), json={"orders": orders}
        )
        assert r.status_code == 200, r.text
    await play_divans(memory_api, bey, 1)
    r = await memory_api.client.get(
        f"/v1/ops/seasons/{bey.season_id}/divans/1/explain", headers=bearer(OPS_TOKEN)
    )
    assert r.status_code == 200, r.text
    orders = r.json()["orders"]
    locked_at = datetime.fromisoformat(orders["locked_at"])
    assert orders["locked_at"].endswith("+03:00")  # D-22
    mine = [s for s in orders["sets"] if s["seat"] == bey.seat]
    assert [s["orders"][0]["kind"] for s in mine] == ["hold", "advance"]
    assert [s["sealed"] for s in mine] == [False, True]
    assert all(s["before_lock"] for s in mine)
    first, second = (datetime.fromisoformat(s["submitted_at"]) for s in mine)
    assert first <= second <= locked_at
    assert mine[0]["digest"] is None and len(mine[1]["digest"]) == 64
    others = {s["seat"] for s in orders["sets"] if s["sealed"]} - {bey.seat}
    assert others, "the computer beys' sets, made at the lock, are listed and sealed"
    # `seksenbir explain` prints them: each set, its instant, the sealed one
    text = explain_text(msgspec.json.decode(r.content, type=ExplainOut), "en")
    assert f"Bey {bey.seat}, {mine[1]['submitted_at']}: 1 order, the set sealed" in text
    assert f"Bey {bey.seat}, {mine[0]['submitted_at']}: 1 order\n" in text


async def test_adr104_a_correction_dry_run_answers_the_change_and_writes_nothing(
    memory_api: Api,
) -> None:
    """ADR-53's correction decided, not applied: the province and the beys it would change;
    the stream stays as it was; the same refusals as the correction itself."""
    bey = await create_trial(memory_api.client)
    await play_divans(memory_api, bey, 1)
    client, ops = memory_api.client, bearer(OPS_TOKEN)
    url = f"/v1/ops/seasons/{bey.season_id}/corrections/dry-run"
    before = await memory_api.store.read_stream(bey.season_id)
    body = {
        "correction": {"kind": "province", "province": 71, "owner": bey.seat, "units": 3},
        "reason": "the console's dry run",
    }
    r = await client.post(url, json=body, headers=ops)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["changed"] is True and out["divan"] == 1
    assert out["reason"] == "the console's dry run"
    (province,) = out["provinces"]
    assert province["plate"] == 71
    assert province["what_if"] == {"owner": bey.seat, "units": 3, "sur": False}
    assert bey.seat in [b["seat"] for b in out["beys"]]
    assert await memory_api.store.read_stream(bey.season_id) == before
    assert_problem(
        await client.post(url, json={**body, "reason": " "}, headers=ops), 422, "reason_required"
    )
    assert_problem(await client.post(url, json=body), 401, "missing_token")
    assert_problem(await client.post(url, json=body, headers=bearer(bey.token)), 403, "forbidden")
    assert_problem(
        await client.post(url, json=body, headers=bearer(AUDITOR_TOKEN)), 403, "forbidden"
    )
    # the correction itself then changes what the dry run said
    r = await client.post(f"/v1/ops/seasons/{bey.season_id}/corrections", json=body, headers=ops)
    assert r.status_code == 201, r.text
    repeat = await client.post(url, json=body, headers=ops)
    assert_problem(repeat, 422, "invalid_correction")


async def test_adr104_verify_over_http_as_the_cli_and_recorded(memory_api: Api) -> None:
    """`GET …/verify`: the chain, every Divan re-run, the seed commitment; `ok`; recorded in the
    ops-read trail (`verify`); ops only."""
    bey = await create_trial(memory_api.client)
    await play_divans(memory_api, bey, 2)
    client, ops = memory_api.client, bearer(OPS_TOKEN)
    url = f"/v1/ops/seasons/{bey.season_id}/verify"
    r = await client.get(url, headers=ops)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["ok"] is True and out["first_bad_event"] is None
    assert out["divan"] == 2 and out["events"] == await memory_api.store.stream_version(
        bey.season_id
    )
    assert out["mismatches"] == []
    reads = await client.get(f"/v1/seasons/{bey.season_id}/audit/ops-reads", headers=ops)
    assert "verify" in [x["what"] for x in reads.json()["reads"]]
    assert_problem(await client.get(url), 401, "missing_token")
    assert_problem(await client.get(url, headers=bearer(bey.token)), 403, "forbidden")
    assert_problem(await client.get(url, headers=bearer(AUDITOR_TOKEN)), 403, "forbidden")
    assert_problem(
        await client.get("/v1/ops/seasons/nobody/verify", headers=ops), 404, "season_not_found"
    )


async def test_adr106_verify_over_http_covers_the_chat_and_names_a_changed_text(
    memory_api: Api,
) -> None:
    """ADR-106: the console's verify checks the chat chain and each text against its event's
    digest, as `seksenbir verify SEASON` does."""
    from shared.domain import chat_events as ce
    from shared.domain.chat import text_digest
    from shared.eventstore.chat_log import ChatNew

    bey = await create_trial(memory_api.client)
    sid, ops = bey.season_id, bearer(OPS_TOKEN)
    log = memory_api.store.chat
    for n, text in enumerate(("bir", "iki"), 1):
        event = ce.MessageSent(at="2026-12-01T12:00:00+03:00", channel="all", seat=1,
                               digest=text_digest(text))  # fmt: skip
        new = ChatNew(event_id=UUID(int=n), type=ce.tag_of(event), data=ce.encode_chat(event),
                      seat=1, text=text)  # fmt: skip
        await log.append(sid, [new])
    url = f"/v1/ops/seasons/{sid}/verify"
    out = (await memory_api.client.get(url, headers=ops)).json()
    assert out["ok"] is True and out["chat"].startswith("ok: 2 chat events, 2 texts"), out
    stream = log._streams[sid]
    stream[1] = msgspec.structs.replace(stream[1], text="üç")  # behind the store's back
    out = (await memory_api.client.get(url, headers=ops)).json()
    assert out["ok"] is False and out["chat"].startswith("broken: chat version 2: "), out
    assert "the text's sha256 is not the digest" in out["first_bad_event"]["why"]


async def test_adr103_a_live_divan_locks_at_its_held_instant(memory_api: Api) -> None:
    """R-1.3: a live Divan locks at its calendar instant however late the worker came; the
    explain answer gives that instant as `locked_at`, and the bey's set sent before it is the
    sealed one, `before_lock`."""
    (bey,) = await build_season(memory_api.store, [ANKARA])
    r = await memory_api.client.post(
        bey.url("/orders"), headers=bey.auth(), json={"orders": HOLD, "divan": 1}
    )
    assert r.status_code == 200, r.text
    await play_live_divans(memory_api.store, bey.season_id, 1)
    state, _ = await state_of(memory_api.store, bey.season_id)
    assert state.calendar is not None
    r = await memory_api.client.get(
        f"/v1/ops/seasons/{bey.season_id}/divans/1/explain", headers=bearer(OPS_TOKEN)
    )
    orders = r.json()["orders"]
    assert datetime.fromisoformat(orders["locked_at"]) == state.calendar.at(1)
    (mine,) = [s for s in orders["sets"] if s["seat"] == bey.seat]
    assert mine["sealed"] and mine["before_lock"]
    assert datetime.fromisoformat(mine["submitted_at"]) <= state.calendar.at(1)
