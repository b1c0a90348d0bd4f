"""The tests' injected clock, importable from processes the tests spawn (conftest is not)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class StepClock:
    """An injected clock: starts at a fixed instant and moves 1 ms per reading."""

    def __init__(self, start: datetime = datetime(2025, 3, 4, 18, 0, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta
