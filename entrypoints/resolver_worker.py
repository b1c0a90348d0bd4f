"""Worker bootstrap: `dramatiq entrypoints.resolver_worker` (or `seksenbir worker resolver`)."""

from __future__ import annotations

from entrypoints import bootstrap
from entrypoints.cli_args import settings_or_refusal

_settings = settings_or_refusal("entrypoints.resolver_worker")  # refused: one line, exit 2
bootstrap.configure(_settings)
resolver_actor, _seasons = bootstrap.resolver_worker(_settings)  # actor_name "resolve_divan"
bootstrap.settle_heap(young=bootstrap.WORKER_YOUNG)  # ADR-135
