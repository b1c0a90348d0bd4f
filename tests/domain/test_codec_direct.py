"""ADR-176: `codec.encode` writes an event without its `to_builtins` copy where the two write
the same bytes; every stored byte stays what the copy made (the golden digests in
test_equivalence.py and test_rules_versions.py pin the seasons' bytes as well)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from shared.app.ops.export_read import parse
from shared.domain import codec
from shared.domain import events as ev
from shared.domain.events import EVENT_TYPES
from shared.domain.simulate import season
from shared.domain.state import RULES_VERSIONS, Offer, Order

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "season_live_3_divans.jsonl"
_copying = msgspec.json.Encoder(order="sorted")


def copied(value: object) -> bytes:
    """The encoding as it was before ADR-176: always through the builtins copy."""
    return _copying.encode(msgspec.to_builtins(value, str_keys=True))


def corpus() -> list[ev.Event]:
    """Every event of trial seasons of both rules versions (Kurultay included) and of the
    recorded live season (its calendar, deadlines and held Divans carry datetimes)."""
    events = [
        e
        for rules in RULES_VERSIONS
        for seed in (1, 2, 3)
        for step in season(seed, rules_version=rules)
        for e in step.events
    ]
    with FIXTURE.open("rb") as f:
        events += [codec.decode_event(r.data) for r in parse(f).records]
    return events


def test_adr_176_every_event_encodes_as_its_builtins_copy_did() -> None:
    events = corpus()
    kinds = {type(e) for e in events}
    assert {ev.OrdersSubmitted, ev.DivanLocked, ev.DivanResolved, ev.KurultayHeld} <= kinds
    assert {ev.RegistrationClosed, ev.CalendarSet, ev.DivanHeld} <= kinds
    for e in events:
        assert codec.encode(e) == copied(e), type(e).__name__


def test_adr_176_an_int_keyed_dict_s_keys_are_sorted_as_text() -> None:
    """Seat 10 before seat 2, as the copy's text keys sort: not by the ints."""
    order = (Order(5, "advance", 6, 2),)
    locked = ev.DivanLocked(
        divan=3, orders={2: order, 10: (), 7: order}, offers=(Offer("pact", 2, 7),)
    )
    data = codec.encode(locked)
    assert data == copied(locked)
    assert data.index(b'"10"') < data.index(b'"2"') < data.index(b'"7"')


@pytest.mark.parametrize("kind", EVENT_TYPES, ids=lambda t: t.__name__)
def test_adr_176_each_event_type_is_written_directly_only_where_the_copy_adds_nothing(
    kind: type[ev.Event],
) -> None:
    """A type with int-keyed dicts at its top level is written with those keys as text, each
    of its fields listed (none omitted by default: the copy writes every field)."""
    config = kind.__struct_config__
    if kind in codec.DIRECT:
        assert kind not in codec.INT_KEYED
    elif kind in codec.INT_KEYED:
        assert not config.omit_defaults and not config.array_like
        names = [name for name, _, _ in codec.INT_KEYED[kind]]
        assert names == list(kind.__struct_fields__)


def test_adr_176_a_divan_s_events_take_the_direct_paths() -> None:
    for hot in (ev.OrdersSubmitted, ev.MercenariesHired, ev.BattlesResolved, ev.ProductionApplied):
        assert hot in codec.DIRECT
    assert {ev.DivanLocked, ev.DivanResolved} <= set(codec.INT_KEYED)
    assert ev.CalendarSet not in codec.DIRECT and ev.CalendarSet not in codec.INT_KEYED
