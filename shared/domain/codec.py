"""Canonical encoding of events and commands; one module-level decoder for the event union."""

from __future__ import annotations

import msgspec

from shared.domain.events import AnyEvent, Event
from shared.domain.upcast import upcast

_encoder = msgspec.json.Encoder(order="sorted")
_event_decoder = msgspec.json.Decoder(AnyEvent)


def encode(value: object) -> bytes:
    """Canonical JSON: keys sorted (int keys as strings), no spaces: equal values, equal bytes."""
    return _encoder.encode(msgspec.to_builtins(value, str_keys=True))


def decode_event(data: bytes) -> Event:
    """Decode a stored event, upcasting older tags to the current shape first."""
    return _event_decoder.decode(upcast(data))


def event_type(event: Event) -> str:
    """The stored type name: the event's versioned tag."""
    return str(event.__struct_config__.tag)
