"""validate_batch refuses what it refused before it remembered the tags it checked (ADR-138):
a type that is no versioned tag, however often it comes and whatever was accepted before, and
an event id twice in one append."""

from __future__ import annotations

import itertools
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared.eventstore import model
from shared.eventstore.model import TYPE_TAG, EventMetadata, NewEvent, validate_batch

META = EventMetadata(actor="system", command_id="c")
_IDS = itertools.count(1)


def _event(type_: str, event_id: uuid.UUID | None = None) -> NewEvent:
    return NewEvent(
        event_id=event_id or uuid.UUID(int=next(_IDS)), type=type_, data=b"{}", metadata=META
    )


@given(st.lists(st.one_of(st.from_regex(TYPE_TAG), st.text(max_size=20)), max_size=8))
def test_a_type_is_accepted_exactly_when_it_is_a_versioned_tag(types):
    for type_ in [*types, *types]:  # each twice: the second look may be the remembered one
        if TYPE_TAG.match(type_):
            validate_batch("s1", 0, [_event(type_)])
        else:
            with pytest.raises(ValueError, match="not a versioned tag"):
                validate_batch("s1", 0, [_event(type_)])


def test_a_full_memory_of_tags_still_checks_every_other_type(monkeypatch):
    monkeypatch.setattr(model, "_TAGS", set())
    monkeypatch.setattr(model, "_TAGS_MAX", 1)
    validate_batch("s1", 0, [_event("a.v1")])
    validate_batch("s1", 0, [_event("b.v1")])  # not remembered, still accepted
    assert {"a.v1"} == model._TAGS
    with pytest.raises(ValueError, match="not a versioned tag"):
        validate_batch("s1", 0, [_event("b.v1 ")])


def test_an_event_id_twice_in_one_append_is_refused():
    same = uuid.UUID(int=7)
    validate_batch("s1", 0, [_event("a.v1", same)])
    with pytest.raises(ValueError, match="repeat within one append"):
        validate_batch("s1", 0, [_event("a.v1", same), _event("b.v1", same)])
