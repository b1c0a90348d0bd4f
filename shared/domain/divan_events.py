"""The events a Divan's resolution appends (R-13 steps 1–7, the report, the Kurultay), in order."""

from __future__ import annotations

from typing import Literal

from shared.domain.event_bounds import Amount, DivanNo, Percent, Plate, Seat
from shared.domain.event_records import (
    Allotment,
    BattleRecord,
    Betrayal,
    Event,
    GoldDelta,
    ProvinceSet,
    ReportLine,
)
from shared.domain.state import (
    NewsCard,
    Offer,
    Order,
    Treaty,
)


class DivanLocked(Event, frozen=True, tag="divan_locked.v1"):
    """The inputs of record: every seat's orders, computer beys' included (R-12.3)."""

    divan: DivanNo
    orders: dict[Seat, tuple[Order, ...]]
    offers: tuple[Offer, ...] = ()


class OrdersSealed(Event, frozen=True, tag="orders_sealed.v1"):
    """ADR-57, D-35: the first outcome event of a Divan of a season of report version 3 or
    later: for every bey seated at the lock, humans and computer beys, the lower-case hex
    SHA-256 of its salt and the canonical encoding of the order set the Divan resolves for it
    (the empty set when it locked none), under `scheme` (shared/domain/seal.py,
    docs/export.md "Sealed orders"). Digests only: public, listed in the Divan's report; each
    bey's salt is in its own private report."""

    divan: DivanNo
    digests: dict[Seat, str]  # seat -> digest
    scheme: str = "seksenbir/sealed-orders/1"


class NewsRevealed(Event, frozen=True, tag="news_revealed.v1"):
    """R-8: the card and its target; `changes` are its effects on the map."""

    divan: DivanNo
    card: NewsCard | None
    province: Plate | None = None
    seat: Seat | None = None
    changes: tuple[ProvinceSet, ...] = ()
    gold: tuple[GoldDelta, ...] = ()


class OfferSettled(Event, frozen=True, tag="offer_settled.v1"):
    """R-6.1 … R-6.3, R-6.6 at step 2."""

    divan: DivanNo
    offer: Offer
    outcome: Literal["accepted", "rejected", "expired", "ignored"]
    treaty: Treaty | None = None


class TreatiesDissolved(Event, frozen=True, tag="treaties_dissolved.v1"):
    """R-6.6: every treaty ends at step 2 of Divan 13."""

    divan: DivanNo
    treaties: tuple[Treaty, ...]


class BattlesResolved(Event, frozen=True, tag="battles_resolved.v1"):
    """R-5 with R-6.4, R-6.5, R-6.7: the records and the map after returns and cuts."""

    divan: DivanNo
    battles: tuple[BattleRecord, ...]
    betrayals: tuple[Betrayal, ...]
    cancelled: tuple[tuple[Seat, Plate, Plate, str], ...]  # (seat, origin, target, why)
    void_supports: tuple[tuple[Seat, Plate, Plate], ...]  # (seat, origin, target)
    changes: tuple[ProvinceSet, ...]
    gold: tuple[GoldDelta, ...] = ()
    treaties_ended: tuple[Treaty, ...] = ()
    returns_lost: Amount = 0  # units returning to a province their bey lost
    cut: Amount = 0  # units beyond 12 after the returns


class RebellionsRun(Event, frozen=True, tag="rebellions_run.v1"):
    """R-9.2, R-9.3: guerilla and, on Fridays, rebellion rolls."""

    divan: DivanNo
    guerillas: tuple[Seat, ...]  # seats
    rebellions: tuple[tuple[Seat, Percent, bool], ...]  # (seat, chance %, success)
    changes: tuple[ProvinceSet, ...]


class ProductionApplied(Event, frozen=True, tag="production_applied.v1"):
    """R-7, R-3.2: units per province, milis growth, gold income."""

    divan: DivanNo
    allotments: tuple[Allotment, ...]
    kurtulus: tuple[Seat, ...]
    changes: tuple[ProvinceSet, ...]
    gold: tuple[GoldDelta, ...]


class MissionCompleted(Event, frozen=True, tag="mission_completed.v1"):
    divan: DivanNo
    seat: Seat
    mission: str


class HainExpired(Event, frozen=True, tag="hain_expired.v1"):
    divan: DivanNo
    seat: Seat


class TreatyExpired(Event, frozen=True, tag="treaty_expired.v1"):
    divan: DivanNo
    treaty: Treaty


class DivanResolved(Event, frozen=True, tag="divan_resolved.v1"):
    """R-13 step 7: the public report and each bey's private part."""

    divan: DivanNo
    public: tuple[ReportLine, ...]
    private: dict[Seat, tuple[ReportLine, ...]]
    ceasefire_next: bool = False


class KurultayHeld(Event, frozen=True, tag="kurultay_held.v1"):
    """R-10.4, R-10.5: votes, Halk Sevgisi, M-6, scores and the Han."""

    votes: dict[Seat, Seat]
    halk_sevgisi: tuple[Seat, ...]
    m6: tuple[Seat, ...]
    scores: tuple[tuple[Seat, Amount], ...]  # (seat, score) in final order
    han: Seat
    lot_used: bool = False
