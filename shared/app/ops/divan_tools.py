"""Ops tools on one recorded Divan: explain it (`seksenbir explain`, `GET …/explain`) and try
what would have happened otherwise (`seksenbir what-if`, `POST …/what-if`). Issue 13.

Pure: both read decoded events and answer typed values (the HTTP answers, msgspec Structs) and
text; nothing is ever written. The explanation is the domain's (shared/domain/explain.py); the
verification beside it is `ops_replay.rerun_divan` (R-12.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from shared.app.answers.treaty_answer import Treaty
from shared.app.ops.ops_replay import (
    CorrectionNote,
    ReplayError,
    correction_notes,
    rerun_divan,
    state_json,
)
from shared.app.ops.order_sets import OrdersAtLock, orders_at_lock
from shared.domain import events as ev
from shared.domain.commands import Rejection, reject
from shared.domain.decide import order_refusal
from shared.domain.draws import PinnedFates
from shared.domain.evolve import evolve, fold
from shared.domain.explain import DivanExplanation, explain_divan, notes_for
from shared.domain.lifecycle import inputs_of, marked_late
from shared.domain.map import game_map
from shared.domain.messages import Lang, Said, render
from shared.domain.resolve import DivanInputs
from shared.domain.rules.kinds import ORDER_KINDS
from shared.domain.state import Order, OrderKind, SeasonState

Plate = Annotated[int, Meta(ge=1, le=81)]
Seat = Annotated[int, Meta(ge=1, le=19)]


class EventCheck(msgspec.Struct, frozen=True):
    """One outcome event of the re-run beside the recorded one (None: missing from the record)."""

    version: int | None
    type: str
    same: bool
    changes: list[str]  # "path: recorded -> re-run"


class Verification(msgspec.Struct, frozen=True):
    """The Divan re-run from its DivanLocked and the seed, compared with the record (R-12.3)."""

    ok: bool
    events: list[EventCheck]
    computer_turn: list[str]


class ExplainOut(msgspec.Struct, frozen=True):
    """Ops: one Divan, verified and explained battle by battle (R-5.8). Dice show their key
    (Divan, purpose, key), never the seed."""

    season_id: str
    divan: int
    verification: Verification
    explanation: DivanExplanation
    # ADR-53: the corrections ops applied after any Divan up to this one, in version order:
    # the record above stays as it was, these compensate it (issue 13)
    corrections: list[CorrectionNote] = []
    # issue 26 (ADR-103): the lock instant and every order set submitted for this Divan with
    # its `submitted_at`, and which one was sealed; empty sets when none was recorded
    orders: OrdersAtLock = msgspec.field(default_factory=lambda: OrdersAtLock(None, []))


class OrderChange(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename={"frm": "from"}):
    """A what-if change to one bey's order for one province: `kind` "remove" takes its recorded
    order away (the province holds); any other kind replaces it or adds it."""

    seat: Seat
    frm: Plate
    kind: Literal[OrderKind, "remove"]  # an order kind (shared.domain.state), or "remove"
    to: Plate | None = None
    units: Annotated[int, Meta(ge=0, le=12)] = 0  # D-27: a province holds at most 12


class DiePin(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A fate die pinned for a what-if (R-5.4; a traitor group still rolls 0, R-6.5)."""

    target: Plate
    side: Literal["attack", "defence"]
    value: Annotated[int, Meta(ge=0, le=2)]


class WhatIfIn(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    orders: Annotated[list[OrderChange], Meta(max_length=200)] = []
    dice: Annotated[list[DiePin], Meta(max_length=162)] = []


class ProvinceAt(msgspec.Struct, frozen=True):
    owner: int | None  # None: the milis
    units: int
    sur: bool


class ProvinceChange(msgspec.Struct, frozen=True):
    plate: int
    name: str
    recorded: ProvinceAt
    what_if: ProvinceAt


class BeyAt(msgspec.Struct, frozen=True):
    gold: int
    provinces: int
    units: int
    hain_through: int | None
    missions_done: list[str]


class BeyChange(msgspec.Struct, frozen=True):
    seat: int
    recorded: BeyAt
    what_if: BeyAt


class TreatyChange(msgspec.Struct, frozen=True):
    """A treaty in force after the Divan in the record only or in the what-if only, in the
    shape every answer gives a treaty (ADR-72; `from_divan` null: the state does not hold it)."""

    treaty: Treaty
    change: Literal["only_recorded", "only_what_if"]


def _treaty(t: tuple[Any, int, int, int]) -> tuple[Any, list[int], None, int]:
    """A compared treaty's fields in the order of `Treaty` (no acceptance Divan at hand)."""
    kind, a, b, through = t
    return kind, [a, b], None, through


class BattleChange(msgspec.Struct, frozen=True):
    target: int
    recorded: str | None  # the outcome, None: no battle there
    what_if: str | None


class LineOut(msgspec.Struct, frozen=True):
    kind: str
    tr: str
    en: str


class WhatIfOut(msgspec.Struct, frozen=True):
    """A Divan re-run with changed inputs, beside the record; nothing was written."""

    season_id: str
    divan: int
    changed: bool
    battles: list[BattleChange]
    provinces: list[ProvinceChange]
    beys: list[BeyChange]
    treaties: list[TreatyChange]
    report_only_recorded: list[LineOut]
    report_only_what_if: list[LineOut]


# --- the Divan as it was resolved ---------------------------------------------------------
def _locked(events: Sequence[ev.Event], divan: int) -> tuple[int, SeasonState, ev.DivanLocked]:
    for i, e in enumerate(events):
        if isinstance(e, ev.DivanLocked) and e.divan == divan:
            return i, evolve(fold(events[:i]), e), e
    raise ReplayError(Said("replay.never_locked", divan=divan, reached=fold(events).divan))


def _late(events: Sequence[ev.Event], lock_at: int, divan: int) -> bool:
    return any(
        isinstance(e, ev.DivanHeld) and e.divan == divan and e.late for e in events[:lock_at]
    )


def verification(events: Sequence[ev.Event], divan: int) -> Verification:
    rerun = rerun_divan(events, divan)
    checks = [EventCheck(d.version, d.type, d.same, d.changes) for d in rerun.events]
    return Verification(rerun.ok, checks, rerun.turn)


def explain(
    season_id: str,
    events: Sequence[ev.Event],
    divan: int,
    provinces: Sequence[int] = (),
    instants: Sequence[str | None] = (),
) -> ExplainOut:
    """ReplayError when the Divan is not in the record. `instants`: each event's recorded
    `at` (its metadata), for the order sets' submission instants (ADR-103)."""
    _at, state, locked = _locked(events, divan)
    explanation, _events = explain_divan(state, inputs_of(state, locked))
    return ExplainOut(
        season_id,
        divan,
        verification(events, divan),
        notes_for(explanation, provinces),
        correction_notes(events, len(events), through_divan=divan),
        orders_at_lock(events, instants, divan),
    )


# --- what-if -------------------------------------------------------------------------------
def _order_of(ch: OrderChange) -> Order:
    """The order a change (not a "remove") gives: a hold has no target and no units."""
    assert ch.kind != "remove"
    target = ch.to if ORDER_KINDS[ch.kind].targeted else None
    return Order(ch.frm, ch.kind, target, ch.units if target is not None else 0)


def changed_inputs(state: SeasonState, locked: ev.DivanLocked, data: WhatIfIn) -> DivanInputs:
    """The recorded inputs with the orders changed and the dice pinned."""
    orders = {seat: list(os) for seat, os in locked.orders.items()}
    for ch in data.orders:
        kept = [o for o in orders.get(ch.seat, []) if o.province != ch.frm]
        if ch.kind != "remove":
            kept.append(_order_of(ch))
        orders[ch.seat] = kept
    fates: dict[int, dict[str, int]] = {}
    for pin in data.dice:
        fates.setdefault(pin.target, {})[pin.side] = pin.value
    draws = PinnedFates(state.seed, locked.divan, state.deck, fates)
    return replace(
        inputs_of(state, locked),
        orders={s: tuple(os) for s, os in sorted(orders.items()) if os},
        draws=draws,
    )


class WhatIfRefused(ValueError):
    """A what-if change that could not have been given: `key` (a catalogue key under
    `invalid_body`) and its params."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(render(key, "en", params))
        self.key, self.params = key, params

    def text(self, lang: Lang) -> str:
        return render(self.key, lang, self.params)


def refusal(state: SeasonState, data: WhatIfIn) -> WhatIfRefused | None:
    """Why `data` could not have been given at this Divan's lock, or None: a seat not in the
    season, an order its bey could not have sent then (R-4.1, R-4.2: the command API's own
    checks, against the state the Divan was resolved from), two changes for one province, or
    one die pinned twice. A what-if answers what the rules would have done, so it refuses what
    they would have refused rather than running it as a no-op."""
    seats = {b.seat for b in state.beys}
    given: dict[int, set[int]] = {}
    for ch in data.orders:
        if ch.seat not in seats:
            return WhatIfRefused("invalid_body.what_if_seat", seat=ch.seat)
        mine = given.setdefault(ch.seat, set())
        if ch.kind == "remove":
            if ch.frm in mine:
                return _refused_order(ch, reject("duplicate_province", province=ch.frm))
            mine.add(ch.frm)
            continue
        if (why := order_refusal(state, ch.seat, _order_of(ch), mine)) is not None:
            return _refused_order(ch, why)
        mine.add(ch.frm)
    pinned: set[tuple[int, str]] = set()
    for pin in data.dice:
        if (pin.target, pin.side) in pinned:
            return WhatIfRefused("invalid_body.what_if_die", target=pin.target, side=pin.side)
        pinned.add((pin.target, pin.side))
    return None


def _refused_order(ch: OrderChange, why: Rejection) -> WhatIfRefused:
    """`ch` refused as the command API refuses it: its reason in the catalogue's words (`why`,
    rendered in the language the refusal is shown in) and its stable code (`reason`)."""
    return WhatIfRefused(
        "invalid_body.what_if_order",
        seat=ch.seat,
        province=ch.frm,
        why=Said(why.key or why.code, **why.details),
        reason=why.code,
    )


def what_if(season_id: str, events: Sequence[ev.Event], divan: int, data: WhatIfIn) -> WhatIfOut:
    """Divan `divan` re-run with `data`'s changes; the difference from the record. ReplayError
    when the Divan is not in the record; WhatIfRefused for a change that could not have been
    given (`refusal`)."""
    lock_at, state, locked = _locked(events, divan)
    if (refused := refusal(state, data)) is not None:
        raise refused
    late = _late(events, lock_at, divan)
    _expl, recorded_run = explain_divan(state, inputs_of(state, locked))
    recorded = marked_late(recorded_run, late)
    _expl2, other = explain_divan(state, changed_inputs(state, locked, data))
    other = marked_late(other, late)
    return _difference(season_id, divan, state, recorded, other)


def _difference(
    season_id: str,
    divan: int,
    state: SeasonState,
    recorded: list[ev.Event],
    other: list[ev.Event],
) -> WhatIfOut:
    a, b = fold(recorded, state), fold(other, state)
    va, vb = state_json(a, 0), state_json(b, 0)
    provinces, beys = state_changes(va, vb)
    ta = {(t["kind"], t["a"], t["b"], t["through_divan"]) for t in va["treaties"]}
    tb = {(t["kind"], t["a"], t["b"], t["through_divan"]) for t in vb["treaties"]}
    treaties = [TreatyChange(Treaty(*_treaty(t)), "only_recorded") for t in sorted(ta - tb)]
    treaties += [TreatyChange(Treaty(*_treaty(t)), "only_what_if") for t in sorted(tb - ta)]
    battles = _battle_changes(recorded, other)
    ra, rb = _report(recorded), _report(other)
    only_a = [line for line in ra if line not in rb]
    only_b = [line for line in rb if line not in ra]
    changed = bool(provinces or beys or treaties or battles or only_a or only_b)
    return WhatIfOut(season_id, divan, changed, battles, provinces, beys, treaties, only_a, only_b)


def state_changes(
    va: dict[str, Any], vb: dict[str, Any]
) -> tuple[list[ProvinceChange], list[BeyChange]]:
    """The provinces and beys that differ between two states' views (`state_json`): a what-if
    against the record, a correction's dry run against the state it corrects."""
    gm = game_map()
    provinces = [
        ProvinceChange(
            p["plate"],
            gm[p["plate"]].name,
            ProvinceAt(p["owner"], p["units"], p["sur"]),
            ProvinceAt(q["owner"], q["units"], q["sur"]),
        )
        for p, q in zip(va["provinces"], vb["provinces"], strict=True)
        if (p["owner"], p["units"], p["sur"]) != (q["owner"], q["units"], q["sur"])
    ]
    beys = []
    for x, y in zip(va["beys"], vb["beys"], strict=True):
        bx, by = _bey_at(x), _bey_at(y)
        if bx != by:
            beys.append(BeyChange(x["seat"], bx, by))
    return provinces, beys


def _bey_at(view: dict[str, Any]) -> BeyAt:
    return BeyAt(
        view["gold"], view["provinces"], view["units"], view["hain_through"], view["missions_done"]
    )


def _battles(events: list[ev.Event]) -> dict[int, ev.BattleRecord]:
    resolved = next(e for e in events if isinstance(e, ev.BattlesResolved))
    return {r.target: r for r in resolved.battles}


def _battle_changes(recorded: list[ev.Event], other: list[ev.Event]) -> list[BattleChange]:
    """Every target whose battle record differs (or exists in one run only)."""
    a, b = _battles(recorded), _battles(other)
    out = []
    for t in sorted(set(a) | set(b)):
        ra, rb = a.get(t), b.get(t)
        if ra != rb:
            out.append(BattleChange(t, ra.outcome if ra else None, rb.outcome if rb else None))
    return out


def _report(events: list[ev.Event]) -> list[LineOut]:
    resolved = next(e for e in events if isinstance(e, ev.DivanResolved))
    return [LineOut(line.kind, line.tr, line.en) for line in resolved.public]
