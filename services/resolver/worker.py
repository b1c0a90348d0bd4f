"""Worker bootstrap: `dramatiq services.resolver.worker` (or `seksenbir worker`)."""

from __future__ import annotations

from services.resolver.actors import declare
from shared.logs import configure_logging
from shared.settings import Settings

configure_logging()
resolver_actor = declare(Settings.from_env())  # Dramatiq actor_name "resolve_divan"
