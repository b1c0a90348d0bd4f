"""Divan step 7: the report as structured lines with Turkish and English text (R-13, R-14)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from shared.domain import report_battles, report_offers
from shared.domain import report_lines as lines
from shared.domain.events import (
    BattleRecord,
    BattlesResolved,
    Betrayal,
    Event,
    MissionCompleted,
    NewsRevealed,
    OfferSettled,
    OrdersSealed,
    RebellionsRun,
    ReportLine,
)
from shared.domain.map import game_map
from shared.domain.rules.kinds import Dropped
from shared.domain.seal import seat_salt
from shared.domain.state import (
    NAMED_REPORT_VERSION,
    REPORT_VERSION,
    UPRISING_REPORT_VERSION,
    SeasonState,
)

NEWS_TR = {
    "kuraklik": ("Kuraklık", "Drought"),
    "hasat": ("Hasat bereketi", "Bountiful harvest"),
    "bayram": ("Bayram", "Bayram"),
    "yerel_isyan": ("Yerel isyan", "Local uprising"),  # "Local revolt" before version 5
    "seyyah_tuccar": ("Seyyah tüccar", "Travelling merchant"),
    "deprem": ("Deprem", "Earthquake"),
}


def _il(plate: int | None) -> str:
    return game_map().names[plate] if plate else "-"


def _news(e: NewsRevealed, version: int) -> ReportLine | None:
    if e.card is None:
        return None
    tr, en = NEWS_TR[e.card.card]
    if e.card.card == "yerel_isyan" and version < UPRISING_REPORT_VERSION:
        en = "Local revolt"  # the line seasons before report version 5 were resolved with
    where = e.card.region or (_il(e.province) if e.province else None)
    where_en = where
    if where is None and e.seat:
        where = f"{e.seat}. bey"
        # before report version 4 the English line named the bey in Turkish (ADR-62)
        where_en = f"Bey {e.seat}" if version >= NAMED_REPORT_VERSION else where
    return ReportLine(
        "news",
        {"card": e.card.card, "region": e.card.region, "province": e.province, "seat": e.seat},
        f"Haber: {tr}" + (f" ({where})" if where else ""),
        f"News: {en}" + (f" ({where_en})" if where_en else ""),
    )


def _battle_line(r: BattleRecord) -> ReportLine:
    """Report version 1's battle line: the same for every party."""
    data: dict[str, int | str | list[int] | None] = {
        "target": r.target,
        "defender": r.defender,
        "outcome": r.outcome,
        "attack": r.attack,
        "defence": r.defence,
        "attack_die": r.attack_die,
        "defence_die": r.defence_die,
        "entering": r.entering,
        "taker": r.taker,
    }
    word = {
        "taken": ("düştü", "fell"),
        "held": ("direndi", "held"),
        "standoff": ("kimse alamadı", "standoff"),
    }
    tr, en = word[r.outcome]
    score = f" {r.attack}–{r.defence}" if r.attack is not None else ""
    return ReportLine(
        "battle",
        data,
        f"{_il(r.target)} savaşı: {tr}{score}",
        f"Battle of {_il(r.target)}: {en}{score}",
    )


def _conquest(r: BattleRecord) -> ReportLine:
    il = game_map().names[r.target]  # a battle's target is a plate: `_il`'s "-" never applies
    taker = r.taker
    assert taker is not None  # a province taken has its taker
    taker_tr, taker_en = lines.seat_words(taker)
    return ReportLine(
        "conquest",
        {"province": r.target, "taker": taker, "from": r.defender},
        f"{taker_tr} {il} ilini aldı",
        f"{taker_en} took {il}",
    )


def _betrayal(b: Betrayal) -> ReportLine:
    where = _il(b.province)
    return ReportLine(
        "betrayal",
        {"traitor": b.traitor, "victim": b.victim, "province": b.province},
        f"İhanet! {b.traitor}. bey, {b.victim}. beyin {where} iline saldırdı",
        f"Betrayal! Bey {b.traitor} attacked Bey {b.victim}'s {where}",
    )


def _rebellion(seat: int, ok: bool) -> ReportLine:
    tr = "isyanla memleketini geri aldı" if ok else "isyan etti, başaramadı"
    en = "retook its memleket by rebellion" if ok else "rebelled and failed"
    data: dict[str, int | str | list[int] | None] = {"seat": seat, "success": int(ok)}
    return ReportLine("rebellion", data, f"{seat}. bey {tr}", f"Bey {seat} {en}")


def _mission(e: MissionCompleted) -> ReportLine:
    return ReportLine(
        "mission",
        {"seat": e.seat, "mission": e.mission},
        f"{e.seat}. bey görevini tamamladı: {e.mission}",
        f"Bey {e.seat} completed mission {e.mission}",
    )


Report = tuple[tuple[ReportLine, ...], dict[int, tuple[ReportLine, ...]]]


def build(
    events: list[Event],
    seats: list[int],
    version: int = REPORT_VERSION,
    dropped: Sequence[Dropped] = (),
) -> Report:
    """The public part for everyone, and each bey's own part for that bey only (R-14).

    Version 1 (seasons stored before it was replaced): news, conquests, betrayals, rebellions,
    missions; privately each battle's outcome. Version 2 adds the treaties made (public), and
    privately each party's offer outcome, the orders a rule dropped with the reason, and each
    battle as the reader saw it (who attacked, who defended, its side, who took the province).
    """
    public: list[ReportLine] = []
    private: dict[int, list[ReportLine]] = defaultdict(list)
    v2 = version >= 2
    for e in events:
        if isinstance(e, NewsRevealed) and (line := _news(e, version)):
            public.append(line)
        elif isinstance(e, OfferSettled) and v2:
            if e.treaty is not None:
                public.append(report_offers.treaty_made(e, version))
            maker, answerer = report_offers.offer_outcomes(e)
            private[e.offer.frm].append(maker)
            private[e.offer.to].append(answerer)
        elif isinstance(e, BattlesResolved):
            _battles(e, dropped if v2 else (), v2, public, private)
        elif isinstance(e, RebellionsRun):
            public.extend(_rebellion(seat, ok) for seat, _pct, ok in e.rebellions)
        elif isinstance(e, MissionCompleted):
            public.append(_mission(e))
    return tuple(public), {s: tuple(private[s]) for s in seats if private.get(s)}


def with_seals(
    public: tuple[ReportLine, ...],
    private: dict[int, tuple[ReportLine, ...]],
    sealed: OrdersSealed,
    state: SeasonState,
) -> Report:
    """Report version 3 (ADR-57): the public report ends with every bey's sealed digest; each
    bey's private part begins with its own salt and digest (no other bey sees that salt)."""
    n = sealed.divan
    listed = tuple(lines.orders_sealed(seat, d) for seat, d in sorted(sealed.digests.items()))
    own = dict(private)
    for seat, d in sorted(sealed.digests.items()):
        own[seat] = (lines.own_seal(n, seat_salt(state, n, seat).hex(), d), *own.get(seat, ()))
    return (*public, *listed), {s: own[s] for s in sorted(own)}


def _battles(
    e: BattlesResolved,
    dropped: Sequence[Dropped],
    v2: bool,
    public: list[ReportLine],
    private: dict[int, list[ReportLine]],
) -> None:
    """Conquests and betrayals for everyone; dropped orders and each battle for its parties."""
    for d in dropped:
        private[d.seat].append(lines.order_dropped(d))
    public.extend([_conquest(r) for r in e.battles if r.outcome == "taken"])
    public.extend(_betrayal(b) for b in e.betrayals)
    for r in e.battles:
        if v2:
            for seat, line in report_battles.battle_lines(r):
                private[seat].append(line)
        else:
            for seat in sorted(battle_parties(r)):
                private[seat].append(_battle_line(r))


def battle_parties(r: BattleRecord) -> set[int]:
    """The beys a battle concerns (R-14): attackers, supporters of either side, the defender."""
    seats = {s for g in r.groups for s in g.beys}
    seats |= {s for g in r.groups for s, _o, _u in g.support}
    seats |= {s for s, _o, _u in r.defence_support}
    if r.defender is not None:
        seats.add(r.defender)
    return seats
