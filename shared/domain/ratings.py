"""A finished season's record for its players, and the ratings folded from those records
(issue 23, ADR-88). Pure: the read side stores the records and folds them.

Only a finished live season with a normal calendar and no chosen seed counts
(`counts_for_players`): trial, seeded and compressed-calendar seasons never do. The rating is
openskill's Plackett–Luce model over the season's final ranking (the Kurultay's score order,
equal scores tied), computer beys and humans bound to no player left out before rating; a
season is rated when at least 3 of its humans are bound to players. The fold applies seasons in
the order their Kurultays were recorded (their log positions) and rates a season once: a season
already in the book changes nothing, so a replay or a rebuild rates nobody twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec
from openskill.models import PlackettLuce

from shared.domain import events as ev
from shared.domain.state import SeasonState

MIN_RATED_PLAYERS = 3
MODEL = "openskill.PlackettLuce/1"  # a change of model or constants is a rebuild (ADR-88)
_model = PlackettLuce()


def counts_for_players(state: SeasonState) -> bool:
    """Trial, seeded and compressed-calendar seasons never count (counts_on_boards is false
    for a chosen seed and for a compressed calendar; a trial is no live season)."""
    return state.mode == "live" and state.counts_on_boards and state.forked_from is None


class SeatRecord(msgspec.Struct, frozen=True):
    """What one finished season says of one player's seat."""

    player_id: str
    seat: int
    place: int  # 1 … 19, the Kurultay's order
    score: int
    han: bool
    hain: int  # times marked Hain (betrayals committed, R-6.5)
    missed: int  # Divans with no orders for any province
    played: int  # Divans locked while seated


class SeasonRecord(msgspec.Struct, frozen=True):
    season_id: str
    seats: tuple[SeatRecord, ...]  # the bound seats, in the Kurultay's order

    @property
    def rated(self) -> bool:
        return len(self.seats) >= MIN_RATED_PLAYERS


def season_record(state: SeasonState, events: Iterable[ev.Event]) -> SeasonRecord | None:
    """The record of a finished counted season from its whole stream (None for any other)."""
    if not counts_for_players(state) or state.phase != "over":
        return None
    hain: dict[int, int] = {}
    locked: list[dict[int, tuple[object, ...]]] = []
    kurultay: ev.KurultayHeld | None = None
    for e in events:
        if isinstance(e, ev.DivanLocked):
            locked.append(dict(e.orders))
        elif isinstance(e, ev.BattlesResolved):
            for b in e.betrayals:
                hain[b.traitor] = hain.get(b.traitor, 0) + 1
        elif isinstance(e, ev.KurultayHeld):
            kurultay = e
    if kurultay is None:
        return None
    seats = tuple(
        SeatRecord(
            player_id=state.players[seat],
            seat=seat,
            place=place,
            score=score,
            han=seat == kurultay.han,
            hain=hain.get(seat, 0),
            missed=sum(1 for orders in locked if not orders.get(seat)),
            played=len(locked),
        )
        for place, (seat, score) in enumerate(kurultay.scores, start=1)
        if seat in state.players
    )
    return SeasonRecord(state.season_id, seats)


class Rating(msgspec.Struct, frozen=True):
    mu: float
    sigma: float
    seasons: int

    @property
    def ordinal(self) -> float:
        """The conservative figure the board ranks by: mu − 3 sigma."""
        return self.mu - 3 * self.sigma


class Book(msgspec.Struct, frozen=True):
    """Every player's rating after the seasons rated so far (player id -> rating)."""

    ratings: dict[str, Rating] = {}
    rated: frozenset[str] = frozenset()  # season ids already in the book


def rate(book: Book, record: SeasonRecord) -> Book:
    """The book after one finished season: unchanged if it was rated already or has fewer
    than 3 players. Equal scores are ties (Plackett–Luce's ranks)."""
    if record.season_id in book.rated or not record.rated:
        return book
    teams = [
        [
            _model.rating(mu=r.mu, sigma=r.sigma)
            if (r := book.ratings.get(s.player_id))
            else _model.rating()
        ]
        for s in record.seats
    ]
    ranks = [float(-s.score) for s in record.seats]  # lower is better; equal scores tie
    after = _model.rate(teams, ranks=ranks)
    ratings = dict(book.ratings)
    for seat, (player,) in zip(record.seats, after, strict=True):
        before = book.ratings.get(seat.player_id)
        ratings[seat.player_id] = Rating(
            player.mu, player.sigma, (before.seasons if before else 0) + 1
        )
    return Book(ratings, book.rated | {record.season_id})


def rebuild(records: Sequence[SeasonRecord]) -> Book:
    """The book from nothing: the records in their recorded order (the incremental fold is
    this, a season at a time)."""
    book = Book()
    for record in records:
        book = rate(book, record)
    return book
