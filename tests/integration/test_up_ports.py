"""`seksenbir up` on a port something already listens on: one line, exit 2, nothing started.

Before, a second `up` on the first one's port printed a banner naming that address (where the
first stack answered) and restarted its own API every 30 s for ever; a taken metrics port
(SEKSENBIR_WORKER_METRICS_PORT, projections the next) killed that worker's metrics server with
a traceback while the banner named it. The check runs before PostgreSQL or Redis is looked
for, so these runs need neither.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.integration.processes import REPO, free_port

pytestmark = pytest.mark.integration


@contextmanager
def listening(port: int) -> Iterator[None]:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
        s.listen()
        yield


def up(port: int, lang: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "entrypoints.cli", "up", "--port", str(port), "--lang", lang],
        cwd=REPO,
        env={**os.environ, **env},
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        (
            "en",
            "seksenbir up: {at} is already in use (another `seksenbir up`?): --port chooses"
            " another port (make run PORT=…); nothing was started",
        ),
        (
            "tr",
            "seksenbir up: {at} kullanımda (başka bir `seksenbir up` mı çalışıyor?): --port"
            " başka bir kapı seçer (make run PORT=…); hiçbir şey başlatılmadı",
        ),
    ],
)
def test_up_on_a_taken_port_says_so_in_one_line_and_starts_nothing(lang: str, line: str):
    port = free_port()
    with listening(port):
        done = up(port, lang)
    assert done.returncode == 2, done
    assert done.stdout == ""  # no banner, no role's line
    assert done.stderr == line.format(at=f"127.0.0.1:{port}") + "\n"


@pytest.mark.parametrize(("offset", "role"), [(0, "resolver"), (1, "projections")])
def test_up_with_a_taken_metrics_port_names_the_worker_and_the_setting(offset: int, role: str):
    port, metrics = free_port(), free_port(span=2)
    with listening(metrics + offset):
        done = up(port, "en", SEKSENBIR_WORKER_METRICS_PORT=str(metrics))
    assert done.returncode == 2, done
    assert done.stdout == ""
    assert done.stderr == (
        f"seksenbir up: 127.0.0.1:{metrics + offset}, the metrics port of the {role} worker"
        " (SEKSENBIR_WORKER_METRICS_PORT; projections takes the next one), is already in use:"
        " choose another SEKSENBIR_WORKER_METRICS_PORT; nothing was started\n"
    )
