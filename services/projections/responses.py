"""The query API's response bodies (msgspec Structs Litestar encodes and documents).

Each mirrors what services/projections/views.py and reducers.py store, field for field: a
field that may be null is `T | None` and always sent; a field that may be absent is UNSET by
default and then left out. Nested records the domain defines (battle records, orders, treaties)
are the domain's own Structs, so the document types them all the way down (issue 11).
"""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType

from shared.app.answers.calendar_answer import CalendarOut

# a report line is one shape everywhere; the bey's own view is shared with /me
from shared.app.answers.fork_origin import ForkedFrom
from shared.app.answers.private_view import ReportLine  # one line shape: reports and /private
from shared.app.answers.treaty_answer import Treaty
from shared.domain.events import BattleRecord
from shared.domain.state import Order


class Province(msgspec.Struct):
    """R-14 map: an owned il has owner, units and sur; an unowned one owner null and milis.
    `memleket_of`: the seat whose memleket the il is, or null (R-3.1, R-3.3; public)."""

    owner: int | None
    memleket_of: int | None = None
    milis: int | UnsetType = UNSET
    units: int | UnsetType = UNSET
    sur: bool | UnsetType = UNSET


class MapOut(msgspec.Struct):
    season_id: str
    version: int
    divan: int
    provinces: dict[str, Province]


class PublicBey(msgspec.Struct):
    """A bey's public facts; `missions` only after the Kurultay (R-10.1), else null."""

    seat: int
    memleket: int
    computer: bool
    score: int
    provinces: int
    surgun: bool
    hain_through: int | None
    missions_done: list[str]
    missions: list[str] | None
    halk_sevgisi: bool
    han: bool
    # the name shown (chosen, a computer bey's "Konya Beyi", or the seat form "3. bey")
    name: str = ""
    chosen_name: bool = False


class LeaderboardOut(msgspec.Struct):
    season_id: str
    version: int
    divan: int
    leaderboard: list[PublicBey]


class RegionTitle(msgspec.Struct):
    seat: int
    title: str


class TitlesOut(msgspec.Struct):
    season_id: str
    version: int
    regions: dict[str, RegionTitle]
    hain: list[int]
    surgun: list[int]
    han: int | None
    # seat -> the bey's name, for every seat this answer refers to (and the rest)
    names: dict[str, str] = {}


class TreatiesOut(msgspec.Struct):
    season_id: str
    version: int
    treaties: list[Treaty]
    # seat -> the bey's name, for every seat this answer refers to (and the rest)
    names: dict[str, str] = {}


class ChainHead(msgspec.Struct):
    """The season's hash-chain head after a Divan's resolution: the version and hash (hex) of
    its divan_resolved.v1 event (docs/export.md "Chain heads"; `seksenbir verify --heads`)."""

    version: int
    hash: str


class Report(msgspec.Struct, omit_defaults=True):
    """`kind` divan (with its `divan` and the `chain_head` it publishes), kurultay (`divan`
    null), season_admin (a live season's admin act, `divan` null) or correction (ADR-53, `divan`
    the Divan after which it applies); the last two after the others, in the order they
    happened."""

    kind: Literal["divan", "kurultay", "season_admin", "correction"]
    divan: int | None
    lines: list[ReportLine]
    chain_head: ChainHead | None = None


class ReportsOut(msgspec.Struct):
    season_id: str
    version: int
    reports: list[Report]
    # seat -> the bey's name, for every seat this answer refers to (and the rest)
    names: dict[str, str] = {}


class Betrayal(msgspec.Struct):
    """Who betrayed whom, where, and how long the Hain title lasts."""

    divan: int
    traitor: int
    victim: int
    province: int
    hain_through: int | None


class BetrayalsOut(msgspec.Struct):
    season_id: str
    version: int
    betrayals: list[Betrayal]
    # seat -> the bey's name, for every seat this answer refers to (and the rest)
    names: dict[str, str] = {}


class SeasonRow(msgspec.Struct):
    """A season of the list; one not readable has only `status`: `not_yet_projected` (its
    first projection is under way) or `rebuilding` (Redis lost it; it is being rebuilt)."""

    season_id: str
    mode: str | UnsetType = UNSET
    phase: str | UnsetType = UNSET
    divan: int | UnsetType = UNSET
    han: int | UnsetType | None = UNSET
    version: int | UnsetType = UNSET
    status: Literal["rebuilding", "not_yet_projected"] | UnsetType = UNSET


class SeasonsOut(msgspec.Struct):
    seasons: list[SeasonRow]


class SeasonMeta(msgspec.Struct):
    """The season's status as the read side projected it (the seed after the Kurultay).

    `ceasefire`: a Bayram ceasefire holds at the next Divan (R-6.7: attacks on beys are
    cancelled). Live seasons: `calendar`, `paused`, `cancelled`; and computed at the read from
    the server's clock as the command side's status does: `next_divan_at` (the instant the
    orders placed now lock at; null while paused or cancelled), `locked` (a Divan's instant
    passed and it is not resolved yet; trial: a requested Divan is being resolved) and
    `seconds_to_lock` (0 while locked; null in trial), and during a live Kurultay
    `seconds_to_kurultay_close` (to `calendar.kurultay_closes_at`; else null).
    """

    season_id: str
    mode: str
    phase: str
    divan: int
    next_divan: int | None
    perde: int
    resolving: bool
    rules_version: str
    seed_commitment: str
    han: int | None
    seed: str | None
    seed_salt: str | None
    version: int
    beys: int
    ceasefire: bool = False
    calendar: CalendarOut | None = None
    paused: bool = False
    cancelled: bool = False
    next_divan_at: str | None = None
    locked: bool = False
    seconds_to_lock: int | None = None
    seconds_to_kurultay_close: int | None = None  # live, during the Kurultay
    forked_from: ForkedFrom | None = None  # a fork's origin (issue 13, D-32); null otherwise
    # issue 23, live: in the lobby or joined by link only, and the creator's description
    listed: bool = True
    description: str | None = None


class SummaryOut(msgspec.Struct):
    season_id: str
    version: int
    status: SeasonMeta


class BoardRow(msgspec.Struct):
    """han-memleket rows have `memleket` and `hans`; han-scores and best-scores rows `entry`
    and `score` (one Struct: msgspec unions hold at most one array or object type)."""

    memleket: int | UnsetType = UNSET
    hans: int | UnsetType = UNSET
    entry: str | UnsetType = UNSET
    score: int | UnsetType = UNSET


class BoardOut(msgspec.Struct):
    board: str
    rows: list[BoardRow]


class RatingOut(msgspec.Struct):
    """openskill Plackett–Luce (ADR-88): mu, sigma, the ranked figure mu − 3 sigma, seasons."""

    mu: float
    sigma: float
    ordinal: float
    seasons: int


class PlayerPlaceOut(msgspec.Struct):
    season_id: str
    seat: int
    place: int
    score: int


class PlayerRecordOut(msgspec.Struct):
    """Issue 23: a player's public record over counted live seasons."""

    player_id: str
    name: str | None
    seasons_played: int
    seasons_finished: int
    han_titles: int
    places: list[PlayerPlaceOut]
    hain: int  # times marked Hain
    divans_missed: int  # Divans with no orders for any province …
    divans_played: int  # … out of these
    rating: RatingOut | None


class RatingRowOut(msgspec.Struct):
    rank: int
    player_id: str
    name: str | None
    rating: RatingOut


class RatingsOut(msgspec.Struct):
    total: int
    offset: int
    limit: int
    rows: list[RatingRowOut]


class BattlesOut(msgspec.Struct):
    season_id: str
    version: int
    divan: int
    battles: list[BattleRecord]  # as stored


class OrdersOut(msgspec.Struct):
    season_id: str
    version: int
    divan: int
    orders: dict[str, list[Order]]  # seat -> its locked orders


class AuditBetrayal(msgspec.Struct):
    """An auditor's betrayal record (R-6.5): the public facts, the treaty broken, the traitor's
    advances into the province (`[seat, from, units]`) and the battle record (R-5.8)."""

    divan: int
    traitor: int
    victim: int
    province: int
    hain_through: int
    treaty: Treaty
    orders: list[tuple[int, int, int]]
    battle: BattleRecord | None


class TreatyStep(msgspec.Struct):
    """One step of the treaty timeline: a treaty accepted, expired, dissolved or broken (then
    with its `traitor`)."""

    divan: int
    what: Literal["accepted", "expired", "dissolved", "broken"]
    treaty: Treaty
    traitor: int | UnsetType = UNSET


class AuditOut(msgspec.Struct):
    season_id: str
    version: int
    betrayals: list[AuditBetrayal]
    treaty_timeline: list[TreatyStep]


class TicketOut(msgspec.Struct):
    ticket: str
    expires_in: int
