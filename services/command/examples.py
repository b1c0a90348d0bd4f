"""An example request and answer of every command operation, for the OpenAPI document
(issue 11: a frontend sees one of each; tests/projections/test_openapi_examples.py validates
each against its own schema). Built from the typed Structs, so they cannot drift from them."""

from __future__ import annotations

from services.command.schemas import (
    Accepted,
    AnswerIn,
    CreatedOut,
    CreateSeasonIn,
    DivanIn,
    DivanRequestedOut,
    MeOut,
    OfferIn,
    OrderIn,
    OrdersIn,
    OrdersOut,
    SeasonStatus,
    SpendIn,
    TokenOut,
    VoteIn,
)
from shared.domain.state import Order

SEASON = "0123456789abcdef0123456789abcdef"
TOKEN = f"sb1.{SEASON}.1.{'A' * 32}"
ACCEPTED = Accepted(status="accepted", events=["orders_submitted.v1"], version=42)

# handler name -> "request" and/or a 2xx status -> the example
EXAMPLES: dict[str, dict[str | int, object]] = {
    "create_season": {
        "request": CreateSeasonIn(memleket=6, seed="123"),
        201: CreatedOut(season_id=SEASON, seat=1, token=TOKEN, seed_commitment="9f" * 32),
    },
    "season_status": {
        200: SeasonStatus(
            season_id=SEASON,
            mode="trial",
            phase="running",
            divan=3,
            next_divan=4,
            perde=1,
            resolving=False,
            version=42,
            rules_version="1",
            seed_commitment="9f" * 32,
        )
    },
    "me": {
        200: MeOut(
            seat=1,
            memleket=6,
            gold=4,
            exiled=False,
            hain_through=None,
            missions=["M-1", "M-4"],
            missions_done=[],
            next_divan=4,
            orders=[Order(province=6, kind="advance", target=71, units=3)],
            offers_in=[],
            offers_out=[],
        )
    },
    "submit_orders": {
        "request": OrdersIn(
            orders=[
                OrderIn(province=6, kind="advance", target=71, units=3),
                OrderIn(province=71, kind="hold"),
            ],
            divan=4,
        ),
        200: OrdersOut(divan=4, orders=2),
    },
    "spend": {"request": SpendIn(kind="sur", province=6), 200: ACCEPTED},
    "offer": {"request": OfferIn(to=2, kind="pact"), 200: ACCEPTED},
    "withdraw": {200: ACCEPTED},
    "answer_offer": {"request": AnswerIn(answer="accept"), 200: ACCEPTED},
    "vote": {"request": VoteIn(candidate=2), 200: ACCEPTED},
    "request_divan": {
        "request": DivanIn(divan=4),
        202: DivanRequestedOut(divan=4, status="resolving"),
        200: DivanRequestedOut(divan=3, status="resolved"),
    },
    "rotate_token": {200: TokenOut(seat=1, token=TOKEN)},
    "reissue_token": {200: TokenOut(seat=1, token=TOKEN)},
}
