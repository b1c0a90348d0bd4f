"""Ops helpers of the stored-season verbs; their checks are shared/app/export.py (R-12.3)."""

from __future__ import annotations

from urllib.parse import urlsplit


def describe_dsn(dsn: str) -> str:
    """Which database a DSN names, for people: user, host, port and database, never a password."""
    parts = urlsplit(dsn)
    host = parts.hostname or "localhost"
    user = f"{parts.username}@" if parts.username else ""
    port = f":{parts.port}" if parts.port else ""
    return f"{user}{host}{port}{parts.path or '/'}"


class DatabaseUnreachable(Exception):
    """A CLI verb could not connect to its database (refused, unknown host, bad password, no
    such database): `seksenbir` says so in one line, in the language asked for, exit 2."""

    def __init__(self, dsn: str, cause: BaseException) -> None:
        super().__init__(f"cannot reach {describe_dsn(dsn)}: {cause!r}")
        self.database = describe_dsn(dsn)
        self.reason = type(cause).__name__  # the kind of failure, a name like a code
