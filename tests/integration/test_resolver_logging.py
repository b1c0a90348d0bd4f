"""The services' JSON logs (shared.logs.configure_logging, used by the resolver worker and the
API) must keep an exception's traceback: an on-call engineer has nothing else to go on.

Run in a subprocess, so the global structlog configuration of this test session stays as is.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.integration.resolver_support import REPO

pytestmark = pytest.mark.integration

SCRIPT = """
import structlog
from shared.logs import configure_logging
configure_logging(json=True)
try:
    1 / 0
except ZeroDivisionError:
    structlog.get_logger("resolver").exception("resolver.failed", divan=3)
"""


def test_json_logs_keep_the_traceback_of_an_exception() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, check=True
    )
    lines = out.stdout + out.stderr
    assert "resolver.failed" in lines
    assert "ZeroDivisionError" in lines
