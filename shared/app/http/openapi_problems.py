"""The problem+json answers in the OpenAPI document: each refusal code's body, and a typed
schema per handler naming the codes it can answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

import msgspec

from shared.domain.messages import Lang, problem_title

PROBLEM_MEDIA = "application/problem+json"


def problem_body(
    code: str, status: int, detail: str, instance: str, lang: Lang, **extra: object
) -> bytes:
    """The RFC 9457 body both APIs send: a stable `code` beside the standard members, `title`
    and `detail` in `lang` (the code in words in English; Turkish from the catalogue)."""
    body = {
        "type": f"https://seksenbir.example/problems/{code}",
        "title": problem_title(code, lang),
        "status": status,
        "code": code,
        "detail": detail,
        "instance": instance,
        **extra,
    }
    return msgspec.json.encode(body)


class ProblemBase(msgspec.Struct, kw_only=True):
    """RFC 9457 problem details; `code` is stable, `detail` readable text in the language asked
    for (Turkish by default; `Accept-Language: en` or `?lang=en`: English). Each operation's
    problems are a type of their own built on this one (`problem_type`)."""


def problem_type(name: str, codes: Sequence[str]) -> type[msgspec.Struct]:
    """The problem+json schema of an operation: RFC 9457's members and `code`, an enum of
    exactly `codes` (what the operation can answer), and the extra members those codes carry
    (CARRIES), each typed, present only when its code sends it."""
    members = sorted({m for c in codes for m in CARRIES.get(c, ())})
    fields: list[tuple[str, object] | tuple[str, object, object]] = [
        ("type", str),
        ("title", str),
        ("status", int),
        ("code", Literal.__getitem__(tuple(sorted(codes)))),
        ("detail", str),
        ("instance", str),
    ]
    for member in members:
        kind, meaning = MEMBERS[member]
        typed = Annotated[kind, msgspec.Meta(description=meaning)]  # type: ignore[valid-type]
        # UNSET: not required; the type alone (a document type, never built), so the schema
        # says `integer`, not a one-member `oneOf` of it
        fields.append((member, typed, msgspec.UNSET))
    return msgspec.defstruct(
        name,
        fields,
        kw_only=True,
        module=__name__,
        bases=(ProblemBase,),
    )


# The members a problem may carry beside RFC 9457's and `code` (docs/api.md), with their types:
# the domain's refusal details (shared.domain.decide, live, admin, corrections, fork: `reject`'s
# keywords) and the edge's (`field` and its bounds: shared.app.http.strict, problems). `CARRIES`
# says which codes carry which; an operation's problem schema declares those of its codes
# (`problem_type`). tests/http/test_problem_members.py holds both tables to every member the
# code sets and to every problem a test receives.
MEMBERS: dict[str, tuple[object, str]] = {
    "field": (
        str,
        "the refused body field as a JSON path (`$.orders[0].units`), or the path or "
        "query parameter's name (D-27)",
    ),
    "minimum": (int, "the least value `field` takes (D-27; `bad_interval`: of the interval)"),
    "maximum": (int, "the greatest value `field` takes (D-27; `bad_interval`: of the interval)"),
    "province": (int, "the plate of the province refused"),
    "target": (int, "the plate of the order's target"),
    "seat": (int, "the seat refused"),
    "memleket": (int, "the memleket asked for"),
    "free_neighbours": (
        list[int],
        "`memleket_taken`: the memleket's neighbours nobody holds yet, plates to ask for instead",
    ),
    "cost": (int, "what the purchase costs"),
    "gold": (int, "the bey's gold"),
    "divan": (
        int,
        "the Divan the refusal names: the one an order set counts for (`wrong_divan`), "
        "the one being resolved (`divan_locked`), the one not found",
    ),
    "earliest": (str, "`registration_too_soon`: the earliest close taken now (RFC 3339)"),
    "latest": (str, "`invalid_instant`: the latest close taken now (RFC 3339)"),
    "registration_closes_at": (str, "`not_later`: the current registration close (RFC 3339)"),
    "refers_to": (int, "`invalid_correction`: the season version the correction refers to"),
    "version": (
        int,
        "`invalid_correction`: the season's version now; `not_yet_projected`: the version the "
        "read waited for (`?min_version=`)",
    ),
    "projected_version": (int, "`not_yet_projected`: the version the read side is at now"),
    "reason": (str, "`receiver_refused`: url, scheme, port or address"),
    "character": (
        str,
        "`invalid_body`, `chat_text`: the character a free text may not hold, as `U+2028`",
    ),
    "limit": (
        int,
        "`receivers_full`: the most receivers an owner may have in a season; `chat_text`: the"
        " most characters or lines; `chat_rate_limited`: messages per minute",
    ),
    "length": (int, "`chat_text`: the text's length in characters"),
    "press": (str, "`press_restricted`: the season's press mode"),
    "seats": (list[int], "`computer_bey`: the computer beys' seats named"),
    "repeated": (
        int,
        "`invalid_parameter`: how many times a query parameter that takes one value was given",
    ),
}


CARRIES: dict[str, tuple[str, ...]] = {
    "unknown_field": ("field",),
    "invalid_body": ("field", "minimum", "maximum", "character"),
    "invalid_parameter": ("field", "minimum", "maximum", "repeated"),
    "forbidden": ("seat",),  # a computer bey's seat (ops reissue)
    "unknown_province": ("province",),
    "duplicate_province": ("province",),
    "not_your_province": ("province",),
    "missing_target": ("province",),
    "not_a_neighbour": ("province", "target"),
    "bad_units": ("province",),
    "not_purchasable": ("province",),
    "sur_exists": ("province",),
    "over_cap": ("province",),
    "not_enough_gold": ("cost", "gold"),
    "unknown_seat": ("seat",),
    "invalid_correction": ("seat", "maximum", "refers_to", "version"),
    "memleket_taken": ("memleket", "free_neighbours"),
    "wrong_divan": ("divan",),
    "divan_locked": ("divan",),
    "divan_not_found": ("divan",),
    "not_yet_projected": ("version", "projected_version"),
    "registration_too_soon": ("earliest",),
    "invalid_instant": ("latest",),
    "bad_interval": ("minimum", "maximum"),
    "not_later": ("registration_closes_at",),
    "receiver_refused": ("reason",),
    "receivers_full": ("limit",),
    "chat_text": ("character", "limit", "length"),
    "chat_rate_limited": ("limit",),
    "press_restricted": ("press",),
    "computer_bey": ("seats",),
    "invalid_name": ("field", "seat"),  # the body's member; a reset's seat
    "name_reserved": ("field",),
    "name_taken": ("field",),
}
