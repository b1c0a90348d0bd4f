"""Worker bootstrap: `dramatiq entrypoints.projections_worker` (`seksenbir worker projections`)."""

from __future__ import annotations

from entrypoints import bootstrap
from shared.settings import Settings

_settings = Settings.from_env()
bootstrap.configure(_settings)
project_season, rebuild_season = bootstrap.projections_worker(_settings)
bootstrap.settle_heap(young=bootstrap.WORKER_YOUNG)  # ADR-135
