"""The ratings fold a query process keeps (issue 23, ADR-88): the finished counted seasons'
records in Kurultay order, applied one at a time as they come; folded again from nothing when a
record lands before the fold's end, so incremental == rebuilt."""

from __future__ import annotations

from typing import Any

import msgspec

from services.projections.keys import player_records, player_records_order
from shared.domain.ratings import Book, SeasonRecord, rate

_record = msgspec.json.Decoder(SeasonRecord)


class RatingsFold:
    """This process's fold of the season records (ADR-88): the seasons applied, in order."""

    def __init__(self) -> None:
        self.applied: list[str] = []
        self.book = Book()

    async def current(self, redis: Any, prefix: str) -> Book:
        # records are only ever added: as many as applied, nothing new (one round trip a read)
        if await redis.zcard(player_records_order(prefix)) == len(self.applied):
            return self.book
        order = [s.decode() for s in await redis.zrange(player_records_order(prefix), 0, -1)]
        if order[: len(self.applied)] != self.applied:  # a record landed before the end
            self.applied, self.book = [], Book()
        new = order[len(self.applied) :]
        if new:
            raw = await redis.hmget(player_records(prefix), new)
            if None in raw:  # indexed but not yet written (one step apart): wait for it
                new = new[: raw.index(None)]
            book = self.book
            for season_id, data in zip(new, raw, strict=False):
                book = rate(book, _record.decode(data))
                self.applied.append(season_id)
            self.book = book
        return self.book
