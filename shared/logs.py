"""Structured logs (structlog): JSON lines in services, with season, Divan and command ids."""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Mapping, MutableMapping
from typing import Any, TextIO

import msgspec
import structlog

REDACT = ("token", "authorization", "seed", "salt")


@functools.lru_cache(maxsize=4096)
def _secret(key: str) -> bool:
    return any(word in key.lower() for word in REDACT)


def _redact(_logger: object, _name: str, event: MutableMapping[str, Any]) -> Mapping[str, Any]:
    """Secrets never reach a log line: anything named like a token, seed or salt is dropped."""
    for key in list(event):
        if _secret(key):
            event[key] = "[redacted]"
    return event


_encoder = msgspec.json.Encoder(enc_hook=repr)  # a value JSON cannot carry is logged as repr


def _dumps(event: dict[str, Any], **_: Any) -> str:
    """msgspec instead of json.dumps: a log line is rendered on every command's path."""
    return _encoder.encode(event).decode()


def configure_logging(json: bool = True, level: str = "INFO", file: TextIO | None = None) -> None:
    """Configure structlog (and the stdlib root logger); `file` defaults to standard output.

    The entry points pass Settings.log_format and log_level (entrypoints.bootstrap.configure).
    """
    lvl = getattr(logging, level.upper())
    renderer = (
        structlog.processors.JSONRenderer(serializer=_dumps)
        if json
        else structlog.dev.ConsoleRenderer()
    )
    stamped: list[structlog.types.Processor] = [
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        _redact,
    ]
    # Libraries' stdlib records (asyncpg, uvicorn, dramatiq, redis) in the same format, on stderr
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[structlog.stdlib.add_logger_name, *stamped],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                *([structlog.processors.format_exc_info] if json else []),
                renderer,
            ],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(lvl)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            *stamped,
            structlog.processors.format_exc_info
            if json
            else structlog.processors.StackInfoRenderer(),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(lvl),
        logger_factory=structlog.PrintLoggerFactory(file=file),
        cache_logger_on_first_use=True,
    )
