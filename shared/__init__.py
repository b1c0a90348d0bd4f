"""Seksenbir's shared code: the domain, the event store, the application layer, settings, logs."""

# Before any shared.domain module is imported (a parent package runs first): the compiled hot
# path, only with SEKSENBIR_COMPILED on (1, true, yes, on: ADR-172) and a current build
# (shared/compiled.py, ADR-60).
from shared.settings import compiled_wanted as _compiled_wanted

if _compiled_wanted():  # else shared.compiled.status() is "off" as is
    from shared import compiled as _compiled

    _compiled.activate()
