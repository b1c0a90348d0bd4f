"""The Divan pipeline: the seven steps of R-13 as one pure function."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from shared.domain import report, seal
from shared.domain.board import Board
from shared.domain.draws import Draws
from shared.domain.events import BattlesResolved, DivanResolved, Event, OrdersSealed
from shared.domain.rules import battle, missions, news, production, rebellion, treaties
from shared.domain.rules.kinds import Classified, Dropped
from shared.domain.rules.orders import blocs, classify, dropped_orders, read_orders
from shared.domain.state import Offer, Order, SeasonState, Treaty


@dataclass(frozen=True)
class DivanInputs:
    """What a Divan is resolved from: the locked orders and offers, and where draws come from."""

    divan: int
    orders: Mapping[int, Sequence[Order]]
    offers: Sequence[Offer] = ()
    draws: Draws | None = None
    ceasefire: bool | None = None  # None: from the state


@dataclass
class Trace:
    """What step 3 saw and decided, for an explanation (shared/domain/explain.py): filled by
    `adjudicate` when asked, read by nobody else; it never changes an event (R-12.3)."""

    ceasefire: bool = False
    owner: list[int | None] = field(default_factory=list)  # as step 3 began (index = plate)
    units: list[int] = field(default_factory=list)
    sur: list[bool] = field(default_factory=list)
    memleket: dict[int, int] = field(default_factory=dict)
    treaties: dict[tuple[int, int], Treaty] = field(default_factory=dict)
    bloc_of: dict[int, int] = field(default_factory=dict)
    effective: list[tuple[int, Order]] = field(default_factory=list)
    classified: Classified = field(default_factory=Classified)
    dropped: list[Dropped] = field(default_factory=list)
    draws: Draws | None = None


def adjudicate(
    state: SeasonState, inputs: DivanInputs, trace: Trace | None = None
) -> tuple[list[Event], Board]:
    """Run steps 1–7 on a working copy; answers the outcome events and the final board.
    With `trace`, also records there what step 3 classified (the events are the same)."""
    divan = inputs.divan
    board = Board.of(state, divan)
    draws = inputs.draws or Draws(state.seed, divan, state.deck)
    ceasefire = inputs.ceasefire if inputs.ceasefire is not None else state.ceasefire_divan == divan
    events: list[Event] = []
    sealed: OrdersSealed | None = None
    if seal.seals_orders(state.report_version):  # ADR-57: the locked orders' digests first
        sealed = seal.seal(state, divan, inputs.orders)
        events.append(sealed)
    news_event, card, ceasefire_next = news.reveal(board, draws)  # step 1
    events.append(news_event)
    events.extend(treaties.settle_offers(board, inputs.offers, draws))  # step 2
    hain_at_start = {
        s: b.hain_through is not None and b.hain_through >= divan for s, b in board.beys.items()
    }
    bloc_of = blocs(board)  # step 3
    effective, unread = read_orders(board, inputs.orders)
    classified = classify(board, effective, ceasefire, bloc_of)
    dropped = dropped_orders(board, unread, classified, effective)
    if trace is not None:
        trace.ceasefire, trace.draws = ceasefire, draws
        trace.owner, trace.units, trace.sur = list(board.owner), list(board.units), list(board.sur)
        trace.memleket = {s: b.memleket for s, b in board.beys.items()}
        trace.treaties = dict(board.treaties)
        trace.bloc_of, trace.effective = dict(bloc_of), list(effective)
        trace.classified, trace.dropped = classified, list(dropped)
    before = board.snapshot()
    fronts = battle.depart_and_arrive(board, classified)
    outcome = battle.fight_all(board, classified, bloc_of, draws, fronts)
    events.append(_battles_resolved(divan, board, before, classified, outcome))
    events.append(rebellion.run(board, draws))  # step 4
    events.append(production.produce(board, card))  # step 5
    events.extend(missions.check(board, outcome, hain_at_start))  # step 6
    events.extend(treaties.expire_treaties(board))
    public, private = report.build(  # step 7; `board.beys` is in seat order
        events, list(board.beys), state.report_version, dropped
    )
    if sealed is not None:
        public, private = report.with_seals(public, private, sealed, state)
    events.append(
        DivanResolved(divan=divan, public=public, private=private, ceasefire_next=ceasefire_next)
    )
    return events, board


def resolve_divan(state: SeasonState, inputs: DivanInputs) -> list[Event]:
    """R-13: the outcome events of one Divan, a pure function of state and inputs (R-12)."""
    return adjudicate(state, inputs)[0]


def _battles_resolved(
    divan: int,
    board: Board,
    before: tuple[list[int | None], list[int], list[bool]],
    classified: Classified,
    outcome: battle.Outcome,
) -> BattlesResolved:
    """Step 3's event: the battles, betrayals, cancelled and void orders, what changed."""
    return BattlesResolved(
        divan=divan,
        battles=tuple(outcome.records),
        betrayals=tuple(outcome.betrayals),
        cancelled=tuple(classified.cancelled),
        void_supports=tuple(classified.void),
        changes=board.changes_since(before),
        gold=tuple(outcome.gold),
        treaties_ended=tuple(b.treaty for b in outcome.betrayals),
        returns_lost=outcome.returns_lost,
        cut=outcome.cut,
    )
