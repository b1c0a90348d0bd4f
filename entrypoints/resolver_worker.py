"""Worker bootstrap: `dramatiq entrypoints.resolver_worker` (or `seksenbir worker resolver`)."""

from __future__ import annotations

from entrypoints import bootstrap
from shared.settings import Settings

_settings = Settings.from_env()
bootstrap.configure(_settings)
resolver_actor, _seasons = bootstrap.resolver_worker(_settings)  # actor_name "resolve_divan"
bootstrap.settle_heap(young=bootstrap.WORKER_YOUNG)  # ADR-135
