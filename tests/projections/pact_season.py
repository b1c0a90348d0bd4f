"""A live season with two human beys, a pact, a betrayal and a canary order, played over HTTP.

Bey A (seat 1, Ankara 6) and bey B (seat 2, Kırıkkale 71) are neighbours. A offers B a pact and
B accepts; at Divan 1 A advances into Kırıkkale (a betrayal, R-6.5); at Divan 2 A sends the
canary, an advance of 11 units from Ankara to Bolu (14, unowned), a battle but no betrayal.
Divans are resolved the way the scheduler and resolver do it (computer turn, lock, resolve).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

import httpx

from shared.app.repository.seasons import Seasons
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.lifecycle import run_divan
from shared.domain.simulate import must
from shared.domain.state import SEALED_REPORT_VERSION, SeasonState
from shared.eventstore import EventMetadata, EventStore
from tests.live_calendar import LIVE
from tests.projections.support import SYSTEM, bearer, new_bey_token

ANKARA, KIRIKKALE, BOLU = 6, 71, 14
CANARY = {"province": ANKARA, "kind": "advance", "target": BOLU, "units": 11}
PENDING_CANARY = {"province": ANKARA, "kind": "support", "target": BOLU, "units": 11}
BETRAYAL = {"province": ANKARA, "kind": "advance", "target": KIRIKKALE, "units": 3}  # A, Divan 1


@dataclass
class Live:
    season_id: str
    tokens: dict[int, str]  # seat -> bey token
    missions: dict[int, tuple[str, ...]] = field(default_factory=dict)

    def url(self, tail: str = "") -> str:
        return f"/v1/seasons/{self.season_id}{tail}"


async def create_live(store: EventStore, report_version: int = SEALED_REPORT_VERSION) -> Live:
    """Registration of a live season with two humans, its orders sealed at each lock as every
    season the API creates (ADR-57)."""
    season_id = secrets.token_hex(16)
    state, events = SeasonState(), []
    commands: list[c.Command] = [
        c.CreateSeason(
            season_id=season_id,
            seed=7,
            mode="live",
            seed_salt="salt",
            report_version=report_version,
            counts_on_boards=True,
            **LIVE,  # type: ignore[arg-type]
        ),
        c.JoinSeason(memleket=ANKARA),
        c.JoinSeason(memleket=KIRIKKALE),
        c.CloseRegistration(),
    ]
    for command in commands:
        state, more = must(state, command)
        events += more
    tokens = {}
    for seat in (1, 2):
        tokens[seat], rotated = new_bey_token(season_id, seat)
        events.append(rotated)
    await Seasons(store).append(season_id, 0, "setup", events, SYSTEM)
    missions = {b.seat: b.missions for b in state.beys}
    return Live(season_id, tokens, missions)


async def resolve_live_divan(store: EventStore, season_id: str) -> int:
    """What the scheduler and resolver do at a live Divan instant: one append of the whole Divan."""
    seasons = Seasons(store)
    loaded = await seasons.load(season_id)
    n = loaded.state.divan + 1
    calendar = loaded.state.calendar
    events = run_divan(loaded.state, now=calendar.at(n) if calendar is not None else None)
    meta = EventMetadata(actor="system", command_id=f"divan/{n}")
    await seasons.append(season_id, loaded.version, f"divan/{n}", events, meta)
    return n


async def hold_kurultay(store: EventStore, season_id: str) -> None:
    seasons = Seasons(store)
    loaded = await seasons.load(season_id)
    result = decide(loaded.state, c.HoldKurultay())  # a live Kurultay reveals the seed too
    assert isinstance(result, list), result
    assert any(isinstance(e, ev.SeedRevealed) for e in result), result
    await seasons.append(season_id, loaded.version, "kurultay", result, SYSTEM)


async def post(
    client: httpx.AsyncClient,
    live: Live,
    seat: int,
    tail: str,
    body: dict[str, Any],
    *,
    key: str | None = None,
) -> dict[str, Any]:
    headers = bearer(live.tokens[seat])
    if key:
        headers["Idempotency-Key"] = key
    r = await client.post(live.url(tail), json=body, headers=headers)
    assert r.status_code < 300, r.text
    return r.json()  # type: ignore[no-any-return]


async def pact_and_betrayal(client: httpx.AsyncClient, store: EventStore, live: Live) -> None:
    """Divan 1: the pact is accepted at step 2 and A breaks it at step 3."""
    await post(client, live, 1, "/offers", {"to": 2, "kind": "pact"}, key="offer-1")
    await post(client, live, 2, "/offers/1/answer", {"answer": "accept"})
    await post(client, live, 1, "/orders", {"divan": 1, "orders": [BETRAYAL]})
    assert await resolve_live_divan(store, live.season_id) == 1


async def submit_canary(client: httpx.AsyncClient, live: Live) -> None:
    await post(client, live, 1, "/orders", {"divan": 2, "orders": [CANARY]})


async def submit_pending_canary(client: httpx.AsyncClient, live: Live) -> None:
    await post(client, live, 1, "/orders", {"divan": 3, "orders": [PENDING_CANARY]})


# --- detectors -----------------------------------------------------------------------------------
def walk(value: Any) -> list[Any]:
    """Every dict and list inside a JSON value (the value itself included)."""
    out = [value]
    if isinstance(value, dict):
        for v in value.values():
            out += walk(v)
    elif isinstance(value, list):
        for v in value:
            out += walk(v)
    return out


def canaries(value: Any) -> list[Any]:
    """A's secret orders as they may appear: the order objects, or the canary battle at Bolu."""
    found = []
    for node in walk(value):
        if isinstance(node, dict):
            if node.get("province") == ANKARA and node.get("units") == 11:
                found.append(node)
            if node.get("target") == BOLU and "groups" in node:  # the battle the canary fought
                found.append(node)
    return found


def mission_lists(value: Any) -> list[Any]:
    """Every non-null `missions` field: dealt missions are secret until the Kurultay (R-14)."""
    return [
        n["missions"] for n in walk(value) if isinstance(n, dict) and n.get("missions") is not None
    ]


def seal_salts(value: Any) -> list[str]:
    """Every salt of a bey's own `orders_sealed` report line (ADR-57): its bey's alone."""
    return [
        n["data"]["salt"]
        for n in walk(value)
        if isinstance(n, dict)
        and n.get("kind") == "orders_sealed"
        and isinstance(n.get("data"), dict)
        and "salt" in n["data"]
    ]


PRIVATE_KINDS = ("offer", "order_cancelled")  # report lines only their bey may read


def private_lines(value: Any) -> list[Any]:
    """Report lines of a bey's own part: offer outcomes and the orders a rule dropped."""
    return [
        n
        for n in walk(value)
        if isinstance(n, dict) and n.get("kind") in PRIVATE_KINDS and "data" in n and "en" in n
    ]
