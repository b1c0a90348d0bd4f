"""Logs are structured (brief, ARCHITECTURE): the app keeps shared.logs' configuration, and
libraries' stdlib records come out as JSON lines like the services' own."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import structlog
from hypothesis import given
from hypothesis import strategies as st

from entrypoints.gateway import create_app
from shared import logs
from shared.logs import configure_logging, utc_stamp
from shared.settings import Settings


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    config = structlog.get_config()
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        structlog.configure(**config)


def test_the_app_keeps_the_json_logging_and_library_records_are_json(
    restore_logging: None, capsys: pytest.CaptureFixture[str]
):
    own = io.StringIO()
    configure_logging(json=True, file=own)
    ours = logging.getLogger().handlers[:]
    create_app(
        Settings(), reads=False
    )  # Litestar's default logging config would replace the root handler
    assert logging.getLogger().handlers == ours
    logging.getLogger("asyncpg.pool").warning("connection lost to %s", "db")
    try:
        raise ZeroDivisionError("boom")
    except ZeroDivisionError:
        logging.getLogger("uvicorn.error").exception("unhandled")
    structlog.get_logger("seksenbir").info("command.accepted", season_id="s1")
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert [(r["logger"], r["level"], r["event"]) for r in lines] == [
        ("asyncpg.pool", "warning", "connection lost to db"),
        ("uvicorn.error", "error", "unhandled"),
    ]
    assert "ZeroDivisionError: boom" in lines[1]["exception"]
    assert all("timestamp" in r for r in lines)
    assert json.loads(own.getvalue())["event"] == "command.accepted"


class Writes(io.StringIO):
    """A stream that records each write() call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def write(self, s: str) -> int:
        self.calls.append(s)
        return super().write(s)


def test_every_line_is_one_write_with_its_newline(restore_logging: None) -> None:
    """Issue 11 (one log format, every line whole): a Dramatiq worker's stdout is a pipe that
    forwards each write as a message, and the main process writes the messages of all its
    workers out in turn. print() wrote a line and its newline apart, so a line of another
    process could land between them and two JSON lines came out joined on one line."""
    from shared.logs import access_log

    out = Writes()
    configure_logging(json=True, file=out)
    structlog.get_logger("seksenbir").info("command.accepted", season_id="s1")
    access_log("GET", "/v1/board", 200, 0.001, None)
    assert len(out.calls) == 2
    assert all(call.endswith("}\n") and call.count("\n") == 1 for call in out.calls)


def test_a_logger_first_used_under_one_configuration_writes_to_the_next_ones_file(
    restore_logging: None,
) -> None:
    """A module's logger is cached on its first use: the lines it writes after a later
    configure_logging go to that configuration's file (a test capturing the log sees every
    line, so "no secret in any log line" is checked on the lines, not on none of them)."""
    first, second = io.StringIO(), io.StringIO()
    log = structlog.get_logger("tests.cached")
    configure_logging(json=True, level="INFO", file=first)
    log.info("before")
    configure_logging(json=True, level="INFO", file=second)
    log.info("after")
    assert [json.loads(x)["event"] for x in first.getvalue().splitlines()] == ["before"]
    assert [json.loads(x)["event"] for x in second.getvalue().splitlines()] == ["after"]


@given(
    st.datetimes(
        min_value=datetime(1, 1, 2),
        max_value=datetime(9999, 12, 30),
        timezones=st.just(UTC),
    )
)
def test_a_line_stamp_is_the_timestampers(at):
    """ADR-138: utc_stamp writes what structlog's TimeStamper(fmt="iso", utc=True) wrote,
    the fraction left out at 0 µs."""
    assert utc_stamp(at) == at.isoformat().replace("+00:00", "Z")
    assert utc_stamp(at.replace(microsecond=0)) == at.replace(microsecond=0).isoformat()[:-6] + "Z"


_KEYS = st.sampled_from(
    [
        "event",
        "season_id",
        "seat",
        "token",
        "Authorization",
        "new_TOKEN",
        "seed",
        "salted",
        "command_id",
        "events",
        "level",
        "exc_info",
        "ıtoken",
        "x",
    ]
)


@given(st.lists(_KEYS, max_size=8, unique=True), st.integers(min_value=0, max_value=3))
def test_adr140_redaction_per_line_is_the_redaction_per_key(keys, repeat):
    """ADR-140: _redact remembers a line's secret keys by the line's keys in order; what it
    writes is what the per-key check wrote (every key named like a secret, and no other)."""
    for _ in range(repeat + 1):  # the first time computed, then remembered
        event = {key: f"v-{key}" for key in keys}
        logs._redact(None, "info", event)
        assert event == {
            key: "[redacted]" if any(w in key.lower() for w in logs.REDACT) else f"v-{key}"
            for key in keys
        }


def test_adr140_a_full_memory_of_line_keys_still_redacts():
    logs._SECRET_KEYS.clear()
    for n in range(logs._SECRET_KEYS_MAX + 1):
        event = {f"k{n}": 1, "token": "secret"}
        logs._redact(None, "info", event)
        assert event["token"] == "[redacted]"
        assert len(logs._SECRET_KEYS) <= logs._SECRET_KEYS_MAX


def _raised() -> BaseException:
    try:
        raise ValueError("boom")
    except ValueError as exc:
        return exc


@pytest.mark.parametrize(
    "extra",
    [{}, {"exc_info": None}, {"exc_info": False}, {"exc_info": _raised()}, {"exc_info": True}],
)
def test_adr140_exc_info_is_format_exc_info(extra):
    """ADR-140: the chain calls format_exc_info only for a line with `exc_info`; every line
    comes out as format_exc_info makes it, with or without one."""
    event = {"event": "x", "a": 1, **extra}
    assert logs._exc_info(None, "info", dict(event)) == (
        structlog.processors.format_exc_info(None, "info", dict(event))
    )


class _Fixed(datetime):
    @classmethod
    def now(cls, tz=None):  # type: ignore[override]
        return datetime(2026, 12, 7, 0, 1, 2, 345678, tzinfo=UTC)


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=8),
    st.lists(st.text(max_size=4), max_size=3),
)


@given(
    st.dictionaries(
        st.sampled_from(["season_id", "seat", "command_id", "events", "token", "a_seed", "x"]),
        _VALUES,
        max_size=5,
    ),
    st.dictionaries(st.sampled_from(["request_id", "season_id", "salt"]), _VALUES, max_size=2),
    st.sampled_from(["INFO", "WARNING"]),
)
def test_adr140_info_line_writes_the_line_structlog_writes(fields, bound, level):
    """ADR-140: info_line runs the configured chain without structlog's dispatch: the same
    bytes (field order, contextvars merged, redaction, level, stamp) as logger.info, at INFO
    and above it (nothing), and the same entries under capture_logs."""
    saved = structlog.get_config()
    out = io.StringIO()
    real = logs.datetime
    logs.datetime = _Fixed  # type: ignore[misc]
    try:
        configure_logging(json=True, level=level, file=out)
        structlog.contextvars.bind_contextvars(**bound)
        lines = []
        for lean in (False, True):
            logger = structlog.get_logger("adr140")
            if lean:
                logs.info_line(logger, "command.accepted", **fields)
            else:
                logger.info("command.accepted", **fields)
            lines.append(out.getvalue())
            out.seek(0)
            out.truncate()
        assert lines[0] == lines[1]
        assert (lines[0] != "") == (level == "INFO")
        with structlog.testing.capture_logs() as captured:
            structlog.get_logger("adr140").info("command.accepted", **fields)
            logs.info_line(structlog.get_logger("adr140"), "command.accepted", **fields)
        assert out.getvalue() == ""
        assert len(captured) == (2 if level == "INFO" else 0)
        if captured:
            assert captured[0] == captured[1]
    finally:
        logs.datetime = real  # type: ignore[misc]
        structlog.contextvars.clear_contextvars()
        configure_logging(json=True)
        structlog.configure(**saved)


def test_adr140_info_line_on_another_configuration_is_the_loggers_own(capsys):
    """Console format, or a chain configure_logging did not install: the logger's own call."""
    saved = structlog.get_config()
    real = logs.datetime
    logs.datetime = _Fixed  # type: ignore[misc]
    try:
        for configure in (
            lambda: configure_logging(json=False),
            lambda: (
                configure_logging(json=True),
                structlog.configure(processors=[structlog.processors.JSONRenderer()]),
            ),
        ):
            configure()
            logs.info_line(structlog.get_logger("adr140b"), "command.accepted", seat=3)
            structlog.get_logger("adr140b").info("command.accepted", seat=3)
            first, second = capsys.readouterr().out.splitlines()[-2:]
            assert first == second
            assert "command.accepted" in first
    finally:
        logs.datetime = real  # type: ignore[misc]
        configure_logging(json=True)
        structlog.configure(**saved)
