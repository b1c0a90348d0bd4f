"""Worker bootstrap: `dramatiq entrypoints.resolver_worker` (or `seksenbir worker resolver`)."""

from __future__ import annotations

from entrypoints import bootstrap
from shared.settings import Settings

_settings = Settings.from_env()
bootstrap.configure(_settings)
resolve_divan, _seasons = bootstrap.resolver_worker(_settings)
