"""Why each battle of a Divan went as it did: a pure explanation beside the resolution (R-5.8).

`explain_divan(state, inputs)` runs the Divan through `resolve.adjudicate` with a `Trace` (what
step 3 classified, on the board as step 3 began) and joins it with the battle records: every
advance, every support with how it was classified and whether it counted (and why not), the
defence bonuses one by one, each fate die with the key it was drawn with, the rule ids and the
outcome. The events are those of `resolve_divan`, byte for byte: explaining changes nothing.

The key of a die is (Divan, purpose, key) — the season seed is never part of it (R-12.1);
`seksenbir explain` and the ops endpoint show the key, never the seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from shared.domain.draws import Draws, PinnedDraws, PinnedFates
from shared.domain.events import BattleRecord, BattlesResolved, Event
from shared.domain.map import game_map
from shared.domain.resolve import DivanInputs, Trace, adjudicate
from shared.domain.rules.kinds import ORDER_KINDS, Support
from shared.domain.state import SeasonState

SupportKind = Literal["defence", "attack", "void", "dropped"]


class DieKey(msgspec.Struct, frozen=True):
    """One fate die (R-5.4): its value and the key it was derived from (R-12.1)."""

    side: Literal["attack", "defence"]
    value: int
    divan: int
    purpose: str  # "fate"
    key: tuple[int, str]  # (target plate, side)
    drawn: bool = True  # False: not drawn, a traitor group rolls 0
    pinned: bool = False  # True: pinned by a what-if or a scenario, not from the seed
    rule: str = "R-5.4"


class AdvanceNote(msgspec.Struct, frozen=True):
    seat: int
    origin: int
    units: int  # as it left, after R-4.2's clamp
    ordered: int  # as ordered
    betrayal: bool = False  # into a treaty partner's province


class SupportNote(msgspec.Struct, frozen=True):
    """One Destek into a battle's province and what R-5.3 made of it."""

    seat: int
    origin: int
    target: int
    units: int
    classified: SupportKind
    counted: bool
    why: str  # a stable reason code: explain.why.<why> in the catalogue
    rules: tuple[str, ...]
    group: int | None = None  # the index of the group it counted for (attack support)


class GroupNote(msgspec.Struct, frozen=True):
    index: int
    beys: tuple[int, ...]
    bloc: int  # the lowest seat of the alliance component
    advances: tuple[AdvanceNote, ...]
    support: int  # attack support counted
    strength: int  # before dice
    fighting: bool
    traitor: bool


class BonusNote(msgspec.Struct, frozen=True):
    """R-5.4: memleket +2, sur +1, hemşehri +1 (none against the milis)."""

    memleket: int = 0
    sur: int = 0
    hemsehri: int = 0
    total: int = 0


class BattleNote(msgspec.Struct, frozen=True):
    target: int
    target_name: str
    defender: int | None  # None: the milis
    defender_units: int  # units left in T after departures
    bonus: BonusNote
    groups: tuple[GroupNote, ...]
    supports: tuple[SupportNote, ...]  # every Destek into T, counted or not
    outcome: Literal["taken", "held", "standoff"]
    rules: tuple[str, ...]
    attack: int | None = None
    defence: int | None = None
    dice: tuple[DieKey, ...] = ()
    entering: int = 0
    taker: int | None = None
    shares: tuple[tuple[int, int], ...] = ()
    attacker_losses: int = 0
    defender_losses: int = 0


class OrderNote(msgspec.Struct, frozen=True):
    """An order that did nothing, with its reason and rule (R-4.2, R-4.5, R-5.3, R-6.4,
    R-6.7), as the bey's report names it."""

    seat: int
    origin: int
    target: int | None
    kind: str
    units: int
    reason: str
    rule: str


class DivanExplanation(msgspec.Struct, frozen=True):
    divan: int
    ceasefire: bool
    battles: tuple[BattleNote, ...]
    dropped: tuple[OrderNote, ...]


DROP_RULE = {
    "ally": "R-6.4",
    "ceasefire": "R-6.7",
    "void_support": "R-5.3",
    "not_owned": "R-4.5",
    "no_units": "R-4.2",
}


def explain_divan(state: SeasonState, inputs: DivanInputs) -> tuple[DivanExplanation, list[Event]]:
    """The explanation of Divan `inputs.divan` from the state it was resolved from (after its
    DivanLocked) and its inputs, with the outcome events (those of `resolve_divan`)."""
    trace = Trace()
    events, _board = adjudicate(state, inputs, trace)
    resolved = next(e for e in events if isinstance(e, BattlesResolved))
    draws = trace.draws or Draws(state.seed, inputs.divan, state.deck)
    notes = tuple(_battle(trace, r, inputs, draws) for r in resolved.battles)
    dropped = tuple(
        OrderNote(d.seat, d.origin, d.target, d.kind, d.units, d.reason, DROP_RULE[d.reason])
        for d in trace.dropped
    )
    return DivanExplanation(inputs.divan, trace.ceasefire, notes, dropped), events


def _ordered(inputs: DivanInputs, seat: int, origin: int) -> int:
    last = 0
    for o in inputs.orders.get(seat, ()):
        if o.province == origin:
            last = o.units
    return last


def _bonus(trace: Trace, target: int, defender: int | None) -> BonusNote:
    if defender is None:
        return BonusNote()
    region_at = game_map().region_at
    memleket = trace.memleket[defender]
    m = 2 if target == memleket else 0
    s = 1 if trace.sur[target] else 0
    h = 1 if region_at[target] == region_at[memleket] else 0
    return BonusNote(m, s, h, m + s + h)


def _battle(trace: Trace, r: BattleRecord, inputs: DivanInputs, draws: Draws) -> BattleNote:
    t = r.target
    groups, group_of_bloc = _groups(trace, r, inputs)
    supports = _supports(trace, r, group_of_bloc)
    dice = _dice(r, inputs, draws)
    return BattleNote(
        target=t,
        target_name=game_map()[t].name,
        defender=r.defender,
        defender_units=r.defender_units,
        bonus=_bonus(trace, t, r.defender),
        groups=tuple(groups),
        supports=tuple(supports),
        outcome=r.outcome,
        rules=r.rules,
        attack=r.attack,
        defence=r.defence,
        dice=tuple(dice),
        entering=r.entering,
        taker=r.taker,
        shares=r.shares,
        attacker_losses=r.attacker_losses,
        defender_losses=r.defender_losses,
    )


def _groups(
    trace: Trace, r: BattleRecord, inputs: DivanInputs
) -> tuple[list[GroupNote], dict[int, int]]:
    """R-5.1, R-5.2: the battle's groups as notes, and the group each bloc's advances made."""
    attacks = [a for a in trace.classified.attacks if a.target == r.target]
    betrayal = {(a.seat, a.origin): a.betrayal for a in attacks}
    group_of_bloc: dict[int, int] = {}
    groups = []
    for i, g in enumerate(r.groups):
        bloc = trace.bloc_of[g.beys[0]]
        group_of_bloc[bloc] = i
        groups.append(
            GroupNote(
                index=i,
                beys=g.beys,
                bloc=bloc,
                advances=tuple(
                    AdvanceNote(s, o, u, _ordered(inputs, s, o), betrayal.get((s, o), False))
                    for s, o, u in g.advances
                ),
                support=sum(u for _s, _o, u in g.support),
                strength=g.strength,
                fighting=r.fighting_group == i,
                traitor=g.traitor,
            )
        )
    return groups, group_of_bloc


def _supports(trace: Trace, r: BattleRecord, group_of_bloc: dict[int, int]) -> list[SupportNote]:
    """R-5.3, R-4.2: every support at the target: counted, void or dropped, by seat and origin."""
    c, t = trace.classified, r.target
    supports = [_support(trace, r, s, group_of_bloc) for s in c.supports if s.target == t]
    clamped = {(seat, o.province): o.units for seat, o in trace.effective}
    supports += [
        SupportNote(
            seat,
            origin,
            t,
            clamped.get((seat, origin), 0),
            "void",
            False,
            _void_why(trace, seat, t),
            ("R-5.3",),
        )
        for seat, origin, target in c.void
        if target == t
    ]
    supports += [
        SupportNote(
            d.seat, d.origin, t, d.units, "dropped", False, d.reason, (DROP_RULE[d.reason],)
        )
        for d in trace.dropped
        if d.target == t
        and ORDER_KINDS[d.kind].battle_support
        and d.reason in ("not_owned", "no_units")
    ]
    supports.sort(key=lambda s: (s.seat, s.origin))
    return supports


def _dice(r: BattleRecord, inputs: DivanInputs, draws: Draws) -> list[DieKey]:
    """R-5.4, R-6.5: the fate dice of a fought battle, their keys and whether they were pinned."""
    t = r.target
    dice: list[DieKey] = []
    if r.outcome != "standoff":
        pinned = draws.fates.get(t, {}) if isinstance(draws, PinnedDraws | PinnedFates) else {}
        traitor = r.fighting_group is not None and r.groups[r.fighting_group].traitor
        dice.append(
            DieKey(
                "attack",
                r.attack_die or 0,
                inputs.divan,
                "fate",
                (t, "attack"),
                drawn=not traitor,
                pinned=not traitor and "attack" in pinned,
                rule="R-6.5" if traitor else "R-5.4",
            )
        )
        dice.append(
            DieKey(
                "defence",
                r.defence_die or 0,
                inputs.divan,
                "fate",
                (t, "defence"),
                pinned="defence" in pinned,
            )
        )
    return dice


def _support(
    trace: Trace, r: BattleRecord, s: Support, group_of_bloc: dict[int, int]
) -> SupportNote:
    """A classified support (R-5.3): counted, or why it did not count in the battle."""
    if s.defence:
        own = trace.owner[s.target] == s.seat
        why = "own_province" if own else "treaty_partner"
        if r.defender is None:  # not reachable: a defence support is into a bey's province
            return SupportNote(
                s.seat, s.origin, s.target, s.units, "defence", False, "milis", ("R-5.4",)
            )
        counted = r.outcome != "standoff"
        return SupportNote(
            s.seat,
            s.origin,
            s.target,
            s.units,
            "defence",
            counted,
            why if counted else "standoff",
            ("R-5.3", "R-5.4") if counted else ("R-5.3", "R-5.2"),
        )
    group = group_of_bloc.get(s.bloc) if s.bloc is not None else None
    fights = group is not None and r.fighting_group == group
    if r.outcome == "standoff":
        why = "standoff"
    elif fights:
        why = "ally_attack"
    else:
        why = "group_went_home"
    return SupportNote(
        s.seat,
        s.origin,
        s.target,
        s.units,
        "attack",
        fights,
        why,
        ("R-5.3", "R-5.4") if fights else ("R-5.3", "R-5.2"),
        group,
    )


def _void_why(trace: Trace, seat: int, target: int) -> str:
    """R-5.3: why a support found nothing to count for."""
    attackers = {a.seat for a in trace.classified.attacks if a.target == target}
    if not attackers:
        return "no_attack"
    if attackers == {seat}:
        return "own_attack"
    return "no_ally_attacking"


def notes_for(explanation: DivanExplanation, provinces: Sequence[int]) -> DivanExplanation:
    """The explanation narrowed to the battles at `provinces` (all when empty)."""
    if not provinces:
        return explanation
    keep = set(provinces)
    return msgspec.structs.replace(
        explanation,
        battles=tuple(b for b in explanation.battles if b.target in keep),
        dropped=tuple(d for d in explanation.dropped if d.target in keep or d.origin in keep),
    )
