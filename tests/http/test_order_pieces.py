"""ADR-145: pieces of an order's path written for fewer instructions, each held equal to what
it replaced, for any input."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from services.command.service import stamp
from shared.app.http.bodies import ParsedBody, canonical_json
from shared.domain import calendar as cal

_ZONES = st.sampled_from(
    [UTC, cal.ISTANBUL, timezone(timedelta(hours=-5)), timezone(timedelta(hours=5, minutes=30))]
)


@given(
    st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=_ZONES),
    st.booleans(),
)
def test_adr145_stamp_is_isoformat_in_istanbul(at, whole_second):
    """An event's `at` is what `at.astimezone(ISTANBUL).isoformat()` wrote, to the byte: the
    fraction left out at 0 µs, kept with its zeros otherwise, the offset +03:00."""
    if whole_second:
        at = at.replace(microsecond=0)
    assert stamp(at) == at.astimezone(cal.ISTANBUL).isoformat()


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(_JSON, st.sampled_from([None, 0, 2]))
def test_adr145_canonical_is_json_dumps_sorted(value, indent):
    """The canonical form an Idempotency-Key's request hash is taken over is what
    json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False) writes, whatever the
    body's layout; twice in a row (the encoder is built once, ADR-145)."""
    expected = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    body = json.dumps(value, indent=indent).encode()
    assert ParsedBody(body).canonical == expected.encode()
    assert canonical_json(body) == expected.encode()
