"""An example request and answer of every command operation, for the OpenAPI document
(issue 11: a frontend sees one of each; tests/projections/test_openapi_examples.py validates
each against its own schema). Built from the typed Structs, so they cannot drift from them."""

from __future__ import annotations

from datetime import UTC, datetime

from services.command.console_checks import CorrectionPreviewOut, VerifyOut
from services.command.export_schemas import ExportHeader, ExportRedaction
from services.command.name_reset import DescriptionResetOut, NameResetOut
from services.command.notify_examples import NOTIFY_EXAMPLES
from services.command.player_schemas import PlayerIn, PlayerKeyIn, PlayerKeyOut, PlayerLeftOut
from services.command.schemas import (
    Accepted,
    AdminActOut,
    AdminDoneOut,
    AdminIn,
    AnswerIn,
    AnswerRecordedOut,
    CorrectionIn,
    CorrectionOut,
    CreatedOut,
    CreateSeasonIn,
    DivanIn,
    DivanRequestedOut,
    ForkedOut,
    ForkIn,
    GoldFixIn,
    JoinedOut,
    JoinIn,
    OfferIn,
    OpsReadOut,
    OpsReadsOut,
    OrderIn,
    OrdersAcceptedOut,
    OrdersIn,
    ProvinceFixIn,
    ReasonIn,
    SeasonStatus,
    SpendIn,
    TokenIn,
    TokenOut,
    VoteIn,
)
from shared.app.answers.calendar_answer import CalendarOut, DivanAt
from shared.app.answers.private_view import private_view
from shared.app.ops.divan_tools import (
    BeyAt,
    BeyChange,
    DiePin,
    ExplainOut,
    OrderChange,
    ProvinceAt,
    ProvinceChange,
    WhatIfIn,
    WhatIfOut,
    explain,
    what_if,
)
from shared.domain.admin import ADMIN_ACTS
from shared.domain.calendar import ISTANBUL
from shared.domain.evolve import fold
from shared.domain.lifecycle import run_divan
from shared.domain.simulate import start

SEASON = "0123456789abcdef0123456789abcdef"


def _divan_tools() -> tuple[ExplainOut, WhatIfIn, WhatIfOut]:
    """Ops' explain and what-if of Divan 2 of a simulated season, narrowed to one battle with a
    support in it: real answers, so the examples cannot drift from what the tools say."""
    state, events = start(7, SEASON)
    for _ in range(2):
        more = run_divan(state)
        state, events = fold(more, state), events + more
    full = explain(SEASON, events, 2)
    battle = next((b for b in full.explanation.battles if b.supports), full.explanation.battles[0])
    out = explain(SEASON, events, 2, [battle.target])
    flip = next(d for d in battle.dice if d.side == "defence")
    change = WhatIfIn(
        orders=[OrderChange(seat=1, frm=battle.target, kind="remove")],
        dice=[DiePin(target=battle.target, side="defence", value=(flip.value + 2) % 3)],
    )
    return out, change, what_if(SEASON, events, 2, change)


_EXPLAINED, _WHAT_IF_IN, _WHAT_IF_OUT = _divan_tools()
# A live season's calendar: registration closes Monday 18:00, Divans Tuesdays and Fridays 21:00
_DIVAN_DAYS: tuple[str, ...] = (
    "08",
    "11",
    "15",
    "18",
    "22",
    "25",
    "29",
    "01",
    "05",
    "08",
    "12",
    "15",
    "19",
)
_DIVAN_DAYS += ("22", "26", "29")
CALENDAR = CalendarOut(
    registration_closes_at="2026-12-07T18:00:00+03:00",
    divans=[
        DivanAt(divan=n, at=f"{'2026-12' if n <= 7 else '2027-01'}-{day}T21:00:00+03:00")
        for n, day in enumerate(_DIVAN_DAYS, start=1)
    ],
    kurultay_closes_at="2027-01-30T21:00:00+03:00",
    provisional=True,
    compressed=False,
)
TOKEN = f"sb1.{SEASON}.1.{'A' * 32}"
SECRET = "Jm2Qd4uN8kV0bXcA7yT1pL5rWzE3sH9o"  # a client's own (ADR-178): its token ends with it
_AT = datetime(2026, 12, 15, 18, 4, 5, tzinfo=UTC)  # an instant of the server's
ACCEPTED = Accepted(status="accepted", events=["orders_submitted.v1"], version=42)

# a postponement's new close: the one the example calendar shows
POSTPONED_TO = datetime.fromisoformat(CALENDAR.registration_closes_at)

# handler name -> "request" and/or a 2xx status -> the example
PLAYER = PlayerKeyOut(
    player_id="5b0c2e8d9f7a4c31b6e2d4a8f0c1e3b7",
    player_key=f"sbp1.5b0c2e8d9f7a4c31b6e2d4a8f0c1e3b7.{SECRET}",
)

EXAMPLES: dict[str, dict[str | int, object]] = {
    "create_season": {
        "request": CreateSeasonIn(memleket=6, seed="123", token_secret=SECRET),
        201: CreatedOut(
            season_id=SEASON, seat=1, token=f"sb1.{SEASON}.1.{SECRET}", seed_commitment="9f" * 32
        ),
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
    # a bey's own view, from the one pure function both APIs answer it with (a simulated season)
    "me": {200: private_view(start(7, SEASON)[0], 1, 42)},
    "submit_orders": {
        "request": OrdersIn(
            orders=[
                OrderIn(province=6, kind="advance", target=71, units=3),
                OrderIn(province=71, kind="hold"),
            ],
            divan=4,
        ),
        200: OrdersAcceptedOut(divan=4, orders=2, version=42),
    },
    "spend": {"request": SpendIn(kind="sur", province=6), 200: ACCEPTED},
    "offer": {"request": OfferIn(to=2, kind="pact"), 200: ACCEPTED},
    "withdraw": {200: ACCEPTED},
    "answer_offer": {
        "request": AnswerIn(answer="reject"),
        200: AnswerRecordedOut(
            status="accepted", answer="reject", events=["offer_answered.v1"], version=43
        ),
    },
    "vote": {"request": VoteIn(candidate=2), 200: ACCEPTED},
    "request_divan": {
        "request": DivanIn(divan=4),
        202: DivanRequestedOut(divan=4, status="resolving"),
        200: DivanRequestedOut(divan=3, status="resolved"),
    },
    "rotate_token": {
        "request": TokenIn(token_secret=SECRET),
        200: TokenOut(seat=1, token=f"sb1.{SEASON}.1.{SECRET}"),
    },
    "reissue_token": {200: TokenOut(seat=1, token=TOKEN)},
    "apply_correction": {
        "request": CorrectionIn(
            correction=GoldFixIn(seat=3, gold=9),
            reason="verify: Divan 5's production re-runs with 9 gold for bey 3, recorded 16",
            refers_to=212,
        ),
        201: CorrectionOut(
            correction=GoldFixIn(seat=3, gold=9),
            reason="verify: Divan 5's production re-runs with 9 gold for bey 3, recorded 16",
            divan=7,
            at=_AT.astimezone(ISTANBUL),
            refers_to=212,
            version=260,
        ),
    },
    "reset_name": {
        "request": ReasonIn(reason="R-15.2: an insult to a memleket"),
        200: NameResetOut(
            seat=3,
            name="3. bey",
            reason="R-15.2: an insult to a memleket",
            at="2026-12-09T21:04:00+03:00",
            version=261,
        ),
    },
    "reset_description": {
        "request": ReasonIn(reason="R-15.2: an insult to a memleket"),
        200: DescriptionResetOut(
            listed=True,
            description=None,
            reason="R-15.2: an insult to a memleket",
            at="2026-12-09T21:04:00+03:00",
            version=262,
        ),
    },
    "ops_reads": {
        200: OpsReadsOut(
            season_id=SEASON,
            reads=[
                OpsReadOut(id=41, what="orders/3", actor="5f2b9c0d1e7a", at=_AT),
                OpsReadOut(id=42, what="export", actor="5f2b9c0d1e7a", at=_AT),
            ],
            next_after=None,
        )
    },
    "join_season": {
        "request": JoinIn(memleket=34, name="Ayşe", token_secret=SECRET),
        201: JoinedOut(
            season_id=SEASON,
            seat=2,
            token=f"sb1.{SEASON}.2.{SECRET}",
            memleket=34,
            calendar=CALENDAR,
        ),
    },
    "explain_divan": {200: _EXPLAINED},
    "correction_dry_run": {
        "request": CorrectionIn(
            correction=ProvinceFixIn(province=71, owner=3, units=4),
            reason="verify: Divan 5's battle for Kırıkkale re-runs as a standoff",
        ),
        200: CorrectionPreviewOut(
            reason="verify: Divan 5's battle for Kırıkkale re-runs as a standoff",
            divan=7,
            refers_to=None,
            version=259,
            changed=True,
            provinces=[
                ProvinceChange(
                    71, "Kırıkkale", ProvinceAt(1, 2, sur=False), ProvinceAt(3, 4, sur=False)
                )
            ],
            beys=[
                BeyChange(1, BeyAt(5, 6, 14, None, []), BeyAt(5, 5, 12, None, [])),
                BeyChange(3, BeyAt(9, 4, 10, None, []), BeyAt(9, 5, 14, None, [])),
            ],
        ),
    },
    "verify_season": {
        200: VerifyOut(
            season=SEASON,
            events=412,
            divan=16,
            phase="over",
            hash_chain="ok",
            head="5e" * 32,
            replay="ok",
            mismatches=[],
            corrections=[],
            seed_commitment="ok: SHA-256(seed_salt:seed) matches",
            sealed_orders="ok: 16 Divans",
            chat="ok: 214 chat events, 180 texts match their digests, 3 withheld, 0 lines' data"
            " left out (R-15.3)",
            first_bad_event=None,
            ok=True,
        )
    },
    "fork_season": {
        "request": ForkIn(divan=8, seat=5),
        201: ForkedOut(
            season_id="fedcba9876543210fedcba9876543210",
            seat=5,
            token=TOKEN,
            seed_commitment="9f" * 32,
            source_season=SEASON,
            source_divan=8,
            source_head="5e" * 32,
        ),
    },
    "what_if": {"request": _WHAT_IF_IN, 200: _WHAT_IF_OUT},
    "export_season": {
        200: ExportHeader(
            format="seksenbir-export/2",
            season_id=SEASON,
            rules_version="seksenbir-rules/2",
            mode="trial",
            seed_commitment="9f" * 32,
            events=412,
            chain="seksenbir/event-chain/2",
            genesis="00" * 32,
            head="5e" * 32,
        )
    },
    "export_audited": {
        200: ExportHeader(
            format="seksenbir-export/2",
            season_id=SEASON,
            rules_version="seksenbir-rules/2",
            mode="live",
            seed_commitment="9f" * 32,
            events=412,
            chain="seksenbir/event-chain/2",
            genesis="00" * 32,
            head="5e" * 32,
            redacted=ExportRedaction(rule="R-14", events=187),
        )
    },
    **NOTIFY_EXAMPLES,
    **{
        f"season_admin_{act}": {
            "request": (
                AdminIn(reason=spec.example_reason, registration_closes_at=POSTPONED_TO)
                if spec.takes_close
                else ReasonIn(reason=spec.example_reason)
            ),
            200: AdminDoneOut(
                act=AdminActOut(
                    act=act, reason=spec.example_reason, at="2026-12-03T12:00:00+03:00", by="admin"
                ),
                calendar=CALENDAR,
                version=17,
            ),
        }
        for act, spec in ADMIN_ACTS.items()
    },
    # issue 23 (ADR-87): a player, its key rotated, leaving
    "create_player": {"request": PlayerIn(name="Ayşe", key_secret=SECRET), 201: PLAYER},
    "rotate_player_key": {"request": PlayerKeyIn(key_secret=SECRET), 200: PLAYER},
    "leave_player": {200: PlayerLeftOut(player_id=PLAYER.player_id, left=True)},
}
