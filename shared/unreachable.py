"""Ops helpers of the stored-season verbs; their checks are shared/app/ops/export.py (R-12.3)."""

from __future__ import annotations

from urllib.parse import urlsplit


def describe_dsn(dsn: str) -> str:
    """Which database a DSN names, for people: user, host, port and database, never a password
    ("?" for one that is no URL at all, a port that is no number left out)."""
    try:
        parts = urlsplit(dsn)
    except ValueError:  # "Invalid IPv6 URL": nothing of it is shown, its password included
        return "?"
    host = parts.hostname or "localhost"
    user = f"{parts.username}@" if parts.username else ""
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # a port that is no number
        port = ""
    return f"{user}{host}{port}{parts.path or '/'}"


class Unreachable(Exception):
    """A CLI verb could not connect to a server it needs: `seksenbir` says so in one line, in
    the language asked for (the message `key`), and exits 2."""

    key = "cli.no_database"

    def __init__(self, url: str, cause: BaseException) -> None:
        super().__init__(f"cannot reach {describe_dsn(url)}: {cause!r}")
        self.where = describe_dsn(url)  # never a password
        self.reason = type(cause).__name__  # the kind of failure, a name like a code


class DatabaseUnreachable(Unreachable):
    """PostgreSQL: refused, unknown host, bad password or user, no such database."""


class RedisUnreachable(Unreachable):
    """The broker's or the read side's Redis: refused, unknown host, timed out."""

    key = "cli.no_redis"
