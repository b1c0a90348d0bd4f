"""Every refusal the command API can give: RFC 9457 problem+json, and the event log untouched.

Each case sets a season up over HTTP (or from events where the API cannot), then sends one
request that must be refused; `unchanged` asserts every stream is byte-for-byte the same
after it (R-4.2, R-7.9, R-6.1, R-10.4, R-14; ARCHITECTURE.md Access and Interfaces).
"""

from __future__ import annotations

import re
import secrets
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from services.command.notify_receivers import MAX_PER_OWNER
from shared.app.http.problems import stored_language
from shared.domain import chat
from shared.domain.messages import PROBLEM_TITLES_TR
from shared.eventstore import (
    ConcurrencyError,
    EventStore,
    InMemoryEventStore,
    PostgresEventStore,
    StoreBusyError,
)
from tests.documented import SCHEMA, app_document, assert_documented, documented_codes
from tests.http.support import (
    ANKARA,
    AUDITOR_TOKEN,
    ISTANBUL,
    OPS_TOKEN,
    Api,
    Bey,
    FailingStore,
    assert_problem,
    bearer,
    build_season,
    create_trial,
    hold_kurultay,
    open_api,
    play_divans,
    play_live_divans,
    request_divan,
    settings,
    state_of,
    unchanged,
)
from tests.http.test_chat import live_with
from tests.http.test_live_seasons import close_registration

Request = Coroutine[Any, Any, httpx.Response]
Scenario = Callable[[Api, AsyncExitStack], Awaitable[Request]]
ROOT = Path(__file__).resolve().parents[2]
HOLD = {"orders": [{"province": ANKARA, "kind": "hold"}]}


@dataclass(frozen=True)
class Case:
    status: int
    code: str
    scenario: Scenario
    bug: str | None = None  # a known app bug: the case is a strict xfail


JSON = {"Content-Type": "application/json"}
CASES: dict[str, Case] = {}


def case(case_id: str, status: int, *, bug: str | None = None) -> Callable[[Scenario], Scenario]:
    """Register a scenario; the id is its code, or `code[variant]`."""

    def register(scenario: Scenario) -> Scenario:
        assert case_id not in CASES, case_id
        CASES[case_id] = Case(status, case_id.partition("[")[0], scenario, bug)
        return scenario

    return register


def spend(bey: Bey, kind: str, province: int, key: str | None = "k1") -> dict[str, Any]:
    return {
        "url": bey.url("/spend"),
        "headers": bey.auth(key),
        "json": {"kind": kind, "province": province},
    }


# --- body parsing --------------------------------------------------------------------------
@case("malformed_json", 400)
async def _malformed(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/orders"), headers=bey.auth(), content=b'{"orders": [')


@case("malformed_json[an unclosed array where an object belongs]", 400)
async def _unclosed_array(api: Api, _: AsyncExitStack) -> Request:
    """Not JSON: typed decoding refused the `[` as the wrong type before reading on."""
    return api.client.post("/v1/seasons", content=b"[", headers=JSON)


@case("malformed_json[truncated after a value of the wrong type]", 400)
async def _truncated_wrong_type(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/orders"), headers=bey.auth(), content=b'{"orders": "hold", ')


@case("malformed_json[empty body]", 400)
async def _empty(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/orders"), headers=bey.auth(), content=b"")


@case("malformed_json[nested 1,000 deep]", 400)
async def _deep(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    body = b'{"orders": ' + b"[" * 999 + b"]" * 999 + b"}"
    return api.client.post(bey.url("/orders"), headers=bey.auth(), content=body)


@case("malformed_json[anonymous season, 1,000 nested objects]", 400)
async def _deep_season(api: Api, _: AsyncExitStack) -> Request:
    await create_trial(api.client)
    body = b'{"memleket": 6, "x": ' + b'{"a": ' * 999 + b"1" + b"}" * 999 + b"}"
    return api.client.post("/v1/seasons", content=body)


@case("malformed_json[a key twice in an object]", 400)
async def _duplicate_key(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    body = b'{"orders": [], "divan": 1, "divan": 2}'
    return api.client.post(bey.url("/orders"), headers=bey.auth(), content=body)


@case("unsupported_media_type", 415)
async def _not_json(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    headers = {**bey.auth(), "Content-Type": "application/x-www-form-urlencoded"}
    return api.client.post(bey.url("/orders"), headers=headers, content=b'{"orders": []}')


@case("unknown_field", 422)
async def _unknown_field(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    body = {"orders": [{"province": ANKARA, "kind": "hold", "colour": "red"}]}
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json=body)


@case("unknown_field[top level]", 422)
async def _unknown_top(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json={**HOLD, "urgent": True})


@case("invalid_body[wrong type]", 422)
async def _wrong_type(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    body = {"orders": [{"province": "Ankara", "kind": "hold"}]}
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json=body)


@case("invalid_body[order kind not in enum]", 422)
async def _kind_enum(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    body = {"orders": [{"province": ANKARA, "kind": "retreat"}]}
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json=body)


@case("invalid_body[spend kind not in enum]", 422)
async def _spend_enum(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(**spend(bey, "castle", ANKARA))


@case("invalid_body[treaty kind not in enum]", 422)
async def _treaty_enum(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    body = {"to": 2, "kind": "marriage"}
    return api.client.post(bey.url("/offers"), headers=bey.auth("k1"), json=body)


@case("invalid_body[seed out of range]", 422)
async def _seed_range(api: Api, _: AsyncExitStack) -> Request:
    return api.client.post("/v1/seasons", json={"memleket": ANKARA, "seed": "-1"})


@case("invalid_body[seed as a JSON number]", 422)
async def _seed_number(api: Api, _: AsyncExitStack) -> Request:
    """R-1.5: a seed is above 2^53, which a browser's JSON number cannot hold: a string only."""
    return api.client.post("/v1/seasons", json={"memleket": ANKARA, "seed": 123})


@case("invalid_body[seed not decimal]", 422)
async def _seed_text(api: Api, _: AsyncExitStack) -> Request:
    return api.client.post("/v1/seasons", json={"memleket": ANKARA, "seed": "0x7b"})


@case("invalid_body[seed 2^63]", 422)
async def _seed_too_big(api: Api, _: AsyncExitStack) -> Request:
    return api.client.post("/v1/seasons", json={"memleket": ANKARA, "seed": str(2**63)})


@case("invalid_body[orders not a list]", 422)
async def _orders_type(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json={"orders": "hold"})


@case("malformed_json[not UTF-8]", 400)
async def _not_utf8(api: Api, _: AsyncExitStack) -> Request:
    """RFC 8259: JSON is UTF-8; bytes that are not are malformed JSON, not a 500 or a 400
    of a code docs/api.md does not list."""
    bey = await create_trial(api.client)
    body = b'{"orders": [{"province": 6, "kind": "h\xffold"}]}'
    headers = {**bey.auth(), "Content-Type": "application/json"}
    return api.client.post(bey.url("/orders"), headers=headers, content=body)


@case("malformed_json[Latin-1 body, create season]", 400)
async def _latin1(api: Api, _: AsyncExitStack) -> Request:
    body = '{"memleket": 6, "mode": "trıal"}'.encode("cp1254")
    return api.client.post("/v1/seasons", content=body, headers=JSON)


@case("invalid_parameter[withdraw from seat 0]", 422)
async def _withdraw_seat_zero(api: Api, _: AsyncExitStack) -> Request:
    """D-27: a path seat is 1 … 19."""
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/offers/0/withdraw"), headers=bey.auth())


@case("invalid_parameter[answer seat 2^70]", 422)
async def _answer_huge_seat(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(
        bey.url(f"/offers/{2**70}/answer"), headers=bey.auth(), json={"answer": "accept"}
    )


# --- orders (R-4.2, R-4.4) -----------------------------------------------------------------
@case("invalid_body[memleket 99]", 422)
async def _unknown_memleket(api: Api, _: AsyncExitStack) -> Request:
    return api.client.post("/v1/seasons", json={"memleket": 99})


@case("invalid_body[order province 99]", 422)
async def _unknown_order_province(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    body = {"orders": [{"province": 99, "kind": "hold"}]}
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json=body)


@case("invalid_body[spend province 0]", 422)
async def _unknown_spend_province(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(**spend(bey, "sur", 0))


@case("not_your_province[order]", 403)
async def _not_yours_order(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    body = {"orders": [HOLD["orders"][0], {"province": ISTANBUL, "kind": "hold"}]}
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json=body)


@case("not_your_province[spend]", 403)
async def _not_yours_spend(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(**spend(bey, "paralı_asker", ISTANBUL))


@case("not_a_neighbour", 422)
async def _not_neighbour(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    body = {"orders": [{"province": ANKARA, "kind": "advance", "target": ISTANBUL, "units": 2}]}
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json=body)


@case("missing_target[support]", 422)
async def _no_target(api: Api, _: AsyncExitStack) -> Request:
    """R-4.1, issue 11: an advance or support without a target is missing its target, not a
    non-neighbour one."""
    bey = await create_trial(api.client)
    body = {"orders": [{"province": ANKARA, "kind": "support", "units": 2}]}
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json=body)


@case("missing_target[advance]", 422)
async def _no_target_advance(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    body = {"orders": [{"province": ANKARA, "kind": "advance", "target": None, "units": 2}]}
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json=body)


@case("bad_units[N = 0]", 422)
async def _units_zero(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    body = {"orders": [{"province": ANKARA, "kind": "advance", "target": 71, "units": 0}]}
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json=body)


@case("invalid_body[units -3]", 422)
async def _units_negative(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    body = {"orders": [{"province": ANKARA, "kind": "support", "target": 71, "units": -3}]}
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json=body)


@case("bad_units[advance without units]", 422)
async def _units_missing(api: Api, _: AsyncExitStack) -> Request:
    """R-4.2: N ≥ 1 for an advance; `units` left out is 0, the rule's own refusal (D-27)."""
    bey = await create_trial(api.client)
    body = {"orders": [{"province": ANKARA, "kind": "advance", "target": 71}]}
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json=body)


@case("wrong_divan[the locked Divan]", 409)
async def _wrong_divan_locked(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    assert (await request_divan(api.client, bey, 1)).status_code == 202
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json={**HOLD, "divan": 1})


@case("wrong_divan[a later Divan]", 409)
async def _wrong_divan_later(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json={**HOLD, "divan": 5})


@case("invalid_body[order set for Divan 0]", 422)
async def _wrong_divan_zero(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json={**HOLD, "divan": 0})


# --- spending (R-7.9) ----------------------------------------------------------------------
@case("not_enough_gold", 422)
async def _gold(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)  # 2 gold; a sur costs 3
    return api.client.post(**spend(bey, "sur", ANKARA))


@case("sur_exists", 422)
async def _sur_exists(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    await play_divans(api, bey, 1)  # Ankara yields 2 gold: 4 gold now
    r = await api.client.post(**spend(bey, "sur", ANKARA, key="first-sur"))
    assert r.status_code == 200, r.text
    return api.client.post(**spend(bey, "sur", ANKARA, key="second-sur"))


@case("over_cap", 422)
async def _over_cap(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    for _attempt in range(8):  # the memleket grows by production until it is full
        state, _v = await state_of(api.store, bey.season_id)
        if state.province(ANKARA).units > 10:
            break
        await play_divans(api, bey, 1)
    else:
        pytest.fail("the memleket never reached 11 units")
    return api.client.post(**spend(bey, "paralı_asker", ANKARA))


@case("not_purchasable[not a neighbour]", 422)
async def _not_purchasable_far(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(**spend(bey, "satın_alma", ISTANBUL))


@case("not_purchasable[owned]", 422)
async def _not_purchasable_owned(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(**spend(bey, "satın_alma", ANKARA))


@case("divan_locked[spend after POST /divans]", 409)
async def _locked_spend(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    assert (await request_divan(api.client, bey, 1)).status_code == 202
    return api.client.post(**spend(bey, "paralı_asker", ANKARA))


@case("divan_locked[Divan 2 asked for while Divan 1 resolves]", 409)
async def _locked_request(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    assert (await request_divan(api.client, bey, 1)).status_code == 202
    return request_divan(api.client, bey, 2)


# --- Divan requests name their Divan (R-1.2; issue 9 item 4) --------------------------------
@case("invalid_body[Divan request without a body]", 422)
async def _divan_no_body(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/divans"), headers=bey.auth())


@case("invalid_body[Divan request without `divan`]", 422)
async def _divan_no_field(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/divans"), headers=bey.auth(), json={})


@case("invalid_body[Divan request with a word for `divan`]", 422)
async def _divan_string(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/divans"), headers=bey.auth(), json={"divan": "first"})


@case("wrong_divan[Divan 2 asked for first]", 409)
async def _divan_skipped(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return request_divan(api.client, bey, 2)


@case("wrong_divan[Divan 3 asked for while Divan 1 resolves]", 409)
async def _divan_far_ahead(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    assert (await request_divan(api.client, bey, 1)).status_code == 202
    return request_divan(api.client, bey, 3)


@case("invalid_body[Divan request for Divan 0]", 422)
async def _divan_zero(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return request_divan(api.client, bey, 0)


# --- authentication and authorisation (ARCHITECTURE Access, R-14) --------------------------
@case("missing_token", 401)
async def _missing(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/orders"), json=HOLD)


@case("missing_token[not a bearer token]", 401)
async def _basic(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    headers = {"Authorization": f"Basic {bey.token}"}
    return api.client.post(bey.url("/orders"), headers=headers, json=HOLD)


@case("missing_token[me]", 401)
async def _missing_me(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.get(bey.url("/me"))


@case("bad_token[garbage]", 401)
async def _garbage(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/orders"), headers=bearer("garbage"), json=HOLD)


@case("bad_token[well-formed, wrong secret]", 401)
async def _wrong_secret(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    forged = f"sb1.{bey.season_id}.{bey.seat}.{secrets.token_urlsafe(24)}"
    return api.client.post(bey.url("/orders"), headers=bearer(forged), json=HOLD)


@case("bad_token[a computer bey's seat]", 401)
async def _computer_seat(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    forged = f"sb1.{bey.season_id}.5.{secrets.token_urlsafe(24)}"
    return api.client.post(bey.url("/orders"), headers=bearer(forged), json=HOLD)


@case("forbidden[ops token on a bey route]", 403)
async def _ops_on_bey(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.get(bey.url("/me"), headers=bearer(OPS_TOKEN))


@case("forbidden[auditor token on a bey command]", 403)
async def _auditor_on_bey(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/orders"), headers=bearer(AUDITOR_TOKEN), json=HOLD)


@case("bad_token[garbled: no season id]", 401)
async def _garbled(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/orders"), headers=bearer("sb1.xxx.1.garbage"), json=HOLD)


@case("bad_token[seat of non-ASCII digits]", 401)
async def _superscript_seat(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    value = f"Bearer sb1.{bey.season_id}.".encode() + b"\xb2.x"
    return api.client.post(bey.url("/orders"), headers=[(b"authorization", value)], json=HOLD)


@case("token_wrong_season", 403)
async def _wrong_season(api: Api, _: AsyncExitStack) -> Request:
    s = await create_trial(api.client)
    t = await create_trial(api.client, memleket=ISTANBUL)
    return api.client.post(s.url("/orders"), headers=t.auth(), json=HOLD)


@case("token_in_query[beside the header]", 400)
async def _query_and_header(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    url = bey.url("/orders") + f"?token={bey.token}"
    return api.client.post(url, headers=bey.auth(), json=HOLD)


@case("ambiguous_authorization", 400)
async def _two_authorizations(api: Api, _: AsyncExitStack) -> Request:
    """Issue 20 item 9, ADR-75: never first-wins (tests/http/test_two_authorizations.py)."""
    bey = await create_trial(api.client)
    headers = [("Authorization", f"Bearer {bey.token}"), ("Authorization", "Bearer guess")]
    return api.client.post(bey.url("/orders"), headers=[*headers, *JSON.items()], json=HOLD)


@case("unsupported_media_type[no Content-Type]", 415)
async def _no_content_type(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    headers = {"Authorization": f"Bearer {bey.token}"}
    return api.client.post(bey.url("/orders"), headers=headers, content=b'{"orders": []}')


@case("token_in_query[access_token only]", 400)
async def _query_only(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.get(bey.url("/me") + f"?access_token={bey.token}")


@case("season_not_found", 404)
async def _no_season(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post("/v1/seasons/no-such-season/orders", headers=bey.auth(), json=HOLD)


@case("season_not_found[status]", 404)
async def _no_season_status(api: Api, _: AsyncExitStack) -> Request:
    await create_trial(api.client)
    return api.client.get("/v1/seasons/no-such-season")


@case("chain_broken", 409)
async def _broken_chain_export(api: Api, _: AsyncExitStack) -> Request:
    """An export of a season whose stored chain fails (docs/export.md): an event written behind
    the store's back, with a hash that does not match its content."""
    bey = await create_trial(api.client)
    await break_chain(api.store, bey.season_id)
    url = f"/v1/ops/seasons/{bey.season_id}/export"
    return api.client.get(url, headers=bearer(OPS_TOKEN))


@case("redaction_unavailable", 409)
async def _v1_season_for_an_auditor(api: Api, _: AsyncExitStack) -> Request:
    """An auditor's export of a season not over whose chain is version 1 (stored before
    migration 0007): no redacted export can prove it (ADR-52, docs/export.md)."""
    season_id = f"v1-{secrets.token_hex(4)}"
    await store_v1_season(api.store, season_id)
    url = f"/v1/seasons/{season_id}/export"
    return api.client.get(url, headers=bearer(AUDITOR_TOKEN))


async def store_v1_season(store: EventStore, season_id: str) -> None:
    """A live season two Divans in, chained with version 1 as seasons stored before 0007 are."""
    from shared.app.ops.export import to_new
    from tests.audit.support import store_season

    scratch = InMemoryEventStore(clock=lambda: datetime(2026, 12, 1, tzinfo=UTC))
    await store_season(scratch, season_id, 5, live=True, divans=2)
    await store.append(season_id, 0, to_new(await scratch.read_stream(season_id)), chain=1)


@case("divan_not_found", 404)
async def _explain_unplayed_divan(api: Api, _: AsyncExitStack) -> Request:
    """Ops explain a Divan the season has not locked yet (issue 13)."""
    bey = await create_trial(api.client)
    url = f"/v1/ops/seasons/{bey.season_id}/divans/1/explain"
    return api.client.get(url, headers=bearer(OPS_TOKEN))


class _NoAuditTrail:
    """A store whose ops-read trail cannot be written (ADR-53), everything else as `inner`."""

    def __init__(self, inner: EventStore) -> None:
        self.inner = inner

    @property
    def idempotency(self) -> Any:
        return self.inner.idempotency

    @property
    def ops_reads(self) -> Any:
        return self

    async def record(self, *_args: Any) -> Any:
        raise StoreBusyError("the ops_reads table does not answer")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@case("audit_unavailable", 503)
async def _unrecorded_export(api: Api, stack: AsyncExitStack) -> Request:
    """ADR-53: an ops read of the seed and orders whose record cannot be written is refused."""
    bey = await create_trial(api.client)
    away = await stack.enter_async_context(open_api(api.store, api_store=_NoAuditTrail(api.store)))  # type: ignore[arg-type]
    return away.client.get(f"/v1/ops/seasons/{bey.season_id}/export", headers=bearer(OPS_TOKEN))


@case("invalid_correction", 422)
async def _correction_of_nothing(api: Api, _: AsyncExitStack) -> Request:
    """ADR-53: revoking a Hain badge the bey does not wear corrects nothing."""
    bey = await create_trial(api.client)
    body = {"correction": {"kind": "revoke_hain", "seat": bey.seat}, "reason": "no betrayal"}
    url = f"/v1/ops/seasons/{bey.season_id}/corrections"
    return api.client.post(url, json=body, headers=bearer(OPS_TOKEN))


async def break_chain(store: EventStore, season_id: str) -> None:
    last = (await store.read_stream(season_id))[-1]
    if isinstance(store, InMemoryEventStore):
        stream = store._streams[season_id]
        stream[-1] = msgspec.structs.replace(last, hash=bytes(32))
        return
    assert isinstance(store, PostgresEventStore)
    await store._pool.execute(
        "INSERT INTO events (xid, season_id, version, event_id, type, data, metadata, "
        "recorded_at, prev_hash, hash) VALUES (pg_current_xact_id(), $1, $2, $3, "
        "'divan_requested.v1', $4, '{\"actor\": \"ops\"}', now(), $5, $6)",
        season_id,
        last.version + 1,
        uuid.UUID(int=last.version + 1),
        b'{"divan":1,"type":"divan_requested.v1"}',
        last.hash,
        bytes(32),
    )


@case("forbidden[ops reissue with the auditor token]", 403)
async def _auditor_reissue(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    url = f"/v1/ops/seasons/{bey.season_id}/beys/{bey.seat}/token"
    return api.client.post(url, headers=bearer(AUDITOR_TOKEN))


@case(
    "forbidden[ops reissue with a bey token]",
    403,
)
async def _bey_reissue(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    url = f"/v1/ops/seasons/{bey.season_id}/beys/{bey.seat}/token"
    return api.client.post(url, headers=bey.auth())


@case("token_in_query[ops reissue]", 400)
async def _reissue_query(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    url = f"/v1/ops/seasons/{bey.season_id}/beys/{bey.seat}/token?token={OPS_TOKEN}"
    return api.client.post(url)


@case("bad_token[ops reissue with a guess]", 401)
async def _reissue_guess(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    url = f"/v1/ops/seasons/{bey.season_id}/beys/{bey.seat}/token"
    return api.client.post(url, headers=bearer("not-an-ops-token"))


@case("missing_token[ops reissue without a token]", 401)
async def _anonymous_reissue(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(f"/v1/ops/seasons/{bey.season_id}/beys/{bey.seat}/token")


@case("invalid_parameter[ops reissue for seat 99]", 422)
async def _reissue_nobody(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    url = f"/v1/ops/seasons/{bey.season_id}/beys/99/token"
    return api.client.post(url, headers=bearer(OPS_TOKEN))


@case("season_not_found[ops reissue]", 404)
async def _reissue_no_season(api: Api, _: AsyncExitStack) -> Request:
    await create_trial(api.client)
    return api.client.post("/v1/ops/seasons/no-such-season/beys/1/token", headers=bearer(OPS_TOKEN))


# --- Idempotency-Key (ARCHITECTURE Event store; IETF idempotency-key draft) -----------------
@case("idempotency_key_required[spend]", 400)
async def _key_spend(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(**spend(bey, "paralı_asker", ANKARA, key=None))


@case("idempotency_key_required[offer]", 400)
async def _key_offer(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/offers"), headers=bey.auth(), json={"to": 2, "kind": "pact"})


@case("idempotency_key_reused", 422)
async def _key_reused(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    assert (await api.client.post(**spend(bey, "paralı_asker", ANKARA, key="k"))).status_code == 200
    return api.client.post(**spend(bey, "paralı_asker", 71, key="k"))


@case("secret_not_replayable", 409)
async def _secret_not_replayable(api: Api, _: AsyncExitStack) -> Request:
    """ADR-178: a keyed creation retried whose token the server drew."""
    headers = {"Idempotency-Key": "created-once"}
    first = await api.client.post("/v1/seasons", json={"memleket": ANKARA}, headers=headers)
    assert first.status_code == 201, first.text
    return api.client.post("/v1/seasons", json={"memleket": ANKARA}, headers=headers)


@case("idempotency_key_in_flight", 409)
async def _key_in_flight(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    body = b'{"kind":"paral\xc4\xb1_asker","province":6}'
    url = bey.url("/spend")
    # the first request with this key is still running in this process (RELIABILITY 2)
    api.app.state.services.in_flight.add((f"{bey.season_id}:{bey.seat}", "held"))
    headers = {**bey.auth("held"), "Content-Type": "application/json"}
    return api.client.post(url, headers=headers, content=body)


@case("bad_idempotency_key[over 200 characters]", 400)
async def _key_long(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(**spend(bey, "paralı_asker", ANKARA, key="k" * 201))


@case("duplicate_province", 422)
async def _two_orders_one_province(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    orders = [
        {"province": ANKARA, "kind": "advance", "target": 71, "units": 2},
        {"province": ANKARA, "kind": "hold"},
    ]
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json={"orders": orders})


# --- mode and phase (R-1.2, R-10.4) ---------------------------------------------------------
@case("not_allowed_in_mode[Divan request in a live season]", 403)
async def _live_request(api: Api, _: AsyncExitStack) -> Request:
    (bey,) = await build_season(api.store, [ANKARA], mode="live")
    return request_divan(api.client, bey, 1)


@case("wrong_phase[vote before the Kurultay]", 409)
async def _early_vote(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/kurultay/vote"), headers=bey.auth(), json={"candidate": 2})


@case("wrong_phase[orders after the season]", 409)
async def _late_orders(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    await play_divans(api, bey, 16)
    vote = await api.client.post(
        bey.url("/kurultay/vote"), headers=bey.auth(), json={"candidate": 2}
    )
    assert vote.status_code == 200, vote.text
    return api.client.post(bey.url("/orders"), headers=bey.auth(), json=HOLD)


@case("wrong_phase[Divan request at the Kurultay]", 409)
async def _divan_17(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    await play_divans(api, bey, 16)
    return request_divan(api.client, bey, 17)


@case("vote_self", 422)
async def _vote_self(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    await play_divans(api, bey, 16)
    return api.client.post(
        bey.url("/kurultay/vote"), headers=bey.auth(), json={"candidate": bey.seat}
    )


@case("invalid_body[vote for seat 99]", 422)
async def _vote_nobody(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    await play_divans(api, bey, 16)
    return api.client.post(bey.url("/kurultay/vote"), headers=bey.auth(), json={"candidate": 99})


@case("already_voted[live Kurultay]", 409)
async def _voted_twice(api: Api, _: AsyncExitStack) -> Request:
    a, _b = await build_season(api.store, [ANKARA, ISTANBUL], mode="live")
    await play_live_divans(api.store, a.season_id, 16)
    first = await api.client.post(a.url("/kurultay/vote"), headers=a.auth(), json={"candidate": 2})
    assert first.status_code == 200, first.text
    return api.client.post(a.url("/kurultay/vote"), headers=a.auth(), json={"candidate": 3})


@case("already_voted[after the trial Kurultay]", 409)
async def _voted_after_kurultay(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    await play_divans(api, bey, 16)
    first = await api.client.post(
        bey.url("/kurultay/vote"), headers=bey.auth(), json={"candidate": 2}
    )
    assert first.status_code == 200, first.text
    return api.client.post(bey.url("/kurultay/vote"), headers=bey.auth(), json={"candidate": 3})


@case("wrong_phase[vote after the Kurultay, not having voted]", 409)
async def _vote_after_kurultay(api: Api, _: AsyncExitStack) -> Request:
    a, b = await build_season(api.store, [ANKARA, ISTANBUL], mode="live")
    await play_live_divans(api.store, a.season_id, 16)
    first = await api.client.post(a.url("/kurultay/vote"), headers=a.auth(), json={"candidate": 2})
    assert first.status_code == 200, first.text
    await hold_kurultay(api.store, a.season_id)
    return api.client.post(b.url("/kurultay/vote"), headers=b.auth(), json={"candidate": 3})


# --- treaties (R-6.1, R-6.2, R-6.6) --------------------------------------------------------
@case("offer_exists", 409)
async def _offer_twice(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    first = await api.client.post(
        bey.url("/offers"), headers=bey.auth("o1"), json={"to": 2, "kind": "pact"}
    )
    assert first.status_code == 200, first.text
    return api.client.post(
        bey.url("/offers"), headers=bey.auth("o2"), json={"to": 2, "kind": "alliance"}
    )


@case("no_offer[withdraw]", 422)
async def _withdraw_nothing(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/offers/2/withdraw"), headers=bey.auth())


@case("no_offer[answer]", 422)
async def _answer_nothing(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(
        bey.url("/offers/2/answer"), headers=bey.auth(), json={"answer": "accept"}
    )


@case("no_offer[answer one's own offer]", 422)
async def _answer_own(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    first = await api.client.post(
        bey.url("/offers"), headers=bey.auth("o1"), json={"to": 2, "kind": "pact"}
    )
    assert first.status_code == 200, first.text
    return api.client.post(
        bey.url("/offers/2/answer"), headers=bey.auth(), json={"answer": "accept"}
    )


@case("bad_partner[self]", 422)
async def _offer_self(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(
        bey.url("/offers"), headers=bey.auth("o1"), json={"to": bey.seat, "kind": "pact"}
    )


@case("invalid_body[offer to seat 20]", 422)
async def _offer_nobody(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(
        bey.url("/offers"), headers=bey.auth("o1"), json={"to": 20, "kind": "pact"}
    )


@case("perde_3", 422)
async def _perde_3(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    await play_divans(api, bey, 12)
    return api.client.post(
        bey.url("/offers"), headers=bey.auth("o1"), json={"to": 2, "kind": "pact"}
    )


@case("allied_already", 422)
async def _allied(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    for seat in range(2, 20):  # computer beys accept an alliance with probability 50 % (R-6.3)
        body = {"to": seat, "kind": "alliance"}
        r = await api.client.post(bey.url("/offers"), headers=bey.auth(f"ally-{seat}"), json=body)
        assert r.status_code == 200, r.text
    await play_divans(api, bey, 1)
    state, _v = await state_of(api.store, bey.season_id)
    allies = [t.b for t in state.treaties if t.kind == "alliance" and t.a == bey.seat]
    assert allies, "no computer bey accepted an alliance with this seed"
    body = {"to": allies[0], "kind": "pact"}
    return api.client.post(bey.url("/offers"), headers=bey.auth("pact"), json=body)


# --- the edge: limits, routing, store trouble -----------------------------------------------
@case("body_too_large", 413)
async def _too_large(api: Api, stack: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    small = await stack.enter_async_context(open_api(api.store, settings(max_body_bytes=1024)))
    orders = [{"province": ANKARA, "kind": "hold"}] * 300  # about 10 kB
    return small.client.post(bey.url("/orders"), headers=bey.auth(), json={"orders": orders})


@case("body_too_large[create season]", 413)
async def _too_large_create(api: Api, stack: AsyncExitStack) -> Request:
    small = await stack.enter_async_context(open_api(api.store, settings(max_body_bytes=1024)))
    return small.client.post(
        "/v1/seasons", content=b'{"memleket": 6, "pad": "' + b"x" * 10_000 + b'"}', headers=JSON
    )


@case("not_found", 404)
async def _no_route(api: Api, _: AsyncExitStack) -> Request:
    return api.client.get("/v1/no-such-route")


@case("not_found[path parameter not a number]", 404)
async def _bad_path_param(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.post(bey.url("/offers/two/withdraw"), headers=bey.auth())


@case("method_not_allowed", 405)
async def _wrong_method(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    return api.client.get(bey.url("/orders"), headers=bey.auth())


@case("store_busy", 503)
async def _busy(api: Api, stack: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    failing = FailingStore(api.store, "read_data", lambda: StoreBusyError("lock timeout"))
    busy = await stack.enter_async_context(open_api(api.store, api_store=failing))  # type: ignore[arg-type]
    return busy.client.post(bey.url("/orders"), headers=bey.auth(), json=HOLD)


@case("conflict[retries exhausted]", 409)
async def _conflict(api: Api, stack: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    failing = FailingStore(api.store, "append", lambda: ConcurrencyError(bey.season_id, 0, 1))
    busy = await stack.enter_async_context(open_api(api.store, api_store=failing))  # type: ignore[arg-type]
    return busy.client.post(bey.url("/orders"), headers=bey.auth(), json=HOLD)


# --- live seasons: creation, joins, season admin (issue 12) -------------------------------------
def _live_body(
    api: Api, ahead: timedelta | None = timedelta(hours=2), **extra: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {"mode": "live", **extra}
    if ahead is not None:
        body["registration_closes_at"] = (api.clock.now + ahead).isoformat()
    return body


async def _live(api: Api, **extra: Any) -> dict[str, Any]:
    r = await api.client.post("/v1/seasons", json=_live_body(api, **extra))
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def _join(api: Api, season_id: str, memleket: int) -> Request:
    return api.client.post(f"/v1/seasons/{season_id}/join", json={"memleket": memleket})


def _admin(api: Api, created: dict[str, Any], act: str, **body: Any) -> Request:
    return api.client.post(
        f"/v1/seasons/{created['season_id']}/admin/{act}",
        json={"reason": "test", **body},
        headers=bearer(created["admin_token"]),
    )


@case("registration_close_required", 422)
async def _no_close(api: Api, _: AsyncExitStack) -> Request:
    return api.client.post("/v1/seasons", json=_live_body(api, None))


@case("registration_close_required[postpone]", 422)
async def _postpone_no_close(api: Api, _: AsyncExitStack) -> Request:
    return _admin(api, await _live(api), "postpone")


@case("registration_too_soon", 422)
async def _too_soon(api: Api, _: AsyncExitStack) -> Request:
    return api.client.post("/v1/seasons", json=_live_body(api, timedelta(minutes=59)))


@case("invalid_instant", 422)
async def _naive_close(api: Api, _: AsyncExitStack) -> Request:
    body = {"mode": "live", "registration_closes_at": "2027-01-05T18:00:00"}  # no offset
    return api.client.post("/v1/seasons", json=body)


@case("bad_interval", 422)
async def _bad_interval(api: Api, _: AsyncExitStack) -> Request:
    body = _live_body(api, timedelta(hours=2), divan_interval_seconds=1)
    return api.client.post("/v1/seasons", json=body, headers=bearer(OPS_TOKEN))


@case("forbidden[compressed calendar without the ops token]", 403)
async def _interval_not_ops(api: Api, _: AsyncExitStack) -> Request:
    body = _live_body(api, timedelta(hours=2), divan_interval_seconds=5)
    return api.client.post("/v1/seasons", json=body)


@case("memleket_taken", 409)
async def _memleket_taken(api: Api, _: AsyncExitStack) -> Request:
    created = await _live(api)
    assert (await _join(api, created["season_id"], ANKARA)).status_code == 201
    return _join(api, created["season_id"], ANKARA)


@case("name_taken", 409)
async def _name_taken(api: Api, _: AsyncExitStack) -> Request:
    """R-15.5: a lookalike of a name the season has (Cyrillic А)."""
    created = await _live(api)
    sid = created["season_id"]
    r = await api.client.post(f"/v1/seasons/{sid}/join", json={"memleket": 6, "name": "Ayşe"})
    assert r.status_code == 201, r.text
    return api.client.post(f"/v1/seasons/{sid}/join", json={"memleket": 34, "name": "\u0410yşe"})


@case("name_reserved", 422)
async def _name_reserved(api: Api, _: AsyncExitStack) -> Request:
    created = await _live(api)
    return api.client.post(
        f"/v1/seasons/{created['season_id']}/join", json={"memleket": 6, "name": "Bey 3"}
    )


@case("invalid_name", 422)
async def _invalid_name(api: Api, _: AsyncExitStack) -> Request:
    created = await _live(api)
    return api.client.post(
        f"/v1/seasons/{created['season_id']}/join", json={"memleket": 6, "name": "<b>x</b>"}
    )


@case("invalid_name[a player's name, by a bey's rule]", 422)
async def _invalid_player_name(api: Api, _: AsyncExitStack) -> Request:
    return api.client.post("/v1/players", json={"name": "a"})


@case("name_reserved[a player's name, by a bey's rule]", 422)
async def _reserved_player_name(api: Api, _: AsyncExitStack) -> Request:
    return api.client.post("/v1/players", json={"name": "Han"})


@case("no_description", 409)
async def _no_description(api: Api, _: AsyncExitStack) -> Request:
    created = await _live(api)
    return api.client.post(
        f"/v1/ops/seasons/{created['season_id']}/description/reset",
        json={"reason": "hakaret"},
        headers=bearer(OPS_TOKEN),
    )


# --- chat (issue 24, R-15), players (issue 23), notifications (issue 25) ----------------------
HOOK = "https://discord.com/api/webhooks/123/very-secret-path"


async def _chatting(api: Api, n: int = 2, **body: Any) -> list[Bey]:
    return await live_with(api, n, **body)


def _say(api: Api, bey: Bey, to: Any, text: str) -> Request:
    return api.client.post(bey.url("/messages"), json={"to": to, "text": text}, headers=bey.auth())


@case("press_restricted", 403)
async def _press_restricted(api: Api, _: AsyncExitStack) -> Request:
    """A season whose creator chose public press only: no private channel."""
    a, b = await _chatting(api, press="public")
    return _say(api, a, [b.seat], "gizli")


@case("bad_recipients", 422)
async def _bad_recipients(api: Api, _: AsyncExitStack) -> Request:
    a, _b = await _chatting(api)
    return _say(api, a, [a.seat], "kendime")


@case("chat_text", 422)
async def _chat_text(api: Api, _: AsyncExitStack) -> Request:
    a, _b = await _chatting(api)
    return _say(api, a, "all", "sol\u202eğas")  # a bidi override (Trojan Source)


@case("computer_bey", 422)
async def _computer_bey(api: Api, _: AsyncExitStack) -> Request:
    """Registration closed, the free seats are computer beys: they cannot be messaged."""
    a, b = await _chatting(api)
    state, _version = await state_of(api.store, a.season_id)
    assert state.calendar is not None
    await close_registration(api.store, a.season_id, state.calendar.registration_closes_at)
    return _say(api, a, [b.seat, 19], "x")


@case("chat_rate_limited", 429)
async def _chat_rate_limited(api: Api, _: AsyncExitStack) -> Request:
    a, _b = await _chatting(api)
    for n in range(chat.PER_MINUTE):
        assert (await _say(api, a, "all", f"m{n}")).status_code == 201
    return _say(api, a, "all", "one too many")


@case("channel_not_found", 404)
async def _channel_not_found(api: Api, _: AsyncExitStack) -> Request:
    """A bey reads a private channel of two other beys."""
    a, b, c = await _chatting(api, 3)
    sent = await _say(api, a, [b.seat], "ikimizin")
    assert sent.status_code == 201, sent.text
    return api.client.get(
        c.url(f"/channels/{sent.json()['channel_id']}/messages"), headers=c.auth()
    )


@case("message_not_found", 404)
async def _message_not_found(api: Api, _: AsyncExitStack) -> Request:
    """A bey reports a message of a channel it is not in."""
    a, b, c = await _chatting(api, 3)
    sent = await _say(api, a, [b.seat], "ikimizin")
    assert sent.status_code == 201, sent.text
    url = c.url(f"/messages/{sent.json()['message_id']}/report")
    return api.client.post(url, json={}, headers=c.auth())


async def _player(api: Api) -> dict[str, Any]:
    r = await api.client.post("/v1/players", json={"name": "Ayşe"})
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


@case("bad_player_key", 401)
async def _bad_player_key(api: Api, _: AsyncExitStack) -> Request:
    created = await _live(api)
    body = {"memleket": ANKARA, "player_key": "sbp1." + "0" * 32 + "." + "A" * 32}
    return api.client.post(f"/v1/seasons/{created['season_id']}/join", json=body)


@case("player_already_seated", 409)
async def _player_already_seated(api: Api, _: AsyncExitStack) -> Request:
    player = await _player(api)
    sid = (await _live(api))["season_id"]
    join = f"/v1/seasons/{sid}/join"
    first = await api.client.post(join, json={"memleket": 6, "player_key": player["player_key"]})
    assert first.status_code == 201, first.text
    return api.client.post(join, json={"memleket": 34, "player_key": player["player_key"]})


@case("player_not_found", 404)
async def _player_not_found(api: Api, _: AsyncExitStack) -> Request:
    """A player id of a shape the server never makes (ids are 32 hex digits)."""
    player = await _player(api)
    return api.client.post("/v1/players/not-a-player/key", headers=bearer(player["player_key"]))


@case("chat_closed", 403)
async def _chat_closed(api: Api, _: AsyncExitStack) -> Request:
    """A trial season has no chat (no press)."""
    bey = await create_trial(api.client)
    return _say(api, bey, "all", "kimse yok")


@case("chat_read_only", 409)
async def _chat_read_only(api: Api, _: AsyncExitStack) -> Request:
    """After the Kurultay's close the channels are read-only."""
    a, _b = await _chatting(api)
    state, _version = await state_of(api.store, a.season_id)
    assert state.calendar is not None
    await close_registration(api.store, a.season_id, state.calendar.registration_closes_at)
    await play_live_divans(api.store, a.season_id, 16)
    await hold_kurultay(api.store, a.season_id)
    return _say(api, a, "all", "sonra")


@case("receiver_refused", 422)
async def _receiver_refused(api: Api, _: AsyncExitStack) -> Request:
    """A webhook to a loopback address the configuration does not allow."""
    bey = await create_trial(api.client)
    url = f"/v1/seasons/{bey.season_id}/webhooks"
    return api.client.post(url, json={"url": "https://127.0.0.1/hook"}, headers=bey.auth())


@case("receivers_full", 409)
async def _receivers_full(api: Api, _: AsyncExitStack) -> Request:
    bey = await create_trial(api.client)
    url = f"/v1/seasons/{bey.season_id}/webhooks"
    for _n in range(MAX_PER_OWNER):
        assert (
            await api.client.post(url, json={"url": HOOK}, headers=bey.auth())
        ).status_code == 201
    return api.client.post(url, json={"url": HOOK}, headers=bey.auth())


@case("receiver_not_found", 404)
async def _receiver_not_found(api: Api, _: AsyncExitStack) -> Request:
    """Another owner's webhook: the season admin's, deleted with a bey's token."""
    created = await _live(api)
    sid = created["season_id"]
    r = await api.client.post(
        f"/v1/seasons/{sid}/webhooks", json={"url": HOOK}, headers=bearer(created["admin_token"])
    )
    assert r.status_code == 201, r.text
    bey = await _join(api, sid, ANKARA)
    assert bey.status_code == 201, bey.text
    token = bey.json()["token"]
    return api.client.delete(
        f"/v1/seasons/{sid}/webhooks/{r.json()['webhook_id']}", headers=bearer(token)
    )


@case("season_full", 409)
async def _season_full(api: Api, _: AsyncExitStack) -> Request:
    created = await _live(api)
    for plate in range(1, 20):
        assert (await _join(api, created["season_id"], plate)).status_code == 201
    return _join(api, created["season_id"], 50)


@case("registration_closed", 409)
async def _registration_closed(api: Api, _: AsyncExitStack) -> Request:
    created = await _live(api)
    api.clock.advance(timedelta(hours=3))  # past the close instant (no close event needed)
    return _join(api, created["season_id"], ANKARA)


@case("audit_copy", 409)
async def _audit_copy(api: Api, _: AsyncExitStack) -> Request:
    """ADR-58: a season loaded by `seksenbir import` is an audit copy: no command writes to it
    (a bey's token rotation here; every appending operation goes through the same refusal)."""
    bey = await create_trial(api.client)
    await api.store.mark_audit_copy(bey.season_id, bytes(32))
    return api.client.post(bey.url("/token"), headers=bey.auth())


@case("season_cancelled", 409)
async def _cancelled(api: Api, _: AsyncExitStack) -> Request:
    created = await _live(api)
    assert (await _admin(api, created, "cancel")).status_code == 200
    return _join(api, created["season_id"], ANKARA)


@case("not_later", 422)
async def _not_later(api: Api, _: AsyncExitStack) -> Request:
    created = await _live(api)
    earlier = (api.clock.now + timedelta(hours=1, minutes=30)).isoformat()
    return _admin(api, created, "postpone", registration_closes_at=earlier)


@case("reason_required", 422)
async def _blank_reason(api: Api, _: AsyncExitStack) -> Request:
    created = await _live(api)
    return _admin(api, created, "cancel", reason="   ")


@case("invalid_body[an admin reason with a right-to-left override]", 422)
async def _bidi_reason(api: Api, _: AsyncExitStack) -> Request:
    """Shown as written in the public reports: no control or direction characters."""
    created = await _live(api)
    return _admin(api, created, "cancel", reason="\u202eiptal")


@case("not_paused", 409)
async def _not_paused(api: Api, _: AsyncExitStack) -> Request:
    return _admin(api, await _live(api), "resume")


@case("already_paused", 409)
async def _already_paused(api: Api, _: AsyncExitStack) -> Request:
    created = await _live(api)
    for plate in range(1, 20):  # the 19th seat closes registration: the season runs
        assert (await _join(api, created["season_id"], plate)).status_code == 201
    assert (await _admin(api, created, "pause")).status_code == 200
    return _admin(api, created, "pause")


def _params() -> list[Any]:
    return [
        pytest.param(
            case_id,
            id=case_id,
            marks=[pytest.mark.xfail(strict=True, reason=f"BUG: {c.bug}")] if c.bug else [],
        )
        for case_id, c in CASES.items()
    ]


@pytest.mark.parametrize("case_id", _params())
async def test_refusal_is_problem_json_and_appends_nothing(case_id: str, api: Api) -> None:
    """Each refusal: its status and stable code in problem+json; every stream byte-identical.

    R-4.2, R-7.9, R-6.1, R-10.4 (domain refusals), ARCHITECTURE Access / Interfaces (RFC 9457).
    """
    c = CASES[case_id]
    async with AsyncExitStack() as stack:
        request = await c.scenario(api, stack)
        response = await unchanged(api.store, request)
        body = assert_problem(response, c.status, c.code)
    assert body["instance"].startswith("/v1/")
    # issue 11: the operation's OpenAPI answers list this code, under this status, in the
    # document this app serves (the same as app_document's, which is built once per process:
    # test_the_document_each_refusal_is_checked_against_is_the_served_one; fetching it from each
    # case's own app cost a quarter of a second a case, most of this file's time)
    assert_documented(app_document(api.app), response)
    # docs/api.md Language: Turkish by default, the text from the one catalogue, and the
    # title a Turkish one of its own, never the English code in words (a 405 once said
    # "method not allowed" in Turkish); English on request: tests/http/test_language.py
    assert response.headers["content-language"] == "tr"
    assert stored_language(response.content) == "tr", body
    assert body["title"] == PROBLEM_TITLES_TR[c.code], body
    if c.status == 503 or c.code == "divan_locked":  # ARCHITECTURE: 409/503 with Retry-After
        assert response.headers["retry-after"]


async def test_the_document_each_refusal_is_checked_against_is_the_served_one(api: Api) -> None:
    """The refusal cases check each answer against app_document (built once per process from
    the app's routes); on both backends, it is the JSON GET /v1/schema/openapi.json serves."""
    served = await api.client.get(SCHEMA)
    assert served.status_code == 200, served.text
    built = msgspec.json.decode(msgspec.json.encode(app_document(api.app)))
    assert served.json() == built


# Codes the API has but no request can reach today, each with the reason.
UNREACHABLE = {
    "season_exists": "POST /v1/seasons always makes a fresh uuid season id",
    "unknown_rules_version": "POST /v1/seasons never names a rules version (ADR-43)",
    "rate_limited": "the command API has no rate limiter yet (RELIABILITY 24 expects 429)",
    # D-27: the edge refuses a plate outside 1 … 81 and a seat outside 1 … 19 (422
    # invalid_body / invalid_parameter), and every plate and seat inside those bounds exists
    # (a season's empty seats are computer beys once registration closes, R-11.1).
    "unknown_province": "D-27: every plate 1 … 81 the edge lets through is a province",
    "unknown_seat": "D-27: every seat 1 … 19 the edge lets through has a bey",
    "bad_request": "fallback for other Litestar HTTPExceptions; none is raised by the routes",
    "internal": "an unhandled exception (500), not a refusal",
}


def _codes_in_source() -> set[str]:
    """Every refusal code written in the command service, the shared HTTP edge and the domain."""
    patterns = [
        re.compile(r'Problem\(\s*\d{3},\s*"([a-z_0-9]+)(?:\.[a-z_0-9]+)?"'),
        re.compile(r'reject\(\s*"([a-z_0-9]+)(?:\.[a-z_0-9]+)?"'),
        re.compile(r'code="([a-z_0-9]+)"'),
        re.compile(r'\b\d{3}: "([a-z_0-9]+)"'),
        re.compile(r'\bcode = "([a-z_0-9]+)"'),
        re.compile(r'return \d{3}, "([a-z_0-9]+)"'),
    ]
    files = [
        *ROOT.glob("services/command/*.py"),
        ROOT / "shared/app/http/problems.py",
        ROOT / "shared/app/access/request_auth.py",
        ROOT / "shared/app/http/strict.py",
        *ROOT.glob("shared/domain/**/*.py"),
    ]
    return {m for f in files for p in patterns for m in p.findall(f.read_text())}


def test_every_error_code_in_the_source_has_a_refusal_case() -> None:
    """Every code the API can answer is produced above, or listed as unreachable with a reason."""
    found = _codes_in_source()
    covered = {c.code for c in CASES.values() if c.bug is None}
    assert {"not_your_province", "idempotency_key_in_flight", "body_too_large"} <= found
    assert found - covered - set(UNREACHABLE) == set()
    assert set(UNREACHABLE) & covered == set()


# Codes command operations document that the cases above do not drive, and the test that does.
DRIVEN_ELSEWHERE = {
    "too_many_failed_attempts": "tests/http/test_rate_limit.py",
    "too_many_requests": "tests/http/test_rate_limit.py",
}


async def test_every_code_a_command_operation_documents_is_driven(memory_api: Api) -> None:
    """Issue 11: an operation lists only what it can answer: every code any command operation
    documents is driven by a case above (or by the test named), and none is unreachable."""
    doc = (await memory_api.client.get(SCHEMA)).json()
    documented = {
        code
        for path, item in doc["paths"].items()
        for method in item
        for code in documented_codes(doc, method, path)
    }
    covered = {c.code for c in CASES.values() if c.bug is None}
    assert documented - covered - set(DRIVEN_ELSEWHERE) == set()
    assert documented & set(UNREACHABLE) == set()
    for code, path in DRIVEN_ELSEWHERE.items():
        assert f'"{code}"' in (ROOT / path).read_text(), (code, path)
