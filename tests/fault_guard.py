"""In CI a fault test never skips silently (RELIABILITY.md; the team's brief).

A pytest plugin (tests/conftest.py imports its hooks). Fault tests carry `@pytest.mark.fault`.
When the environment variable CI is set (CI=true, as CI services set it), a fault test that is
skipped, in setup or in its body, is reported as a failure instead, unless its skip reason
contains one of the entries of the allow-list `tests/fault-skips-allowed.txt` (one per line;
lines starting with `#` are comments, and every entry must have one saying why). Outside CI a
skip stays a skip. An expected failure (xfail) is not a skip and is left alone.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path

import pytest

MARKER = "fault"
ALLOW_LIST = "tests/fault-skips-allowed.txt"  # relative to the rootdir
OFF = frozenset({"", "0", "false", "no", "off"})


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in OFF


def allowed_reasons(path: Path) -> list[str]:
    """The allow-list's entries (a missing file allows nothing)."""
    if not path.exists():
        return []
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}: a RELIABILITY fault test; under CI=true a skip fails the run unless its"
        f" reason is in {ALLOW_LIST}",
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    if item.get_closest_marker(MARKER) is None or not in_ci():
        return
    reason = skip_reason(report)
    listed = allowed_reasons(item.config.rootpath / ALLOW_LIST)
    if any(entry in reason for entry in listed):
        return
    report.outcome = "failed"
    report.longrepr = (
        f"fault test skipped under CI={os.environ.get('CI')!r}: {reason!r}. In CI a fault test"
        f" must run; if this skip is truly unavoidable, add its reason, with a comment why,"
        f" to {ALLOW_LIST}."
    )
