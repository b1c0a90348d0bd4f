"""Upcasters: stored events of an older tag rewritten to the current shape before decoding.

Upcasting happens on read, after the hash chain was checked over the stored bytes (ADR-52):
the bytes in the store and in an export are never rewritten, only the decoded value changes
(ADR-58). An event of the current tag decodes untouched (a substring test, no second parse).
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

Upcaster = Callable[[dict[str, object]], dict[str, object]]


def calendar_set_v1(body: dict[str, object]) -> dict[str, object]:
    """calendar_set.v1 -> .v2 (ADR-58): v1 held the state's Calendar struct under `calendar`;
    v2 holds the schedule in its own fields. Nothing is invented: every v2 field is a v1 one
    (a v1 `calendar` without `interval_seconds` or `provisional` had their defaults)."""
    calendar = body["calendar"]
    if not isinstance(calendar, dict):  # worded as msgspec words its own (export_read reads it)
        got = {list: "array", type(None): "null"}.get(type(calendar), type(calendar).__name__)
        raise msgspec.ValidationError(f"Expected `object`, got `{got}` - at `$.calendar`")
    return {
        "type": "calendar_set.v2",
        "registration_closes_at": calendar["registration_closes_at"],
        "divans": calendar["divans"],
        "kurultay_closes_at": calendar["kurultay_closes_at"],
        "interval_seconds": calendar.get("interval_seconds"),
        "provisional": calendar.get("provisional", False),
        "reason": body.get("reason", "created"),
    }


# tag -> function returning the next version's body (its "type" included). A breaking change
# adds an entry here and a new tag (STYLE.md); chains run until the tag is current.
UPCASTERS: dict[str, Upcaster] = {
    "calendar_set.v1": calendar_set_v1,
}
# The stored bytes are canonical JSON (codec.encode: sorted keys, no spaces): an old tag shows
# as these bytes. A match is only a hint (a nested object may hold a "type" too): the decoded
# body's own "type" decides.
_NEEDLES = tuple(b'"type":"' + tag.encode() + b'"' for tag in UPCASTERS)


def upcast(data: bytes) -> bytes:
    """Apply the upcast chain until the tag is current; untouched bytes when nothing applies."""
    for needle in _NEEDLES:  # a loop, not any(): no generator on every decode
        if needle in data:
            break
    else:
        return data
    body = msgspec.json.decode(data)
    changed = False
    while isinstance(body, dict) and (step := UPCASTERS.get(str(body.get("type")))):
        try:
            body = step(body)
        except KeyError as exc:  # bytes that were never such an event: a decode error
            where = "$" if exc.args[0] == "calendar" else "$.calendar"
            raise msgspec.ValidationError(
                f"Object missing required field `{exc.args[0]}` - at `{where}`"
            ) from None
        changed = True
    return msgspec.json.encode(body) if changed else data
