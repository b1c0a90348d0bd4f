"""System lines of a private channel (issue 24): a treaty between its two beys offered, made,
ended or broken, so talk and treaties sit together. Derived from the season's own stream (its
treaty events), never written into the chat: the season's record is their one source, and a
chat flood never waits on a Divan to post them (ADR-91)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from services.command.chat_schemas import ChatLineOut
from shared.domain import events as ev
from shared.domain.codec import decode_stored
from shared.eventstore import RecordedEvent

WATCHED = frozenset(
    {
        "treaty_offered.v1",
        "offer_settled.v1",
        "treaty_expired.v1",
        "treaties_dissolved.v1",
        "battles_resolved.v1",
    }
)


@dataclass
class _Season:
    version: int = 0
    lines: dict[tuple[int, int], list[ChatLineOut]] = field(default_factory=dict)


def _said(e: ev.AnyEvent) -> Iterator[tuple[tuple[int, int], str]]:
    match e:
        case ev.TreatyOffered():
            yield (
                (min(e.frm, e.to), max(e.frm, e.to)),
                f"{e.kind} offered: seat {e.frm} to seat {e.to}",
            )
        case ev.OfferSettled() if e.treaty is not None:
            yield e.treaty.pair(), f"{e.treaty.kind} made, through Divan {e.treaty.through_divan}"
        case ev.TreatyExpired():
            yield e.treaty.pair(), f"{e.treaty.kind} ended"
        case ev.TreatiesDissolved():
            for t in e.treaties:
                yield t.pair(), f"{t.kind} ended (Divan {e.divan})"
        case ev.BattlesResolved():
            for b in e.betrayals:
                pair = (min(b.traitor, b.victim), max(b.traitor, b.victim))
                yield pair, f"{b.treaty.kind} broken by seat {b.traitor}"
        case _:
            return


class SystemLines:
    """Per season in this process: the system lines per pair of seats, caught up from the
    season's stream past the version last seen."""

    def __init__(self) -> None:
        self._seasons: dict[str, _Season] = {}

    def catch_up(self, season_id: str, records: list[RecordedEvent]) -> None:
        s = self._seasons.setdefault(season_id, _Season())
        for r in records:
            if r.version != s.version + 1:
                continue
            s.version = r.version
            if r.type not in WATCHED:
                continue
            at = r.metadata.at or r.recorded_at.isoformat()
            for pair, text in _said(decode_stored(r.data, r.type)):  # type: ignore[arg-type]
                line = ChatLineOut(message_id=0, kind="system", seat=None, at=at, text=text)
                s.lines.setdefault(pair, []).append(line)

    def version(self, season_id: str) -> int:
        return self._seasons.get(season_id, _Season()).version

    def of(self, season_id: str, a: int, b: int) -> list[ChatLineOut]:
        s = self._seasons.get(season_id)
        return list(s.lines.get((min(a, b), max(a, b)), [])) if s else []
