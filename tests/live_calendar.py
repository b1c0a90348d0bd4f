"""What a test's live season is created with: a registration close an hour after `at` (R-1.3)."""

from __future__ import annotations

from datetime import datetime, timedelta

CREATED_AT = datetime.fromisoformat("2026-12-01T12:00:00+03:00")
LIVE = {"registration_closes_at": CREATED_AT + timedelta(hours=1), "at": CREATED_AT}
# The instant the in-process gateway's clock stands at unless a test gives its own: a day into
# that season (registration closed, Divan 1 ahead). The wall clock would move a live season's
# Divans under the tests (an offer sent after Divan 1's instant counts for a later Perde).
SEASON_NOW = CREATED_AT + timedelta(days=1)
