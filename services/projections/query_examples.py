"""An example answer of every query operation, for the OpenAPI document (issue 11; validated
against each operation's own schema by tests/projections/test_openapi_examples.py). Built from
the typed Structs of services/projections/responses.py and the domain's records."""

from __future__ import annotations

from msgspec.structs import replace

from services.projections.responses import (
    AuditBetrayal,
    AuditOut,
    BattlesOut,
    Betrayal,
    BetrayalsOut,
    BoardOut,
    BoardRow,
    LeaderboardOut,
    MapOut,
    OrdersOut,
    PlayerPlaceOut,
    PlayerRecordOut,
    Province,
    PublicBey,
    RatingOut,
    RatingRowOut,
    RatingsOut,
    RegionTitle,
    Report,
    ReportsOut,
    SeasonMeta,
    SeasonRow,
    SeasonsOut,
    SummaryOut,
    TicketOut,
    TitlesOut,
    TreatiesOut,
    TreatyStep,
)
from shared.app.answers.private_view import OwnReport, ReportLine, private_view
from shared.app.answers.treaty_answer import Treaty
from shared.domain.events import BattleRecord, GroupRecord
from shared.domain.simulate import start
from shared.domain.state import Order

SEASON = "0123456789abcdef0123456789abcdef"

CONQUEST = ReportLine(
    kind="conquest",
    data={"province": 71, "seat": 1},
    tr="Kırıkkale 1. beyin oldu",
    en="Kırıkkale fell to Bey 1",
    text="Kırıkkale 1. beyin oldu",
)
BATTLE = BattleRecord(
    target=71,
    defender=None,
    defender_units=2,
    defence_bonus=0,
    defence_support=(),
    groups=(GroupRecord(beys=(1,), advances=((1, 6, 3),), support=(), strength=3),),
    outcome="taken",
    fighting_group=0,
    attack=3,
    defence=2,
    entering=3,
    taker=1,
)
HOLD = Order(province=6, kind="hold")
PUBLIC_BEY = PublicBey(
    seat=1,
    memleket=6,
    computer=False,
    score=12,
    provinces=3,
    surgun=False,
    hain_through=None,
    missions_done=[],
    missions=None,
    halk_sevgisi=False,
    han=False,
)


# handler name -> a 2xx status -> the example
PLAYER_RATING = RatingOut(mu=27.87, sigma=8.21, ordinal=3.24, seasons=1)
PLAYER_RECORD = PlayerRecordOut(
    player_id="5b0c2e8d9f7a4c31b6e2d4a8f0c1e3b7",
    name="Ayşe",
    seasons_played=2,
    seasons_finished=1,
    han_titles=1,
    places=[PlayerPlaceOut(season_id="ab" * 16, seat=3, place=1, score=41)],
    hain=1,
    divans_missed=2,
    divans_played=16,
    rating=PLAYER_RATING,
)

EXAMPLES: dict[str, dict[str | int, object]] = {
    "season_list": {
        200: SeasonsOut(
            seasons=[
                SeasonRow(SEASON, mode="trial", phase="running", divan=3, han=None, version=42)
            ]
        )
    },
    "summary": {
        200: SummaryOut(
            season_id=SEASON,
            version=42,
            status=SeasonMeta(
                season_id=SEASON,
                mode="trial",
                phase="running",
                divan=3,
                next_divan=4,
                perde=1,
                resolving=False,
                rules_version="1",
                seed_commitment="9f" * 32,
                han=None,
                seed=None,
                seed_salt=None,
                version=42,
                beys=19,
            ),
        )
    },
    "season_map": {
        200: MapOut(
            season_id=SEASON,
            version=42,
            divan=3,
            provinces={"6": Province(owner=1, units=5, sur=False), "34": Province(None, milis=4)},
        )
    },
    "leaderboard": {
        200: LeaderboardOut(season_id=SEASON, version=42, divan=3, leaderboard=[PUBLIC_BEY])
    },
    "titles": {
        200: TitlesOut(
            season_id=SEASON,
            version=42,
            regions={"İç Anadolu": RegionTitle(1, "bölge_beyi")},
            hain=[],
            surgun=[],
            han=None,
        )
    },
    "treaties": {
        200: TreatiesOut(season_id=SEASON, version=42, treaties=[Treaty("pact", [1, 2], 2, 5)])
    },
    "reports": {
        200: ReportsOut(season_id=SEASON, version=42, reports=[Report("divan", 3, [CONQUEST])])
    },
    "betrayals": {
        200: BetrayalsOut(season_id=SEASON, version=42, betrayals=[Betrayal(3, 2, 1, 71, 6)])
    },
    "boards": {200: BoardOut("han-memleket", [BoardRow(memleket=6, hans=2)])},
    "private": {
        200: replace(
            private_view(start(7, SEASON)[0], 1, 42),
            reports=[OwnReport(3, [CONQUEST])],
        )
    },
    "battles": {200: BattlesOut(season_id=SEASON, version=42, divan=3, battles=[BATTLE])},
    "all_orders": {200: OrdersOut(season_id=SEASON, version=42, divan=3, orders={"1": [HOLD]})},
    "audit_betrayals": {
        200: AuditOut(
            season_id=SEASON,
            version=42,
            betrayals=[
                AuditBetrayal(
                    divan=3,
                    traitor=1,
                    victim=2,
                    province=71,
                    hain_through=7,
                    treaty=Treaty(kind="pact", beys=[1, 2], from_divan=2, through_divan=5),
                    orders=[(1, 6, 3)],
                    battle=BATTLE,
                )
            ],
            treaty_timeline=[
                TreatyStep(3, "broken", Treaty("pact", [1, 2], 2, 5), traitor=1),
            ],
        )
    },
    "ops_bey": {200: private_view(start(7, SEASON)[0], 1, 42, [])},
    "ticket": {201: TicketOut(ticket="Zm9vYmFyYmF6cXV4cXV1eHF1dXg", expires_in=30)},
    "events": {
        200: 'event: ready\nid: 30\ndata: {"channels":2}\n\n'
        'event: divan_report\nid: 59-0\ndata: {"divan":3,"type":"divan_report"}\n\n'
        'event: private_report\nid: 59-1\ndata: {"divan":3,"type":"private_report"}\n\n'
    },
    # issue 23 (ADR-87, ADR-88)
    "player_record": {200: PLAYER_RECORD},
    "ratings_board": {
        200: RatingsOut(
            total=1,
            offset=0,
            limit=50,
            rows=[RatingRowOut(1, PLAYER_RECORD.player_id, "Ayşe", PLAYER_RATING)],
        )
    },
}
