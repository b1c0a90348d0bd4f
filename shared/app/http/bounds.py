"""D-27: every integer either API takes, and its bounds, in one table.

A request's integers are strict JSON integers (never a string, a float such as 2.0, or a
boolean) within these bounds; the body types (services/command/schemas.py) and the path
parameters of both APIs are annotated from this table, so msgspec refuses anything else while
it decodes (shared.app.http.strict), and the OpenAPI document states the same bounds.

- plate 1 … 81: memleket, order province and target, spend province (R-2.1);
- seat 1 … 19: offer `to`, vote `candidate`, path `to`, `frm`, `seat` (R-1.4);
- units 0 … 12: order `units`, at most a province's cap (R-2.5); 0, the default, is "not
  given" (a hold); an advance or support with 0 is the rule's own `bad_units` (R-4.2);
- divan 1 … 17: order set `divan`, `POST /divans` `divan` (17, "the next" after Divan 16, is
  the phase's to refuse);
- read divan 1 … 16: path `divan` of all orders; battles answer 404 `divan_not_found` outside
  it or before it is resolved (issue 11).
The full table, with reasons, is D-27 in docs/rules-decisions.md.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Final

import msgspec
import msgspec.inspect as mi
from litestar.params import Parameter, ParameterKwarg

from shared.domain.map import MAX_UNITS, PLATES
from shared.domain.state import DIVANS, SEATS

# The largest integer a browser's JSON.parse holds exactly (2^53 − 1, issue 11): the bound of
# every unbounded counter a request may carry (an id, a version).
JSON_SAFE_INTEGER: Final = 2**53 - 1


class Bound(msgspec.Struct, frozen=True):
    low: int
    high: int
    what: str


BOUNDS: Final = {
    "plate": Bound(1, len(PLATES), "a province's plate (R-2.1)"),
    "seat": Bound(1, SEATS, "a seat (R-1.4)"),
    "units": Bound(0, MAX_UNITS, "units; 0 means not given (R-2.5, R-4.2)"),
    "divan": Bound(1, DIVANS + 1, "a Divan; 17 is the one after the last (R-1.1)"),
    "read_divan": Bound(1, DIVANS, "a Divan (R-1.1)"),
    "message": Bound(1, JSON_SAFE_INTEGER, "a chat message's id (its chat version, issue 24)"),
}


# Which bound each integer field and path parameter of the API has, by its name.
FIELDS: Final = {
    "memleket": "plate",
    "province": "plate",
    "target": "plate",
    "units": "units",
    "divan": "divan",
    "to": "seat",
    "frm": "seat",
    "candidate": "seat",
    "seat": "seat",
    "read_to": "message",
}


# ... and each path parameter.
PATH_FIELDS: Final = {
    "to": "seat",
    "frm": "seat",
    "seat": "seat",
    "divan": "read_divan",
    "plate": "plate",
    "message_id": "message",
}


def bound_of(field: str, *, path: bool = False) -> dict[str, int]:
    """The problem members naming a field's bounds (`minimum`, `maximum`), if it has any:
    `field` is a body field's JSON path (`$.orders[0].units`) or a path parameter's name."""
    name = field.rsplit(".", 1)[-1]
    table = PATH_FIELDS if path else FIELDS
    if name not in table:
        return {}
    b = BOUNDS[table[name]]
    return {"minimum": b.low, "maximum": b.high}


_STEP = re.compile(r"\.(?P<name>[^.\[]+)|\[(?P<index>\d+)\]")


def _unwrap(t: mi.Type) -> list[mi.Type]:
    while isinstance(t, mi.Metadata):
        t = t.type
    if isinstance(t, mi.UnionType):
        return [u for member in t.types for u in _unwrap(member)]
    return [t]


def _step(t: mi.Type, name: str | None) -> list[mi.Type]:
    if name is not None and isinstance(t, mi.StructType):
        return [f.type for f in t.fields if f.encode_name == name]
    if name is None and isinstance(t, mi.ListType | mi.VarTupleType | mi.SetType):
        return [t.item_type]
    return []


def bounds_in(target: Any, where: str) -> dict[str, int] | None:
    """The bounds (`minimum`, `maximum`) of the integer at JSON path `where` (`$.orders[0].units`)
    of the body type `target`, read from the type's own constraints: the bounds the value was
    refused for, whatever the field is called (a fork's `divan` is 0 … 15, an order set's
    1 … 17). {} where the path leads to no bounded integer; None where the type cannot be
    walked (the caller then falls back on the names, `bound_of`)."""
    try:
        types = _unwrap(mi.type_info(target))
    except (TypeError, ValueError):
        return None
    for m in _STEP.finditer(where.removeprefix("$")):
        types = [u for t in types for s in _step(t, m.group("name")) for u in _unwrap(s)]
    found = set()
    for t in types:
        if isinstance(t, mi.IntType):
            low = t.ge if t.ge is not None else (t.gt + 1 if t.gt is not None else None)
            high = t.le if t.le is not None else (t.lt - 1 if t.lt is not None else None)
            if low is not None and high is not None:
                found.add((low, high))
    if len(found) != 1:
        return {}
    low, high = found.pop()
    return {"minimum": low, "maximum": high}


def query_bound(handler: Any, name: str) -> dict[str, int]:
    """The bounds (`minimum`, `maximum`) of the query parameter the route `handler` declares
    under `name` (its name in the URL): its QueryParameter's `ge` and `le`, else its type's
    (a list's items: explain's `?province=`, each a Plate); {} for none (D-27)."""
    for field_name, field in handler.parsed_fn_signature.parameters.items():
        kwarg = field.kwarg_definition
        if (getattr(kwarg, "name", None) or field_name) != name:
            continue
        low, high = getattr(kwarg, "ge", None), getattr(kwarg, "le", None)
        if isinstance(low, int) and isinstance(high, int):
            return {"minimum": low, "maximum": high}
        return bounds_in(field.annotation, "$[0]") or bounds_in(field.annotation, "$") or {}
    return {}


def _meta(name: str, example: int) -> msgspec.Meta:
    b = BOUNDS[name]
    return msgspec.Meta(
        ge=b.low,
        le=b.high,
        description=f"{b.what}: an integer {b.low} … {b.high} (D-27)",
        examples=[example],
    )


Plate = Annotated[int, _meta("plate", 6)]
Seat = Annotated[int, _meta("seat", 2)]
Units = Annotated[int, _meta("units", 2)]
DivanNo = Annotated[int, _meta("divan", 1)]


def path_bound(name: str) -> ParameterKwarg:
    """A path parameter with its bounds: outside them, 422 `invalid_parameter` (D-27)."""
    b = BOUNDS[name]
    kwarg: ParameterKwarg = Parameter(
        ge=b.low, le=b.high, description=f"{b.what}: an integer {b.low} … {b.high} (D-27)"
    )
    return kwarg


SeatPath = Annotated[int, path_bound("seat")]
PlatePath = Annotated[int, path_bound("plate")]  # a memleket's plate, 1 … 81
# A Divan in a read path (all orders): 1 … 16. Battles keep their own 404 `divan_not_found`
# for a Divan that does not exist yet (issue 11), so they take a plain int.
ReadDivanPath = Annotated[int, path_bound("read_divan")]
MessagePath = Annotated[int, path_bound("message")]  # a chat message (issue 24)
Message = Annotated[int, _meta("message", 1)]


def choices_in(target: Any, where: str) -> list[str]:
    """The values the field at JSON path `where` of the body type `target` may take, when it
    is one of a few (a Literal or an Enum: an order's kind, a treaty's, an answer); else []."""
    try:
        types = _unwrap(mi.type_info(target))
    except (TypeError, ValueError):
        return []
    for m in _STEP.finditer(where.removeprefix("$")):
        types = [u for t in types for s in _step(t, m.group("name")) for u in _unwrap(s)]
    found: list[str] = []
    for t in types:
        if isinstance(t, mi.LiteralType):
            found += [str(v) for v in t.values if str(v) not in found]
        elif isinstance(t, mi.EnumType):
            found += [str(e.value) for e in t.cls if str(e.value) not in found]
    return found
