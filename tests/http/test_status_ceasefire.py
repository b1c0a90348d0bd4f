"""The season status says whether the Bayram ceasefire holds at the next Divan (R-6.7, issue 11)."""

from __future__ import annotations

from services.command.season_reads import season_status
from services.command.service import Services
from shared.app.repository.seasons import Seasons
from shared.domain import events as ev
from shared.domain.simulate import season
from shared.eventstore import EventMetadata, InMemoryEventStore
from tests.clock import StepClock

SEED, BAYRAM_DIVAN = 5, 3  # seed 5 reveals Bayram at Divan 3: Divan 4 is the ceasefire
SYSTEM = EventMetadata(actor="system")


async def test_r6_7_the_status_tells_a_ceasefire_for_the_next_divan_and_only_then() -> None:
    seasons = Seasons(InMemoryEventStore(clock=StepClock()))
    svc = Services(seasons=seasons)
    seen: dict[int, bool] = {}
    version = 0
    for step in season(SEED, 5):
        await seasons.append("cease", version, f"step/{step.divan}", step.events, SYSTEM)
        version += len(step.events)
        status = await season_status(svc, "cease")
        seen[step.divan] = status.ceasefire
        if step.divan == BAYRAM_DIVAN:
            resolved = [e for e in step.events if isinstance(e, ev.DivanResolved)]
            assert resolved[0].ceasefire_next and status.next_divan == BAYRAM_DIVAN + 1
    assert seen == {0: False, 1: False, 2: False, 3: True, 4: False, 5: False}
