"""Canonical encoding of events and commands; one module-level decoder for the event union."""

from __future__ import annotations

import msgspec

from shared.domain.events import AnyEvent, Event
from shared.domain.upcast import UPCASTERS, upcast

_encoder = msgspec.json.Encoder(order="sorted")
_event_decoder = msgspec.json.Decoder(AnyEvent)


def encode(value: object) -> bytes:
    """Canonical JSON: keys sorted (int keys as strings), no spaces: equal values, equal bytes."""
    return _encoder.encode(msgspec.to_builtins(value, str_keys=True))


def decode_event(data: bytes) -> Event:
    """Decode a stored event, upcasting older tags to the current shape first."""
    return _event_decoder.decode(upcast(data))


def decode_stored(data: bytes, type_: str) -> Event:
    """Decode a stored event whose stored type (the store's column, an export line's `type`) is
    `type_`: only an old tag is upcast (ADR-58), so the current ones skip even the look for one.
    A type that does not match the data's own tag fails to decode, as a forged line should."""
    return _event_decoder.decode(upcast(data) if type_ in UPCASTERS else data)


def event_type(event: Event) -> str:
    """The stored type name: the event's versioned tag."""
    return str(event.__struct_config__.tag)
