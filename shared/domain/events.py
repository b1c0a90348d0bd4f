"""Events: past-tense facts with explicit, versioned tags (STYLE.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from shared.domain.divan_events import (
    BattlesResolved,
    DivanLocked,
    DivanResolved,
    HainExpired,
    KurultayHeld,
    MissionCompleted,
    NewsRevealed,
    OfferSettled,
    OrdersSealed,
    ProductionApplied,
    RebellionsRun,
    TreatiesDissolved,
    TreatyExpired,
)
from shared.domain.event_bounds import (
    Amount,
    DivanCount,
    DivanNo,
    DivanThrough,
    Interval,
    Plate,
    ReportVersion,
    Seat,
    Seed,
    Version,
)
from shared.domain.event_records import (
    Allotment,
    BattleRecord,
    Betrayal,
    Event,
    Fix,
    GoldDelta,
    GoldFix,
    GroupRecord,
    HainRevoke,
    ProvinceFix,
    ProvinceSet,
    ReportLine,
)
from shared.domain.state import (
    AdminAct,
    Bey,
    Calendar,
    Mode,
    NewsCard,
    Offer,
    Order,
    PressMode,
    Province,
    Treaty,
    TreatyKind,
)

# Every event is imported from here: `__all__` names those defined in shared.domain.divan_events
# and shared.domain.event_records (the base and the records events carry); the rest are this
# module's own, and AnyEvent below is the one registry of event kinds.
__all__ = [
    "Allotment",
    "BattleRecord",
    "BattlesResolved",
    "Betrayal",
    "DivanLocked",
    "DivanResolved",
    "Event",
    "Fix",
    "GoldDelta",
    "GoldFix",
    "GroupRecord",
    "HainExpired",
    "HainRevoke",
    "KurultayHeld",
    "MissionCompleted",
    "NewsRevealed",
    "OfferSettled",
    "OrdersSealed",
    "ProductionApplied",
    "ProvinceFix",
    "ProvinceSet",
    "RebellionsRun",
    "ReportLine",
    "TreatiesDissolved",
    "TreatyExpired",
]


# --- season and registration -------------------------------------------------------------
class SeasonCreated(Event, frozen=True, tag="season_created.v1"):
    season_id: str
    seed: Seed
    mode: Mode
    rules_version: str
    seed_commitment: str
    counts_on_boards: bool = False
    seed_salt: str = ""  # secret until the Kurultay, like the seed
    # The shape of this season's Divan reports (shared/domain/report.py). Seasons stored before
    # version 2 carry none and re-run their Divans with version 1, so they still verify.
    report_version: ReportVersion = 1


class BeyJoined(Event, frozen=True, tag="bey_joined.v1"):
    seat: Seat
    memleket: Plate
    computer: bool = False


class BeyNamed(Event, frozen=True, tag="bey_named.v1", omit_defaults=True):
    """R-15.5: a bey's display name, chosen when it creates or joins a season (`by` "bey"), or
    reset by ops with a reason and the server instant (`by` "ops", `name` None: the bey is shown
    by its seat again; R-15.2). Names stay out of the Divan's events: reports name seats."""

    seat: Seat
    name: str | None = None
    by: Literal["bey", "ops"] = "bey"
    reason: str | None = None
    at: datetime | None = None


class SeasonListed(Event, frozen=True, tag="season_listed.v1", omit_defaults=True):
    """A live season's place in the lobby (issue 23): unlisted (joined by its link only) or
    listed, with its creator's description (a free text checked as names are). Appended at
    creation (`by` "creator") only when it differs from the default (listed, no description);
    or by ops resetting the description, with a reason and the server instant (`by` "ops",
    `description` None, `listed` as it was; R-15.2, ADR-105)."""

    listed: bool = True
    description: str | None = None
    by: Literal["creator", "ops"] = "creator"
    reason: str | None = None
    at: datetime | None = None


class RegistrationClosed(Event, frozen=True, tag="registration_closed.v1"):
    """R-1.4, R-11.1, R-10.1, R-8.1: computer beys seated, missions dealt, deck shuffled."""

    computer_beys: tuple[tuple[Seat, Plate], ...]  # (seat, memleket)
    missions: dict[Seat, tuple[str, ...]]
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
    interval_seconds: Interval | None
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


class PressModeSet(Event, frozen=True, tag="press_mode_set.v1"):
    """Issue 24, R-15: a live season's press mode as its creator chose it, when not the default
    (`full`): `public` (the public channel only) or `none` (no chat). Public, as the calendar."""

    press: PressMode


class CorrectionApplied(Event, frozen=True, tag="correction_applied.v1"):
    """ADR-53: a defect found by verification, fixed by ops with a compensating event, never a
    rewrite: the correction, why, after which Divan (`divan`: the season's last resolved one), the
    server instant, and optionally the season version of the event it compensates."""

    correction: Fix
    reason: str
    divan: DivanCount
    at: datetime
    refers_to: Version | None = None
    by: Literal["ops"] = "ops"


DeadlineKind = Literal["registration", "divan", "kurultay"]


class DeadlineSet(Event, frozen=True, tag="deadline_set.v1", omit_defaults=True):
    """A live season's next timed work (R-1.3, R-1.4, R-10.4): the registration close, Divan n,
    or the Kurultay close, at its instant; `at` None when nothing is due (the season is over,
    or the clock is stopped). Appended by the domain whenever it changes (decide.with_deadline);
    the event store's `due_work` table is fed from it in the same transaction (migration 0006),
    so a scheduler finds due work without reading any season's events."""

    kind: DeadlineKind | None = None
    divan: DivanNo | None = None
    at: datetime | None = None


# --- player commands ----------------------------------------------------------------------
class OrdersSubmitted(Event, frozen=True, tag="orders_submitted.v1"):
    """R-4.1: the newest set replaces the bey's whole set for that Divan."""

    seat: Seat
    divan: DivanNo
    orders: tuple[Order, ...]


class SurBuilt(Event, frozen=True, tag="sur_built.v1"):
    seat: Seat
    province: Plate
    cost: Amount = 3


class MercenariesHired(Event, frozen=True, tag="mercenaries_hired.v1"):
    seat: Seat
    province: Plate
    units: Amount = 2
    cost: Amount = 2


class ProvincePurchased(Event, frozen=True, tag="province_purchased.v1"):
    seat: Seat
    province: Plate
    cost: Amount = 4


# `divan`: in a live season, the Divan the act counts for (R-4.4: after a Divan's instant, the
# next one). Left out when unset (omit_defaults), so trial events keep their stored shape.
class TreatyOffered(Event, frozen=True, tag="treaty_offered.v1", omit_defaults=True):
    frm: Seat
    to: Seat
    kind: TreatyKind
    divan: DivanThrough | None = None


class OfferWithdrawn(Event, frozen=True, tag="offer_withdrawn.v1", omit_defaults=True):
    frm: Seat
    to: Seat
    divan: DivanThrough | None = None


class OfferAnswered(Event, frozen=True, tag="offer_answered.v1", omit_defaults=True):
    frm: Seat
    to: Seat
    answer: Literal["accept", "reject"]
    divan: DivanThrough | None = None


class VoteCast(Event, frozen=True, tag="vote_cast.v1"):
    seat: Seat
    candidate: Seat


class TokenRotated(Event, frozen=True, tag="token_rotated.v1"):
    """A bey's token changed; only its hash is stored, never here."""

    seat: Seat
    by: Literal["bey", "ops"]
    token_hash: str


class DivanRequested(Event, frozen=True, tag="divan_requested.v1"):
    divan: DivanNo


# --- Divan resolution ---------------------------------------------------------------------
class DivanHeld(Event, frozen=True, tag="divan_held.v1", omit_defaults=True):
    """A live Divan held by the clock (R-1.3): it locked at its scheduled instant `at`, however
    late a worker got to it; `late` when the resolution came after the grace (live.LATE_GRACE,
    or one interval of a compressed calendar), e.g. after downtime. An input of record: replay
    reads it, never the clock. Trial Divans have none (their lock is the request, R-1.2)."""

    divan: DivanNo
    at: datetime
    late: bool = False


class SeedRevealed(Event, frozen=True, tag="seed_revealed.v1"):
    seed: Seed
    salt: str


class SeatBound(Event, frozen=True, tag="seat_bound.v1"):
    """Issue 23: the seat is played by this player (a public id, never its key): a player holds
    at most one seat of a season. Public, in every export: the link a player's record is
    built from (ADR-87)."""

    seat: Seat
    player_id: str


class SeasonForked(Event, frozen=True, tag="season_forked.v1"):
    """A trial season started from the state after Divan `source_divan` of another season
    (issue 13, D-32): right after its own SeasonCreated (its new seed and commitment; it never
    counts on the boards), it takes that position whole — everything a replay needs, so the
    fork replays from its own stream alone. `source_head` is the source's hash-chain head at
    `source_version`, the last event of that Divan: where the position came from, checkable
    against the source's export. Beys' gold and missions are in it: secret like any bey's."""

    source_season: str
    source_divan: DivanCount
    source_version: Version
    source_head: str
    seat: Seat  # the human's; every other bey is a computer bey
    divan: DivanCount
    beys: tuple[Bey, ...]
    provinces: tuple[Province, ...]
    treaties: tuple[Treaty, ...]
    offers: tuple[Offer, ...]
    ceasefire_divan: DivanThrough | None
    deck: tuple[NewsCard, ...]
    partners: dict[Seat, tuple[Seat, ...]]


AnyEvent = (
    SeasonCreated
    | SeasonForked
    | BeyJoined
    | BeyNamed
    | SeasonListed
    | SeatBound
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
    | PressModeSet
)
EVENT_TYPES: tuple[type[Event], ...] = AnyEvent.__args__
