"""What each command can answer besides its 2xx, one list per command: the routes declare
them (shared.app.http.openapi.answers) and tests/http/test_declared_refusals.py holds them to the
domain's refusals."""

from __future__ import annotations

from shared.app.http.openapi import (
    APPEND,
    BEY_AUTH,
    EVERY,
    KEY,
    RATE,
    STORE,
)
from shared.domain.admin import ADMIN_ACTS, ADMIN_REFUSALS
from shared.domain.refusals import ORDER_REFUSALS, documented

# What each command can answer besides its 2xx: the edge's groups it passes through
# (shared.app.http.openapi) and the domain's refusals of the command it decides
# (shared/domain/decide.py), in the served document and docs/api.md ("Answers per operation").
# Codes the domain has but the edge's bounds keep out (unknown_province, unknown_seat: D-27)
# are not listed. A bey command: its token, the season, its Idempotency-Key, its append.
COMMAND = (EVERY, RATE, BEY_AUTH, STORE, KEY, APPEND, "season_cancelled")  # a cancelled live season
ORDERS: tuple[str, ...] = documented(ORDER_REFUSALS)  # the domain's table (shared.domain.refusals)
SPEND: tuple[str, ...] = (
    "wrong_phase",
    "divan_locked",
    "not_your_province",
    "not_purchasable",
    "sur_exists",
)
SPEND += ("over_cap", "not_enough_gold")
OFFER = ("wrong_phase", "bad_partner", "perde_3", "offer_exists", "allied_already")
OFFER_VERB = ("wrong_phase", "no_offer", "divan_locked")  # withdraw, answer (D-25)
VOTE = ("wrong_phase", "already_voted", "vote_self")
DIVAN = ("not_allowed_in_mode", "wrong_phase", "divan_locked", "wrong_divan")
# Live seasons (issue 12): creation's own refusals (a seed or a compressed calendar asked for
# by someone not ops, a calendar for a trial season, the domain's calendar checks) …
CREATE_LIVE: tuple[str, ...] = ("not_allowed_in_mode", "forbidden", "registration_close_required")
CREATE_LIVE += ("registration_too_soon", "invalid_instant", "bad_interval", "bad_player_key")
NAMING = ("invalid_name", "name_reserved", "name_taken")  # a name given
PLAYER_NAME = ("invalid_name", "name_reserved")  # a player's name, by the same rule
CREATE_LIVE += NAMING
JOIN: tuple[str, ...] = ("registration_closed", "season_full", "memleket_taken", "season_cancelled")
JOIN += ("not_allowed_in_mode", *NAMING, "bad_player_key", "player_already_seated")  # issue 23
# … and each season-admin act's (shared/domain/admin.py, D-29 … D-31)
ADMIN: dict[str, tuple[str, ...]] = {
    act: (*ADMIN_REFUSALS, *spec.refusals) for act, spec in ADMIN_ACTS.items()
}
# an ops reset of a bey's name (shared/domain/naming.py)
NAME_RESET = ("reason_required", "invalid_name")
# ADR-105: an ops reset of a live season's lobby description (shared/domain/naming.py)
DESCRIPTION_RESET = ("reason_required", "not_allowed_in_mode", "no_description")
# ADR-53: a correction's refusals (shared/domain/corrections.py)
CORRECTION = (
    "wrong_phase",
    "divan_locked",
    "season_cancelled",
    "reason_required",
    "invalid_correction",
)
# ADR-178: a creation under an Idempotency-Key (its record is written at once, done: never
# in flight), answered again only from the client's own secrets
CREATED_AGAIN = ("bad_idempotency_key", "idempotency_key_reused", "secret_not_replayable")
