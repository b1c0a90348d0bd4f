"""Replay and verification: re-run every Divan from its recorded inputs (R-12.3)."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from shared.domain import codec, seal
from shared.domain import events as ev
from shared.domain.evolve import evolve, fold
from shared.domain.lifecycle import computer_turn, inputs_of, marked_late
from shared.domain.resolve import resolve_divan
from shared.domain.state import SeasonState

OUTCOME = (
    ev.OrdersSealed,  # report version 3 on (ADR-57): the first outcome event
    ev.NewsRevealed,
    ev.OfferSettled,
    ev.TreatiesDissolved,
    ev.BattlesResolved,
    ev.RebellionsRun,
    ev.ProductionApplied,
    ev.MissionCompleted,
    ev.HainExpired,
    ev.TreatyExpired,
    ev.DivanResolved,
)
TURN = (ev.OrdersSubmitted, ev.SurBuilt, ev.MercenariesHired, ev.ProvincePurchased)
OFFERS = (ev.TreatyOffered,)  # a computer bey's offers made at the lock (rules/2, D-28)
HISTORY = 256  # a computer turn is at most 19 orders and a few spends per bey


@dataclass(frozen=True)
class Mismatch:
    """A Divan whose recorded outcome differs from a re-run: a defect, reported, never repaired."""

    divan: int
    what: str
    # Index (into the events given) of the first event that differs from the re-run, or where
    # a missing one should have been; None when it cannot be pinned to one event.
    at: int | None = None
    sealed: bool = False  # the sealed-orders check (ADR-57), not the re-run, found it


# What folding an event no state can take raises: a season the server wrote has none, a file
# may (a forged record, re-chained: a bey seated on a plate no province has; events out of order)
UNAPPLIED = (IndexError, KeyError, ValueError, TypeError, AttributeError, ArithmeticError)


class Unapplied(Exception):
    """`verify` met an event no state can take (UNAPPLIED, raised by the fold or by a re-run
    of a Divan on a state such an event made): its index in the events given."""

    def __init__(self, index: int, error: BaseException) -> None:
        super().__init__(index, error)
        self.index = index
        self.error = error


def first_unapplied(events: Sequence[ev.Event]) -> int | None:
    """The index of the first event the fold cannot apply to the state before it; None when
    every one applies. For a verb whose own fold raised UNAPPLIED, to name the event: it costs
    a fold, so only after one failed (never a traceback)."""
    state = SeasonState()
    for i, e in enumerate(events):
        try:
            state = evolve(state, e)
        except UNAPPLIED:
            return i
    return None


def verify(events: Sequence[ev.Event], bots_too: bool = True) -> tuple[SeasonState, list[Mismatch]]:
    """Fold the season; at each DivanLocked re-run the Divan and compare the outcome bytes.

    With `bots_too`, also re-derive the computer beys' turn (their spending and orders, which
    the resolver appends right before the lock) from the state before it. Unapplied (with the
    event's index) for an event no state can take: a forged or reordered record (the check of
    a file catches it here, in the one fold, instead of folding the file once more first).
    """
    state = SeasonState()
    history: deque[SeasonState] = deque(maxlen=HISTORY)
    problems: list[Mismatch] = []
    late: set[int] = set()  # live Divans held late (DivanHeld): their report says so
    i = 0
    try:
        for i, e in enumerate(events):
            if isinstance(e, ev.DivanHeld) and e.late:
                late.add(e.divan)
            if isinstance(e, ev.DivanLocked) and seal.seals_orders(state.report_version):
                # ADR-57: the orders resolved are the orders sealed (before the re-run's mismatch,
                # which an altered lock or seal also makes, so this names the event at fault)
                found = seal.check_divan(state, e, i, events[i + 1 : i + 1 + HISTORY])
                if found is not None:
                    problems.append(Mismatch(found.divan, found.what, found.at, sealed=True))
            if isinstance(e, ev.DivanLocked):
                expected = resolve_divan(evolve(state, e), inputs_of(evolve(state, e), e))
                expected = marked_late(expected, e.divan in late)
                recorded = [
                    x for x in events[i + 1 : i + 1 + len(expected)] if isinstance(x, OUTCOME)
                ]
                if codec.encode(expected) != codec.encode(recorded):
                    at = i + 1 + first_difference(expected, events[i + 1 : i + 1 + len(expected)])
                    problems.append(Mismatch(e.divan, "outcome differs from a re-run", at))
                if bots_too:
                    problems.extend(_check_turn(events, i, state, history))
            history.append(state)
            state = evolve(state, e)
    except UNAPPLIED as exc:
        raise Unapplied(i, exc) from exc
    return state, problems


def turn_problems(events: Sequence[ev.Event], lock_at: int) -> list[Mismatch]:
    """`verify`'s computer-turn check (R-12.3) for the one Divan whose lock is `events[lock_at]`,
    without re-running the Divans before it: the state before the lock and the states of its
    turn window folded once (explain answered each Divan after re-running all earlier ones)."""
    lo = max(0, lock_at - HISTORY)
    state = fold(events[:lo])
    history: deque[SeasonState] = deque(maxlen=HISTORY)
    for e in events[lo:lock_at]:
        history.append(state)
        state = evolve(state, e)
    return _check_turn(events, lock_at, state, history)


def _check_turn(
    events: Sequence[ev.Event], lock_at: int, state: SeasonState, history: deque[SeasonState]
) -> list[Mismatch]:
    """The computer turn is the run of computer-bey events just before the lock: spending and
    orders (`seat`) and, from rules/2 on, offers (`frm`, D-28)."""
    locked = events[lock_at]
    assert isinstance(locked, ev.DivanLocked)
    computer = {b.seat for b in state.beys if b.computer}
    start = lock_at
    while start > 0:
        prev = events[start - 1]
        if isinstance(prev, TURN):
            actor = prev.seat
        elif isinstance(prev, OFFERS):
            actor = prev.frm
        else:
            break
        if actor not in computer:
            break
        if lock_at - start + 1 > len(history):
            break
        start -= 1
    before = history[len(history) - (lock_at - start)] if lock_at > start else state
    expected = computer_turn(before, locked.divan)
    if codec.encode(expected) != codec.encode(list(events[start:lock_at])):
        at = start + first_difference(expected, events[start:lock_at])
        return [Mismatch(locked.divan, "computer beys' turn differs from a re-derivation", at)]
    return []


def first_difference(expected: Sequence[ev.Event], recorded: Sequence[ev.Event]) -> int:
    """The offset of the first event of `recorded` whose canonical bytes differ from the one
    `expected` there (R-12.3); len of the shorter one when one is a prefix of the other."""
    for offset, (want, got) in enumerate(zip(expected, recorded, strict=False)):
        if codec.encode(want) != codec.encode(got):
            return offset
    return min(len(expected), len(recorded))
