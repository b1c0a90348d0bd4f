"""Canonical encoding of events and commands; one module-level decoder for the event union."""

from __future__ import annotations

import msgspec
import msgspec.inspect as mi

from shared.domain.events import AnyEvent, Event
from shared.domain.upcast import UPCASTERS, upcast

_encoder = msgspec.json.Encoder(order="sorted")
_event_decoder = msgspec.json.Decoder(AnyEvent)


def encode(value: object) -> bytes:
    """Canonical JSON: keys sorted (int keys as strings), no spaces: equal values, equal bytes.

    An event of a type in `DIRECT` is encoded as it is: the sorted encoder writes it byte for
    byte as it writes its `to_builtins` copy, without making the copy; one in `INT_KEYED` with
    only its top level copied (ADR-176)."""
    kind = type(value)
    if kind in DIRECT:
        return _encoder.encode(value)
    keyed = INT_KEYED.get(kind)
    if keyed is not None:
        return _encoder.encode(_str_keyed(value, keyed))
    return _encoder.encode(msgspec.to_builtins(value, str_keys=True))


def _str_keyed(value: object, keyed: tuple[tuple[str, str, bool], ...]) -> dict[str, object]:
    """An event of an `INT_KEYED` type as `to_builtins` copies its top level: its tag, then
    each field under its encode name, an int-keyed dict with its keys as text (`str(int)`,
    as `str_keys` writes them); the fields' values themselves are plain (`_plain`)."""
    config = value.__struct_config__  # type: ignore[attr-defined]
    out: dict[str, object] = {config.tag_field: config.tag}
    for name, encoded, int_keys in keyed:
        field = getattr(value, name)
        out[encoded] = {str(k): v for k, v in field.items()} if int_keys else field
    return out


def _plain(t: mi.Type, seen: set[type]) -> bool:
    """Whether a value of type `t` encodes alike through `to_builtins(value, str_keys=True)`
    and directly with the sorted encoder. Both write a struct as its tag and fields (encode
    names, omit_defaults alike) sorted as a dict's keys are, and lists, tuples, str-keyed dicts
    and scalars alike; they part on a dict with other keys (the direct encoder refuses it), a
    set (the copy keeps its iteration order, the encoder sorts it) and any type not listed
    here, which are left to the copy."""
    if isinstance(t, mi.StructType):
        if t.cls in seen:
            return True
        seen.add(t.cls)
        inner: list[mi.Type] = [f.type for f in t.fields]
    elif isinstance(t, mi.UnionType):
        inner = list(t.types)
    elif isinstance(t, mi.ListType | mi.VarTupleType):
        inner = [t.item_type]
    elif isinstance(t, mi.TupleType):
        inner = list(t.item_types)
    elif isinstance(t, mi.DictType):
        inner = [t.value_type]
        if not isinstance(t.key_type, mi.StrType):
            return False
    else:
        scalars = mi.StrType | mi.IntType | mi.BoolType | mi.NoneType | mi.FloatType
        return isinstance(t, scalars | mi.LiteralType)
    return all(_plain(x, seen) for x in inner)


def _event_structs() -> list[mi.StructType]:
    union = mi.type_info(AnyEvent)
    assert isinstance(union, mi.UnionType)
    return [t for t in union.types if isinstance(t, mi.StructType)]


_EVENT_STRUCTS = _event_structs()  # inspected once, for DIRECT and INT_KEYED
# The event types whose every field is plain (`_plain`): most of a Divan's events (orders,
# spends, offers, the steps' events) but not the lock's or the resolution's int-keyed dicts.
DIRECT = frozenset(t.cls for t in _EVENT_STRUCTS if _plain(t, set()))


def _int_keyed() -> dict[type, tuple[tuple[str, str, bool], ...]]:
    """The event types left out of DIRECT only for top-level fields that are int-keyed dicts of
    plain values (the lock's orders, the resolution's private reports …), with (field, encode
    name, int-keyed) for each field; a type that omits defaults is left to the copy."""
    out = {}
    for t in _EVENT_STRUCTS:
        if t.cls in DIRECT:
            continue
        if t.array_like or t.tag_field is None or t.cls.__struct_config__.omit_defaults:
            continue
        fields = []
        for f in t.fields:
            ft = f.type
            int_keys = (
                isinstance(ft, mi.DictType)
                and isinstance(ft.key_type, mi.IntType)
                and _plain(ft.value_type, set())
            )
            if not int_keys and not _plain(ft, set()):
                break
            fields.append((f.name, f.encode_name, int_keys))
        else:
            out[t.cls] = tuple(fields)
    return out


INT_KEYED = _int_keyed()


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
