"""Issue 27 (ADR-122): a flood of one season leaves the other seasons their share of the API.

The per-address and per-token limits bound a client, not a season: one season's beys behind
several addresses kept about fifty of its requests in the API process's one event loop, and
every other season's request waited among them (bench/season_flood.py). Now at most
`SEKSENBIR_SEASON_CONCURRENCY` reads of one season are served at once per process; the
others wait their turn in that season's queue, first come first served, and another season's
requests never wait in it. These tests hold the mechanism (who is served, who waits, in what
order), never a duration.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from services.command import app as command_app
from shared.app.http.season_share import SeasonShare, Turn, season_of, share_seasons
from shared.settings import Settings
from tests.http.support import settings

X, Y = "x" * 32, "y" * 32


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_every_read_of_a_season_is_served_within_its_share_but_its_event_stream():
    for method, path in (
        ("GET", f"/v1/seasons/{X}"),
        ("GET", f"/v1/seasons/{X}/map"),
        ("HEAD", f"/v1/seasons/{X}/private"),
        ("POST", f"/v1/seasons/{X}/tickets"),
        ("GET", f"/v1/seasons/{X}/channels/c/messages"),
    ):
        assert season_of(method, path) == X, (method, path)
    assert season_of("GET", f"/v1/seasons/{X}/events") is None  # open for hours: no turn kept
    # a command takes the season's writer turn, one at a time, its wait bounded by the lock
    # timeout; a queue in front of it would add waits in series (tests/http/test_lock_wait.py)
    for path in ("orders", "divans", "join", "messages"):
        assert season_of("POST", f"/v1/seasons/{X}/{path}") is None
    for method, path in (("POST", "/v1/seasons"), ("GET", "/v1/board"), ("GET", "/health")):
        assert season_of(method, path) is None
    assert season_of("GET", "/v1/seasons/") is None


async def test_past_its_share_a_seasons_requests_wait_and_another_season_does_not():
    share = SeasonShare(2)
    await share.enter(X)
    await share.enter(X)
    third = asyncio.create_task(share.enter(X))
    await settle()
    assert not third.done() and share.serving(X) == (2, 1)
    await asyncio.wait_for(share.enter(Y), 1)  # Y's turn is its own, whatever X's queue
    assert share.serving(Y) == (1, 0)
    share.leave(X)  # X's turn goes to the one that waited
    await settle()
    assert third.done() and share.serving(X) == (2, 0)


async def test_the_waiting_requests_are_served_in_the_order_they_came():
    share = SeasonShare(1)
    await share.enter(X)
    served: list[int] = []

    async def request(n: int) -> None:
        await share.enter(X)
        served.append(n)

    tasks = []
    for n in range(4):
        tasks.append(asyncio.create_task(request(n)))
        await settle()
    for _ in range(4):
        share.leave(X)
        await settle()
    assert served == [0, 1, 2, 3]
    await asyncio.gather(*tasks)


async def test_a_cancelled_wait_takes_no_turn_and_an_idle_season_is_forgotten():
    share = SeasonShare(1)
    await share.enter(X)
    gone = asyncio.create_task(share.enter(X))
    kept = asyncio.create_task(share.enter(X))
    await settle()
    gone.cancel()  # a client that hung up while waiting
    await settle()
    assert share.serving(X) == (1, 1)
    share.leave(X)
    await settle()
    assert kept.done() and share.serving(X) == (1, 0)
    share.leave(X)
    assert share.serving(X) == (0, 0) and not share._shares  # nothing kept for an idle season


async def test_the_middleware_serves_a_season_within_its_share_and_its_stream_beside_it():
    inside: list[str] = []
    release = asyncio.Event()

    async def app(scope: dict[str, Any], _receive: Any, _send: Any) -> None:
        inside.append(scope["path"])
        await release.wait()

    guarded = share_seasons(SeasonShare(2))(app)

    def call(method: str, path: str) -> asyncio.Task[None]:
        scope = {"type": "http", "method": method, "path": path}
        return asyncio.create_task(guarded(scope, None, None))

    calls = [call("GET", f"/v1/seasons/{X}/map") for _ in range(3)]
    calls += [
        call("GET", f"/v1/seasons/{X}/events"),
        call("GET", f"/v1/seasons/{Y}/map"),
        call("POST", "/v1/seasons"),
    ]
    await settle()
    assert sorted(inside) == sorted(
        [f"/v1/seasons/{X}/map"] * 2
        + [f"/v1/seasons/{X}/events", f"/v1/seasons/{Y}/map", "/v1/seasons"]
    )
    release.set()  # the first two answer: the third is served
    await asyncio.wait_for(asyncio.gather(*calls), 1)
    assert inside.count(f"/v1/seasons/{X}/map") == 3


def _shares(s: Settings) -> bool:
    chain = command_app.middleware(s, None, None, (), lambda: 0.0)
    return any("share_seasons" in m.__qualname__ for m in chain if hasattr(m, "__qualname__"))


def test_the_api_serves_seasons_within_their_share_by_default_and_0_turns_it_off():
    assert Settings().season_concurrency > 0
    assert _shares(settings())
    assert not _shares(settings(season_concurrency=0))
    with pytest.raises(ValueError, match="SEKSENBIR_SEASON_CONCURRENCY"):
        Settings(season_concurrency=-1)


async def test_a_read_waiting_for_a_version_gives_its_turn_back_and_takes_one_to_read():
    """A `?min_version=` read waits up to 2 s for the projectors (services/projections/context.py):
    holding its turn meanwhile, two such reads held every other read of their season
    (tests/projections/test_read_your_writes.py failed so). It gives the turn back while it
    waits and queues for one again to read; a turn given back twice is given back once."""
    share = SeasonShare(1)
    waiting = Turn(share, X)
    await waiting.take()
    other = asyncio.create_task(share.enter(X))
    await settle()
    assert not other.done()  # the share is full
    waiting.give_back()
    await asyncio.wait_for(other, 1)  # the season's other read is served during the wait
    again = asyncio.create_task(waiting.take())
    await settle()
    assert not again.done() and share.serving(X) == (1, 1)  # it queues for its read
    share.leave(X)
    await asyncio.wait_for(again, 1)
    assert waiting.held and share.serving(X) == (1, 0)
    waiting.give_back()
    waiting.give_back()
    assert share.serving(X) == (0, 0)
