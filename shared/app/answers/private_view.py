"""A bey's own view (R-14): one `PrivateView` the command side's `/me` and the read side's
`/private` both answer, built by one pure function of the season state.

Only that bey's token reads it (and ops, recorded): its gold, its missions with their text
and progress, its orders for the next Divan, its treaties in force, its offers in and out.
The read side adds its private report parts (`reports`), which the state does not hold.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from shared.domain.catalogue import MISSIONS, MissionInfo, Progress, Text
from shared.domain.decide import upcoming_divan
from shared.domain.map import game_map
from shared.domain.state import Answer, Order, SeasonState, TreatyKind

_BY_ID = {m.id: m for m in MISSIONS}


class Count(msgspec.Struct, frozen=True):
    """How far a counted mission is (M-3 provinces, M-4 provinces outside the memleket's
    region, M-8 gold): `have` now, `need` to complete it."""

    have: int
    need: int


class MissionView(msgspec.Struct, frozen=True):
    """R-10.1: one of the bey's secret missions, its text (tr, en) and how far it is.

    `progress` is how it is measured (catalogue: count, title, conquest, battles, kurultay);
    `count` is set for those measured by what the bey holds now, else null; `status` is one
    line for a player, e.g. "10 ile ulaş: 7/10" / "Reach 10 provinces: 7/10"."""

    id: str
    name: Text
    completed_when: Text
    progress: Progress
    done: bool
    count: Count | None
    status: Text


class OwnOrders(msgspec.Struct, frozen=True):
    """The bey's orders for `divan` (the next Divan; null once none is left)."""

    divan: int | None
    orders: list[Order]


class OwnTreaty(msgspec.Struct, frozen=True):
    """A treaty in force with `partner`, through Divan `through_divan` (R-6.2)."""

    kind: TreatyKind
    partner: int
    through_divan: int


class OfferToMe(msgspec.Struct, frozen=True):
    """An offer made to this bey (R-6.1); `answer` its answer so far (null: none yet)."""

    frm: int = msgspec.field(name="from")
    kind: TreatyKind
    answer: Answer | None


class OfferByMe(msgspec.Struct, frozen=True):
    """An offer this bey made, waiting for the Divan (R-6.1)."""

    to: int
    kind: TreatyKind


class ReportLine(msgspec.Struct, frozen=True):
    """One structured line of a report: its Turkish and English text, and `text`, the one in
    the language the request asked for (Accept-Language or `?lang=`; docs/api.md Language)."""

    kind: str
    data: dict[str, int | str | list[int] | None]
    tr: str
    en: str
    text: str


class OwnReport(msgspec.Struct, frozen=True):
    """The bey's own report parts of one Divan (offers, cancelled orders, its battles)."""

    divan: int
    lines: list[ReportLine]


class PrivateView(msgspec.Struct, frozen=True):
    """A bey's own view (R-14): `GET /seasons/{id}/me` (command side, a fresh read of the
    store) and `GET /seasons/{id}/private` (read side, as projected, with `reports`).

    `version` is the season version it reflects. `exiled`: Sürgün (R-9.1). `next_divan` is
    null after Divan 16, as in the status. `reports` (read side only): the bey's private
    report parts per Divan.
    """

    season_id: str
    version: int
    seat: int
    memleket: int
    gold: int
    exiled: bool
    hain_through: int | None
    next_divan: int | None
    missions: list[MissionView]
    orders: OwnOrders
    treaties: list[OwnTreaty]
    offers_in: list[OfferToMe]
    offers_out: list[OfferByMe]
    reports: list[OwnReport] | UnsetType = UNSET


def _counted(state: SeasonState, seat: int, measure: str | None) -> int | None:
    """What a counted mission counts now (as shared.domain.rules.missions checks it)."""
    bey = state.bey(seat)
    assert bey is not None
    if measure == "provinces":
        return len(state.owned_by(seat))
    if measure == "outside_provinces":
        region = game_map().region_of
        home = region[bey.memleket]
        return sum(1 for p in state.owned_by(seat) if region[p] != home)
    if measure == "gold":
        return bey.gold
    return None  # "repelled" is counted within one Divan: nothing to hold between Divans


def _status(info: MissionInfo, done: bool, count: Count | None) -> Text:
    if count is not None:
        return Text(
            f"{info.name.tr}: {count.have}/{count.need}",
            f"{info.name.en}: {count.have}/{count.need}",
        )
    if done:
        return Text(f"{info.name.tr}: tamamlandı", f"{info.name.en}: done")
    return Text(info.name.tr, info.name.en)


def mission_view(state: SeasonState, seat: int, mission: str) -> MissionView:
    """R-10.1: a mission of the bey's with its catalogue text and its progress now."""
    bey = state.bey(seat)
    assert bey is not None
    info = _BY_ID[mission]
    done = mission in bey.missions_done
    have = _counted(state, seat, info.measure)
    count = None
    if have is not None and info.target is not None:
        # a done mission stays done: its count shows it reached, whatever it is now
        count = Count(max(have, info.target) if done else have, info.target)
    return MissionView(
        info.id,
        info.name,
        info.completed_when,
        info.progress,
        done,
        count,
        _status(info, done, count),
    )


def private_view(
    state: SeasonState,
    seat: int,
    version: int,
    reports: list[OwnReport] | UnsetType = UNSET,
    *,
    divan: int | UnsetType | None = UNSET,
) -> PrivateView:
    """The bey's own view at `version` (R-14): only for that bey's token, never public.

    `divan`: the Divan orders count for now, if the caller knows better than the state (the
    command side, by a live season's calendar and its clock, R-4.4); else the state's next."""
    bey = state.bey(seat)
    assert bey is not None, f"no bey in seat {seat}"
    n = upcoming_divan(state) if isinstance(divan, UnsetType) else divan
    return PrivateView(
        season_id=state.season_id,
        version=version,
        seat=seat,
        memleket=bey.memleket,
        gold=bey.gold,
        exiled=state.exiled(seat),
        hain_through=bey.hain_through,
        next_divan=n,
        missions=[mission_view(state, seat, m) for m in bey.missions],
        orders=own_orders(state, seat, n),
        treaties=[
            OwnTreaty(t.kind, t.b if t.a == seat else t.a, t.through_divan)
            for t in state.treaties
            if seat in (t.a, t.b)
        ],
        offers_in=[OfferToMe(o.frm, o.kind, o.answer) for o in state.offers if o.to == seat],
        offers_out=[OfferByMe(o.to, o.kind) for o in state.offers if o.frm == seat],
        reports=reports,
    )


def own_orders(state: SeasonState, seat: int, n: int | None) -> OwnOrders:
    """The bey's orders for Divan `n`, the one its orders are for now (None: none is left)."""
    return OwnOrders(n, list(state.orders.get(n, {}).get(seat, ())) if n is not None else [])


# The fields the read side stores per bey (one hash field each, diffed like every view): all
# but the ones it knows at the read (season, version, seat) and the reports it keeps apart.
STORED: tuple[str, ...] = tuple(
    f for f in PrivateView.__struct_fields__ if f not in ("season_id", "version", "seat", "reports")
)


def stored_fields(view: PrivateView) -> dict[str, Any]:
    """The view's stored fields as JSON-ready values (the read side's private hash): builtins,
    dict keys as text (views.plain encodes them as they are)."""
    built = msgspec.to_builtins(view, str_keys=True)
    return {f: built[f] for f in STORED}
