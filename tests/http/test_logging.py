"""Logs are structured (brief, ARCHITECTURE): the app keeps shared.logs' configuration, and
libraries' stdlib records come out as JSON lines like the services' own."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
import structlog

from entrypoints.bootstrap import command_app
from shared.logs import configure_logging
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
    command_app(Settings())  # Litestar's default logging config would replace the root handler
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
