"""Every code the domain refuses a command with: one table (docs/api.md "Error codes").

A refusal is `reject(key)`, its key a code or `code.variant` (shared.domain.commands); its texts are
shared.domain.messages' lines under that key. tests/domain/test_refusals.py holds this table to
the code: every code a `reject(…)` in shared/domain gives is here and nothing else is, every
one has its texts in the catalogue and its HTTP status in shared.app.http.problem_codes.CODES.
"""

from __future__ import annotations

from typing import Final

REFUSALS: Final[tuple[str, ...]] = (
    # D-29 … D-31: creating and joining a season, its calendar and its admin
    "season_exists",
    "unknown_rules_version",
    "registration_closed",
    "registration_close_required",
    "registration_too_soon",
    "invalid_instant",
    "bad_interval",
    "not_later",
    "reason_required",
    "season_full",
    "season_cancelled",
    "memleket_taken",
    # R-15.5, R-15.2: beys' names
    "invalid_name",
    "name_reserved",
    "name_taken",
    "player_already_seated",
    # ADR-105: a lobby description reset
    "no_description",
    "already_paused",
    "not_paused",
    "not_allowed_in_mode",
    "unknown_seat",
    "wrong_phase",
    "wrong_divan",
    "divan_locked",
    "divan_not_found",
    # orders
    "unknown_province",
    "duplicate_province",
    "not_your_province",
    "missing_target",
    "not_a_neighbour",
    "bad_units",
    # spending
    "not_enough_gold",
    "sur_exists",
    "over_cap",
    "not_purchasable",
    # treaties
    "no_offer",
    "bad_partner",
    "allied_already",
    "perde_3",
    "offer_exists",
    # the vote
    "vote_self",
    "already_voted",
    # ADR-53: corrections
    "invalid_correction",
    "invalid_body",
)

# what SubmitOrders refuses with, in the order decide checks it
# (`decide._orders`, `decide.order_refusal`). The orders route's documented answers derive from it.
ORDER_REFUSALS: Final[tuple[str, ...]] = (
    "wrong_phase",
    "wrong_divan",
    "unknown_province",
    "duplicate_province",
    "not_your_province",
    "missing_target",
    "not_a_neighbour",
    "bad_units",
)

# Codes the domain has but the edge's bounds refuse first (D-27): no operation lists them.
BOUNDED_AT_THE_EDGE: Final[frozenset[str]] = frozenset({"unknown_province", "unknown_seat"})


def documented(codes: tuple[str, ...]) -> tuple[str, ...]:
    """`codes` without those the edge refuses first: what an operation documents."""
    return tuple(c for c in codes if c not in BOUNDED_AT_THE_EDGE)
