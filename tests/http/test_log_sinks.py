"""tests/conftest.py's `_log_sinks`: a log file one test configures is not where the next
test's lines go. The two tests run in this order in one process (pytest keeps a module's
order; under xdist they may land on two workers, where the second passes on its own)."""

from __future__ import annotations

import io

import pytest
import structlog

from shared import logs
from shared.app.http.ratelimit import AuthFailures


def test_a_test_may_leave_its_log_file_configured() -> None:
    config = structlog.get_config()
    into = io.StringIO()
    try:
        logs.configure_logging(json=True, level="INFO", file=into)
        AuthFailures(per_minute=1, clock=lambda: 0.0).failed("203.0.113.9")
    finally:
        structlog.configure(**config)  # as the logging fixtures restore it: not the file
    assert "auth.failures_limited" in into.getvalue()


def test_the_next_test_logs_to_standard_output_again(capsys: pytest.CaptureFixture[str]) -> None:
    AuthFailures(per_minute=1, clock=lambda: 0.0).failed("203.0.113.9")
    captured = capsys.readouterr()
    assert "auth.failures_limited" in captured.out + captured.err
