"""The store's clock: a callable answering aware datetimes, read in UTC."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utc(moment: datetime) -> datetime:
    """Normalise a clock reading to UTC; a naive datetime is a wiring bug."""
    if moment.tzinfo is None:
        raise ValueError("the clock must return timezone-aware datetimes")
    return moment.astimezone(UTC)
