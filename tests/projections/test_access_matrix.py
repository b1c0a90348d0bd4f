"""Issue 14, hostile access: every operation of the served document x every kind of caller.

The rows are the operations of the app's route table, which the served OpenAPI document lists
(an endpoint added without a row fails `test_every_route_has_a_row_and_a_call`; each call's
path is made from the route's, only bodies are written per operation); the columns are
the callers R-14 and docs/api.md (Tokens, Live seasons) tell apart. Every cell's status is
asserted: written down in EXPECTED below, or, for a read endpoint of the query API, its
declaration's `who` gives the row (DEFAULT_ROWS) and EXPECTED holds only the exceptions.

The world: a live season L with bey A (seat 1, Ankara) and bey B (seat 2, Kırıkkale), created
over HTTP (so it has a season-admin token), its registration closed and Divan 1 resolved by the
resolver's own code; a trial season M of a third bey. A's secrets are canaries (R-14: a bey's
own orders, gold and missions): its gold is brought to exactly 777 by spending, it has an order
of exactly 11 units from Ankara pending for Divan 2, and its dealt mission ids are known. No
cell whose caller R-14 denies them (everyone but A and ops) carries one; neither does B's
ticketed event stream nor the public one while Divan 2 is resolved, nor any log line of the
app, the resolver or the projector, and the database dump holds tokens only as hashes.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import subprocess
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx
import redis.asyncio as aioredis
from litestar import Litestar
from litestar.routes import HTTPRoute

from services.projections.projector import Projector
from services.projections.read_route import declared
from services.resolver.closes import close_registration
from services.resolver.divan import resolve
from shared.app.access.tokens import token_hash
from shared.app.repository.seasons import Seasons
from shared.domain import events as ev
from shared.domain import seal
from shared.domain.admin import ADMIN_ACTS
from shared.eventstore import EventMetadata, PostgresEventStore
from tests.clock import StepClock
from tests.documented import check_every_problem
from tests.http.support import api_clock
from tests.projections.pact_season import mission_lists, walk
from tests.projections.sse import Frame, Stream, served
from tests.projections.support import AUDITOR_TOKEN, OPS_TOKEN, Gateway, bearer

ANKARA, KIRIKKALE, BOLU, ISTANBUL = 6, 71, 14, 34
GOLD = 777  # A's gold after its spending: a canary (R-14: a bey's own gold)
CANARY_ORDER: dict[str, Any] = {"province": ANKARA, "kind": "advance", "target": BOLU, "units": 11}

ROLES = ("anonymous", "bey", "other_bey", "foreign_bey", "garbled", "admin", "auditor", "ops")
# who may see A's secrets (R-14: the bey itself; ops everything). The auditor sees betrayals'
# battle records only, and A's canary order fights no battle and betrays no one.
MAY_SEE_A = {"bey", "ops"}

# fmt: off
# One row per operation of the served document; one status per caller, in ROLES order:
#   anonymous (no Authorization), bey (A, seat 1 of L), other_bey (B, seat 2 of L),
#   foreign_bey (the bey of trial season M), garbled (not a token's shape), admin (L's
#   season-admin token), auditor, ops. Every path names season L (seat 1, Divan 1 where asked).
EXPECTED: dict[str, tuple[int, ...]] = {
    #                                                anon  bey  othr frgn garb admn audt  ops
    # -- the command API --
    # a compressed calendar is ops only; a garbled token is no ops token (403, no auth scheme)
    "POST /v1/seasons":                                (403, 403, 403, 403, 403, 403, 403, 201),
    # anyone may join; L's registration is closed for everyone alike
    "POST /v1/seasons/{season_id}/join":               (409, 409, 409, 409, 409, 409, 409, 409),
    # season admin or ops; this season's bey or an auditor 403; a token of nobody here 401
    # (the other season's bey, the garbled one); the act itself: registration closed (409)
    "POST /v1/seasons/{season_id}/admin/postpone":     (401, 403, 403, 401, 401, 409, 403, 409),
    # ... cancel only before Divan 1's instant: wrong_phase
    "POST /v1/seasons/{season_id}/admin/cancel":       (401, 403, 403, 401, 401, 409, 403, 409),
    # ... the admin pauses (200), ops then finds it already_paused (409)
    "POST /v1/seasons/{season_id}/admin/pause":        (401, 403, 403, 401, 401, 200, 403, 409),
    # ... the admin resumes (200), ops then finds it not_paused (409)
    "POST /v1/seasons/{season_id}/admin/resume":       (401, 403, 403, 401, 401, 200, 403, 409),
    "GET /v1/seasons/{season_id}":                     (200, 200, 200, 200, 200, 200, 200, 200),
    # each bey its own view (B's carries nothing of A's: the canaries below); the other
    # season's bey token_wrong_season; staff 403; so is this season's admin token (ADR-61:
    # verified against the season's hash, a known caller in the wrong place, not counted)
    "GET /v1/seasons/{season_id}/me":                  (401, 200, 200, 403, 401, 403, 403, 403),
    # orders for B's province: A not_your_province (403), B 200
    "POST /v1/seasons/{season_id}/orders":             (401, 403, 200, 403, 401, 403, 403, 403),
    # a sur at Ankara: A sur_exists (422, its gold stays 777), B not_your_province (403)
    "POST /v1/seasons/{season_id}/spend":              (401, 422, 403, 403, 401, 403, 403, 403),
    # an offer to seat 2: A 200, B bad_partner (itself, 422)
    "POST /v1/seasons/{season_id}/offers":             (401, 200, 422, 403, 401, 403, 403, 403),
    # withdrawing the offer to seat 2: A 200, B no_offer
    "POST /v1/seasons/{season_id}/offers/{to}/withdraw": (401, 200, 422, 403, 401, 403, 403, 403),
    # answering an offer from seat 1: none is open for either (no_offer)
    "POST /v1/seasons/{season_id}/offers/{frm}/answer": (401, 422, 422, 403, 401, 403, 403, 403),
    # no Kurultay yet: wrong_phase
    "POST /v1/seasons/{season_id}/kurultay/vote":      (401, 409, 409, 403, 401, 403, 403, 403),
    # a live season: not_allowed_in_mode; the other season's bey token_wrong_season
    "POST /v1/seasons/{season_id}/divans":             (401, 403, 403, 403, 401, 403, 403, 403),
    # each bey rotates its own token (the test goes on with the new one)
    "POST /v1/seasons/{season_id}/token":              (401, 200, 200, 403, 401, 403, 403, 403),
    # issue 24, R-15.3: the chat is its season's beys' (a staff or admin token is no bey's)
    "POST /v1/seasons/{season_id}/messages":           (401, 201, 201, 403, 401, 403, 403, 403),
    "GET /v1/seasons/{season_id}/channels":            (401, 200, 200, 403, 401, 403, 403, 403),
    "GET /v1/seasons/{season_id}/channels/{channel_id}/messages":
                                                       (401, 200, 200, 403, 401, 403, 403, 403),
    "POST /v1/seasons/{season_id}/channels/{channel_id}/read":
                                                       (401, 200, 200, 403, 401, 403, 403, 403),
    # message 1: A's public message sent by the first row
    "POST /v1/seasons/{season_id}/messages/{message_id}/report":
                                                       (401, 201, 201, 403, 401, 403, 403, 403),
    # muting seat 1: A cannot mute itself (bad_recipients), B can
    "POST /v1/seasons/{season_id}/mutes/{seat}":       (401, 422, 200, 403, 401, 403, 403, 403),
    "GET /v1/seasons/{season_id}/chat/reports":        (401, 403, 403, 403, 401, 403, 403, 200),
    "POST /v1/seasons/{season_id}/messages/{message_id}/hide":
                                                       (401, 403, 403, 403, 401, 403, 403, 200),
    "GET /v1/seasons/{season_id}/audit/chat-acts":     (401, 403, 403, 403, 401, 403, 200, 200),
    # ops endpoints: a bey's, the season admin's or another staff role's token 403 (a token of
    # a known kind in the wrong place: ADR-61), anything else 401
    "POST /v1/ops/seasons/{season_id}/beys/{seat}/token": (401, 403, 403, 403, 401, 403, 403, 200),
    "GET /v1/ops/seasons/{season_id}/export":          (401, 403, 403, 403, 401, 403, 403, 200),
    # R-14, ADR-52: during the season ops the full export, an auditor a redacted one (A's
    # secrets left out: the canaries below); a bey's token 403, no token or nobody's 401
    "GET /v1/seasons/{season_id}/export":              (401, 403, 403, 403, 401, 403, 200, 200),
    # ops tools (issue 13): they show every bey's orders, so ops only
    "GET /v1/ops/seasons/{season_id}/divans/{divan}/explain": (401, 403, 403, 403, 401, 403, 403, 200),
    "POST /v1/ops/seasons/{season_id}/divans/{divan}/what-if": (401, 403, 403, 403, 401, 403, 403, 200),
    # D-32: a running season is forked by ops only (anyone may fork a season that is over)
    "POST /v1/seasons/{season_id}/fork":               (403, 403, 403, 403, 403, 403, 403, 201),
    # ADR-53: corrections by ops; the trail of ops reads for auditors and ops
    "POST /v1/ops/seasons/{season_id}/corrections":    (401, 403, 403, 403, 401, 403, 403, 201),
    "GET /v1/seasons/{season_id}/audit/ops-reads":     (401, 403, 403, 403, 401, 403, 200, 200),
    # the ops console (issue 26, ADR-104): a correction's dry run and verify, ops only
    "POST /v1/ops/seasons/{season_id}/corrections/dry-run": (401, 403, 403, 403, 401, 403, 403, 200),
    "GET /v1/ops/seasons/{season_id}/verify":          (401, 403, 403, 403, 401, 403, 403, 200),
    # an insulting name reset by ops only
    "POST /v1/ops/seasons/{season_id}/beys/{seat}/name/reset": (401, 403, 403, 403, 401, 403, 403, 200),
    # ADR-105: an insulting lobby description reset by ops only
    "POST /v1/ops/seasons/{season_id}/description/reset": (401, 403, 403, 403, 401, 403, 403, 200),
    # betrayal history (issue 13): public; a token of nobody is bad_token (401); a bey's or the
    # season admin's is a known kind: the public view
    "GET /v1/betrayals/memleket/{plate}":              (200, 200, 200, 200, 401, 200, 200, 200),
    "GET /v1/seasons/{season_id}/betrayals/history":   (200, 200, 200, 200, 401, 200, 200, 200),
    # issue 25: webhooks: the season admin (public events), ops, or a bey (its own); a device
    # is a bey's (the admin's and staff tokens 403); an id that is not the caller's is 404
    "POST /v1/seasons/{season_id}/webhooks":           (401, 201, 201, 403, 401, 201, 403, 201),
    "GET /v1/seasons/{season_id}/webhooks":            (401, 200, 200, 403, 401, 200, 403, 200),
    "DELETE /v1/seasons/{season_id}/webhooks/{webhook_id}": (401, 404, 404, 403, 401, 404, 403, 404),
    "POST /v1/seasons/{season_id}/webhooks/{webhook_id}/rotate": (401, 404, 404, 403, 401, 404, 403, 404),
    "GET /v1/push/key":                                (200, 200, 200, 200, 200, 200, 200, 200),
    "POST /v1/seasons/{season_id}/push-subscriptions": (401, 201, 201, 403, 401, 403, 403, 403),
    "GET /v1/seasons/{season_id}/push-subscriptions":  (401, 200, 200, 403, 401, 403, 403, 403),
    "DELETE /v1/seasons/{season_id}/push-subscriptions/{subscription_id}": (401, 404, 404, 403, 401, 403, 403, 403),
    # -- the query API: only the rows that differ from the one its declaration's `who` gives
    # (DEFAULT_ROWS below; services/projections/read_route.py) --
    # issue 23: anyone may make a player (a token is not looked at); the record and the
    # ratings are public; a player's key, and nothing else, rotates it or leaves (no role has
    # one: 401 bad_player_key); the path's player is no player (404)
    "POST /v1/players":                                (201, 201, 201, 201, 201, 201, 201, 201),
    "POST /v1/players/{player_id}/key":                (401, 401, 401, 401, 401, 401, 401, 401),
    "POST /v1/players/{player_id}/leave":              (401, 401, 401, 401, 401, 401, 401, 401),
    "GET /v1/players/{player_id}":                     (404, 404, 404, 404, 404, 404, 404, 404),
    # R-14 a bey: the battles it fought in or supported (Divan 1: none, but its own list);
    # ops everything; the auditor reads betrayals' battles through audit/betrayals only
    "GET /v1/seasons/{season_id}/battles/{divan}":     (401, 200, 200, 403, 401, 403, 403, 200),
    # R-14 orders of others: nobody before the Kurultay but ops (A's own are in /me)
    "GET /v1/seasons/{season_id}/orders/{divan}":      (403, 403, 403, 403, 401, 403, 403, 200),
    # the public stream for anyone; a bey's ticket adds its own; the other season's ticket and
    # a garbled one are bad_ticket (401); a token header is not a ticket (the public stream)
    "GET /v1/seasons/{season_id}/events":              (200, 200, 200, 401, 401, 200, 200, 200),
}

# A read endpoint's row when EXPECTED has none: its declaration's `who`, the success status its
# handler answers (200, or 201 for a ticket) in place of 200. A `varies` read has no default.
DEFAULT_ROWS: dict[str, tuple[int, ...]] = {
    #              anon  bey  othr frgn garb admn audt  ops
    # public views: a token, even garbled, is not looked at
    "anyone":     (200, 200, 200, 200, 200, 200, 200, 200),
    # R-14 a bey: its own; another season's bey token_wrong_season; staff and admin 403
    "bey":        (401, 200, 200, 403, 401, 403, 403, 403),
    # R-14 auditor and ops
    "staff":      (401, 403, 403, 403, 401, 403, 200, 200),
    "ops":        (401, 403, 403, 403, 401, 403, 403, 200),
}
# fmt: on


def default_rows(app: Litestar) -> dict[str, tuple[int, ...]]:
    """The default row of every declared read endpoint of `app` whose `who` has one."""
    out = {}
    for route in app.routes:
        for handler in route.route_handlers if isinstance(route, HTTPRoute) else ():
            read = declared(handler)
            if read is None or read.who not in DEFAULT_ROWS:
                continue
            done = handler.status_code
            for method in handler.http_methods:
                row = DEFAULT_ROWS[read.who]
                out[f"{method} {route.path_format}"] = tuple(done if s == 200 else s for s in row)
    return out


def expected_rows(app: Litestar) -> dict[str, tuple[int, ...]]:
    """Every operation's row: EXPECTED's, else its declaration's default."""
    return default_rows(app) | EXPECTED


@dataclass
class World:
    """Season L (live, A and B, admin token), trial season M, and each caller's credential."""

    season_id: str
    other_season_id: str
    tokens: dict[str, str | None]  # role -> bearer token (None: no Authorization header)
    own_missions: dict[str, list[str]]  # role -> the mission ids dealt to it (A's, B's)

    def url(self, tail: str = "") -> str:
        return f"/v1/seasons/{self.season_id}{tail}"

    def secrets(self) -> list[str]:
        """Every raw token of the world, current ones and rotated ones (collected as we go)."""
        return [t for t in self.tokens.values() if t]


@dataclass(frozen=True)
class Call:
    path: str
    body: Any = None
    key: bool = False  # send an Idempotency-Key


# Each call's path is its operation's path from the route table with these values (season L,
# seat 1, Divan 1, …): a new route needs only its row in EXPECTED, and a body below if it takes
# one. A path parameter without a value here fails `test_every_route_has_a_row_and_a_call`.
PATH_VALUES = {
    "to": "2",
    "frm": "1",
    "seat": "1",
    "divan": "1",
    "plate": "6",
    "name": "han-scores",
    "webhook_id": "wh_none",
    "subscription_id": "ps_none",
    "channel_id": "all",
    "message_id": "1",
}
PATH_VALUES["player_id"] = "0" * 32  # no player (issue 23)
PATH_OVERRIDES = {
    # R-14 orders of others: Divan 2's, pending (A's canary among them)
    "GET /v1/seasons/{season_id}/orders/{divan}": {"divan": "2"},
}


# What each operation is sent, by every caller alike, when it takes a body or a key. Bodies are
# valid, so the answer is the caller's authorization, then (for an allowed caller) the game's own
# answer. `{instant}` is a later instant of L's calendar.
def bodies(instant: str) -> dict[str, tuple[Any, bool]]:
    return {
        # a live season with a compressed calendar: ops only (docs/api.md, Live seasons)
        "POST /v1/seasons": (
            {"mode": "live", "registration_closes_at": instant, "divan_interval_seconds": 60},
            False,
        ),
        "POST /v1/seasons/{season_id}/join": ({"memleket": ISTANBUL}, False),
        "POST /v1/players": ({"name": "Matrix"}, False),
        # each season-admin act (shared/domain/admin.py's ADMIN_ACTS): a reason, and a close
        # for an act that takes one
        **{
            f"POST /v1/seasons/{{season_id}}/admin/{act}": (
                {
                    "reason": "m",
                    **({"registration_closes_at": instant} if spec.takes_close else {}),
                },
                False,
            )
            for act, spec in ADMIN_ACTS.items()
        },
        # B's province (A's canary set for Divan 2 stays A's)
        "POST /v1/seasons/{season_id}/orders": (
            {"orders": [{"province": KIRIKKALE, "kind": "hold"}]},
            False,
        ),
        # A already has a sur at Ankara: its gold stays 777
        "POST /v1/seasons/{season_id}/spend": ({"kind": "sur", "province": ANKARA}, True),
        "POST /v1/seasons/{season_id}/offers": ({"to": 2, "kind": "pact"}, True),
        "POST /v1/seasons/{season_id}/offers/{to}/withdraw": (None, True),
        "POST /v1/seasons/{season_id}/offers/{frm}/answer": ({"answer": "reject"}, True),
        "POST /v1/seasons/{season_id}/kurultay/vote": ({"candidate": 2}, True),
        "POST /v1/seasons/{season_id}/divans": ({"divan": 2}, False),
        "POST /v1/seasons/{season_id}/messages": ({"to": "all", "text": "merhaba"}, False),
        "POST /v1/seasons/{season_id}/channels/{channel_id}/read": ({"read_to": 1}, False),
        "POST /v1/seasons/{season_id}/messages/{message_id}/report": ({}, False),
        "POST /v1/seasons/{season_id}/mutes/{seat}": ({"muted": True}, False),
        "POST /v1/seasons/{season_id}/messages/{message_id}/hide": ({"reason": "R-15.2"}, False),
        "POST /v1/ops/seasons/{season_id}/divans/{divan}/what-if": (
            {"orders": [], "dice": []},
            False,
        ),
        "POST /v1/seasons/{season_id}/fork": ({"divan": 1, "seat": 2}, False),
        "POST /v1/seasons/{season_id}/webhooks": ({"url": "https://hooks.example.org/m"}, False),
        "POST /v1/seasons/{season_id}/push-subscriptions": (
            {
                "endpoint": "https://push.example.org/device",
                "keys": {
                    "p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYC",
                    "auth": "tBHItJI5svbpez7K",
                },
            },
            False,
        ),
        # B's gold (A's canary 777 stays)
        "POST /v1/ops/seasons/{season_id}/corrections": (
            {"correction": {"kind": "gold", "seat": 2, "gold": 50}, "reason": "matrix"},
            False,
        ),
        # B's gold again, another amount: nothing is written either way
        "POST /v1/ops/seasons/{season_id}/corrections/dry-run": (
            {"correction": {"kind": "gold", "seat": 2, "gold": 51}, "reason": "matrix"},
            False,
        ),
        # A's name, given at the creation
        "POST /v1/ops/seasons/{season_id}/beys/{seat}/name/reset": ({"reason": "matrix"}, False),
        # L's description, given at the creation (R-15.2, ADR-105)
        "POST /v1/ops/seasons/{season_id}/description/reset": ({"reason": "matrix"}, False),
    }


def route_operations(app: Litestar) -> list[str]:
    """Every operation of the app's route table that its document shows, `METHOD /path`."""
    return [
        f"{method} {route.path_format}"
        for route in app.routes
        if isinstance(route, HTTPRoute)
        for handler in route.route_handlers
        if handler.resolve_include_in_schema()
        for method in sorted(handler.http_methods)
    ]


def calls(w: World, instant: str, operations: list[str]) -> dict[str, Call]:
    """Each operation's call: its path with PATH_VALUES (season L), its body and key."""
    sent = bodies(instant)
    out = {}
    for op in operations:
        values = {**PATH_VALUES, "season_id": w.season_id, **PATH_OVERRIDES.get(op, {})}
        path = op.split(" ", 1)[1].format_map(values)
        body, key = sent.get(op, (None, False))
        out[op] = Call(path, body, key)
    return out


def served_operations(doc: dict[str, Any]) -> list[str]:
    return [f"{m.upper()} {p}" for p, item in doc["paths"].items() for m in item]


def instant(text: str) -> datetime:
    return datetime.fromisoformat(text)


async def ok(r: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert r.status_code == status, r.text
    return r.json()  # type: ignore[no-any-return]


async def build_world(
    client: httpx.AsyncClient, store: PostgresEventStore, clock: StepClock
) -> World:
    """L over HTTP (creation, a join), closed and Divan 1 resolved by the resolver's own code;
    A's gold planted and spent down to 777 and its canary order for Divan 2 sent."""
    seasons = Seasons(store)
    closes = (clock.now + timedelta(hours=2)).isoformat()
    created = await ok(
        await client.post(
            "/v1/seasons",
            json={
                "mode": "live",
                "registration_closes_at": closes,
                "memleket": ANKARA,
                "name": "Ayşe",
                "description": "Akşamcılar",
            },
        ),
        201,
    )
    season_id, admin = created["season_id"], created["admin_token"]
    a = created["creator"]["token"]
    joined = await ok(
        await client.post(f"/v1/seasons/{season_id}/join", json={"memleket": KIRIKKALE}), 201
    )
    b = joined["token"]
    trial = await ok(await client.post("/v1/seasons", json={"memleket": ISTANBUL}), 201)
    clock.now = instant(closes)
    assert await close_registration(seasons, season_id, clock.now) == "closed"
    loaded = await seasons.load(season_id)
    assert loaded.state.calendar is not None
    clock.now = loaded.state.calendar.at(1)
    assert await resolve(seasons, season_id, 1, now=clock.now) == "resolved"
    # plant: enough gold that a sur and mercenaries up to the cap leave exactly 777
    loaded = await seasons.load(season_id)
    bey = loaded.state.bey(1)
    assert bey is not None
    units = loaded.state.provinces[ANKARA - 1].units
    hires = (12 - units) // 2
    assert units + 2 * hires >= CANARY_ORDER["units"]
    planted = GOLD + 3 + 2 * hires - bey.gold
    grant = ev.ProductionApplied(
        divan=1, allotments=(), kurtulus=(), changes=(), gold=(ev.GoldDelta(1, planted, "income"),)
    )
    meta = EventMetadata(actor="system", command_id="plant")
    await seasons.append(season_id, loaded.version, "plant", [grant], meta)
    spend = f"/v1/seasons/{season_id}/spend"
    await ok(
        await client.post(
            spend,
            json={"kind": "sur", "province": ANKARA},
            headers={**bearer(a), "Idempotency-Key": "s"},
        )
    )
    for n in range(hires):
        await ok(
            await client.post(
                spend,
                json={"kind": "paralı_asker", "province": ANKARA},
                headers={**bearer(a), "Idempotency-Key": f"h{n}"},
            )
        )
    await ok(
        await client.post(
            f"/v1/seasons/{season_id}/orders",
            json={"divan": 2, "orders": [CANARY_ORDER]},
            headers=bearer(a),
        )
    )
    me = await ok(await client.get(f"/v1/seasons/{season_id}/me", headers=bearer(a)))
    assert me["gold"] == GOLD, me["gold"]
    missions = sorted(m["id"] for m in me["missions"])
    assert missions
    theirs = await ok(await client.get(f"/v1/seasons/{season_id}/me", headers=bearer(b)))
    b_missions = sorted(m["id"] for m in theirs["missions"])
    tokens: dict[str, str | None] = {
        "anonymous": None,
        "bey": a,
        "other_bey": b,
        "foreign_bey": trial["token"],
        "garbled": "sb1.garbled",
        "admin": admin,
        "auditor": AUDITOR_TOKEN,
        "ops": OPS_TOKEN,
    }
    return World(
        season_id,
        trial["season_id"],
        tokens,
        {"bey": missions, "other_bey": b_missions},
    )


# --- detectors ----------------------------------------------------------------------------------
def leaks(value: Any, w: World, raw_tokens: list[str]) -> list[Any]:
    """A's canaries inside a decoded JSON value: its gold of 777, its order of 11 units from
    Ankara (or the battle it would fight at Bolu), any raw token of A, and A's dealt missions
    (a mission id alone is no secret, the board lists them all: a `missions` list is)."""
    found: list[Any] = []
    for node in walk(value):
        if isinstance(node, dict):
            if node.get("gold") == GOLD:
                found.append(node)
            if node.get("province") == ANKARA and node.get("units") == CANARY_ORDER["units"]:
                found.append(node)
            if node.get("target") == BOLU and "groups" in node:
                found.append(node)
        elif isinstance(node, str) and any(t in node for t in raw_tokens):
            found.append(node)
    lists = [sorted(x if isinstance(x, str) else x["id"] for x in m) for m in mission_lists(value)]
    if w.own_missions["bey"] == w.own_missions["other_bey"]:
        # The season's seed is drawn by the server: now and then B is dealt A's very missions,
        # and A's list is no canary then (B's own view would show it). The other canaries stay.
        return found
    return found + [m for m in lists if m == w.own_missions["bey"]]


def text_leaks(text: str, w: World, raw_tokens: list[str]) -> list[str]:
    """The same canaries in text (log lines, frames): raw tokens as substrings, 777 as a number
    standing alone, and in every JSON line the members `leaks` looks for."""
    found = [t for t in raw_tokens if t in text]
    found += re.findall(rf"(?<![\w.-]){GOLD}(?![\w.-])", text)
    for line in text.splitlines():
        try:
            decoded = json.loads(line)
        except ValueError:
            continue
        found += [repr(x) for x in leaks(decoded, w, raw_tokens)]
    return found


def with_bytea_decoded(dump: str) -> str:
    """pg_dump's text with every bytea value (`\\x` hex: event bodies, stored answers) also
    decoded, so a token inside one is seen."""
    decoded = [
        bytes.fromhex(h).decode("utf-8", "replace") for h in re.findall(r"\\x([0-9a-f]+)", dump)
    ]
    return "\n".join([dump, *decoded])


# --- the matrix ---------------------------------------------------------------------------------
async def send(
    client: httpx.AsyncClient, w: World, op: str, call: Call, role: str
) -> tuple[int, Any]:
    method = op.split(" ", 1)[0]
    token = w.tokens[role]
    headers = bearer(token)
    if call.key:
        headers["Idempotency-Key"] = f"matrix-{role}-{op}"
    if op.endswith("/events"):
        params = {}
        if role in ("bey", "other_bey", "foreign_bey"):
            season = w.other_season_id if role == "foreign_bey" else w.season_id
            ticket = await client.post(f"/v1/seasons/{season}/tickets", headers=headers)
            params["ticket"] = (await ok(ticket, 201))["ticket"]
        elif role == "garbled":
            params["ticket"] = "garbled"
        async with client.stream("GET", call.path, params=params, headers=headers) as r:
            return r.status_code, None  # the stream never ends: its status is the cell
    r = await client.request(method, call.path, json=call.body, headers=headers)
    ctype = r.headers.get("content-type", "")
    if "ndjson" in ctype:
        body: Any = [json.loads(line) for line in r.text.splitlines() if line]
    else:
        body = r.json() if r.content else None
    return r.status_code, body


def rotated(w: World, op: str, role: str, status: int, body: Any) -> None:
    """A token rotation answers the new token: the caller (or, for ops, seat 1) goes on with it."""
    if status != 200:
        return
    if op == "POST /v1/seasons/{season_id}/token":
        w.tokens[role] = body["token"]
    elif op == "POST /v1/ops/seasons/{season_id}/beys/{seat}/token":
        w.tokens["bey"] = body["token"]


async def test_every_route_has_a_row_and_a_call(
    memory_store: Any, redis: aioredis.Redis, prefix: str
) -> None:
    """The route table, the served document and EXPECTED name the same operations: a new
    endpoint without a row (or a row for a removed one) fails here first, and every route's
    call is made from it (a path parameter without a value in PATH_VALUES fails too)."""
    gw = Gateway(memory_store, redis, prefix)
    async with served(gw) as client:
        doc = (await client.get("/v1/schema/openapi.json")).json()
    routes = route_operations(gw.app)
    assert len(routes) == len(set(routes))
    rows = expected_rows(gw.app)
    assert sorted(routes) == sorted(served_operations(doc)) == sorted(rows)
    assert all(len(row) == len(ROLES) for row in rows.values())
    defaults = default_rows(gw.app)  # a row in EXPECTED is an exception to its default
    assert [op for op, row in EXPECTED.items() if defaults.get(op) == row] == []
    w = World("s" * 32, "m" * 32, dict.fromkeys(ROLES), {})
    made = calls(w, "", routes)  # a parameter without a value is a KeyError here
    assert all("{" not in call.path for call in made.values()), made
    assert set(bodies("")) <= set(routes), set(bodies("")) - set(routes)
    assert made["GET /v1/seasons/{season_id}/battles/{divan}"].path == w.url("/battles/1")
    assert made["GET /v1/boards/{name}"].path == "/v1/boards/han-scores"


async def run_matrix(
    client: httpx.AsyncClient, w: World, projector: Projector, later: str, history: list[str]
) -> tuple[dict[str, tuple[int, ...]], dict[tuple[str, str], Any]]:
    """Every cell, row by row in the document's order: the statuses and the decoded bodies."""
    doc = (await client.get("/v1/schema/openapi.json")).json()
    table = calls(w, later, served_operations(doc))
    seen: dict[str, tuple[int, ...]] = {}
    bodies: dict[tuple[str, str], Any] = {}
    for op in served_operations(doc):
        await projector.sweep()  # the read side knows the tokens rotated so far
        row = []
        for role in ROLES:
            status, body = await send(client, w, op, table[op], role)
            rotated(w, op, role, status, body)
            history += [t for t in w.secrets() if t not in history]
            row.append(status)
            bodies[op, role] = body
        seen[op] = tuple(row)
    return seen, bodies


def assert_cells_keep_a_secrets(
    bodies: dict[tuple[str, str], Any], w: World, a_secrets: list[str]
) -> None:
    for (op, role), body in bodies.items():
        if role in MAY_SEE_A:
            continue
        assert leaks(body, w, a_secrets) == [], (op, role)
        # dealt missions only in their own bey's views (the board's catalogue of every
        # mission is the rules, dealt to nobody)
        own = [sorted(x if isinstance(x, str) else x["id"] for x in m) for m in mission_lists(body)]
        dealt = [m for m in own if op != "GET /v1/board"]
        assert all(m == w.own_missions.get(role) for m in dealt), (op, role, own)
    # ... and present where they belong (the detectors see them)
    assert leaks(bodies["GET /v1/seasons/{season_id}/me", "bey"], w, a_secrets)
    assert leaks(bodies["GET /v1/ops/seasons/{season_id}/beys/{seat}", "ops"], w, a_secrets)


async def frames_over_divan_2(
    client: httpx.AsyncClient,
    w: World,
    store: PostgresEventStore,
    projector: Projector,
    clock: StepClock,
) -> list[Frame]:
    """B's ticketed stream and the public one, from `ready` until Divan 2's report, while the
    resolver holds Divan 2 (A's canary order fights at Bolu, its 777 gold spent or not)."""
    seasons = Seasons(store)
    b_ticket = await ok(
        await client.post(w.url("/tickets"), headers=bearer(w.tokens["other_bey"])), 201
    )
    public = Stream(client, w.url("/events"))
    private = Stream(client, w.url(f"/events?ticket={b_ticket['ticket']}"))
    try:
        _ready, before = await public.until("ready")
        _ready, before_b = await private.until("ready")
        loaded = await seasons.load(w.season_id)
        assert loaded.state.calendar is not None
        clock.now = loaded.state.calendar.at(2)
        assert await resolve(seasons, w.season_id, 2, now=clock.now) == "resolved"
        await projector.sweep()
        _report, frames = await public.until("divan_report")
        _report_b, frames_b = await private.until("divan_report")
    finally:
        await public.close()
        await private.close()
    return before + before_b + frames + frames_b


async def seal_salt_of(store: PostgresEventStore, season_id: str, divan: int, seat: int) -> str:
    """The bey's sealed-orders salt of that Divan (ADR-57), hex, from the stored season."""
    state = (await Seasons(store).load(season_id)).state
    return seal.salt(state.seed_salt, state.seed, season_id, divan, seat).hex()


async def readable_dump(dsn: str) -> str:
    dump = await asyncio.to_thread(
        subprocess.run,
        ["pg_dump", "--data-only", "--no-owner", dsn],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return with_bytea_decoded(dump.stdout)


async def test_the_authorization_matrix_and_a_beys_canaries(
    event_store: PostgresEventStore,
    redis: aioredis.Redis,
    prefix: str,
    migrated_pg_dsn: str,
    captured_logs: io.StringIO,
) -> None:
    """R-14 x docs/api.md (Tokens, Live seasons): every cell as EXPECTED says; A's canaries
    only where R-14 lets them be; the event streams, the logs and the database dump clean."""
    clock = api_clock()
    gw = Gateway(event_store, redis, prefix, clock=clock, auth_failures_per_minute=0)
    projector = Projector(event_store, redis, prefix)
    async with served(gw) as client:
        check_every_problem(client, gw.app)
        w = await build_world(client, event_store, clock)
        history = w.secrets()  # every raw token issued in this test, rotated ones too
        later = (clock.now + timedelta(hours=2)).isoformat()
        seen, bodies = await run_matrix(client, w, projector, later, history)
        rows = expected_rows(gw.app)
        wrong = {op: (row, rows.get(op)) for op, row in seen.items() if row != rows.get(op)}
        assert wrong == {}, wrong

        a_secrets = [t for t in history if t.startswith(f"sb1.{w.season_id}.1.")]
        assert len(a_secrets) == 3  # created, rotated by A, reissued by ops
        # ADR-57: A's seal salt of Divan 1 (the API's live season seals its orders) is A's too
        a_salt = await seal_salt_of(event_store, w.season_id, 1, 1)
        own = bodies["GET /v1/seasons/{season_id}/private", "bey"]
        assert a_salt in json.dumps(own)  # in A's private report: the detector sees it
        a_secrets += [a_salt]
        assert_cells_keep_a_secrets(bodies, w, a_secrets)

        for frame in await frames_over_divan_2(client, w, event_store, projector, clock):
            text = "\n".join([*frame.data, frame.id or "", frame.event or ""])
            assert text_leaks(text, w, a_secrets) == [], frame
        # the canary fought at Bolu in Divan 2: the detectors would have seen it in A's view
        mine = await ok(await client.get(w.url("/battles/2"), headers=bearer(w.tokens["bey"])))
        assert leaks(mine, w, a_secrets)

    # the logs of the app, the resolver and the projector: no canary, no raw token at all
    logged = captured_logs.getvalue()
    assert "http.request" in logged  # the capture saw the access log
    assert text_leaks(logged, w, [*history, a_salt]) == []
    # the database dump: tokens only as hashes
    readable = await readable_dump(migrated_pg_dsn)
    assert "token_rotated" in readable  # the dump holds the events' bodies, decoded
    assert [t for t in history if t in readable] == []
    assert token_hash(w.tokens["bey"] or "") in readable  # the token is there, as its hash
