"""The command API under /v1: every route, in the order the OpenAPI document lists them.

Each handler only maps HTTP onto the command service (services/command/service.py and its use
cases): its path and body become the call's arguments (a bey's command: a Struct of
services/command/bey_commands.py), its authentication a dependency or, for a bey's command,
one call (services/command/request_context.py: `claim` for a bey's reads, `command_of` for
its commands, ADR-119; `ops_guard` for ops), its answer a typed Struct (a command's sent by
route_parts.Answer as Litestar would), so the OpenAPI document is the real contract.
Routes by resource: season_routes.py, bey_routes.py, ops_routes.py. Refusals are
shared.app.http.problems.Problem; each command's list is in command_refusals.py.
"""

from __future__ import annotations

from services.command.bey_routes import BEY_ROUTES
from services.command.chat_examples import CHAT_EXAMPLES
from services.command.chat_routes import CHAT_ROUTES
from services.command.command_examples import EXAMPLES
from services.command.console_routes import CONSOLE_ROUTES
from services.command.notify_routes import NOTIFY_ROUTES
from services.command.ops_routes import OPS_ROUTES
from services.command.player_routes import PLAYER_ROUTES
from services.command.season_routes import SEASON_ROUTES
from shared.app.http.openapi import with_examples

ROUTES = with_examples(
    [
        *SEASON_ROUTES,
        *CHAT_ROUTES,
        *NOTIFY_ROUTES,
        *BEY_ROUTES,
        *OPS_ROUTES,
        *PLAYER_ROUTES,
        *CONSOLE_ROUTES,
    ],
    {**EXAMPLES, **CHAT_EXAMPLES},
)
