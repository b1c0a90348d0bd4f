"""decide(state, command) -> events | Rejection: every player command validated (R-1.4 … R-10.4)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Final

from shared.domain import admin, live, naming, season
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.corrections import decide_correction
from shared.domain.evolve import evolve, fold
from shared.domain.map import MAX_UNITS, game_map
from shared.domain.rules.kinds import ORDER_KINDS
from shared.domain.state import DIVANS, SEATS, Order, SeasonState, offer_key, perde

Result = list[ev.Event] | c.Rejection
SATIN_ALMA_MILIS = 2


reject = c.reject  # reject(key, **details): the text is shared.domain.messages' (key's)


def next_divan(state: SeasonState) -> int:
    """The Divan a command accepted now counts for (R-4.4: after the lock, the next one)."""
    return (state.locked_divan or state.divan) + 1


def counting_divan(state: SeasonState, at: datetime | None) -> int:
    """The Divan a command accepted at `at` counts for: a live season's by its calendar
    (R-4.4: after a Divan's instant, the next), a trial season's by its requests (R-1.2)."""
    live_divan = live.counts_for(state, at)
    return live_divan if live_divan is not None else next_divan(state)


def upcoming_divan(state: SeasonState) -> int | None:
    """The Divan still to come that orders are for now, or None once none is left (R-1.1)."""
    n = next_divan(state)
    return n if n <= DIVANS else None


def decide(state: SeasonState, command: c.Command) -> Result:
    """Validate one command against the state; refusals change nothing.

    A live season's accepted command is followed by a DeadlineSet when it moves the season's
    next timed work (a creation, a registration close, the Kurultay held: with_deadline).
    """
    result = _decide(state, command)
    if isinstance(result, list) and result and _live(state, command):
        return with_deadline(state, result)
    return result


def with_deadline(state: SeasonState, events: list[ev.Event]) -> list[ev.Event]:
    """`events` decided on `state`, followed by a DeadlineSet when they change a live season's
    next deadline (a season created live, a registration closed, a Divan resolved, …). Last in
    the list, so the due_work row it writes is the season's state after all of them."""
    if state.season_id and all(type(e) in live.KEEPS_DEADLINE for e in events):
        return events  # what the fold below would find: the same deadline
    after = fold(events, state)
    if after.mode != "live":
        return events
    before = live.next_deadline(state) if state.season_id else None
    now = live.next_deadline(after)
    if now == before and state.season_id:
        return events
    return [*events, live.deadline_event(now)]


def _live(state: SeasonState, command: c.Command) -> bool:
    return state.mode == "live" or (isinstance(command, c.CreateSeason) and command.mode == "live")


def _decide(state: SeasonState, command: c.Command) -> Result:  # noqa: C901, PLR0911, PLR0912 — one match over every command type
    bey = _BEY_COMMANDS.get(type(command))  # an order, a spending, an offer, a vote, a request
    if bey is not None:
        return bey(state, command)
    match command:
        case c.CreateSeason():
            return season.create(state, command)
        case c.JoinSeason():
            return _join(state, command)
        case c.ResetName():
            return naming.decide_reset(state, command)
        case c.ResetDescription():
            return naming.decide_description_reset(state, command)
        case c.ListSeason():
            return naming.decide_listing(state, command)
        case c.BindPlayer():
            return _bind(state, command)
        case c.CloseRegistration():
            if state.cancelled:
                return admin.cancelled()
            return season.close_registration(state, command.at)
        case c.SetAdminToken():
            return admin.set_token(state, command)
        case c.SeasonAdmin():
            return admin.decide_admin(state, command)
        case c.ApplyCorrection():
            return decide_correction(state, command)
        case c.SubmitOrders():
            return _orders(state, command)
        case c.BuildSur() | c.HireMercenaries() | c.PurchaseProvince():
            return _spend(state, command)
        case c.OfferTreaty() | c.WithdrawOffer() | c.AnswerOffer():
            return _treaty(state, command)
        case c.CastVote():
            return _vote(state, command)
        case c.RequestDivan():
            return _request(state, command)
        case c.RotateToken():
            if state.bey(command.seat) is None:
                return reject("unknown_seat", seat=command.seat)
            return [
                ev.TokenRotated(seat=command.seat, by=command.by, token_hash=command.token_hash)
            ]
        case c.HoldKurultay():
            held = season.hold_kurultay(state)
            if state.mode != "live" or isinstance(held, c.Rejection):
                return held
            # a live season's seed and salt are revealed when its Kurultay closes
            return [*held, ev.SeedRevealed(seed=state.seed, salt=state.seed_salt)]
        case _:
            raise TypeError(f"not a command: {command!r}")


def _join(state: SeasonState, cmd: c.JoinSeason) -> Result:  # noqa: PLR0911 — one guard per R-1.4 refusal, in the rule's order
    """R-1.4: first come, first served; a taken memleket answers its free neighbours."""
    gm = game_map()
    if state.cancelled:
        return admin.cancelled()
    if sum(1 for b in state.beys if not b.computer) >= SEATS:  # D-29: 19 humans, none to add
        return reject("season_full")
    # D-38: a trial season has its one human from its creation on, and closes its
    # registration then: a later join is refused by the mode, not by a closed registration
    if state.mode == "trial" and any(not b.computer for b in state.beys):
        return reject("not_allowed_in_mode.one_human")
    if state.phase != "registration" or live.registration_over(state, cmd.at):
        return reject("registration_closed")
    if cmd.name is not None and (refused := naming.name_refusal(state, cmd.name)) is not None:
        return refused
    if cmd.memleket not in gm:
        return reject("unknown_province", province=cmd.memleket)
    if len(state.beys) >= SEATS:
        return reject("season_full")
    if state.province(cmd.memleket).owner is not None:
        free = [n for n in gm.neighbours(cmd.memleket) if state.province(n).owner is None]
        return reject("memleket_taken", memleket=cmd.memleket, free_neighbours=free)
    return _seated(state, cmd)


def _seated(state: SeasonState, cmd: c.JoinSeason) -> Result:
    """R-1.4: the lowest free seat, its name (R-15.5), and the close after the 19th."""
    taken = {b.seat for b in state.beys}
    seat = min(s for s in range(1, SEATS + 1) if s not in taken)
    joined: list[ev.Event] = [ev.BeyJoined(seat=seat, memleket=cmd.memleket)]
    joined += naming.named(seat, cmd.name)
    if state.mode != "live" or len(taken) + 1 < SEATS:
        return joined
    # the 19th seat closes registration at once; the calendar moves with the close.
    after = state
    for e in joined:
        after = evolve(after, e)
    closed = season.close_registration(after, cmd.at)
    assert isinstance(closed, list), closed
    return [*joined, *closed]


def _bind(state: SeasonState, cmd: c.BindPlayer) -> Result:
    """Issue 23 (ADR-87): a player holds at most one seat of a season; a computer bey's seat
    is no player's."""
    bey = state.bey(cmd.seat)
    if bey is None or bey.computer or cmd.seat in state.players:
        return reject("unknown_seat", seat=cmd.seat)
    if cmd.player_id in state.players.values():
        return reject("player_already_seated")
    return [ev.SeatBound(seat=cmd.seat, player_id=cmd.player_id)]


def _bey_check(state: SeasonState, seat: int) -> c.Rejection | None:
    if state.bey(seat) is None:
        return reject("unknown_seat", seat=seat)
    if state.cancelled:
        return admin.cancelled()
    if state.phase != "running":
        return wrong_phase(state)
    return None


_PHASE_TEXTS: Final = {
    "registration": "wrong_phase.registration",
    "kurultay": "wrong_phase.kurultay_open",
    "over": "wrong_phase.over",
}


def wrong_phase(state: SeasonState) -> c.Rejection:
    """`wrong_phase` for a command only a running season takes, saying which phase it is in."""
    return reject(_PHASE_TEXTS.get(state.phase, "wrong_phase"))


def _orders(state: SeasonState, cmd: c.SubmitOrders) -> Result:
    """R-4.1, R-4.2, R-4.4: one order per own province, neighbour target, N ≥ 1, next Divan."""
    if (r := _bey_check(state, cmd.seat)) is not None:
        return r
    want = counting_divan(state, cmd.at)
    if want > DIVANS:  # a live season past Divan 16's lock: no Divan is left to order for
        return reject("wrong_phase.kurultay_next")
    if cmd.divan != want:
        return reject("wrong_divan", divan=want)
    given: set[int] = set()
    for o in cmd.orders:
        if (r := order_refusal(state, cmd.seat, o, given)) is not None:
            return r
        given.add(o.province)
    return [ev.OrdersSubmitted(seat=cmd.seat, divan=cmd.divan, orders=cmd.orders)]


def order_refusal(  # noqa: PLR0911 — one guard per R-4 refusal, in the order they are checked
    state: SeasonState, seat: int, o: Order, given: set[int]
) -> c.Rejection | None:
    """R-4.1, R-4.2: why one order, after the provinces in `given`, is refused, or None."""
    gm = game_map()
    if o.province not in gm:
        return reject("unknown_province", province=o.province)
    if o.province in given:
        return reject("duplicate_province", province=o.province)
    if state.province(o.province).owner != seat:
        return reject("not_your_province", province=o.province)
    if not ORDER_KINDS[o.kind].targeted:  # Bekle: no target, no units
        return None
    if o.target is None:
        return reject("missing_target", province=o.province)
    if not gm.are_neighbours(o.province, o.target):
        return reject("not_a_neighbour", province=o.province, target=o.target)
    if o.units < 1:
        return reject("bad_units", province=o.province)
    return None


def _spend(state: SeasonState, cmd: c.BuildSur | c.HireMercenaries | c.PurchaseProvince) -> Result:  # noqa: C901, PLR0911 — R-7.9's refusals in order; one kind's cost and checks
    """R-7.9: immediate, from the bey's own provinces, refused while a Divan is resolved."""
    if (r := _bey_check(state, cmd.seat)) is not None:
        return r
    if state.locked_divan is not None or live.locked(state, cmd.at) is not None:
        return reject("divan_locked")
    gm = game_map()
    if cmd.province not in gm:
        return reject("unknown_province", province=cmd.province)
    bey = state.bey(cmd.seat)
    assert bey is not None
    p = state.province(cmd.province)
    cost = {c.BuildSur: 3, c.HireMercenaries: 2, c.PurchaseProvince: 4}[type(cmd)]
    if isinstance(cmd, c.PurchaseProvince):
        mine = state.owned_by(cmd.seat)
        if (
            p.owner is not None
            or p.units > SATIN_ALMA_MILIS
            or not any(gm.are_neighbours(cmd.province, m) for m in mine)
        ):
            return reject("not_purchasable", province=cmd.province)
    elif p.owner != cmd.seat:
        return reject("not_your_province", province=cmd.province)
    elif isinstance(cmd, c.BuildSur) and p.sur:
        return reject("sur_exists", province=cmd.province)
    elif isinstance(cmd, c.HireMercenaries) and p.units + 2 > MAX_UNITS:
        return reject("over_cap", province=cmd.province)
    if bey.gold < cost:
        return reject("not_enough_gold", cost=cost, gold=bey.gold)
    if isinstance(cmd, c.BuildSur):
        return [ev.SurBuilt(seat=cmd.seat, province=cmd.province)]
    if isinstance(cmd, c.HireMercenaries):
        return [ev.MercenariesHired(seat=cmd.seat, province=cmd.province)]
    return [ev.ProvincePurchased(seat=cmd.seat, province=cmd.province)]


def _treaty(state: SeasonState, cmd: c.OfferTreaty | c.WithdrawOffer | c.AnswerOffer) -> Result:  # noqa: C901, PLR0911 — R-6's refusals per offer verb, in the rule's order
    """R-6.1, R-6.2, R-6.6: one open offer per pair; none in perde 3; no pact while allied."""
    if (r := _bey_check(state, cmd.seat)) is not None:
        return r
    divan = live.counts_for(state, cmd.at)  # None in trial: the event keeps its old shape
    if isinstance(cmd, c.WithdrawOffer):
        o = state.offer_between(cmd.seat, cmd.to)
        if o is None or o.frm != cmd.seat:
            return reject("no_offer.withdraw")
        if (r := _offer_locked(state, o.frm, o.to, cmd.at)) is not None:
            return r
        return [ev.OfferWithdrawn(frm=cmd.seat, to=cmd.to, divan=divan)]
    if isinstance(cmd, c.AnswerOffer):
        o = state.offer_between(cmd.seat, cmd.frm)
        if o is None or o.to != cmd.seat:
            return reject("no_offer.answer")
        if (r := _offer_locked(state, o.frm, o.to, cmd.at)) is not None:
            return r
        return [ev.OfferAnswered(frm=cmd.frm, to=cmd.seat, answer=cmd.answer, divan=divan)]
    if cmd.to == cmd.seat or state.bey(cmd.to) is None:
        return reject("bad_partner")
    if perde(counting_divan(state, cmd.at)) == 3:
        return reject("perde_3")
    if state.offer_between(cmd.seat, cmd.to) is not None:
        return reject("offer_exists")
    t = state.treaty_between(cmd.seat, cmd.to)
    if cmd.kind == "pact" and t is not None and t.kind == "alliance":
        return reject("allied_already")
    return [ev.TreatyOffered(frm=cmd.seat, to=cmd.to, kind=cmd.kind, divan=divan)]


def _offer_locked(state: SeasonState, frm: int, to: int, at: datetime | None) -> c.Rejection | None:
    """R-6.1, R-4.4: an offer whose Divan's instant has passed is settled at that Divan: it can
    no longer be withdrawn or answered (D-25)."""
    n = live.locked(state, at)
    if n is None or state.offer_divans.get(offer_key(frm, to), n) > n:
        return None
    return reject("divan_locked.offer", divan=n)


def _vote(state: SeasonState, cmd: c.CastVote) -> Result:  # noqa: PLR0911 — one guard per R-10.4 refusal, in the rule's order
    """R-10.4: one vote for one other bey."""
    if state.phase == "over":
        if cmd.seat in state.votes:
            return reject("already_voted")
        return reject("wrong_phase.kurultay_over")
    if state.phase != "kurultay":
        return reject("wrong_phase.kurultay_not_open")
    closes = state.calendar.kurultay_closes_at if state.calendar is not None else None
    if closes is not None and cmd.at is not None and cmd.at >= closes:  # 24 hours
        return reject("wrong_phase.kurultay_over")
    if state.bey(cmd.seat) is None or state.bey(cmd.candidate) is None:
        return reject("unknown_seat.vote")
    if cmd.candidate == cmd.seat:
        return reject("vote_self")
    if cmd.seat in state.votes:
        return reject("already_voted")
    cast = ev.VoteCast(seat=cmd.seat, candidate=cmd.candidate)
    if state.mode != "trial":
        return [cast]
    # Trial: voting is open until the human votes; then the Kurultay is held at once.
    held = season.hold_kurultay(evolve(state, cast))
    assert isinstance(held, list)
    return [cast, *held, ev.SeedRevealed(seed=state.seed, salt=state.seed_salt)]


def _request(state: SeasonState, cmd: c.RequestDivan) -> Result:  # noqa: PLR0911 — R-1.2's answer table, row by row (see the docstring)
    """R-1.2: trial only; one Divan at a time; never past Divan 16; a retry changes nothing.

    The request names its Divan n. n the next Divan: DivanRequested. n already requested and
    not yet resolved, or already resolved: nothing to append ([]), the request is in effect.
    n the one after a Divan being resolved: divan_locked (transient). Any other n: wrong_divan
    with the next Divan (the one to ask for, or being resolved) in the details.
    """
    if state.bey(cmd.seat) is None:
        return reject("unknown_seat", seat=cmd.seat)
    if state.mode != "trial":
        return reject("not_allowed_in_mode.live_divans")
    if 1 <= cmd.divan <= state.divan or cmd.divan == state.locked_divan:
        return []
    if state.phase != "running":
        return wrong_phase(state)
    nxt = state.divan + 1
    if state.locked_divan is not None and cmd.divan == state.locked_divan + 1:
        return reject("divan_locked.resolving")
    if state.divan >= DIVANS and cmd.divan == DIVANS + 1:
        return reject("wrong_phase.kurultay_next")
    if cmd.divan != nxt or state.locked_divan is not None:
        return reject("wrong_divan.next", divan=nxt)
    return [ev.DivanRequested(divan=nxt)]


# A bey's commands, each to its function, looked up by `_decide` before its match (ADR-168): a
# class pattern that does not match costs an isinstance through msgspec's StructMeta
# (type.__instancecheck__ looked up and called, ~750 instructions), and an order met ten of
# them before its case. The command classes are disjoint (none subclasses another), so the
# function is the one the match's case calls.
_BEY_COMMANDS: dict[type, Callable[[SeasonState, Any], Result]] = {
    c.SubmitOrders: _orders,
    c.BuildSur: _spend,
    c.HireMercenaries: _spend,
    c.PurchaseProvince: _spend,
    c.OfferTreaty: _treaty,
    c.WithdrawOffer: _treaty,
    c.AnswerOffer: _treaty,
    c.CastVote: _vote,
    c.RequestDivan: _request,
}
