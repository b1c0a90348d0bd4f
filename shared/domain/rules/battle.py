"""Divan step 3: departures, moves, battles from one snapshot, returns, cuts (R-5, R-6)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from msgspec.structs import replace

from shared.domain.board import Board
from shared.domain.draws import Draws
from shared.domain.events import BattleRecord, Betrayal, GoldDelta, GroupRecord
from shared.domain.map import MAX_UNITS
from shared.domain.rules.orders import Advance, Classified, Support

TRIBUTE = 3
HAIN_DIVANS = 4


@dataclass(slots=True)
class Outcome:
    """What the battle step did, for the report and the mission checks (R-10.1)."""

    records: list[BattleRecord] = field(default_factory=list)
    betrayals: list[Betrayal] = field(default_factory=list)
    conquests: list[tuple[int, int, int | None, tuple[int, ...]]] = field(default_factory=list)
    held: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    gold: list[GoldDelta] = field(default_factory=list)
    returns_lost: int = 0
    cut: int = 0


def depart_and_arrive(board: Board, c: Classified) -> None:
    """R-5.1: every advancing and supporting unit leaves at once; moves arrive by origin plate."""
    for a in (*c.moves, *c.attacks):
        board.units[a.origin] -= a.units
    for s in c.supports:
        board.units[s.origin] -= s.units
    for m in sorted(c.moves, key=lambda m: m.origin):
        accepted = max(0, min(m.units, MAX_UNITS - board.units[m.target]))
        board.units[m.target] += accepted
        board.units[m.origin] += m.units - accepted


def defence_bonus(board: Board, target: int, defender: int) -> int:
    """R-5.4: memleket +2, sur +1, hemşehri +1 (the memleket's region, memleket included)."""
    memleket = board.beys[defender].memleket
    bonus = 2 if target == memleket else 0
    bonus += 1 if board.sur[target] else 0
    bonus += 1 if board.gm.region_of[target] == board.gm.region_of[memleket] else 0
    return bonus


def split_shares(advances: dict[int, int], entering: int) -> list[tuple[int, int]]:
    """R-6.4: shares in proportion to units advanced, largest remainder, ties to the lower seat."""
    total = sum(advances.values())
    floors = {s: entering * u // total for s, u in advances.items()}
    left = entering - sum(floors.values())
    order = sorted(advances, key=lambda s: (-(entering * advances[s] % total), s))
    for s in order[:left]:
        floors[s] += 1
    return sorted(floors.items())


def fight_all(board: Board, c: Classified, bloc_of: dict[int, int], draws: Draws) -> Outcome:
    """Evaluate every battle from one snapshot (R-5.1), then apply losses, conquests, returns."""
    out = Outcome()
    returns: list[tuple[int, int, int]] = [(s.seat, s.origin, s.units) for s in c.supports]
    by_target: dict[int, list[Advance]] = defaultdict(list)
    for a in c.attacks:
        by_target[a.target].append(a)
    supports_at: dict[int, list[Support]] = defaultdict(list)
    for s in c.supports:
        supports_at[s.target].append(s)
    for target in sorted(by_target):
        record = _battle(
            board,
            target,
            by_target[target],
            supports_at[target],
            bloc_of,
            draws=draws,
            out=out,
            returns=returns,
        )
        out.records.append(record)
    _record_betrayals(board, c, out)
    _apply(board, out, returns)
    return out


def _groups(
    attacks: list[Advance], supports: list[Support], bloc_of: dict[int, int]
) -> tuple[dict[int, list[Advance]], dict[int, GroupRecord]]:
    """R-5.2, R-5.3: one target's attackers by bloc, each with the attack support for it."""
    groups: dict[int, list[Advance]] = defaultdict(list)
    for a in sorted(attacks, key=lambda a: (a.seat, a.origin)):
        groups[bloc_of[a.seat]].append(a)
    records = {}
    for key, advs in sorted(groups.items()):
        backing = [s for s in supports if not s.defence and s.bloc == key]
        records[key] = GroupRecord(
            beys=tuple(sorted({a.seat for a in advs})),
            advances=tuple((a.seat, a.origin, a.units) for a in advs),
            support=tuple((s.seat, s.origin, s.units) for s in backing),
            strength=sum(a.units for a in advs) + sum(s.units for s in backing),
            traitor=any(a.betrayal for a in advs),
        )
    return groups, records


def _battle(
    board: Board,
    target: int,
    attacks: list[Advance],
    supports: list[Support],
    bloc_of: dict[int, int],
    *,
    draws: Draws,
    out: Outcome,
    returns: list[tuple[int, int, int]],
) -> BattleRecord:
    """One battle at T: standoff (R-5.2), taken (R-5.5) or held (R-5.6)."""
    defender = board.owner[target]
    groups, grecords = _groups(attacks, supports, bloc_of)
    keys = sorted(groups)
    ranked = sorted(keys, key=lambda k: -grecords[k].strength)
    d_support = [s for s in supports if s.defence]
    record = BattleRecord(
        target=target,
        defender=defender,
        defender_units=board.units[target],
        defence_bonus=defence_bonus(board, target, defender) if defender is not None else 0,
        defence_support=tuple((s.seat, s.origin, s.units) for s in d_support),
        groups=tuple(grecords[k] for k in keys),
        outcome="standoff",
        rules=("R-5.2",),
    )
    if len(ranked) > 1 and grecords[ranked[0]].strength == grecords[ranked[1]].strength:
        returns.extend((a.seat, a.origin, a.units) for a in attacks)
        return record
    fighting = ranked[0]
    for k in ranked[1:]:
        returns.extend((a.seat, a.origin, a.units) for a in groups[k])
    group = grecords[fighting]
    a_die = 0 if group.traitor else draws.fate(target, "attack")
    d_die = draws.fate(target, "defence")
    support_units = sum(s.units for s in d_support) if defender is not None else 0
    record = replace(
        record,
        fighting_group=keys.index(fighting),
        attack=group.strength + a_die,
        defence=record.defender_units + record.defence_bonus + support_units + d_die,
        attack_die=a_die,
        defence_die=d_die,
        rules=("R-5.2", "R-5.4", *(("R-6.5",) if group.traitor else ())),
    )
    if record.attack > record.defence:  # type: ignore[operator]
        return _taken(board, record, groups[fighting], out, returns)
    return _held(record, groups[fighting], out, returns)


def _held(
    record: BattleRecord, advs: list[Advance], out: Outcome, returns: list[tuple[int, int, int]]
) -> BattleRecord:
    """R-5.6: halves go home, the rest are lost; the defender loses floor(A/2), keeping 1."""
    returns.extend((a.seat, a.origin, a.units // 2) for a in advs)
    assert record.attack is not None
    if record.defender is not None:
        out.held[record.defender] += 1
    return replace(
        record,
        outcome="held",
        attacker_losses=sum(a.units - a.units // 2 for a in advs),
        defender_losses=min(record.attack // 2, record.defender_units - 1),
        rules=(*record.rules, "R-5.6"),
    )


def _taken(
    board: Board,
    record: BattleRecord,
    advs: list[Advance],
    out: Outcome,
    returns: list[tuple[int, int, int]],
) -> BattleRecord:
    """R-5.5 with R-6.4: the group's taker keeps its share; allies' shares go home, +3 haraç."""
    assert record.attack is not None and record.defence is not None
    advancing = sum(a.units for a in advs)
    entering = min(max(1, record.attack - record.defence), advancing, MAX_UNITS)
    per_bey: dict[int, int] = defaultdict(int)
    for a in advs:
        per_bey[a.seat] += a.units
    taker = min(per_bey, key=lambda s: (-per_bey[s], s))
    shares = split_shares(dict(per_bey), entering)
    for seat, share in shares:
        if seat != taker:
            returns.append((seat, board.beys[seat].memleket, share))
            board.add_gold(seat, TRIBUTE, "tribute", out.gold)
    out.conquests.append((record.target, taker, record.defender, tuple(sorted(per_bey))))
    joint = ("R-6.4",) if len(per_bey) > 1 else ()
    return replace(
        record,
        outcome="taken",
        attacker_losses=advancing - entering,
        defender_losses=record.defender_units,
        entering=entering,
        taker=taker,
        shares=tuple(shares),
        rules=(*record.rules, *joint, "R-5.5"),
    )


def _record_betrayals(board: Board, c: Classified, out: Outcome) -> None:
    """R-6.5: one betrayal per (traitor, target province); the pair's treaties end."""
    seen = set()
    for a in sorted(c.attacks, key=lambda a: (a.seat, a.target)):
        if not a.betrayal or (a.seat, a.target) in seen:
            continue
        seen.add((a.seat, a.target))
        victim = board.owner[a.target]
        assert victim is not None
        treaty = board.treaty(a.seat, victim)
        assert treaty is not None
        out.betrayals.append(Betrayal(a.seat, victim, a.target, treaty, board.divan + HAIN_DIVANS))


def _apply(board: Board, out: Outcome, returns: list[tuple[int, int, int]]) -> None:
    """Apply losses and conquests, then returns (R-5.7), then cut to 12."""
    for record in out.records:
        if record.outcome == "held":
            board.units[record.target] -= record.defender_losses
    for target, taker, _defender, _members in out.conquests:
        share = next(u for s, u in out.records[_index(out, target)].shares if s == taker)
        board.take(target, taker, share)
    for seat, dest, units in returns:
        if board.owner[dest] == seat:
            board.units[dest] += units
        else:
            out.returns_lost += units
    for p in range(1, 82):
        if board.owner[p] is not None and board.units[p] > MAX_UNITS:
            out.cut += board.units[p] - MAX_UNITS
            board.units[p] = MAX_UNITS
    for b in out.betrayals:
        board.beys[b.traitor].hain_through = b.hain_through
        board.treaties.pop((min(b.traitor, b.victim), max(b.traitor, b.victim)), None)


def _index(out: Outcome, target: int) -> int:
    return next(i for i, r in enumerate(out.records) if r.target == target)
