"""The bounds of the numbers events carry, declared once on their msgspec types.

Every decode of an event (the store's reads, an export's lines, a stream under verification)
checks them as it builds the value, so a forged record that is re-chained (its digests and
links hold) still cannot seat a bey at seat 25 or on memleket 0, or give it a negative or
astronomical gold: msgspec refuses it with the field's path (`$.seat`), and the edge says which
event and field (docs/export.md "Bounds"). Construction in code is not checked (msgspec checks
on decode only); the domain's own values are within these by the rules.

The bounds are the rules' (R-1.1 seats and Divans, R-2.1 plates); amounts (units, gold, counts)
have no rule's maximum beside R-2.5's 12 for an owned province (milis reaches 17), so theirs is a
ceiling far above any season's (none reaches three digits of units or four of gold) that still
refuses what a bigint or a JSON reader would choke on.
"""

from __future__ import annotations

from typing import Annotated, Final

from msgspec import Meta

SEATS: Final = 19
DIVANS: Final = 16
LAST_PLATE: Final = 81  # plate codes 1 … 81
MAX_AMOUNT: Final = 99_999  # units, gold, strengths, scores: far above any season's

Seat = Annotated[int, Meta(ge=1, le=SEATS)]
Plate = Annotated[int, Meta(ge=1, le=LAST_PLATE)]
DivanNo = Annotated[int, Meta(ge=1, le=DIVANS)]
# the Divans a season has resolved (0: none yet; a fork's source, a correction's "after")
DivanCount = Annotated[int, Meta(ge=0, le=DIVANS)]
# a treaty's last Divan, a Hain badge's: a Divan, possibly past the last one (it then outlasts
# the season); twice the season is far beyond any
DivanThrough = Annotated[int, Meta(ge=0, le=2 * DIVANS)]
Amount = Annotated[int, Meta(ge=0, le=MAX_AMOUNT)]  # units, gold, counts: never negative
Delta = Annotated[int, Meta(ge=-MAX_AMOUNT, le=MAX_AMOUNT)]  # a change of gold
Die = Annotated[int, Meta(ge=0, le=2)]  # the fate die is 0, 1 or 2
Percent = Annotated[int, Meta(ge=0, le=100)]
# a stream version (a bigint, and the chain's 8-byte version field)
Version = Annotated[int, Meta(ge=0, le=2**63 - 1)]
Seed = Annotated[int, Meta(ge=0, le=2**63 - 1)]  # a 64-bit seed, 0 … 2^63 − 1
# the report versions a season can name (state.REPORT_VERSIONS; tests/audit/test_event_bounds.py)
ReportVersion = Annotated[int, Meta(ge=1, le=5)]
# a compressed calendar's interval (shared/domain/calendar.py: MIN_ … MAX_INTERVAL_SECONDS)
Interval = Annotated[int, Meta(ge=2, le=86_400)]
