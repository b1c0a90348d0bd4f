"""Season state: frozen values folded from events (R-1 … R-10)."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cached_property
from typing import Literal

import msgspec

from shared.domain import event_bounds
from shared.domain.event_bounds import Amount, DivanThrough, Plate, Seat
from shared.domain.map import game_map

TreatyKind = Literal["pact", "alliance"]
Mode = Literal["trial", "live"]
Phase = Literal["registration", "running", "kurultay", "over"]
# R-15, issue 24: what beys may say to each other in a live season (a trial season has none)
PressMode = Literal["full", "public", "none"]
OrderKind = Literal["advance", "support", "hold"]
NewsKind = Literal["kuraklik", "hasat", "bayram", "yerel_isyan", "seyyah_tuccar", "deprem"]
Answer = Literal["accept", "reject"]

DIVANS = event_bounds.DIVANS  # R-1.1 (shared/domain/event_bounds.py declares the events' bounds)
SEATS = event_bounds.SEATS
LAST_TREATY_DIVAN = 12
RULES_1 = "seksenbir-rules/1"
# 2: computer beys make offers at a Divan's lock, for the next Divan (D-28). A season keeps the
# version its SeasonCreated names and replays under it: rules/1 seasons never see a bot offer.
RULES_VERSION = "seksenbir-rules/2"
RULES_VERSIONS = (RULES_1, RULES_VERSION)
# The report version of a season the domain is given none for (simulations, scenarios, tests:
# the golden digests pin it). 2: offers, dropped orders, battles as each party saw them.
REPORT_VERSION = 2
# 3: each Divan's orders sealed at the lock (shared/domain/seal.py, ADR-57): every season the API
# creates (trial, live, forks). A season keeps the version its SeasonCreated names.
SEALED_REPORT_VERSION = 3
# 4: one language per line (ADR-62): a news card drawn for a bey names it "Bey N" in English
# (it said "N. bey"), and "an alliance". Every season the API creates from then on (trial, live,
# forks); a season keeps the version its SeasonCreated names, so older ones replay their lines.
NAMED_REPORT_VERSION = 4
# 5: one word for one event (ADR-157): the news line of Yerel isyan says "Local uprising" in
# English, as the board's card, the rules and the glossary name it (it said "Local revolt").
# Every season the API creates from then on (trial, live, forks) and `seksenbir simulate`; a
# season keeps the version its SeasonCreated names, so older ones replay their lines.
UPRISING_REPORT_VERSION = 5
# the report version of every season the API creates (and the CLI simulates)
API_REPORT_VERSION = UPRISING_REPORT_VERSION
REPORT_VERSIONS = (1, 2, SEALED_REPORT_VERSION, NAMED_REPORT_VERSION, UPRISING_REPORT_VERSION)


def perde(divan: int) -> int:
    """R-1.1: Yerleşme 1–6, Savaşlar 7–12, Kurultay'a doğru 13–16."""
    return 1 if divan <= 6 else 2 if divan <= 12 else 3


def computer_beys_offer(rules_version: str) -> bool:
    """D-28 (R-6.1): computer beys make offers in seasons created under rules/2 or later."""
    return rules_version != RULES_1


def offer_key(frm: int, to: int) -> str:
    """The key of an open offer in `SeasonState.offer_divans` (live seasons, D-25)."""
    return f"{frm}-{to}"


def is_friday(divan: int) -> bool:
    """R-1.3: even Divans are Fridays (also in trial mode)."""
    return divan % 2 == 0


class Order(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One order for one province (R-4.1); `hold` needs no target."""

    province: Plate
    kind: OrderKind
    target: Plate | None = None
    units: Amount = 0


class Province(msgspec.Struct, frozen=True):
    """An il: owned (units, sur) or unowned (units = milis) (R-2, R-3.2)."""

    owner: Seat | None = None
    units: Amount = 0
    sur: bool = False


class Bey(msgspec.Struct, frozen=True):
    """A seat. Exile is derived from the map (R-9.1)."""

    seat: Seat
    memleket: Plate
    computer: bool = False
    gold: Amount = 2
    hain_through: DivanThrough | None = None
    lost_memleket_before: bool = False
    missions: tuple[str, ...] = ()
    missions_done: tuple[str, ...] = ()
    halk_sevgisi: bool = False


class Treaty(msgspec.Struct, frozen=True):
    """A pact or alliance between seats a < b, in force through `through_divan` (R-6.2)."""

    kind: TreatyKind
    a: Seat
    b: Seat
    through_divan: DivanThrough

    def pair(self) -> tuple[int, int]:
        return (self.a, self.b)


class Offer(msgspec.Struct, frozen=True):
    """An open offer, settled at step 2 of the next Divan (R-6.1)."""

    kind: TreatyKind
    frm: Seat
    to: Seat
    answer: Answer | None = None

    def pair(self) -> tuple[int, int]:
        a, b = self.frm, self.to
        return (a, b) if a < b else (b, a)


class NewsCard(msgspec.Struct, frozen=True):
    """A card of the news deck (R-8.1); region only for kuraklik and hasat."""

    card: NewsKind
    region: str | None = None


class Calendar(msgspec.Struct, frozen=True, kw_only=True, dict=True):
    """A live season's schedule: registration close, Divans 1–16, Kurultay close.

    `interval_seconds` is set for an operator's compressed calendar (tournaments, demos,
    acceptance runs): Divan n is then at the close + n·S and the Kurultay closes 3·S after
    Divan 16.

    `dict=True` only gives `utc_divans` (ADR-168) a place to cache its twins: they are no
    field, so no encoding, equality, hash or repr of a calendar sees them.
    """

    registration_closes_at: datetime
    divans: tuple[datetime, ...]
    kurultay_closes_at: datetime
    interval_seconds: int | None = None
    provisional: bool = False  # until registration closes: an early close moves it

    def at(self, divan: int) -> datetime:
        """The scheduled instant of Divan `divan` (1–16): its orders lock then (R-1.3)."""
        return self.divans[self._index(divan)]

    def at_utc(self, divan: int) -> datetime:
        """`at(divan)` as the same instant in UTC, for comparisons only (ADR-168): an order's
        `at` is UTC, and comparing it with a +03:00 instant costs about 30 times a comparison
        within one zone. Never stored or shown: the calendar's instants stay as they are."""
        return self.utc_divans[self._index(divan)]

    def _index(self, divan: int) -> int:
        if not 1 <= divan <= len(self.divans):
            raise ValueError(f"no Divan {divan} in a calendar of {len(self.divans)}")
        return divan - 1

    @cached_property
    def utc_divans(self) -> tuple[datetime, ...]:
        """The Divans' instants in UTC, computed once per calendar value (ADR-168)."""
        return tuple(at.astimezone(UTC) for at in self.divans)

    @property
    def compressed(self) -> bool:
        return self.interval_seconds is not None

    def due(self, now: datetime) -> int:
        """How many Divans' instants have passed at `now` (0 … 16): Divan due(now)+1 is open."""
        return sum(1 for at in self.divans if at <= now)


AdminActKind = Literal["postpone", "cancel", "pause", "resume"]


class AdminAct(msgspec.Struct, frozen=True, kw_only=True):
    """A season-admin act of a live season (D-29 … D-31): what, why, when and by whom."""

    act: AdminActKind
    reason: str
    at: datetime
    by: Literal["admin", "ops"] = "admin"


class ForkOrigin(msgspec.Struct, frozen=True):
    """Where a fork (D-32) came from: the season and the Divan whose resulting state it took."""

    season_id: str
    divan: int


class SeasonState(msgspec.Struct, frozen=True):
    """Everything the rules need about a season between two Divans."""

    season_id: str = ""
    seed: int = 0
    mode: Mode = "trial"
    rules_version: str = RULES_VERSION
    report_version: int = REPORT_VERSION
    phase: Phase = "registration"
    divan: int = 0  # the last resolved Divan
    beys: tuple[Bey, ...] = ()
    provinces: tuple[Province, ...] = ()  # index plate - 1
    treaties: tuple[Treaty, ...] = ()
    offers: tuple[Offer, ...] = ()
    ceasefire_divan: int | None = None
    deck: tuple[NewsCard, ...] = ()
    orders: dict[int, dict[int, tuple[Order, ...]]] = {}  # divan -> seat -> orders
    locked_divan: int | None = None
    votes: dict[int, int] = {}
    partners: dict[int, tuple[int, ...]] = {}  # beys ever in a treaty with
    tokens: dict[int, str] = {}  # seat -> SHA-256 of its bey token (never the token)
    players: dict[int, str] = {}  # seat -> the public id of the player bound to it (issue 23)
    seed_commitment: str = ""
    seed_salt: str = ""  # secret until the Kurultay, like the seed
    counts_on_boards: bool = False  # seasons with a chosen seed never count
    han: int | None = None
    calendar: Calendar | None = None  # live seasons only
    offer_divans: dict[str, int] = {}  # live: "frm-to" -> the Divan an open offer is settled at
    admin_token: str = ""  # live: SHA-256 of the season-admin token (never the token)
    paused_at: datetime | None = None  # live: paused since (D-30): no Divan locks meanwhile
    cancelled: bool = False  # live: cancelled before Divan 1 (D-29): every command refused
    admin_acts: tuple[AdminAct, ...] = ()  # live: the season-admin acts so far, in order
    forked_from: ForkOrigin | None = None  # a fork's origin (SeasonForked, D-32); None otherwise
    press: PressMode = "full"  # live: its press mode (PressModeSet; ADR-91); trial: none by mode
    names: dict[int, str] = {}  # seat -> its chosen display name; unnamed seats absent
    listed: bool = True  # live: shown in the lobby (issue 23)
    description: str | None = None  # live: the creator's description in the lobby

    @property
    def next_divan(self) -> int:
        return self.divan + 1

    def province(self, plate: int) -> Province:
        return self.provinces[plate - 1]

    def bey(self, seat: int) -> Bey | None:
        for b in self.beys:
            if b.seat == seat:
                return b
        return None

    def owned_by(self, seat: int) -> list[int]:
        return [i + 1 for i, p in enumerate(self.provinces) if p.owner == seat]

    def exiled(self, seat: int) -> bool:
        """R-9.1: Sürgün exactly while the bey does not own its memleket."""
        bey = self.bey(seat)
        return bey is not None and self.province(bey.memleket).owner != seat

    def treaty_between(self, a: int, b: int) -> Treaty | None:
        pair = (min(a, b), max(a, b))
        for t in self.treaties:
            if t.pair() == pair:
                return t
        return None

    def offer_between(self, a: int, b: int) -> Offer | None:
        pair = (min(a, b), max(a, b))
        for o in self.offers:
            if o.pair() == pair:
                return o
        return None


def unowned_map(milis: dict[int, int] | None = None) -> tuple[Province, ...]:
    """All 81 provinces unowned, at the given milis or else their full milis."""
    gm = game_map()
    milis = milis or {}
    return tuple(Province(units=milis.get(p, gm.full_milis[p])) for p in range(1, 82))


def start_map() -> tuple[Province, ...]:
    """R-3.2: every province unowned at max(1, ceil(full milis / 2))."""
    gm = game_map()
    return tuple(Province(units=gm[p].start_milis) for p in range(1, 82))
