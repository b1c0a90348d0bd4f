"""Upcasters: stored events of an older tag rewritten to the current shape before decoding."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

Upcaster = Callable[[dict[str, object]], dict[str, object]]

# tag -> function returning the next version's body (its "type" included). Empty while every
# event is at its first version; a breaking change adds an entry here and a new tag.
UPCASTERS: dict[str, Upcaster] = {}


def upcast(data: bytes) -> bytes:
    """Apply the upcast chain until the tag is current; untouched bytes when nothing applies."""
    if not UPCASTERS:
        return data
    body = msgspec.json.decode(data)
    changed = False
    while isinstance(body, dict) and (step := UPCASTERS.get(str(body.get("type")))):
        body = step(body)
        changed = True
    return msgspec.json.encode(body) if changed else data
