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
