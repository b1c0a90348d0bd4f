"""Events: past-tense facts with explicit, versioned tags (STYLE.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec

from shared.domain.state import (
    AdminAct,
    Bey,
    Calendar,
    Mode,
    NewsCard,
    Offer,
    Order,
    Province,
    Treaty,
    TreatyKind,
)


class ProvinceSet(msgspec.Struct, frozen=True):
    """The absolute state of one province after a step (owner None: units are milis)."""

    plate: int
    owner: int | None
    units: int
    sur: bool = False


class GoldDelta(msgspec.Struct, frozen=True):
    seat: int
    amount: int
    reason: Literal["income", "tribute", "seyyah", "sur", "paralı_asker", "satın_alma"]


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every event; the tag is the stored type name."""


# --- season and registration -------------------------------------------------------------
class SeasonCreated(Event, frozen=True, tag="season_created.v1"):
    season_id: str
    seed: int
    mode: Mode
    rules_version: str
    seed_commitment: str
    counts_on_boards: bool = False
    seed_salt: str = ""  # secret until the Kurultay, like the seed
    # The shape of this season's Divan reports (shared/domain/report.py). Seasons stored before
    # version 2 carry none and re-run their Divans with version 1, so they still verify.
    report_version: int = 1


class BeyJoined(Event, frozen=True, tag="bey_joined.v1"):
    seat: int
    memleket: int
    computer: bool = False


class RegistrationClosed(Event, frozen=True, tag="registration_closed.v1"):
    """R-1.4, R-11.1, R-10.1, R-8.1: computer beys seated, missions dealt, deck shuffled."""

    computer_beys: tuple[tuple[int, int], ...]  # (seat, memleket)
    missions: dict[int, tuple[str, ...]]
    deck: tuple[NewsCard, ...]


CalendarReason = Literal["created", "registration_closed", "postponed", "resumed"]


class CalendarSet(Event, frozen=True, tag="calendar_set.v2"):
    """R-1.3: a live season's Divan calendar, set at creation (provisional), when registration
    closes (final; an early close moves it) and whenever a season-admin act moves it.

    Version 2 (ADR-58): the schedule in the event's own fields. Version 1 stored the state's
    `Calendar` struct whole (`{"calendar": {...}, "reason": ...}`), so the stored shape of a
    fact followed a state class that changes with the code; shared/domain/upcast.py rewrites
    a v1 body to this shape on read (the stored bytes stay as they are)."""

    registration_closes_at: datetime
    divans: tuple[datetime, ...]
    kurultay_closes_at: datetime
    interval_seconds: int | None
    provisional: bool
    reason: CalendarReason

    @classmethod
    def of(cls, calendar: Calendar, reason: CalendarReason) -> CalendarSet:
        """The event that sets `calendar` (the state's schedule) for `reason`."""
        return cls(
            registration_closes_at=calendar.registration_closes_at,
            divans=calendar.divans,
            kurultay_closes_at=calendar.kurultay_closes_at,
            interval_seconds=calendar.interval_seconds,
            provisional=calendar.provisional,
            reason=reason,
        )

    @property
    def calendar(self) -> Calendar:
        """The state's schedule this event sets."""
        return Calendar(
            registration_closes_at=self.registration_closes_at,
            divans=self.divans,
            kurultay_closes_at=self.kurultay_closes_at,
            interval_seconds=self.interval_seconds,
            provisional=self.provisional,
        )


class AdminTokenSet(Event, frozen=True, tag="admin_token_set.v1"):
    """A live season's season-admin token: only its hash is stored, never the token."""

    token_hash: str


class SeasonAdminActed(Event, frozen=True, tag="season_admin_acted.v1"):
    """A season-admin act (D-29 … D-31): postpone, cancel, pause or resume, with its reason and
    the server instant; a moved calendar follows as its own CalendarSet."""

    act: AdminAct


class ProvinceFix(
    msgspec.Struct, frozen=True, tag_field="kind", tag="province", forbid_unknown_fields=True
):
    """A correction (ADR-53): province `province` is set to this owner and these units (owner
    None: the units are its milis) and this sur, as ProvinceSet does (M-6 included)."""

    province: int
    owner: int | None
    units: int
    sur: bool = False


class GoldFix(
    msgspec.Struct, frozen=True, tag_field="kind", tag="gold", forbid_unknown_fields=True
):
    """A correction (ADR-53): bey `seat`'s gold is set to `gold`."""

    seat: int
    gold: int


class HainRevoke(
    msgspec.Struct, frozen=True, tag_field="kind", tag="revoke_hain", forbid_unknown_fields=True
):
    """A correction (ADR-53): bey `seat`'s Hain badge (R-6.5) is removed."""

    seat: int


Fix = ProvinceFix | GoldFix | HainRevoke


class CorrectionApplied(Event, frozen=True, tag="correction_applied.v1"):
    """ADR-53: a defect found by verification, fixed by ops with a compensating event, never a
    rewrite: the correction, why, after which Divan (`divan`: the season's last resolved one), the
    server instant, and optionally the season version of the event it compensates."""

    correction: Fix
    reason: str
    divan: int
    at: datetime
    refers_to: int | None = None
    by: Literal["ops"] = "ops"


DeadlineKind = Literal["registration", "divan", "kurultay"]


class DeadlineSet(Event, frozen=True, tag="deadline_set.v1", omit_defaults=True):
    """A live season's next timed work (R-1.3, R-1.4, R-10.4): the registration close, Divan n,
    or the Kurultay close, at its instant; `at` None when nothing is due (the season is over,
    or the clock is stopped). Appended by the domain whenever it changes (live.with_deadline);
    the event store's `due_work` table is fed from it in the same transaction (migration 0006),
    so a scheduler finds due work without reading any season's events."""

    kind: DeadlineKind | None = None
    divan: int | None = None
    at: datetime | None = None


# --- player commands ----------------------------------------------------------------------
class OrdersSubmitted(Event, frozen=True, tag="orders_submitted.v1"):
    """R-4.1: the newest set replaces the bey's whole set for that Divan."""

    seat: int
    divan: int
    orders: tuple[Order, ...]


class SurBuilt(Event, frozen=True, tag="sur_built.v1"):
    seat: int
    province: int
    cost: int = 3


class MercenariesHired(Event, frozen=True, tag="mercenaries_hired.v1"):
    seat: int
    province: int
    units: int = 2
    cost: int = 2


class ProvincePurchased(Event, frozen=True, tag="province_purchased.v1"):
    seat: int
    province: int
    cost: int = 4


# `divan`: in a live season, the Divan the act counts for (R-4.4: after a Divan's instant, the
# next one). Left out when unset (omit_defaults), so trial events keep their stored shape.
class TreatyOffered(Event, frozen=True, tag="treaty_offered.v1", omit_defaults=True):
    frm: int
    to: int
    kind: TreatyKind
    divan: int | None = None


class OfferWithdrawn(Event, frozen=True, tag="offer_withdrawn.v1", omit_defaults=True):
    frm: int
    to: int
    divan: int | None = None


class OfferAnswered(Event, frozen=True, tag="offer_answered.v1", omit_defaults=True):
    frm: int
    to: int
    answer: Literal["accept", "reject"]
    divan: int | None = None


class VoteCast(Event, frozen=True, tag="vote_cast.v1"):
    seat: int
    candidate: int


class TokenRotated(Event, frozen=True, tag="token_rotated.v1"):
    """A bey's token changed; only its hash is stored, never here."""

    seat: int
    by: Literal["bey", "ops"]
    token_hash: str


class DivanRequested(Event, frozen=True, tag="divan_requested.v1"):
    divan: int


# --- Divan resolution ---------------------------------------------------------------------
class DivanHeld(Event, frozen=True, tag="divan_held.v1", omit_defaults=True):
    """A live Divan held by the clock (R-1.3): it locked at its scheduled instant `at`, however
    late a worker got to it; `late` when the resolution came after the grace (live.LATE_GRACE,
    or one interval of a compressed calendar), e.g. after downtime. An input of record: replay
    reads it, never the clock. Trial Divans have none (their lock is the request, R-1.2)."""

    divan: int
    at: datetime
    late: bool = False


class DivanLocked(Event, frozen=True, tag="divan_locked.v1"):
    """The inputs of record: every seat's orders, computer beys' included (R-12.3)."""

    divan: int
    orders: dict[int, tuple[Order, ...]]
    offers: tuple[Offer, ...] = ()


class OrdersSealed(Event, frozen=True, tag="orders_sealed.v1"):
    """ADR-57, D-35: the first outcome event of a Divan of a season of report version 3 or
    later: for every bey seated at the lock, humans and computer beys, the lower-case hex
    SHA-256 of its salt and the canonical encoding of the order set the Divan resolves for it
    (the empty set when it locked none), under `scheme` (shared/domain/seal.py,
    docs/export.md "Sealed orders"). Digests only: public, listed in the Divan's report; each
    bey's salt is in its own private report."""

    divan: int
    digests: dict[int, str]  # seat -> digest
    scheme: str = "seksenbir/sealed-orders/1"


class NewsRevealed(Event, frozen=True, tag="news_revealed.v1"):
    """R-8: the card and its target; `changes` are its effects on the map."""

    divan: int
    card: NewsCard | None
    province: int | None = None
    seat: int | None = None
    changes: tuple[ProvinceSet, ...] = ()
    gold: tuple[GoldDelta, ...] = ()


class OfferSettled(Event, frozen=True, tag="offer_settled.v1"):
    """R-6.1 … R-6.3, R-6.6 at step 2."""

    divan: int
    offer: Offer
    outcome: Literal["accepted", "rejected", "expired", "ignored"]
    treaty: Treaty | None = None


class TreatiesDissolved(Event, frozen=True, tag="treaties_dissolved.v1"):
    """R-6.6: every treaty ends at step 2 of Divan 13."""

    divan: int
    treaties: tuple[Treaty, ...]


class GroupRecord(msgspec.Struct, frozen=True):
    beys: tuple[int, ...]
    advances: tuple[tuple[int, int, int], ...]  # (seat, origin, units)
    support: tuple[tuple[int, int, int], ...]  # (seat, origin, units)
    strength: int
    traitor: bool = False


class BattleRecord(msgspec.Struct, frozen=True):
    """R-5.8: everything a disputed battle is judged on."""

    target: int
    defender: int | None
    defender_units: int
    defence_bonus: int
    defence_support: tuple[tuple[int, int, int], ...]
    groups: tuple[GroupRecord, ...]
    outcome: Literal["taken", "held", "standoff"]
    fighting_group: int | None = None
    attack: int | None = None
    defence: int | None = None
    attack_die: int | None = None
    defence_die: int | None = None
    attacker_losses: int = 0
    defender_losses: int = 0
    entering: int = 0
    taker: int | None = None
    shares: tuple[tuple[int, int], ...] = ()  # (seat, units)
    rules: tuple[str, ...] = ()


class Betrayal(msgspec.Struct, frozen=True):
    """R-6.5: one per (traitor, target province)."""

    traitor: int
    victim: int
    province: int
    treaty: Treaty
    hain_through: int


class BattlesResolved(Event, frozen=True, tag="battles_resolved.v1"):
    """R-5 with R-6.4, R-6.5, R-6.7: the records and the map after returns and cuts."""

    divan: int
    battles: tuple[BattleRecord, ...]
    betrayals: tuple[Betrayal, ...]
    cancelled: tuple[tuple[int, int, int, str], ...]  # (seat, origin, target, why)
    void_supports: tuple[tuple[int, int, int], ...]  # (seat, origin, target)
    changes: tuple[ProvinceSet, ...]
    gold: tuple[GoldDelta, ...] = ()
    treaties_ended: tuple[Treaty, ...] = ()
    returns_lost: int = 0  # units returning to a province their bey lost
    cut: int = 0  # units beyond 12 after the returns


class RebellionsRun(Event, frozen=True, tag="rebellions_run.v1"):
    """R-9.2, R-9.3: guerilla and, on Fridays, rebellion rolls."""

    divan: int
    guerillas: tuple[int, ...]  # seats
    rebellions: tuple[tuple[int, int, bool], ...]  # (seat, chance %, success)
    changes: tuple[ProvinceSet, ...]


class Allotment(msgspec.Struct, frozen=True):
    plate: int
    base: int = 0
    harvest: int = 0
    bonus: int = 0
    kurtulus: int = 0
    doubled: int = 0
    lost: int = 0


class ProductionApplied(Event, frozen=True, tag="production_applied.v1"):
    """R-7, R-3.2: units per province, milis growth, gold income."""

    divan: int
    allotments: tuple[Allotment, ...]
    kurtulus: tuple[int, ...]
    changes: tuple[ProvinceSet, ...]
    gold: tuple[GoldDelta, ...]


class MissionCompleted(Event, frozen=True, tag="mission_completed.v1"):
    divan: int
    seat: int
    mission: str


class HainExpired(Event, frozen=True, tag="hain_expired.v1"):
    divan: int
    seat: int


class TreatyExpired(Event, frozen=True, tag="treaty_expired.v1"):
    divan: int
    treaty: Treaty


class ReportLine(msgspec.Struct, frozen=True):
    """One structured line of a Divan report, with its Turkish and English text."""

    kind: str
    data: dict[str, int | str | list[int] | None]
    tr: str
    en: str


class DivanResolved(Event, frozen=True, tag="divan_resolved.v1"):
    """R-13 step 7: the public report and each bey's private part."""

    divan: int
    public: tuple[ReportLine, ...]
    private: dict[int, tuple[ReportLine, ...]]
    ceasefire_next: bool = False


class KurultayHeld(Event, frozen=True, tag="kurultay_held.v1"):
    """R-10.4, R-10.5: votes, Halk Sevgisi, M-6, scores and the Han."""

    votes: dict[int, int]
    halk_sevgisi: tuple[int, ...]
    m6: tuple[int, ...]
    scores: tuple[tuple[int, int], ...]  # (seat, score) in final order
    han: int
    lot_used: bool = False


class SeedRevealed(Event, frozen=True, tag="seed_revealed.v1"):
    seed: int
    salt: str


class SeasonForked(Event, frozen=True, tag="season_forked.v1"):
    """A trial season started from the state after Divan `source_divan` of another season
    (issue 13, D-32): right after its own SeasonCreated (its new seed and commitment; it never
    counts on the boards), it takes that position whole — everything a replay needs, so the
    fork replays from its own stream alone. `source_head` is the source's hash-chain head at
    `source_version`, the last event of that Divan: where the position came from, checkable
    against the source's export. Beys' gold and missions are in it: secret like any bey's."""

    source_season: str
    source_divan: int
    source_version: int
    source_head: str
    seat: int  # the human's; every other bey is a computer bey
    divan: int
    beys: tuple[Bey, ...]
    provinces: tuple[Province, ...]
    treaties: tuple[Treaty, ...]
    offers: tuple[Offer, ...]
    ceasefire_divan: int | None
    deck: tuple[NewsCard, ...]
    partners: dict[int, tuple[int, ...]]


AnyEvent = (
    SeasonCreated
    | SeasonForked
    | BeyJoined
    | RegistrationClosed
    | OrdersSubmitted
    | SurBuilt
    | MercenariesHired
    | ProvincePurchased
    | TreatyOffered
    | OfferWithdrawn
    | OfferAnswered
    | VoteCast
    | TokenRotated
    | DivanRequested
    | DivanLocked
    | OrdersSealed
    | NewsRevealed
    | OfferSettled
    | TreatiesDissolved
    | BattlesResolved
    | RebellionsRun
    | ProductionApplied
    | MissionCompleted
    | HainExpired
    | TreatyExpired
    | DivanResolved
    | KurultayHeld
    | SeedRevealed
    | CalendarSet
    | DeadlineSet
    | DivanHeld
    | AdminTokenSet
    | SeasonAdminActed
    | CorrectionApplied
)
EVENT_TYPES: tuple[type[Event], ...] = AnyEvent.__args__
