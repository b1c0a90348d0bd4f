"""The one retry loop of every writer (shared.app.repository.seasons.retrying, ADR-80): the command side,
a Divan's resolution (R-12.3: a conflict decides again on the winner's state) and the timed
closes (R-1.4, R-10.4) all run their load → decide → append attempt through it."""

from __future__ import annotations

import pytest

from shared.app.repository.seasons import DecideAgain, retrying
from shared.eventstore import ConcurrencyError

CONFLICT, AGAIN, DONE = "conflict", "again", "done"
# (retries, what each attempt does, attempts run, answer or None for ConcurrencyError, waits)
CASES = [
    (5, [DONE], 1, DONE, 0),
    (5, [CONFLICT, CONFLICT, DONE], 3, DONE, 2),
    (5, [AGAIN, DONE], 2, DONE, 0),  # decided again at once: no wait
    (2, [CONFLICT, AGAIN, DONE], 3, DONE, 1),
    (2, [CONFLICT, CONFLICT, CONFLICT, DONE], 3, None, 3),  # retries + 1 attempts, no more
    (0, [AGAIN, DONE], 1, None, 0),
]


@pytest.mark.parametrize(("retries", "plan", "runs", "answer", "waits"), CASES)
async def test_retrying_runs_retries_plus_one_attempts_and_waits_only_after_a_conflict(
    retries: int, plan: list[str], runs: int, answer: str | None, waits: int
) -> None:
    ran: list[int] = []
    waited: list[int] = []

    async def attempt(n: int) -> str:
        ran.append(n)
        match plan[n]:
            case "conflict":
                raise ConcurrencyError("s", n, n + 1)
            case "again":
                raise DecideAgain
        return DONE

    async def on_conflict(n: int) -> None:
        waited.append(n)

    if answer is None:
        with pytest.raises(ConcurrencyError):
            await retrying("s", retries, attempt, on_conflict=on_conflict)
    else:
        assert await retrying("s", retries, attempt, on_conflict=on_conflict) == answer
    assert ran == list(range(runs))
    assert len(waited) == waits


async def test_an_error_other_than_a_conflict_is_not_retried() -> None:
    ran: list[int] = []

    async def attempt(n: int) -> str:
        ran.append(n)
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        await retrying("s", 5, attempt)
    assert ran == [0]
