"""Worker bootstrap: `dramatiq entrypoints.projections_worker` (`seksenbir worker projections`)."""

from __future__ import annotations

from entrypoints import bootstrap
from entrypoints.cli_args import settings_or_refusal

_settings = settings_or_refusal("entrypoints.projections_worker")  # refused: one line, exit 2
bootstrap.configure(_settings)
project_season, rebuild_season = bootstrap.projections_worker(_settings)
bootstrap.settle_heap(young=bootstrap.WORKER_YOUNG)  # ADR-135
