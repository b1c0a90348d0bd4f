"""evolve(state, event) -> state, and the fold: the only way state changes."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, assert_never, cast, get_args

import msgspec

from shared.domain import events as ev
from shared.domain.admin import ADMIN_ACTS
from shared.domain.state import (
    DIVANS,
    AdminAct,
    Bey,
    ForkOrigin,
    Offer,
    Province,
    SeasonState,
    Treaty,
    offer_key,
    start_map,
)

replace = msgspec.structs.replace


def _beys(state: SeasonState, seat: int, **changes: object) -> tuple[Bey, ...]:
    return tuple(replace(b, **changes) if b.seat == seat else b for b in state.beys)


def _gold(state: SeasonState, deltas: Iterable[ev.GoldDelta]) -> SeasonState:
    beys = {b.seat: b for b in state.beys}
    for d in deltas:
        b = beys[d.seat]
        beys[d.seat] = replace(b, gold=b.gold + d.amount)
    return replace(state, beys=tuple(beys[s] for s in sorted(beys)))


def _set(state: SeasonState, changes: Iterable[ev.ProvinceSet]) -> SeasonState:
    """Apply absolute province states; a memleket passing away from its bey marks M-6 lost."""
    provinces = list(state.provinces)
    lost = set()
    memleket_of = {b.memleket: b.seat for b in state.beys}
    for c in changes:
        seat = memleket_of.get(c.plate)
        if seat is not None and provinces[c.plate - 1].owner == seat and c.owner != seat:
            lost.add(seat)
        provinces[c.plate - 1] = Province(c.owner, c.units, c.sur)
    beys = tuple(replace(b, lost_memleket_before=True) if b.seat in lost else b for b in state.beys)
    return replace(state, provinces=tuple(provinces), beys=beys)


def _spend(state: SeasonState, seat: int, cost: int, plate: int, province: Province) -> SeasonState:
    bey = state.bey(seat)
    assert bey is not None
    provinces = list(state.provinces)
    provinces[plate - 1] = province
    return replace(state, provinces=tuple(provinces), beys=_beys(state, seat, gold=bey.gold - cost))


def _without_offer(offers: tuple[Offer, ...], a: int, b: int) -> tuple[Offer, ...]:
    pair = (min(a, b), max(a, b))
    return tuple(o for o in offers if o.pair() != pair)


def _forget(offer_divans: dict[str, int], frm: int, to: int) -> dict[str, int]:
    key = offer_key(frm, to)
    if key not in offer_divans:
        return offer_divans
    return {k: v for k, v in offer_divans.items() if k != key}


def _with_treaty(treaties: tuple[Treaty, ...], t: Treaty) -> tuple[Treaty, ...]:
    return tuple(sorted((*[x for x in treaties if x.pair() != t.pair()], t), key=Treaty.pair))


def evolve(state: SeasonState, event: ev.Event) -> SeasonState:
    """Apply one event. Pure; unknown state transitions are programming errors.

    Every event type is one of ev.AnyEvent (tests/domain/test_evolve_exhaustive.py checks that
    no Event subclass is left out of it), and the match below must handle each of them: mypy
    proves it through assert_never, and an event of no known type raises at run time.
    """
    grouped = _GROUPED.get(type(event))  # a bey's command's or a Divan's: no class pattern tried
    if grouped is not None:
        return grouped(state, event)
    return _apply(state, cast("ev.AnyEvent", event))


def _apply(state: SeasonState, event: ev.AnyEvent) -> SeasonState:  # noqa: C901, PLR0911, PLR0912 — one case per season event; commands' and the Divan's in their own match
    match event:
        case ev.SeasonCreated():
            return _created(event)
        case ev.SeasonForked():
            return _forked(state, event)
        case ev.BeyJoined():
            bey = Bey(seat=event.seat, memleket=event.memleket, computer=event.computer)
            return _join(state, bey)
        case ev.BeyNamed() | ev.SeasonListed() | ev.PressModeSet():
            return _named(state, event)
        case ev.RegistrationClosed():
            for seat, memleket in event.computer_beys:
                state = _join(state, Bey(seat=seat, memleket=memleket, computer=True))
            beys = tuple(replace(b, missions=event.missions.get(b.seat, ())) for b in state.beys)
            return replace(state, beys=beys, deck=event.deck, phase="running")
        case ev.DeadlineSet() | ev.DivanHeld() | ev.SeedRevealed():
            return state  # bookkeeping for the scheduler and the record (decide.with_deadline)
        case ev.OrdersSealed():
            return state  # a commitment to the locked orders for the record (ADR-57)
        case ev.CalendarSet():
            return replace(state, calendar=event.calendar)
        case ev.AdminTokenSet():
            return replace(state, admin_token=event.token_hash)
        case ev.CorrectionApplied():
            return _correct(state, event.correction)
        case ev.SeasonAdminActed():
            return _admin_act(state, event.act)
        case ev.DivanRequested() | ev.DivanLocked():
            # Trial: the request is the lock instant; orders after it are for n+1.
            return replace(state, locked_divan=event.divan)
        case (
            ev.OrdersSubmitted()
            | ev.SurBuilt()
            | ev.MercenariesHired()
            | ev.ProvincePurchased()
            | ev.TreatyOffered()
            | ev.OfferWithdrawn()
            | ev.OfferAnswered()
            | ev.VoteCast()
            | ev.TokenRotated()
            | ev.SeatBound()
        ):
            return _apply_command(state, event)
        case (
            ev.NewsRevealed()
            | ev.OfferSettled()
            | ev.TreatiesDissolved()
            | ev.BattlesResolved()
            | ev.RebellionsRun()
            | ev.ProductionApplied()
            | ev.MissionCompleted()
            | ev.HainExpired()
            | ev.TreatyExpired()
            | ev.DivanResolved()
            | ev.KurultayHeld()
        ):
            return _apply_divan(state, event)
        case _:
            assert_never(event)


CommandEvent = (
    ev.OrdersSubmitted
    | ev.SurBuilt
    | ev.MercenariesHired
    | ev.ProvincePurchased
    | ev.TreatyOffered
    | ev.OfferWithdrawn
    | ev.OfferAnswered
    | ev.VoteCast
    | ev.TokenRotated
    | ev.SeatBound
)
DivanEvent = (
    ev.NewsRevealed
    | ev.OfferSettled
    | ev.TreatiesDissolved
    | ev.BattlesResolved
    | ev.RebellionsRun
    | ev.ProductionApplied
    | ev.MissionCompleted
    | ev.HainExpired
    | ev.TreatyExpired
    | ev.DivanResolved
    | ev.KurultayHeld
)


def _apply_command(state: SeasonState, event: CommandEvent) -> SeasonState:  # noqa: C901, PLR0911 — one match over the events a bey's command appends
    """The events a bey's accepted command appends (orders, spending, offers, votes, tokens)."""
    match event:
        case ev.OrdersSubmitted():
            for_divan = {**state.orders.get(event.divan, {}), event.seat: event.orders}
            return replace(state, orders={**state.orders, event.divan: for_divan})
        case ev.SurBuilt():
            p = state.province(event.province)
            return _spend(state, event.seat, event.cost, event.province, replace(p, sur=True))
        case ev.MercenariesHired():
            p = state.province(event.province)
            hired = replace(p, units=p.units + event.units)
            return _spend(state, event.seat, event.cost, event.province, hired)
        case ev.ProvincePurchased():
            bought = Province(owner=event.seat, units=1)
            return _spend(state, event.seat, event.cost, event.province, bought)
        case ev.TreatyOffered():
            offer = Offer(event.kind, event.frm, event.to)
            state = replace(
                state, offers=(*_without_offer(state.offers, event.frm, event.to), offer)
            )
            if event.divan is None:
                return state
            key = offer_key(event.frm, event.to)
            return replace(state, offer_divans={**state.offer_divans, key: event.divan})
        case ev.OfferWithdrawn():
            return replace(
                state,
                offers=_without_offer(state.offers, event.frm, event.to),
                offer_divans=_forget(state.offer_divans, event.frm, event.to),
            )
        case ev.OfferAnswered():
            offers = tuple(
                replace(o, answer=event.answer) if (o.frm, o.to) == (event.frm, event.to) else o
                for o in state.offers
            )
            return replace(state, offers=offers)
        case ev.VoteCast():
            return replace(state, votes={**state.votes, event.seat: event.candidate})
        case ev.TokenRotated():
            return replace(state, tokens={**state.tokens, event.seat: event.token_hash})
        case ev.SeatBound():  # issue 23 (ADR-87)
            return replace(state, players={**state.players, event.seat: event.player_id})
        case _:
            assert_never(event)


def _apply_divan(state: SeasonState, event: DivanEvent) -> SeasonState:  # noqa: C901, PLR0911, PLR0912 — one match over the events a Divan's resolution appends
    """The events a Divan's resolution (R-13 steps 2–7) and the Kurultay append."""
    match event:
        case ev.NewsRevealed():
            return _gold(_set(state, event.changes), event.gold)
        case ev.OfferSettled():
            o = event.offer
            state = replace(
                state,
                offers=tuple(x for x in state.offers if (x.frm, x.to) != (o.frm, o.to)),
                offer_divans=_forget(state.offer_divans, o.frm, o.to),
            )
            if event.treaty is not None:
                t = event.treaty
                partners = dict(state.partners)
                partners[t.a] = tuple(sorted({*partners.get(t.a, ()), t.b}))
                partners[t.b] = tuple(sorted({*partners.get(t.b, ()), t.a}))
                state = replace(state, treaties=_with_treaty(state.treaties, t), partners=partners)
            return state
        case ev.TreatiesDissolved():
            return replace(state, treaties=())
        case ev.BattlesResolved():
            state = _gold(_set(state, event.changes), event.gold)
            ended = {t.pair() for t in event.treaties_ended}
            for b in event.betrayals:
                state = replace(state, beys=_beys(state, b.traitor, hain_through=b.hain_through))
            return replace(
                state, treaties=tuple(t for t in state.treaties if t.pair() not in ended)
            )
        case ev.RebellionsRun():
            return _set(state, event.changes)
        case ev.ProductionApplied():
            return _gold(_set(state, event.changes), event.gold)
        case ev.MissionCompleted():
            completer = state.bey(event.seat)
            assert completer is not None
            done = (*completer.missions_done, event.mission)
            return replace(state, beys=_beys(state, event.seat, missions_done=done))
        case ev.HainExpired():
            return replace(state, beys=_beys(state, event.seat, hain_through=None))
        case ev.TreatyExpired():
            return replace(
                state, treaties=tuple(t for t in state.treaties if t.pair() != event.treaty.pair())
            )
        case ev.DivanResolved():
            return _after_divan(state, event)
        case ev.KurultayHeld():
            winners = set(event.halk_sevgisi)
            m6 = set(event.m6)
            beys = tuple(
                replace(
                    b,
                    halk_sevgisi=b.seat in winners,
                    missions_done=(*b.missions_done, "M-6") if b.seat in m6 else b.missions_done,
                )
                for b in state.beys
            )
            return replace(state, beys=beys, votes=event.votes, han=event.han, phase="over")
        case _:
            assert_never(event)


# Each event type of CommandEvent and DivanEvent to its group's match, looked up by `evolve`
# before `_apply`'s match (ADR-168): a class pattern that does not match costs an isinstance
# through msgspec's StructMeta (type.__instancecheck__ looked up and called, ~750
# instructions), and an order's OrdersSubmitted met 17 of them before its case. The classes
# are disjoint (no event type subclasses another), so the group is the one the match picks.
_GROUPED: dict[type, Callable[[SeasonState, Any], SeasonState]] = {
    **dict.fromkeys(get_args(CommandEvent), _apply_command),
    **dict.fromkeys(get_args(DivanEvent), _apply_divan),
}


def _created(event: ev.SeasonCreated) -> SeasonState:
    """A season begins: its seed, mode and versions, and the start map (R-3.2)."""
    return SeasonState(
        season_id=event.season_id,
        seed=event.seed,
        mode=event.mode,
        rules_version=event.rules_version,
        report_version=event.report_version,
        seed_commitment=event.seed_commitment,
        seed_salt=event.seed_salt,
        counts_on_boards=event.counts_on_boards,
        provinces=start_map(),
    )


def _forked(state: SeasonState, event: ev.SeasonForked) -> SeasonState:
    """A fork (D-32) takes the position of its source after `source_divan` whole."""
    return replace(
        state,
        phase="running",
        divan=event.divan,
        beys=event.beys,
        provinces=event.provinces,
        treaties=event.treaties,
        offers=event.offers,
        ceasefire_divan=event.ceasefire_divan,
        deck=event.deck,
        partners=event.partners,
        forked_from=ForkOrigin(event.source_season, event.source_divan),
    )


def _correct(state: SeasonState, fix: ev.Fix) -> SeasonState:
    """ADR-53: a correction sets what it names, as the step it compensates would have."""
    match fix:
        case ev.ProvinceFix():
            return _set(state, [ev.ProvinceSet(fix.province, fix.owner, fix.units, fix.sur)])
        case ev.GoldFix():
            return replace(state, beys=_beys(state, fix.seat, gold=fix.gold))
        case ev.HainRevoke():
            return replace(state, beys=_beys(state, fix.seat, hain_through=None))


def _admin_act(state: SeasonState, act: AdminAct) -> SeasonState:
    """D-29 … D-31: every act is kept for the status, then has its effect (its ADMIN_ACTS
    entry: a cancel ends the season, a pause stops its clock, a resume restarts it)."""
    state = replace(state, admin_acts=(*state.admin_acts, act))
    return ADMIN_ACTS[act.act].effect(state, act)


def _named(
    state: SeasonState, event: ev.BeyNamed | ev.SeasonListed | ev.PressModeSet
) -> SeasonState:
    """R-15.5: a bey's name set or reset (R-15.2); issue 23: a season's lobby entry; issue 24:
    its press mode (R-15), all three set as the season is created or joined."""
    if isinstance(event, ev.PressModeSet):
        return replace(state, press=event.press)
    if isinstance(event, ev.SeasonListed):
        return replace(state, listed=event.listed, description=event.description)
    names = {s: n for s, n in state.names.items() if s != event.seat}
    if event.name is not None:
        names[event.seat] = event.name
    return replace(state, names=names)


def _join(state: SeasonState, bey: Bey) -> SeasonState:
    provinces = list(state.provinces)
    provinces[bey.memleket - 1] = Province(owner=bey.seat, units=6)
    beys = tuple(sorted((*state.beys, bey), key=lambda b: b.seat))
    return replace(state, beys=beys, provinces=tuple(provinces))


def _after_divan(state: SeasonState, event: ev.DivanResolved) -> SeasonState:
    """The Divan is over: its orders and offers are spent; after Divan 16 the Kurultay opens."""
    n = event.divan
    return replace(
        state,
        divan=n,
        orders={d: o for d, o in state.orders.items() if d > n},
        locked_divan=None,
        ceasefire_divan=n + 1 if event.ceasefire_next else None,
        phase="kurultay" if n >= DIVANS else state.phase,
    )


def fold(events: Iterable[ev.Event], state: SeasonState | None = None) -> SeasonState:
    """Left fold of evolve from the empty state."""
    state = state or SeasonState()
    for e in events:
        state = evolve(state, e)
    return state
