"""Every code the domain refuses a command with: one table (docs/api.md "Error codes").

A refusal is `reject(key)`, its key a code or `code.variant` (shared.domain.commands); its texts are
shared.domain.messages' lines under that key. Beside each code: the HTTP status it is answered
with and what it means (English, for the API's documents), or None for a code no HTTP answer
carries; shared.app.http.problem_codes.CODES takes them from here (ADR-115: a plain int, no HTTP
import). tests/domain/test_refusals.py holds this table to the code: every code a `reject(…)`
in shared/domain gives is here and nothing else is, every one has its texts in the catalogue.
"""

from __future__ import annotations

from typing import Final

REFUSALS: Final[dict[str, tuple[int, str] | None]] = {
    # D-29 … D-31: creating and joining a season, its calendar and its admin
    "season_exists": (409, "a season with this id exists (never answered: ids are fresh)"),
    "unknown_rules_version": None,  # ADR-43: POST /v1/seasons never names a rules version
    "registration_closed": (409, "registration is closed"),
    "registration_close_required": (422, "a live season needs registration_closes_at"),
    "registration_too_soon": (422, "the registration close is too soon (`earliest`)"),
    "invalid_instant": (422, "an instant without an offset, or a close more than a year ahead"),
    "bad_interval": (422, "divan_interval_seconds outside 2 … 86400"),
    "not_later": (422, "a postponement to an instant not later than the close"),
    "reason_required": (422, "an admin act or a correction without a reason"),
    "season_full": (409, "all 19 seats are taken"),
    "season_cancelled": (409, "the season was cancelled; it takes no command"),
    "memleket_taken": (409, "another bey has this memleket (`free_neighbours`)"),
    # R-15.5, R-15.2: beys' names
    "invalid_name": (422, "not a name: 2 … 24 letters, digits, spaces, `. - _ '` (`field`)"),
    "name_reserved": (422, "a reserved whole name or its lookalike (seat forms, Han, ops …)"),
    "name_taken": (409, "another bey of the season has this name or its lookalike"),
    "player_already_seated": (409, "the player holds a seat of this season already"),
    # ADR-105: a lobby description reset
    "no_description": (409, "the season has no lobby description to reset (ADR-105)"),
    "already_paused": (409, "the season is paused already"),
    "not_paused": (409, "the season is not paused"),
    "not_allowed_in_mode": (403, "not in this season's mode (Divan requests: trial only)"),
    "unknown_seat": (422, "no bey in this seat"),
    "wrong_phase": (409, "the season's phase does not take this"),
    "wrong_divan": (409, "not the Divan this counts for; `divan` names that one"),
    "divan_locked": (409, "a Divan is being resolved (Retry-After)"),
    "divan_not_found": (404, "a Divan outside 1 … 16, or not resolved yet"),
    # orders
    "unknown_province": (422, "no province with this plate"),
    "duplicate_province": (422, "two orders for one province (`province`)"),
    "not_your_province": (403, "the province is another bey's"),
    "missing_target": (422, "an advance or support without a target"),
    "not_a_neighbour": (422, "the target is not a neighbour"),
    "bad_units": (422, "an advance or support with fewer than 1 unit (R-4.2)"),
    # spending
    "not_enough_gold": (422, "not enough gold (`cost`, `gold`)"),
    "sur_exists": (422, "the province has a sur"),
    "over_cap": (422, "the province would hold more than 12 units"),
    "not_purchasable": (422, "not an unowned neighbour with milis at most 2"),
    # treaties
    "no_offer": (422, "no such offer"),
    "bad_partner": (422, "an offer to oneself"),
    "allied_already": (422, "a pact with an ally"),
    "perde_3": (422, "no treaties in perde 3"),
    "offer_exists": (409, "an offer between these beys is open"),
    # the vote
    "vote_self": (422, "a vote for oneself"),
    "already_voted": (409, "this bey has voted"),
    # ADR-53: corrections
    "invalid_correction": (422, "a correction that is out of bounds or changes nothing (ADR-53)"),
    "invalid_body": (422, "the body does not match its schema (`field`, bounds: D-27)"),
}

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
