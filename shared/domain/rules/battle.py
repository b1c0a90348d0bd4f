"""Divan step 3: departures, moves, battles from one snapshot, returns, cuts (R-5, R-6)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from operator import attrgetter

from shared.domain.board import Board
from shared.domain.draws import Draws
from shared.domain.events import BattleRecord, Betrayal, GoldDelta, GroupRecord
from shared.domain.map import MAX_UNITS
from shared.domain.rules import battle_groups
from shared.domain.rules.kinds import Advance, Classified, Support

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
    takes: list[tuple[int, int, int]] = field(default_factory=list)  # (target, taker, its share)
    returns_lost: int = 0
    cut: int = 0


Fronts = tuple[dict[int, list[Advance]], dict[int, list[Support]]]


def depart_and_arrive(board: Board, c: Classified) -> Fronts:
    """R-5.1: every advancing and supporting unit leaves at once; moves arrive by origin plate.
    Answers the attacks and the supports by target, in classification order, as classified
    (`Classified.attacks_at`, `supports_at`; `fight_all` reads them)."""
    units = board.units
    for a in c.moves:
        units[a.origin] -= a.units
    for a in c.attacks:
        units[a.origin] -= a.units
    for s in c.supports:
        units[s.origin] -= s.units
    for m in sorted(c.moves, key=_ORIGIN):
        room = MAX_UNITS - units[m.target]  # min/max parse keywords per call in 3.11
        accepted = m.units if m.units < room else room
        accepted = accepted if accepted > 0 else 0
        units[m.target] += accepted
        units[m.origin] += m.units - accepted
    return c.attacks_at, c.supports_at


_ORIGIN = attrgetter("origin")


def defence_bonus(board: Board, target: int, defender: int) -> int:
    """R-5.4: memleket +2, sur +1, hemşehri +1 (the memleket's region, memleket included)."""
    memleket = board.beys[defender].memleket
    region_at = board.gm.region_at
    bonus = 2 if target == memleket else 0
    bonus += 1 if board.sur[target] else 0
    bonus += 1 if region_at[target] == region_at[memleket] else 0
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


def fight_all(
    board: Board, c: Classified, bloc_of: dict[int, int], draws: Draws, fronts: Fronts
) -> Outcome:
    """Evaluate every battle from one snapshot (R-5.1), then apply losses, conquests, returns.
    `fronts`: what `depart_and_arrive` answered. The supports go home whole (R-5.7): `_apply`
    reads them from `c`, not copied into the returns."""
    out = Outcome()
    returns: list[tuple[int, int, int]] = []
    by_target, supports_at = fronts
    for target in sorted(by_target):
        record = _battle(
            board,
            target,
            by_target[target],
            supports_at.get(target, []),
            bloc_of,
            draws=draws,
            out=out,
            returns=returns,
        )
        out.records.append(record)
    _record_betrayals(board, c, out)
    _apply(board, out, c.supports, returns)
    return out


_SEAT_TARGET = attrgetter("seat", "target")


# A battle record's first six fields: target, defender, defender_units, defence_bonus,
# defence_support, groups.
_Head = tuple[int, int | None, int, int, tuple[tuple[int, int, int], ...], tuple[GroupRecord, ...]]


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
    groups, grecords = battle_groups.groups(attacks, supports, bloc_of)
    # Plain loops here and below, not comprehensions or sum()/max() over them: each of those
    # is a call of its own (max() with a keyword parse) for a handful of items (issue 12).
    strengths = []
    best = grecords[0].strength
    for g in grecords:
        strengths.append(g.strength)
        best = g.strength if g.strength > best else best
    d_support, backed = _defence_support(supports)
    # The record's first six fields, whatever the outcome: the record is built once, from
    # these, as a standoff here or as the fight's result by `_fought` (issue 27).
    head: _Head = (
        target,
        defender,
        board.units[target],
        defence_bonus(board, target, defender) if defender is not None else 0,
        d_support,
        tuple(grecords),
    )
    if strengths.count(best) > 1:  # the two strongest groups are equal: a standoff
        for a in attacks:
            returns.append((a.seat, a.origin, a.units))
        return BattleRecord(*head, outcome="standoff", rules=("R-5.2",))
    fighting = strengths.index(best)
    if len(groups) > 1:  # the weaker groups go home, strongest first
        for i in sorted(range(len(groups)), key=lambda i: -strengths[i])[1:]:
            for a in groups[i]:
                returns.append((a.seat, a.origin, a.units))
    return _fought(
        board,
        head,
        fighting,
        groups[fighting],
        support_units=backed if defender is not None else 0,
        draws=draws,
        out=out,
        returns=returns,
    )


def _fought(
    board: Board,
    head: _Head,
    fighting: int,
    advs: list[Advance],
    *,
    support_units: int,
    draws: Draws,
    out: Outcome,
    returns: list[tuple[int, int, int]],
) -> BattleRecord:
    """R-5.4 … R-5.6: the strongest group (`fighting`, its advances `advs`) against the defence
    with `support_units` of support (none for milis): the dice, then taken or held (half of
    each advance goes home). `head` is the record's first six fields; the record is built once,
    positionally, in the fields' declared order (no keyword matching, no copy; issue 27)."""
    target, defender, defender_units, bonus, _support, groups = head
    group = groups[fighting]
    a_die = 0 if group.traitor else draws.fate(target, "attack")
    d_die = draws.fate(target, "defence")
    attack = group.strength + a_die
    defence = defender_units + bonus + support_units + d_die
    rules = ("R-5.2", "R-5.4", "R-6.5") if group.traitor else ("R-5.2", "R-5.4")
    if attack > defence:
        entering, taker, shares, joint, advanced = _taken(
            board, target, attack - defence, advs, out=out, returns=returns
        )
        return BattleRecord(
            *head,
            "taken",
            fighting,  # fighting_group
            attack,
            defence,
            a_die,
            d_die,
            advanced - entering,  # attacker_losses
            defender_units,  # defender_losses
            entering,
            taker,
            shares,
            (*rules, *joint, "R-5.5"),
        )
    if defender is not None:
        out.held[defender] += 1
    half = attack // 2
    return BattleRecord(
        *head,
        "held",
        fighting,  # fighting_group
        attack,
        defence,
        a_die,
        d_die,
        _repelled(advs, returns),  # attacker_losses
        half if half < defender_units - 1 else defender_units - 1,  # defender_losses
        0,  # entering
        None,  # taker
        (),  # shares
        (*rules, "R-5.6"),
    )


def _repelled(advs: list[Advance], returns: list[tuple[int, int, int]]) -> int:
    """R-5.6: half of each advance of a repelled group goes home; answers the units lost."""
    lost = 0
    for a in advs:
        back = a.units // 2
        returns.append((a.seat, a.origin, back))
        lost += a.units - back
    return lost


def _defence_support(supports: list[Support]) -> tuple[tuple[tuple[int, int, int], ...], int]:
    """The supports of the defence at one target, as recorded, and their units."""
    backing = []
    backed = 0
    for s in supports:
        if s.defence:
            backing.append((s.seat, s.origin, s.units))
            backed += s.units
    return tuple(backing), backed


def _taken(
    board: Board,
    target: int,
    margin: int,
    advs: list[Advance],
    *,
    out: Outcome,
    returns: list[tuple[int, int, int]],
) -> tuple[int, int, tuple[tuple[int, int], ...], tuple[str, ...], int]:
    """R-5.5 with R-6.4: the group's taker keeps its share; allies' shares go home, +3 haraç.
    Answers the units entering, the taker, the shares, the joint-conquest rule if any and the
    units the group advanced."""
    per_bey: dict[int, int] = {}
    for a in advs:
        per_bey[a.seat] = per_bey.get(a.seat, 0) + a.units
    # Conditionals, not min/max (a keyword parse per call in 3.11, issue 12).
    entering = margin if margin > 1 else 1
    advanced = sum(per_bey.values())
    entering = advanced if advanced < entering else entering
    entering = MAX_UNITS if entering > MAX_UNITS else entering
    if len(per_bey) == 1:
        (taker,) = per_bey
    else:
        taker = min(per_bey, key=lambda s: (-per_bey[s], s))
    shares = [(taker, entering)] if len(per_bey) == 1 else split_shares(per_bey, entering)
    for seat, share in shares:
        if seat != taker:
            returns.append((seat, board.beys[seat].memleket, share))
            board.add_gold(seat, TRIBUTE, "tribute", out.gold)
        else:
            out.takes.append((target, taker, share))
    out.conquests.append((target, taker, board.owner[target], tuple(sorted(per_bey))))
    joint = ("R-6.4",) if len(per_bey) > 1 else ()
    return entering, taker, tuple(shares), joint, advanced


def _record_betrayals(board: Board, c: Classified, out: Outcome) -> None:
    """R-6.5: one betrayal per (traitor, target province); the pair's treaties end."""
    betrayals = [a for a in c.attacks if a.betrayal]
    seen = set()
    for a in sorted(betrayals, key=_SEAT_TARGET):
        if (a.seat, a.target) in seen:
            continue
        seen.add((a.seat, a.target))
        victim = board.owner[a.target]
        assert victim is not None
        treaty = board.treaty(a.seat, victim)
        assert treaty is not None
        out.betrayals.append(Betrayal(a.seat, victim, a.target, treaty, board.divan + HAIN_DIVANS))


def _supports_home(board: Board, out: Outcome, supports: list[Support]) -> None:
    """R-5.7: every support goes home whole, after the conquests: lost if its origin fell."""
    units, owner = board.units, board.owner
    for s in supports:
        if owner[s.origin] == s.seat:
            units[s.origin] += s.units
        else:
            out.returns_lost += s.units


def _apply(
    board: Board, out: Outcome, supports: list[Support], returns: list[tuple[int, int, int]]
) -> None:
    """Apply losses and conquests, then returns (R-5.7: every support whole, then `returns`;
    sums, so their order is no matter), then cut to 12."""
    units = board.units
    owner = board.owner
    for record in out.records:
        if record.outcome == "held":
            units[record.target] -= record.defender_losses
    for target, taker, share in out.takes:
        board.take(target, taker, share)
    _supports_home(board, out, supports)
    for seat, dest, n in returns:
        if owner[dest] == seat:
            units[dest] += n
        else:
            out.returns_lost += n
    for p in range(1, 82):
        if units[p] > MAX_UNITS and owner[p] is not None:
            out.cut += units[p] - MAX_UNITS
            units[p] = MAX_UNITS
    for b in out.betrayals:
        board.beys[b.traitor].hain_through = b.hain_through
        a, v = b.traitor, b.victim
        board.treaties.pop((a, v) if a < v else (v, a), None)
