"""An event version changed and the recorded fixture season still replays (issue 13, ADR-58).

`calendar_set` went from v1 (the state's Calendar struct stored whole under `calendar`) to v2
(the schedule in the event's own fields). tests/fixtures/season_live_3_divans.jsonl was recorded
with v1 and is left as it is: its chain is checked over the stored bytes (ADR-52), and only then
is each event decoded, a v1 body upcast to v2 on read (shared/domain/upcast.py). Newly written
calendars are v2; a season holding both still exports, verifies and (tests/integration/
test_audit_cli.py) imports.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from shared.app.ops.export import export_lines, to_new
from shared.app.ops.export_check import check
from shared.app.ops.export_read import parse
from shared.app.repository.seasons import Seasons
from shared.domain import codec, upcast
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.evolve import fold
from shared.domain.lifecycle import run_divan
from shared.domain.simulate import must
from shared.domain.state import SeasonState
from shared.eventstore import EventMetadata, InMemoryEventStore, RecordedEvent, data_digest
from shared.eventstore.hashing import verify_chain
from tests.audit.test_fixture_season import FIXTURE, HEAD
from tests.live_calendar import LIVE

SYSTEM = EventMetadata(actor="system")
TZ = "+03:00"


def fixture_records() -> list[RecordedEvent]:
    with FIXTURE.open("rb") as f:
        return parse(f).records


def test_adr_58_the_fixture_holds_calendar_set_v1_as_stored_and_decodes_it_as_v2() -> None:
    """The two calendars of the fixture are stored v1 bytes (`calendar` nested); decoded they
    are v2 events with the same schedule, the first provisional, the second final."""
    records = [r for r in fixture_records() if r.type.startswith("calendar_set.")]
    assert [r.type for r in records] == ["calendar_set.v1", "calendar_set.v1"]
    bodies = [msgspec.json.decode(r.data) for r in records]
    assert all("calendar" in b and b["type"] == "calendar_set.v1" for b in bodies)
    decoded = [codec.decode_event(r.data) for r in records]
    assert all(isinstance(e, ev.CalendarSet) for e in decoded)
    assert [codec.event_type(e) for e in decoded] == ["calendar_set.v2", "calendar_set.v2"]
    first, final = decoded
    assert isinstance(first, ev.CalendarSet) and isinstance(final, ev.CalendarSet)
    assert (first.reason, first.provisional) == ("created", True)
    assert (final.reason, final.provisional) == ("registration_closed", False)
    assert final.interval_seconds is None and len(final.divans) == 16
    assert final.registration_closes_at == datetime.fromisoformat(f"2026-12-01T13:00:00{TZ}")
    assert final.divans[0] == datetime.fromisoformat(f"2026-12-08T21:00:00{TZ}")
    assert final.kurultay_closes_at == datetime.fromisoformat(f"2027-01-30T21:00:00{TZ}")
    # what the fold reads is the state's Calendar, as v1 gave it
    v1_calendar = bodies[1]["calendar"]
    assert final.calendar == msgspec.convert(v1_calendar, type(final.calendar))


def test_adr_58_without_the_upcaster_the_recorded_season_no_longer_decodes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The upcaster is what keeps the fixture readable: with the chain emptied, the v1 tag is
    unknown to today's union and decoding the recorded calendar fails."""
    monkeypatch.setattr(upcast, "UPCASTERS", {})
    monkeypatch.setattr(upcast, "_NEEDLES", ())
    stored = next(r for r in fixture_records() if r.type == "calendar_set.v1")
    with pytest.raises(msgspec.ValidationError):
        codec.decode_event(stored.data)


def test_adr_58_the_chain_covers_the_stored_bytes_and_upcasting_rewrites_none() -> None:
    """ADR-52: the chain is over each event's stored data digest; the v1 bytes are what the
    fixture's head was computed over, so they verify as they are. Re-encoding the upcast event
    gives other bytes (v2): had anything rewritten the stored data, the chain would break.
    A v2 body goes through `upcast` untouched (the same object, no second parse)."""
    records = fixture_records()
    assert verify_chain(records, chain=2).hex() == HEAD
    stored = next(r for r in records if r.type == "calendar_set.v1")
    rewritten = codec.encode(codec.decode_event(stored.data))
    assert rewritten != stored.data and b"calendar_set.v2" in rewritten
    assert data_digest(rewritten) != data_digest(stored.data)
    assert upcast.upcast(rewritten) is rewritten
    other = next(r for r in records if r.type == "divan_resolved.v1")
    assert upcast.upcast(other.data) is other.data


def test_adr_58_a_new_calendar_is_written_as_v2_in_its_own_fields() -> None:
    """Newly written events use v2: a live season's creation stores `calendar_set.v2`, with
    no nested `calendar`."""
    _, created = must(SeasonState(), c.CreateSeason(season_id="s", seed=1, mode="live", **LIVE))
    calendar = next(e for e in created if isinstance(e, ev.CalendarSet))
    body = msgspec.json.decode(codec.encode(calendar))
    assert body["type"] == "calendar_set.v2" and "calendar" not in body
    assert set(body) == {
        "type",
        "registration_closes_at",
        "divans",
        "kurultay_closes_at",
        "interval_seconds",
        "provisional",
        "reason",
    }


async def mixed_records() -> list[RecordedEvent]:
    """The fixture season as stored (its calendars v1), continued today: paused and resumed by
    ops after Divan 3 (the resume's moved calendar written as v2) and Divan 4 held at its new
    instant. One stream, one chain, both versions of calendar_set."""

    records = fixture_records()
    season_id = "fixture-live"
    store = InMemoryEventStore(clock=lambda: datetime(2026, 12, 12, tzinfo=UTC))
    await store.append(season_id, 0, to_new(records))
    seasons = Seasons(store)
    loaded = await seasons.load(season_id)
    state, version = loaded.state, loaded.version
    assert state.calendar is not None and state.divan == 3
    pause_at = state.calendar.at(3) + timedelta(hours=2)
    for act, at in (("pause", pause_at), ("resume", pause_at + timedelta(days=1))):
        done = decide(state, c.SeasonAdmin(act=act, reason="upcast test", by="ops", at=at))
        assert isinstance(done, list), done
        version += len(await seasons.append(season_id, version, act, done, SYSTEM))
        state = fold(done, state)
    assert state.calendar is not None
    divan = run_divan(state, now=state.calendar.at(4))
    await seasons.append(season_id, version, "divan/4", divan, SYSTEM)
    return await store.read_stream(season_id)


def mixed_season() -> list[RecordedEvent]:
    return asyncio.run(mixed_records())


def test_adr_58_a_season_mixing_v1_and_v2_calendars_exports_and_verifies() -> None:
    """The stream holds calendar_set.v1 (stored before the change) and .v2 (written after):
    its export's chain holds over the stored bytes and every Divan, Divan 4 after the v2
    calendar included, re-runs to its record."""
    records = mixed_season()
    types = [r.type for r in records if r.type.startswith("calendar_set.")]
    assert types == ["calendar_set.v1", "calendar_set.v1", "calendar_set.v2"]
    old = fixture_records()
    kept = [(r.type, r.data, r.hash) for r in records[: len(old)]]
    assert kept == [(r.type, r.data, r.hash) for r in old]  # the old bytes and hashes, untouched
    lines = list(export_lines("fixture-live", records, records[-1].hash))
    export = parse(lines)
    verdict = check(export)
    assert verdict.ok and verdict.complete, verdict.as_json(True)
    assert verdict.state is not None and verdict.state.divan == 4
    assert verdict.head == records[-1].hash.hex()


def test_adr_58_a_stored_type_decides_whether_to_upcast() -> None:
    """codec.decode_stored (the store's and the export's read path) upcasts a record stored
    under an old type and never looks into one of a current type; a line whose type does not
    match its data's old tag fails to decode rather than pass as another event."""
    records = fixture_records()
    stored = next(r for r in records if r.type == "calendar_set.v1")
    assert isinstance(codec.decode_stored(stored.data, stored.type), ev.CalendarSet)
    assert all(codec.decode_stored(r.data, r.type) == codec.decode_event(r.data) for r in records)
    with pytest.raises(msgspec.ValidationError):
        codec.decode_stored(stored.data, "divan_held.v1")
