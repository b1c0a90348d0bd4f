"""Worker bootstrap: `dramatiq services.projections.worker` (or `seksenbir worker projections`)."""

from __future__ import annotations

from services.projections.actors import declare, start_sweeper
from services.projections.listener import start_listener
from shared.logs import configure_logging
from shared.settings import Settings

configure_logging()
_settings = Settings.from_env()
project_season, rebuild_season = declare(_settings)
start_sweeper(_settings)
start_listener(_settings)
