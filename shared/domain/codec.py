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
    It trusts `type_` to be the data's own tag, as the store writes both from one event;
    `decode_checked` is for bytes that may be forged."""
    return _event_decoder.decode(upcast(data) if type_ in UPCASTERS else data)


class _Tagged(msgspec.Struct):
    type: str


_tag_decoder = msgspec.json.Decoder(_Tagged)


def decode_checked(data: bytes, type_: str) -> Event:
    """`decode_stored` for a checker of bytes from outside (an export, a stored stream under
    verification): ValueError unless `type_` is the data's own tag and the bytes are exactly
    the canonical encoding the store writes (`encode`), so one event has one byte string and
    the chain over the bytes pins the event. An old tag's bytes (an upcast type) were written
    by an older encoder; only their tag is checked."""
    event = decode_stored(data, type_)
    own = _tag_decoder.decode(data).type if type_ in UPCASTERS else event_type(event)
    if own != type_:
        raise OtherType(type_, own)
    if type_ not in UPCASTERS and encode(event) != data:
        raise NotCanonical()
    return event


class OtherType(ValueError):
    """`decode_checked`: a stored type that is not the data's own tag (a relabelled event)."""

    def __init__(self, stored: str, own: str) -> None:
        super().__init__(f"the line's type is {stored!r}, its data's own type {own!r}")
        self.stored = stored
        self.own = own


class NotCanonical(ValueError):
    """`decode_checked`: bytes that decode but are not the canonical encoding (`encode`)."""

    def __init__(self) -> None:
        super().__init__("the data is not the canonical encoding of its event (codec.encode)")


def event_type(event: Event) -> str:
    """The stored type name: the event's versioned tag."""
    return str(event.__struct_config__.tag)
