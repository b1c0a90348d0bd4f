"""Structured logs (structlog): JSON lines in services, with season, Divan and command ids.

One format for every line of every process: the services' own events (structlog, stdout), the
libraries' stdlib records (asyncpg, uvicorn, Dramatiq, redis; stderr, with `logger`), and the
API's access log (`seksenbir.access`, one line per request, stdout). The access line skips
structlog's processor chain and the LogRecord: its fields are fixed and hold nothing secret, so
access_log encodes them as a msgspec Struct straight to the stream, in a few microseconds.
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Mapping, MutableMapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO, cast

import msgspec

from shared.log_lines import write_line

if TYPE_CHECKING:
    import structlog

REDACT = ("token", "authorization", "seed", "salt")


@functools.lru_cache(maxsize=4096)
def _secret(key: str) -> bool:
    return any(word in key.lower() for word in REDACT)


# A line's keys, in order → those of them named like a secret (ADR-140): a command's lines have
# the same keys every time, so one look-up a line instead of one a key. Emptied when full.
_SECRET_KEYS: dict[tuple[str, ...], tuple[str, ...]] = {}
_SECRET_KEYS_MAX = 4096


def _redact(_logger: object, _name: str, event: MutableMapping[str, Any]) -> Mapping[str, Any]:
    """Secrets never reach a log line: anything named like a token, seed or salt is dropped."""
    keys = tuple(event)
    secret = _SECRET_KEYS.get(keys)
    if secret is None:
        secret = tuple(key for key in keys if _secret(key))
        if len(_SECRET_KEYS) >= _SECRET_KEYS_MAX:
            _SECRET_KEYS.clear()
        _SECRET_KEYS[keys] = secret
    for key in secret:
        event[key] = "[redacted]"
    return event


def _exc_info(logger: Any, name: str, event: MutableMapping[str, Any]) -> Mapping[str, Any]:
    """structlog's format_exc_info, called only for a line with `exc_info` (ADR-140): without
    it, format_exc_info leaves the line as it is (its `pop` finds nothing, and None is no
    exception), so the call it saves on every other line changes nothing."""
    if "exc_info" not in event:
        return event
    import structlog

    return cast("Mapping[str, Any]", structlog.processors.format_exc_info(logger, name, event))


_LEVELS = {"warn": "warning", "exception": "error"}  # add_log_level's names


def _stamped(logger: object, name: str, event: MutableMapping[str, Any]) -> Mapping[str, Any]:
    """structlog's add_log_level and TimeStamper(fmt="iso", utc=True), then _redact, as one
    processor: every line of every process passes here (one call instead of three). The level
    is named as add_log_level names it, without importing structlog at this module's import."""
    event["level"] = _LEVELS.get(name, name)
    event["timestamp"] = utc_stamp(datetime.now(UTC))
    return _redact(logger, name, event)


def utc_stamp(at: datetime) -> str:
    """`at` (in UTC) as structlog's TimeStamper(fmt="iso", utc=True) writes it,
    `at.isoformat().replace("+00:00", "Z")`, by msgspec's RFC 3339 form (the same string, the
    fraction left out at 0 µs; a third of isoformat's work, on every line: ADR-138;
    tests/http/test_logging.py holds the two equal)."""
    return cast("str", msgspec.to_builtins(at))


_encoder = msgspec.json.Encoder(enc_hook=repr)  # a value JSON cannot carry is logged as repr


def _dumps(event: dict[str, Any], **_: Any) -> str:
    """msgspec instead of json.dumps: a log line is rendered on every command's path."""
    return _encoder.encode(event).decode()


ACCESS_LOGGER = "seksenbir.access"
ACCESS_EVENT = "http.request"
# For a console renderer (SEKSENBIR_LOG_FORMAT=console), which prints the message
_ACCESS_TEXT = "%s %s %s %.1f ms season=%s"
_access = logging.getLogger(ACCESS_LOGGER)
# Libraries that configure their own handlers (uvicorn's LOGGING_CONFIG): emptied, propagating
_OWN_HANDLERS = ("uvicorn", "uvicorn.error")
# uvicorn's access log writes the raw path with its query string, where a client may have put a
# token: it stays silent (no handler, no propagation), whoever started uvicorn and however
# (uvicorn reads hasHandlers() and logs nothing then). seksenbir.access replaces it.
_SILENCED = ("uvicorn.access",)


class AccessLine(msgspec.Struct):
    """One request of the API, as logged: never a token, a query string, a header or a body."""

    event: str
    logger: str
    level: str
    timestamp: datetime  # RFC 3339 in UTC, "…Z", as structlog's TimeStamper writes it
    method: str
    path: str  # the route template (/v1/seasons/{season_id}/orders), never the raw path
    status: int
    duration_ms: float
    season_id: str | None


_access_encoder = msgspec.json.Encoder()
# JSON format: [the stream for access lines], None for standard output as it is at each write
# (pytest and Dramatiq's worker processes replace sys.stdout); empty in console format
_access_sink: list[TextIO | None] = []


def access_log(method: str, path: str, status: int, seconds: float, season_id: str | None) -> None:
    """One access line (the gateway's `timed` middleware calls it once a request is answered).

    In JSON format the line is encoded and written here, with no logging record and no
    processor chain (a LogRecord alone costs more than the line: thread, process and caller
    lookups nobody reads); in console format it is an ordinary record of `seksenbir.access`.
    Setting that logger's level above INFO turns the access log off.
    """
    if not _access.isEnabledFor(logging.INFO):
        return
    ms = round(seconds * 1000, 3)
    if _access_sink:
        line = AccessLine(
            ACCESS_EVENT,
            ACCESS_LOGGER,
            "info",
            datetime.now(UTC),
            method,
            path,
            status,
            ms,
            season_id,
        )
        write_line(_access_sink[0], _access_encoder.encode(line).decode())
    else:
        _access.info(_ACCESS_TEXT, method, path, status, ms, season_id)


# Where the services' lines go: the file of the latest configure_logging. A module's logger is
# cached on its first use (cache_logger_on_first_use), so a logger that kept its own file would
# write to the first configuration's file for good: a later configuration (a test capturing the
# log) would never see it, and a "no secret in any log line" check would pass without a line.
_line_sink: list[TextIO | None] = [None]


class LazyLogger:
    """`structlog.get_logger(name)`, looked up at the first line logged: a process that logs
    nothing through it never imports structlog, whose own import loads its console renderer and
    with it `rich` (~0.1 s): the CLI's store verbs (issue 27, ADR-110). What it returns is
    structlog's own logger, so a line is formatted as every other (configure_logging)."""

    __slots__ = ("_logger", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._logger: Any = None

    def __getattr__(self, attr: str) -> Any:  # info, warning, bind, …: structlog's own
        if attr.startswith("__") or attr in self.__slots__:  # copy, pickle: not a logger's
            raise AttributeError(attr)
        if self._logger is None:
            import structlog

            self._logger = structlog.get_logger(self._name)
        return getattr(self._logger, attr)


def get_logger(name: str) -> Any:
    """A module's logger that imports structlog only when it logs (LazyLogger)."""
    return LazyLogger(name)


class _Chain(NamedTuple):
    """What configure_logging installed in JSON format (info_line's fast path)."""

    processors: list[Any]
    wrapper: Any  # the wrapper class
    factory: Any  # the logger factory
    level: int
    logger: Any  # one logger of that factory
    get_config: Any  # structlog.get_config (structlog is imported once logging is configured)
    drop: Any  # structlog.DropEvent


_chain: list[_Chain | None] = [None]  # None: not configured, or in console format


def info_line(logger: Any, event: str, **fields: Any) -> None:
    """`logger.info(event, **fields)`, the line structlog's chain makes, without structlog's
    per-call dispatch (ADR-140): a lazy proxy's look-up and bind, the bound logger's copy of
    its context and two calls with the fields as keywords, ~20 k instructions of the ~52 k a
    command's line cost. It runs the processor list structlog is configured with now (so
    `capture_logs`, which fills that list in place, still captures; contextvars merged,
    redaction and the exception rendering as every line) and hands the result to a logger of
    the configured factory, as structlog's BoundLoggerBase does. Anything but the
    configuration `configure_logging` installed in JSON format (another wrapper class, logger
    factory, processor list or context class) goes through `logger` itself. `logger` must be
    a plain `structlog.get_logger(name)` (no bound values: none would be merged here);
    tests/http/test_logging.py holds the two lines equal byte for byte."""
    chain = _chain[0]
    if chain is None:
        logger.info(event, **fields)
        return
    processors, wrapper, factory, level, out, get_config, drop = chain
    config = get_config()  # what is configured now
    if (
        config["processors"] is not processors
        or config["wrapper_class"] is not wrapper
        or config["logger_factory"] is not factory
        or config["context_class"] is not dict
    ):
        logger.info(event, **fields)
        return
    if level > logging.INFO:
        return
    line: Any = fields
    line["event"] = event
    try:
        for proc in processors:
            line = proc(out, "info", line)
    except drop:
        return
    if isinstance(line, (str, bytes, bytearray)):
        out.info(line)
    elif isinstance(line, tuple):
        out.info(*line[0], **line[1])
    elif isinstance(line, dict):
        out.info(**line)
    else:
        raise ValueError(  # structlog's own refusal of such a last processor
            "Last processor didn't return an appropriate value.  "
            "Valid return values are a dict, a tuple of (args, kwargs), bytes, or a str."
        )


class LineLogger:
    """structlog's PrintLogger, writing each line with write_line to the configured file."""

    def msg(self, message: str) -> None:
        write_line(_line_sink[0], message)

    log = debug = info = warn = warning = msg
    fatal = failure = err = error = critical = exception = msg


def configure_logging(json: bool = True, level: str = "INFO", file: TextIO | None = None) -> None:
    """Configure structlog (and the stdlib root logger); `file` defaults to standard output.

    The entry points pass Settings.log_format and log_level (entrypoints.bootstrap.configure).
    """
    import structlog

    lvl = getattr(logging, level.upper())
    renderer = (
        structlog.processors.JSONRenderer(serializer=_dumps)
        if json
        else structlog.dev.ConsoleRenderer()
    )
    stamped: list[structlog.types.Processor] = [_stamped]
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
    for name in _OWN_HANDLERS:  # uvicorn's CLI configures these before the app is loaded
        own = logging.getLogger(name)
        own.handlers[:] = []
        own.propagate = True
    for name in _SILENCED:
        silent = logging.getLogger(name)
        silent.handlers[:] = []
        silent.propagate = False
    # The access log: in JSON, written by access_log itself beside the services' events; in
    # console format, records of the root handler like any other.
    _access_sink[:] = [file] if json else []
    _line_sink[0] = file
    _configure_structlog(json, lvl, renderer, stamped)


def _configure_structlog(json: bool, lvl: int, renderer: Any, stamped: list[Any]) -> None:
    """structlog's chain for the services' own lines, written by LineLogger (and info_line's)."""
    import structlog

    processors: list[Any] = [
        structlog.contextvars.merge_contextvars,
        *stamped,
        _exc_info if json else structlog.processors.StackInfoRenderer(),
        renderer,
    ]
    wrapper = structlog.make_filtering_bound_logger(lvl)

    def factory(*_: Any) -> LineLogger:
        return LineLogger()

    structlog.configure(
        processors=processors,
        wrapper_class=wrapper,
        logger_factory=factory,
        context_class=dict,
        cache_logger_on_first_use=True,
    )
    _chain[0] = (
        _Chain(
            processors,
            wrapper,
            factory,
            lvl,
            LineLogger(),
            structlog.get_config,
            structlog.DropEvent,
        )
        if json
        else None
    )
