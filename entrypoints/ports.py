"""The ports `seksenbir up` would serve on, checked before anything starts."""

from __future__ import annotations

import socket
import sys

from shared.domain.messages import Lang, render
from shared.settings import Settings, environment


def in_use(host: str, port: int) -> bool:
    """Whether something already listens on host:port: a bind as uvicorn binds (SO_REUSEADDR,
    so a closed connection's TIME_WAIT is no reason) that the kernel refuses. A host it cannot
    resolve is not said to be in use: the server reports that itself."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except OSError:
        return False
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError:
            return True
    return False


def taken_port(settings: Settings, host: str, port: int, lang: Lang) -> str | None:
    """The line `up` refuses with, printed, when a port it would serve on is taken, else None:
    the API's, and the workers' metrics ports when SEKSENBIR_WORKER_METRICS_PORT is set (the
    resolver's, projections' the next). Checked before anything starts: a second `up` on the
    same port used to print a banner naming the first one's address and restart its own API
    for ever, and a taken metrics port killed that worker's metrics server with a traceback
    while the banner named it. A port taken after the check is the supervisor's, as before."""
    wanted = [(host, port, "up.port_taken")]
    if settings.worker_metrics_port > 0:
        metrics_host = environment().get("dramatiq_prom_host", "127.0.0.1")
        wanted += [
            (metrics_host, settings.worker_metrics_port, "up.metrics_port_taken:resolver"),
            (metrics_host, settings.worker_metrics_port + 1, "up.metrics_port_taken:projections"),
        ]
    for at, number, which in wanted:
        if in_use(at, number):
            key, _, role = which.partition(":")
            said = render(key, lang, {"address": f"{at}:{number}", "role": role})
            print(f"seksenbir up: {said}", file=sys.stderr, flush=True)
            return said
    return None
