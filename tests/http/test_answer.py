"""A command's answer (services.command.route_parts.Answer, ADR-119) is sent as Litestar's own
Response would send it: the same status, header list and body bytes, for every answer type of
the bey routes; a route that adds anything of its own goes through Litestar's path."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from litestar import Response
from litestar.datastructures import Cookie
from litestar.testing import TestClient

from entrypoints.gateway import create_app
from services.command.route_parts import Answer, answered
from services.command.schemas import (
    Accepted,
    AnswerRecordedOut,
    DivanRequestedOut,
    OrdersAcceptedOut,
)
from services.command.service import Outcome
from shared.eventstore import InMemoryEventStore
from shared.settings import Settings
from tests.clock import StepClock

ROUTE = {
    "background": None,
    "cookies": [],
    "headers": {},
    "media_type": "",  # what a route that names none passes (Litestar: JSON)
    "status_code": 200,
    "type_encoders": None,
}
OUTCOMES = [
    Outcome(200, OrdersAcceptedOut(3, 2, 41)),
    Outcome(200, Accepted("accepted", ["OfferMade", "DeadlineSet"], 7, divan=2)),
    Outcome(200, Accepted("accepted", [], 7)),
    Outcome(200, AnswerRecordedOut("accepted", "reject", ["OfferAnswered"], 12, divan=4)),
    Outcome(202, DivanRequestedOut(5, "resolving")),
    Outcome(200, DivanRequestedOut(5, "resolved")),
]


def _sent(response: Any) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        messages.append(dict(message))

    asyncio.run(response({"type": "http"}, receive, send))
    return messages


def _litestar(answer: Response[Any], **route: Any) -> list[dict[str, Any]]:
    plain = Response(answer.content, status_code=answer.status_code, headers=dict(answer.headers))
    return _sent(plain.to_asgi_response(None, None, **route))  # type: ignore[arg-type]


@pytest.mark.parametrize("outcome", OUTCOMES, ids=lambda o: type(o.body).__name__)
def test_answer_of_is_the_answer_response_init_makes(outcome: Outcome[Any]) -> None:
    made = answered(outcome)
    version = getattr(outcome.body, "version", None)
    headers = {"X-Season-Version": str(version)} if isinstance(version, int) else None
    init = Answer(outcome.body, status_code=outcome.status, headers=headers)
    assert type(made) is Answer
    for slot in Response.__slots__:
        assert getattr(made, slot) == getattr(init, slot), slot


@pytest.mark.parametrize("outcome", OUTCOMES, ids=lambda o: type(o.body).__name__)
def test_an_answer_is_sent_as_litestar_sends_it(outcome: Outcome[Any]) -> None:
    answer = answered(outcome)
    assert isinstance(answer, Answer)
    sent = _sent(answer.to_asgi_response(None, None, **ROUTE))  # type: ignore[arg-type]
    assert sent == _litestar(answer, **ROUTE)
    names = [k for k, _ in sent[0]["headers"]]
    assert (b"x-season-version" in names) is hasattr(outcome.body, "version")


@pytest.mark.parametrize(
    "extra",
    [
        {"cookies": [Cookie("c", "v")]},
        {"headers": {"X-Extra": "1"}},
        {"status_code": 201},
    ],
    ids=["cookies", "headers", "status"],
)
def test_a_route_adding_its_own_goes_through_litestar(extra: dict[str, Any]) -> None:
    answer = answered(OUTCOMES[0])
    route = {**ROUTE, **extra}
    got = answer.to_asgi_response(None, None, **route)  # type: ignore[arg-type]
    assert _sent(got) == _litestar(answer, **route)


def test_an_order_is_answered_without_litestars_response_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The order route's answer takes the direct path (what ADR-119 measured), with the same
    status, headers and body the client always got."""

    def refused(*_: Any, **__: Any) -> None:
        raise AssertionError("the order's answer went through Response.to_asgi_response")

    app = create_app(
        Settings(), store=InMemoryEventStore(clock=StepClock()), enqueue=lambda s, d: None
    )
    with TestClient(app) as client:
        made = client.post("/v1/seasons", json={"memleket": 6, "seed": "7"}).json()
        monkeypatch.setattr(Response, "to_asgi_response", refused)
        r = client.post(
            f"/v1/seasons/{made['season_id']}/orders",
            json={"orders": [{"province": 6, "kind": "hold"}]},
            headers={"Authorization": f"Bearer {made['token']}", "Idempotency-Key": "k1"},
        )
    assert r.status_code == 200, r.text
    assert r.json() == {"divan": 1, "orders": 1, "version": int(r.headers["x-season-version"])}
    assert r.headers["content-type"] == "application/json"
    assert r.headers["content-length"] == str(len(r.content))


@pytest.mark.parametrize("outcome", OUTCOMES, ids=lambda o: type(o.body).__name__)
def test_adr151_an_answer_asked_without_a_routes_keywords_is_sent_as_litestar_sends_it(
    outcome: Outcome[Any],
) -> None:
    """The order fast path asks `to_asgi_response(None, None)` (ADR-145): the direct answer,
    whose own `__call__` sends what Litestar's ASGIResponse sends (ADR-151)."""
    answer = answered(outcome)
    got = answer.to_asgi_response(None, None)  # type: ignore[arg-type]
    assert type(got).__name__ == "_Sent"
    assert _sent(got) == _litestar(answer, **ROUTE)
