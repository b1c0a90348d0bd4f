"""Request and response bodies of the command API (msgspec; unknown fields refused)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from shared.domain.state import Order, TreatyKind

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
    """A trial season: the human's memleket, and optionally a seed (R-1.5) as a decimal string."""

    memleket: int
    mode: Literal["trial"] = "trial"
    seed: SeedText | None = msgspec.field(default=None)


class CreatedOut(msgspec.Struct, frozen=True):
    season_id: str
    seat: int
    token: str
    seed_commitment: str


class OrdersIn(msgspec.Struct, **Strict):
    """The whole set of a bey's orders for one Divan (R-4.1); `divan` defaults to the next."""

    orders: list[Order]
    divan: int | None = None


class OrdersOut(msgspec.Struct, frozen=True):
    divan: int
    orders: int


class SpendIn(msgspec.Struct, **Strict):
    kind: Literal["sur", "paralı_asker", "satın_alma"]
    province: int


class OfferIn(msgspec.Struct, **Strict):
    to: int
    kind: TreatyKind


class AnswerIn(msgspec.Struct, **Strict):
    answer: Literal["accept", "reject"]


class VoteIn(msgspec.Struct, **Strict):
    candidate: int


class Accepted(msgspec.Struct, frozen=True):
    """A command that was recorded: what it recorded, and the stream version after it."""

    status: Literal["accepted"]
    events: list[str]
    version: int


class DivanIn(msgspec.Struct, **Strict):
    """R-1.2, trial: the Divan asked for, named so that a retried request never advances."""

    divan: int


class DivanRequestedOut(msgspec.Struct, frozen=True):
    """202 `resolving` (requested now, or earlier and not yet resolved) or 200 `resolved`."""

    divan: int
    status: Literal["resolving", "resolved"] = "resolving"


class TokenOut(msgspec.Struct, frozen=True):
    seat: int
    token: str


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
