"""The CI guard of tests/fault_guard.py: under CI=true a skipped fault test fails the run unless
its reason is on the allow-list; outside CI, unmarked tests, and xfails are left alone."""

from __future__ import annotations

import pytest

TESTS = """
import pytest

@pytest.mark.fault
def test_fault_skipped_in_body():
    pytest.skip("no throwaway PostgreSQL here")

@pytest.mark.fault
@pytest.mark.skipif(True, reason="no Docker engine")
def test_fault_skipped_by_marker():
    pass

@pytest.fixture
def server():
    pytest.skip("cannot claim a Redis db")

@pytest.mark.fault
def test_fault_skipped_in_a_fixture(server):
    pass

@pytest.mark.fault
@pytest.mark.xfail(reason="known", strict=True)
def test_fault_xfail():
    assert False

def test_plain_skip():
    pytest.skip("not a fault test")

@pytest.mark.fault
def test_fault_that_runs():
    pass
"""


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest("pytest_plugins = ['tests.fault_guard']")
    # without the project's `-p no:faker -p no:schemathesis` (pyproject.toml) each inner run
    # imported both plugins again (pytester restores sys.modules after a run): 1 to 7 s a test
    pytester.makeini(
        "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
        "filterwarnings = ignore::pytest.PytestAssertRewriteWarning\n"
        "addopts = -p no:faker -p no:schemathesis\n"
    )
    pytester.makepyfile(test_suite=TESTS)
    return pytester


@pytest.mark.parametrize("ci", ["true", "1"])
def test_under_ci_a_skipped_fault_test_fails(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str
) -> None:
    monkeypatch.setenv("CI", ci)
    result = suite.runpytest("-rA")
    # a skip in setup (a skipif mark, a fixture) fails as an error of its setup
    result.assert_outcomes(passed=1, failed=1, errors=2, skipped=1, xfailed=1)
    result.stdout.fnmatch_lines_random(
        [
            "FAILED test_suite.py::test_fault_skipped_in_body*no throwaway PostgreSQL here*",
            "ERROR test_suite.py::test_fault_skipped_by_marker*no Docker engine*",
            "ERROR test_suite.py::test_fault_skipped_in_a_fixture*cannot claim a Redis db*",
            "SKIPPED*not a fault test",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize("ci", [None, "", "false", "0"])
def test_outside_ci_a_skip_stays_a_skip(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str | None
) -> None:
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    result = suite.runpytest()
    result.assert_outcomes(passed=1, skipped=4, xfailed=1)
    assert result.ret == pytest.ExitCode.OK


def test_a_reason_on_the_allow_list_may_skip_in_ci(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    suite.mkdir("tests")
    (suite.path / "tests" / "fault-skips-allowed.txt").write_text(
        "# the CI runners have no Docker engine (kept only as an example here)\n"
        "no Docker engine\n"
        "\n"
        "# a comment line is never an entry: cannot claim a Redis db\n"
    )
    result = suite.runpytest("-rA")
    result.assert_outcomes(passed=1, failed=1, errors=1, skipped=2, xfailed=1)
    result.stdout.fnmatch_lines_random(["SKIPPED*no Docker engine"])


def test_the_repository_allow_list_is_empty_or_commented() -> None:
    """Every entry of the real allow-list has a comment line right above it saying why."""
    from pathlib import Path

    from tests.fault_guard import ALLOW_LIST, allowed_reasons

    path = Path(__file__).resolve().parents[2] / ALLOW_LIST
    assert path.exists()
    lines = path.read_text(encoding="utf-8").splitlines()
    for entry in allowed_reasons(path):
        above = lines[lines.index(entry) - 1].strip() if lines.index(entry) > 0 else ""
        assert above.startswith("#") and len(above) > 2, f"{entry!r} needs a comment why"
