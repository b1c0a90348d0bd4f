"""A bey's commands as data: one msgspec Struct per kind, each naming the domain command it
stands for (decided by shared/domain/decide.py) and deriving its answer from the events
decided. The routes build them; services.command.unit_of_work.execute runs every one."""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

import msgspec
import structlog

from services.command.schemas import (
    Accepted,
    AnswerRecordedOut,
    DivanRequestedOut,
    OrdersAcceptedOut,
)
from services.command.service import Context, Outcome, Services
from services.command.unit_of_work import execute
from shared.domain import codec
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import counting_divan
from shared.domain.state import Order, SeasonState, TreatyKind

log = structlog.get_logger(__name__)


def _accepted(events: list[ev.Event], version: int) -> Accepted:
    """The recorded events; a live offer, answer or withdrawal names its Divan (R-4.4)."""
    divan = getattr(events[0], "divan", None) if events else None
    accepted = Accepted("accepted", [codec.event_type(e) for e in events], version)
    return accepted if divan is None else msgspec.structs.replace(accepted, divan=divan)


class Orders(msgspec.Struct, frozen=True):
    """R-4.1: the set replaces the bey's earlier set for that Divan; the answer names it."""

    divan: int | None
    orders: tuple[Order, ...]
    key_required: ClassVar[bool] = False
    out: ClassVar[type[OrdersAcceptedOut]] = OrdersAcceptedOut

    def command(self, state: SeasonState, seat: int, at: datetime) -> c.Command:
        # without `divan`: the one it counts for at the instant (a live season's calendar)
        given = self.divan if self.divan is not None else counting_divan(state, at)
        return c.SubmitOrders(seat=seat, divan=given, orders=self.orders, at=at)

    def answer(
        self, events: list[ev.Event], version: int, before: SeasonState
    ) -> tuple[int, OrdersAcceptedOut]:
        e = events[0]
        assert isinstance(e, ev.OrdersSubmitted)
        return 200, OrdersAcceptedOut(e.divan, len(e.orders), version)


SPENDING: dict[str, type[c.BuildSur | c.HireMercenaries | c.PurchaseProvince]] = {
    "sur": c.BuildSur,
    "paralı_asker": c.HireMercenaries,
    "satın_alma": c.PurchaseProvince,
}


class Spending(msgspec.Struct, frozen=True):
    """R-7.9: immediate; the Idempotency-Key is required."""

    kind: str  # a key of SPENDING (the body's schema holds it)
    province: int
    key_required: ClassVar[bool] = True
    out: ClassVar[type[Accepted]] = Accepted

    def command(self, state: SeasonState, seat: int, at: datetime) -> c.Command:
        return SPENDING[self.kind](seat=seat, province=self.province, at=at)

    def answer(
        self, events: list[ev.Event], version: int, before: SeasonState
    ) -> tuple[int, Accepted]:
        return 200, _accepted(events, version)


class Offer(msgspec.Struct, frozen=True):
    """R-6.1; the Idempotency-Key is required."""

    to: int
    kind: TreatyKind
    key_required: ClassVar[bool] = True
    out: ClassVar[type[Accepted]] = Accepted

    def command(self, state: SeasonState, seat: int, at: datetime) -> c.Command:
        return c.OfferTreaty(seat=seat, to=self.to, kind=self.kind, at=at)

    def answer(
        self, events: list[ev.Event], version: int, before: SeasonState
    ) -> tuple[int, Accepted]:
        return 200, _accepted(events, version)


class Withdrawal(msgspec.Struct, frozen=True):
    """R-6.1: an offer withdrawn before it is answered (D-25)."""

    to: int
    key_required: ClassVar[bool] = False
    out: ClassVar[type[Accepted]] = Accepted

    def command(self, state: SeasonState, seat: int, at: datetime) -> c.Command:
        return c.WithdrawOffer(seat=seat, to=self.to, at=at)

    def answer(
        self, events: list[ev.Event], version: int, before: SeasonState
    ) -> tuple[int, Accepted]:
        return 200, _accepted(events, version)


class OfferAnswer(msgspec.Struct, frozen=True):
    """R-6.1: the answer is recorded now and takes effect at the Divan's step 2; the answer
    names it (ADR-71: "status" is the command's, never the offer's outcome)."""

    frm: int
    reply: Literal["accept", "reject"]
    key_required: ClassVar[bool] = False
    out: ClassVar[type[AnswerRecordedOut]] = AnswerRecordedOut

    def command(self, state: SeasonState, seat: int, at: datetime) -> c.Command:
        return c.AnswerOffer(seat=seat, frm=self.frm, answer=self.reply, at=at)

    def answer(
        self, events: list[ev.Event], version: int, before: SeasonState
    ) -> tuple[int, AnswerRecordedOut]:
        e = events[0]
        assert isinstance(e, ev.OfferAnswered)
        done = _accepted(events, version)
        out = AnswerRecordedOut("accepted", e.answer, done.events, done.version)
        return 200, out if e.divan is None else msgspec.structs.replace(out, divan=e.divan)


class Vote(msgspec.Struct, frozen=True):
    """R-10.4."""

    candidate: int
    key_required: ClassVar[bool] = False
    out: ClassVar[type[Accepted]] = Accepted

    def command(self, state: SeasonState, seat: int, at: datetime) -> c.Command:
        return c.CastVote(seat=seat, candidate=self.candidate, at=at)

    def answer(
        self, events: list[ev.Event], version: int, before: SeasonState
    ) -> tuple[int, Accepted]:
        return 200, _accepted(events, version)


class DivanRequest(msgspec.Struct, frozen=True):
    """R-1.2, trial: 202 `resolving`, 200 once resolved; a retry never advances the season
    (the Divan already requested is in effect: nothing appended, the same 202)."""

    divan: int
    key_required: ClassVar[bool] = False
    out: ClassVar[type[DivanRequestedOut]] = DivanRequestedOut

    def command(self, state: SeasonState, seat: int, at: datetime) -> c.Command:
        return c.RequestDivan(seat=seat, divan=self.divan)

    def answer(
        self, events: list[ev.Event], version: int, before: SeasonState
    ) -> tuple[int, DivanRequestedOut]:
        if before.divan >= self.divan:  # resolved already, before the events
            return 200, DivanRequestedOut(self.divan, "resolved")
        return 202, DivanRequestedOut(self.divan, "resolving")


async def request_divan(svc: Services, ctx: Context, divan: int) -> Outcome[DivanRequestedOut]:
    """R-1.2: the request executed; every 202 enqueues the resolution (the resolver is
    idempotent; enqueueing again also recovers a message the broker lost); if the broker is
    unreachable the request stands and the scheduler enqueues it (`seksenbir scheduler`)."""
    outcome = await execute(svc, ctx, DivanRequest(divan))
    if outcome.status == 202:
        try:
            svc.enqueue(ctx.season_id, divan)
        except Exception:  # the request is stored: the scheduler hands it over (runbook)
            log.warning("divan.enqueue_failed", season_id=ctx.season_id, divan=divan)
    return outcome
