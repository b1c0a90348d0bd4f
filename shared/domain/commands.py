"""Commands: imperative requests of a bey, ops or the system; unknown fields are refused."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec

from shared.domain import messages, text
from shared.domain.events import GoldFix, HainRevoke, ProvinceFix
from shared.domain.state import (
    REPORT_VERSION,
    RULES_VERSION,
    AdminActKind,
    Mode,
    Order,
    PressMode,
    TreatyKind,
)


class Command(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    """Base of every command."""


class CreateSeason(Command, frozen=True, tag="create_season"):
    """R-1.2, R-1.3: a live season also names when registration closes (`at` is the server's
    instant of the request); `divan_interval_seconds` asks for an operator's compressed one.
    `rules_version` is the current one unless a caller recreates a season of an older version
    (replays, simulations: D-28); the HTTP edge never sets it. `report_version`: the domain's
    default (2) unless the caller asks for another; the API asks for SEALED_REPORT_VERSION
    (sealed orders, ADR-57)."""

    season_id: str
    seed: int
    mode: Mode = "trial"
    rules_version: str = RULES_VERSION
    report_version: int = REPORT_VERSION
    seed_commitment: str = ""
    seed_salt: str = ""
    counts_on_boards: bool = False
    registration_closes_at: datetime | None = None
    divan_interval_seconds: int | None = None
    at: datetime | None = None
    press: PressMode = "full"  # issue 24: a live season's press mode (a trial one has none)


class JoinSeason(Command, frozen=True, tag="join_season"):
    """R-1.4: a human names a memleket; seat = the lowest free seat. `at`: the server instant."""

    memleket: int
    at: datetime | None = None
    name: str | None = None  # the bey's display name, optional


class ResetName(Command, frozen=True, tag="reset_name"):
    """R-15.2, R-15.5: ops reset a bey's name, with a reason, at the server instant."""

    seat: int
    reason: str
    at: datetime


class ResetDescription(Command, frozen=True, tag="reset_description"):
    """R-15.2, ADR-105: ops reset a live season's lobby description, with a reason, at the
    server instant."""

    reason: str
    at: datetime


class ListSeason(Command, frozen=True, tag="list_season"):
    """Issue 23: a live season listed in the lobby or not, and its creator's description."""

    listed: bool = True
    description: str | None = None


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


class BindPlayer(Command, frozen=True, tag="bind_player"):
    """Issue 23: the seat a player's key created or joined with is that player's (ADR-87)."""

    seat: int
    player_id: str


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


class ApplyCorrection(Command, frozen=True, tag="apply_correction"):
    """Ops correct a defect verification found (ADR-53): a compensating event, never a rewrite.

    `at` is the server instant; `refers_to` the season version of the event it compensates."""

    correction: ProvinceFix | GoldFix | HainRevoke
    reason: str
    at: datetime | None = None
    refers_to: int | None = None


class Rejection(msgspec.Struct, frozen=True):
    """A refused command: a stable code, its details, nothing appended.

    Its text comes from shared.domain.messages under `key` (the code, or `code.variant`), in
    the language asked for (`text`); `message` is its Turkish text. A refusal written the old
    way (no key, `message` "Türkçe / English") answers each language its half."""

    code: str
    message: str = ""
    details: dict[str, object] = {}
    key: str = ""

    def text(self, lang: messages.Lang = messages.DEFAULT) -> str:
        """The refusal's text in `lang`; one written the old way keeps its own."""
        if not self.key:
            return getattr(messages.legacy(self.message or self.code), lang)  # type: ignore[no-any-return]
        return messages.render(self.key, lang, self.details)


def reason_refused(reason: str) -> Rejection | None:
    """A reason's refusal by the one free-text check (shared.domain.text, ADR-77): a character
    a one-line text may not hold is 422 `invalid_body` naming `$.reason` and the character;
    a reason with nothing visible in it is `reason_required`."""
    found = text.text_problem(reason)
    if found is None:
        return None
    kind, character = found
    if kind == "character":
        return reject("invalid_body.reason", field="$.reason", character=character)
    return reject("reason_required")


def reject(key: str, message: str = "", /, **details: object) -> Rejection:
    """A refusal under a message key of shared.domain.messages (`wrong_phase.kurultay_over`):
    its code is the key's first part, its text the catalogue's, filled from `details`.

    The old style, `reject(code, "Türkçe / English", **details)`, still works (each language
    gets its half; tests/http/test_problems.py then flags the text as not the catalogue's):
    move the text to the catalogue and drop `message`."""
    if message:
        return Rejection(code=messages.code_of(key), message=message, details=details)
    if key not in messages.CATALOGUE:
        raise KeyError(f"refusal {key!r}: add its texts to shared/domain/messages.py")
    rendered = messages.render(key, messages.DEFAULT, details)
    return Rejection(code=messages.code_of(key), message=rendered, details=details, key=key)


AnyCommand = (
    CreateSeason
    | JoinSeason
    | ResetName
    | ResetDescription
    | ListSeason
    | BindPlayer
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
    | ApplyCorrection
)
SPEND_COSTS = {"sur": 3, "paralı_asker": 2, "satın_alma": 4}
