"""ADR-145: pieces of an order's path written for fewer instructions, each held equal to what
it replaced, for any input."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from services.command.service import stamp
from shared.app.http.bodies import DuplicateKey, ParsedBody, canonical_json, unique_pairs
from shared.domain import calendar as cal
from tests.http.support import ANKARA, ISTANBUL, Api, assert_problem, create_trial

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


def _loaded(body: bytes) -> tuple[str, object]:
    """What ParsedBody read before ADR-145: json.loads with unique_pairs, or its refusal."""
    try:
        return "value", json.loads(body, object_pairs_hook=unique_pairs)
    except DuplicateKey as repeated:
        return "repeated", repeated.key
    except (ValueError, RecursionError):
        return "refused", None


def _parsed(body: bytes) -> tuple[str, object]:
    parsed = ParsedBody(body)
    if parsed.repeated is not None:
        return "repeated", parsed.repeated
    if parsed._canonical is not None:  # the body itself: no JSON value (else made when asked)
        return "refused", None
    return "value", parsed.value


_PADDING = st.sampled_from(["", " ", "\n", "\t \r\n", "\u00a0", "x", "{}", "\x00"])
_CODECS = st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32-be"])


@given(_JSON, _PADDING, _PADDING, _CODECS, st.booleans())
def test_adr145_a_body_parses_as_json_loads_parsed_it(value, before, after, codec, twice):
    """ParsedBody's parse (the C scanner called directly, UTF-8 known for a body opening
    with `{`) finds what json.loads(body, object_pairs_hook=unique_pairs) found: the same
    value, the same repeated key, or a refusal, for any layout, padding and encoding."""
    text = json.dumps(value)
    if twice and text.startswith("{") and text != "{}":
        text = text[:-1] + ', "k": 1, "k": 2}'  # a key named twice
    body = (before + text + after).encode(codec, "surrogatepass")
    assert _parsed(body) == _loaded(body)


# any character, a lone surrogate too (st.characters() never draws one)
_ANY_CHARACTER = st.characters() | st.integers(0xD800, 0xDFFF).map(chr)


@given(st.text(_ANY_CHARACTER, max_size=8), st.booleans())
def test_a_canonical_form_exists_for_any_text_a_body_holds(text, raw):
    """Probe (session 23): a string with a lone surrogate (`"\\ud800"`, or its raw bytes, which
    the stdlib's decoder reads with "surrogatepass") had no canonical form: encoding it as UTF-8
    raised, and a keyed request answered 500. Any string has one: json.dumps's sorted form of
    what json.loads read, its lone surrogates as their raw bytes."""
    body = (
        json.dumps({"x": text}, ensure_ascii=False).encode("utf-8", "surrogatepass")
        if raw
        else json.dumps({"x": text}).encode()
    )
    expected = json.dumps(
        json.loads(body), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    assert ParsedBody(body).canonical == expected.encode("utf-8", "surrogatepass")


@given(st.binary(max_size=40))
def test_adr145_any_bytes_parse_as_json_loads_parsed_them(body):
    assert _parsed(body) == _loaded(body)


async def test_adr145_a_keyed_command_leaves_no_flight_behind(memory_api: Api) -> None:
    """The key's in-flight entry (no longer a contextmanager, ADR-145) is taken while the
    command runs and given back however it ends: answered, refused and stored, replayed; the
    same key is then answered, never 409 `idempotency_key_in_flight`."""
    bey = await create_trial(memory_api.client)
    flights = memory_api.app.state.services.in_flight
    hold = {"orders": [{"province": ANKARA, "kind": "hold"}]}
    foreign = {"orders": [{"province": ISTANBUL, "kind": "hold"}]}  # not the bey's: refused
    for key, body in (("ok", hold), ("ok", hold), ("no", foreign), ("no", foreign)):
        answer = await memory_api.client.post(bey.url("/orders"), headers=bey.auth(key), json=body)
        assert answer.status_code != 409, answer.text
        assert flights == set()
    flights.add((f"{bey.season_id}:{bey.seat}", "held"))
    held = await memory_api.client.post(bey.url("/orders"), headers=bey.auth("held"), json=hold)
    assert_problem(held, 409, "idempotency_key_in_flight")
    assert flights == {(f"{bey.season_id}:{bey.seat}", "held")}
