"""Seksenbir's shared code: the domain, the event store, the application layer, settings, logs."""

# Before any shared.domain module is imported (a parent package runs first): the compiled hot
# path, only with SEKSENBIR_COMPILED=1 and a current build (shared/compiled.py, ADR-60).
from shared.settings import variable as _variable

if _variable("SEKSENBIR_COMPILED") == "1":  # else shared.compiled.status() is "off" as is
    from shared import compiled as _compiled

    _compiled.activate()
