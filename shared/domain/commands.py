"""Commands: imperative requests of a bey, ops or the system; unknown fields are refused."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec

from shared.domain.state import AdminActKind, Mode, Order, TreatyKind


class Command(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    """Base of every command."""


class CreateSeason(Command, frozen=True, tag="create_season"):
    """R-1.2, R-1.3: a live season also names when registration closes (`at` is the server's
    instant of the request); `divan_interval_seconds` asks for an operator's compressed one."""

    season_id: str
    seed: int
    mode: Mode = "trial"
    seed_commitment: str = ""
    seed_salt: str = ""
    counts_on_boards: bool = False
    registration_closes_at: datetime | None = None
    divan_interval_seconds: int | None = None
    at: datetime | None = None


class JoinSeason(Command, frozen=True, tag="join_season"):
    """R-1.4: a human names a memleket; seat = the lowest free seat. `at`: the server instant."""

    memleket: int
    at: datetime | None = None


class CloseRegistration(Command, frozen=True, tag="close_registration"):
    """R-1.4, R-11.1: empty seats filled by computer beys, missions dealt, deck shuffled.

    `at` is when it closes: a live season's scheduled close, or earlier when the 19th seat is
    taken (which moves the calendar)."""

    at: datetime | None = None


class SubmitOrders(Command, frozen=True, tag="submit_orders"):
    """R-4.1: the whole set for one Divan; it replaces any earlier set for that Divan."""

    seat: int
    divan: int
    orders: tuple[Order, ...]
    at: datetime | None = None  # the server instant it was accepted at (live seasons)


class BuildSur(Command, frozen=True, tag="build_sur"):
    seat: int
    province: int
    at: datetime | None = None  # the server instant it was accepted at (live seasons)


class HireMercenaries(Command, frozen=True, tag="hire_mercenaries"):
    seat: int
    province: int
    at: datetime | None = None  # the server instant it was accepted at (live seasons)


class PurchaseProvince(Command, frozen=True, tag="purchase_province"):
    seat: int
    province: int
    at: datetime | None = None  # the server instant it was accepted at (live seasons)


class OfferTreaty(Command, frozen=True, tag="offer_treaty"):
    seat: int
    to: int
    kind: TreatyKind
    at: datetime | None = None  # the server instant it was accepted at (live seasons)


class WithdrawOffer(Command, frozen=True, tag="withdraw_offer"):
    seat: int
    to: int
    at: datetime | None = None  # the server instant it was accepted at (live seasons)


class AnswerOffer(Command, frozen=True, tag="answer_offer"):
    seat: int
    frm: int
    answer: Literal["accept", "reject"]
    at: datetime | None = None  # the server instant it was accepted at (live seasons)


class CastVote(Command, frozen=True, tag="cast_vote"):
    seat: int
    candidate: int
    at: datetime | None = None  # the server instant it was accepted at (live seasons)


class RequestDivan(Command, frozen=True, tag="request_divan"):
    """R-1.2: in trial mode the human asks for the next Divan; it resolves then, and only then.

    The request names the Divan it asks for, so a retried request never advances the season.
    Commands are never stored (only the events they decide), so the new field breaks no replay.
    """

    seat: int
    divan: int


class RotateToken(Command, frozen=True, tag="rotate_token"):
    """A bey's new token (only its hash), set by the bey itself or reissued by ops."""

    seat: int
    token_hash: str
    by: Literal["bey", "ops"] = "bey"


class HoldKurultay(Command, frozen=True, tag="hold_kurultay"):
    """R-10.4, R-10.5: count the votes (computer beys vote now) and crown the Han."""


class SetAdminToken(Command, frozen=True, tag="set_admin_token"):
    """A live season's season-admin token (only its hash), set once when it is created."""

    token_hash: str


class SeasonAdmin(Command, frozen=True, tag="season_admin"):
    """A season-admin act on a live season (D-29 … D-31), by its admin or by ops.

    `registration_closes_at` is the new close of a postponement; `at` the server instant."""

    act: AdminActKind
    reason: str
    by: Literal["admin", "ops"] = "admin"
    registration_closes_at: datetime | None = None
    at: datetime | None = None


class Rejection(msgspec.Struct, frozen=True):
    """A refused command: a stable code, a clear message, nothing appended."""

    code: str
    message: str
    details: dict[str, object] = {}


AnyCommand = (
    CreateSeason
    | JoinSeason
    | CloseRegistration
    | SubmitOrders
    | BuildSur
    | HireMercenaries
    | PurchaseProvince
    | OfferTreaty
    | WithdrawOffer
    | AnswerOffer
    | CastVote
    | RequestDivan
    | RotateToken
    | HoldKurultay
    | SetAdminToken
    | SeasonAdmin
)
SPEND_COSTS = {"sur": 3, "paralı_asker": 2, "satın_alma": 4}
