"""Request and response bodies of the command API (msgspec; unknown fields refused)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType

from services.command.client_secrets import ClientSecret
from services.command.player_schemas import PlayerKeyText
from shared.app.answers.bey_names import BeyName, Description, NamedBey  # shared with the read side
from shared.app.answers.calendar_answer import CalendarOut  # one schema with the read side
from shared.app.answers.fork_origin import ForkedFrom  # one schema with the read side
from shared.app.http.bounds import JSON_SAFE_INTEGER, DivanNo, Plate, Seat, Units
from shared.domain import events as ev
from shared.domain.state import AdminActKind, Order, OrderKind, TreatyKind

Strict = {"forbid_unknown_fields": True, "frozen": True}


# a seed is 0 … 2^63 − 1, above what a browser's JSON numbers hold exactly (2^53), so
# over HTTP it is a decimal string both ways.
SeedText = Annotated[
    str,
    msgspec.Meta(
        pattern=r"^(0|[1-9][0-9]{0,18})$",
        description="a 64-bit seed as a decimal string, 0 … 9223372036854775807",
        examples=["123"],
    ),
]


class CreateSeasonIn(msgspec.Struct, **Strict):
    """A trial season: the human's memleket, and optionally a seed (R-1.5) as a decimal string.

    A live season (`"mode": "live"`, R-1.3, R-1.4): `registration_closes_at` (an aware ISO-8601
    instant at least an hour and at most a year ahead, D-37), `memleket` optional (given: the
    creator joins and plays), no seed (the server draws it); `divan_interval_seconds` (2 ≤ S ≤
    86400, a compressed calendar, D-37) with the ops token only."""

    memleket: Plate | None = None
    mode: Literal["trial", "live"] = "trial"
    seed: SeedText | None = msgspec.field(default=None)
    registration_closes_at: datetime | None = None
    divan_interval_seconds: int | None = None
    # issue 24: a live season's press mode: full (the default), public only, or none
    press: Literal["full", "public", "none"] | None = None
    name: BeyName | None = None  # the creator's display name (with a memleket)
    listed: bool = True  # live: shown in the lobby (GET /v1/lobby), else joined by link only
    description: Description | None = None  # live: the creator's words in the lobby
    player_key: PlayerKeyText | None = None  # issue 23: the creator's seat is this player's
    # ADR-178: the secrets of the tokens answered, drawn by the client: the bey's (a trial's
    # human, a live creator with a memleket) and a live season's admin token's; with an
    # Idempotency-Key the same request again answers the same season and tokens
    token_secret: ClientSecret | None = None
    admin_secret: ClientSecret | None = None


class CreatedOut(msgspec.Struct, frozen=True):
    season_id: str
    seat: int
    token: str
    seed_commitment: str


class ForkIn(msgspec.Struct, **Strict):
    """A fork (issue 13, D-32): the Divan whose resulting state it starts from (0: before
    Divan 1; at most 15, so one Divan is left to play) and the seat the human takes."""

    divan: Annotated[int, msgspec.Meta(ge=0, le=15)]
    seat: Seat


class ForkedOut(msgspec.Struct, frozen=True):
    """A fork, answered like a trial create (the token is shown once), with where it came from:
    the source season, its Divan, and the source's hash-chain head after that Divan."""

    season_id: str
    seat: int
    token: str
    seed_commitment: str
    source_season: str
    source_divan: int
    source_head: str


class CreatorOut(msgspec.Struct, frozen=True):
    """The creator's seat in a live season it plays in, and its bey token (shown once)."""

    seat: int
    token: str
    memleket: int


class LiveCreatedOut(msgspec.Struct, frozen=True):
    """A live season: its season-admin token (shown once, stored hashed) and calendar;
    `creator` (seat and bey token, shown once) when a memleket was given, else null. (Its
    shape never matches a trial season's CreatedOut: no top-level seat or token.)"""

    season_id: str
    admin_token: str
    calendar: CalendarOut
    seed_commitment: str
    creator: CreatorOut | None = None


class JoinIn(msgspec.Struct, **Strict):
    """R-1.4: the memleket a human joins a live season with (first come, first served); with a
    `token_secret` (ADR-178) a retry after a lost answer is answered as the first join was."""

    memleket: Plate
    name: BeyName | None = None  # the bey's display name
    player_key: PlayerKeyText | None = None  # issue 23: the seat is this player's (ADR-87)
    # ADR-178: the token's secret, drawn by the client; the same join again with it is
    # answered as the first was (the seat at `memleket` holds the token it makes)
    token_secret: ClientSecret | None = None


class JoinedOut(msgspec.Struct, frozen=True):
    """The bey's seat, its token (shown once) and the season's calendar after the join."""

    season_id: str
    seat: int
    token: str
    memleket: int
    calendar: CalendarOut


AdminAction = AdminActKind  # the domain's one list (shared.domain.state)

# A reason is shown as written in the public reports (admin acts, corrections): its length is
# checked here, what it may hold by the one free-text check of the domain (shared.domain.text,
# ADR-77: one line, no control, separator, direction, private-use or unassigned character, and
# something visible in it), which answers 422 `invalid_body` ($.reason) or `reason_required`.
Reason = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=500,
        description="why, in words: 1 … 500 characters, one line with something visible in it; "
        "no control, line or paragraph separator, direction mark, private-use or unassigned "
        "character (ADR-77)",
    ),
]


class AdminIn(msgspec.Struct, **Strict):
    """A postponement: its reason and the new registration close."""

    reason: Reason
    registration_closes_at: datetime | None = None


class ReasonIn(msgspec.Struct, **Strict):
    """A cancel's, pause's or resume's reason: nothing else (a `registration_closes_at` there
    moves nothing, so it is refused as an unknown field, not ignored)."""

    reason: Reason


# --- corrections (issue 13, ADR-53) ------------------------------------------------------------
Gold = Annotated[int, msgspec.Meta(ge=0, le=1_000_000, description="gold: 0 … 1,000,000")]


class ProvinceFixIn(msgspec.Struct, tag_field="kind", tag="province", **Strict):
    """Set a province's owner (null: unowned, the units are its milis), units and sur."""

    province: Plate
    owner: Seat | None
    units: Annotated[int, msgspec.Meta(ge=0, le=12, description="units: 0 … 12 (R-2.5)")]
    sur: bool = False

    def fix(self) -> ev.ProvinceFix:
        return ev.ProvinceFix(self.province, self.owner, self.units, self.sur)


class GoldFixIn(msgspec.Struct, tag_field="kind", tag="gold", **Strict):
    """Set a bey's gold."""

    seat: Seat
    gold: Gold

    def fix(self) -> ev.GoldFix:
        return ev.GoldFix(self.seat, self.gold)


class HainRevokeIn(msgspec.Struct, tag_field="kind", tag="revoke_hain", **Strict):
    """Remove a bey's Hain badge (R-6.5)."""

    seat: Seat

    def fix(self) -> ev.HainRevoke:
        return ev.HainRevoke(self.seat)


FixIn = ProvinceFixIn | GoldFixIn | HainRevokeIn


class CorrectionIn(msgspec.Struct, **Strict):
    """A correction with its reason and, optionally, the season version of the event it
    compensates (ADR-53)."""

    correction: FixIn
    reason: Reason
    refers_to: Annotated[int, msgspec.Meta(ge=1, le=JSON_SAFE_INTEGER)] | None = None


class CorrectionOut(msgspec.Struct, frozen=True):
    """The correction as recorded: after Divan `divan`, at the server instant; `version`: the
    season's version with it."""

    correction: FixIn
    reason: str
    divan: int
    at: datetime  # with +03:00 (D-22)
    refers_to: int | None
    version: int


class AdminActOut(msgspec.Struct, frozen=True):
    act: AdminAction
    reason: str
    at: str  # ISO-8601 with +03:00
    by: Literal["admin", "ops"]


class AdminDoneOut(msgspec.Struct, frozen=True):
    """The act as recorded, and the season's calendar after it."""

    act: AdminActOut
    calendar: CalendarOut
    version: int


class OrderIn(msgspec.Struct, **Strict):
    """One order as a request gives it (R-4.1), its integers bounded (D-27): the domain's
    Order (shared.domain.state) once decoded. `hold` needs no target and no units."""

    province: Plate
    kind: OrderKind
    target: Plate | None = None
    units: Units = 0

    def order(self) -> Order:
        return Order(province=self.province, kind=self.kind, target=self.target, units=self.units)


class OrdersIn(msgspec.Struct, **Strict):
    """The whole set of a bey's orders for one Divan (R-4.1); `divan` defaults to the next."""

    orders: list[OrderIn]
    divan: DivanNo | None = None


class OrdersAcceptedOut(msgspec.Struct, frozen=True):
    """An order set accepted: the Divan it counts for, how many orders it holds and the season
    version after it (a read's `?min_version=`: read your writes). The read of every bey's
    orders after the lock is the query side's `OrdersOut`."""

    divan: int
    orders: int
    version: int


class SpendIn(msgspec.Struct, **Strict):
    kind: Literal["sur", "paralı_asker", "satın_alma"]
    province: Plate


class OfferIn(msgspec.Struct, **Strict):
    to: Seat
    kind: TreatyKind


class AnswerIn(msgspec.Struct, **Strict):
    answer: Literal["accept", "reject"]


class VoteIn(msgspec.Struct, **Strict):
    candidate: Seat


class Accepted(msgspec.Struct, frozen=True):
    """A command that was recorded: what it recorded, and the stream version after it; in a
    live season an offer, answer or withdrawal also names the Divan it counts for (R-4.4)."""

    status: Literal["accepted"]
    events: list[str]
    version: int
    divan: int | UnsetType = UNSET


class AnswerRecordedOut(msgspec.Struct, frozen=True):
    """An answer to an offer that was recorded (ADR-71): `status` "accepted" says the command
    was (as for every command), `answer` the answer recorded, "accept" or "reject". The
    offer's outcome comes at its Divan's step 2 (R-6.1), in both parties' private reports."""

    status: Literal["accepted"]
    answer: Literal["accept", "reject"]
    events: list[str]
    version: int
    divan: int | UnsetType = UNSET


class DivanIn(msgspec.Struct, **Strict):
    """R-1.2, trial: the Divan asked for, named so that a retried request never advances."""

    divan: DivanNo


class DivanRequestedOut(msgspec.Struct, frozen=True):
    """202 `resolving` (requested now, or earlier and not yet resolved) or 200 `resolved`."""

    divan: int
    status: Literal["resolving", "resolved"] = "resolving"


class TokenIn(msgspec.Struct, **Strict):
    """A rotation's new token's secret, drawn by the client (ADR-178): the rotation sent again
    after a lost answer, with the old token, is answered 200 with the same new token."""

    token_secret: ClientSecret | None = None


class TokenOut(msgspec.Struct, frozen=True):
    seat: int
    token: str


class OpsReadOut(msgspec.Struct, frozen=True):
    """One recorded ops read of secret data (ADR-53): its number, what was read (`orders/3`,
    `battles/3`, `beys/5`, `audit/betrayals`, `export`), the ops token's fingerprint (the first
    12 hex digits of its SHA-256, as configured) and the server's instant."""

    id: int
    what: str
    actor: str
    at: datetime


class OpsReadsOut(msgspec.Struct, frozen=True):
    """A season's ops reads in the order recorded; `next_after`: pass it as `after` for the
    next page (null: this was the last)."""

    season_id: str
    reads: list[OpsReadOut]
    next_after: int | None


class SeasonStatus(msgspec.Struct, frozen=True):
    season_id: str
    mode: str
    phase: str
    divan: int
    next_divan: int | None
    perde: int
    resolving: bool
    version: int
    rules_version: str
    seed_commitment: str
    # the Bayram ceasefire holds at the next Divan (attacks on beys will be cancelled)
    ceasefire: bool = False
    han: int | None = None
    # Revealed after the Kurultay only, the seed as a decimal string; with the salt,
    # sha256(f"{salt}:{seed}") must equal seed_commitment (docs/api.md).
    seed: str | None = None
    seed_salt: str | None = None
    # A live season only (absent for a trial season): its calendar, the next Divan's instant
    # (None while paused or when none is left), whether orders are locked now, the seconds to
    # the next lock, and the season-admin acts so far (D-29 … D-31).
    calendar: CalendarOut | UnsetType = UNSET
    next_divan_at: str | UnsetType | None = UNSET
    locked: bool | UnsetType = UNSET
    seconds_to_lock: int | UnsetType | None = UNSET
    # during the Kurultay: the seconds to calendar.kurultay_closes_at (else null)
    seconds_to_kurultay_close: int | UnsetType | None = UNSET
    paused: bool | UnsetType = UNSET
    cancelled: bool | UnsetType = UNSET
    admin_acts: list[AdminActOut] | UnsetType = UNSET
    # A fork's origin (issue 13, D-32): the season and Divan it was started from; null otherwise.
    forked_from: ForkedFrom | None = None
    beys: list[NamedBey] = []  # every seated bey with the name it is shown by
    # live only (issue 23): in the lobby or joined by link only, and the creator's description
    listed: bool | UnsetType = UNSET
    description: str | UnsetType | None = UNSET
    press: Literal["full", "public", "none"] = "none"  # issue 24: the season's press mode
