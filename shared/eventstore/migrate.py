"""Versioned schema migrations: apply migrations/NNNN_name.sql once each, in order, under a lock."""

from __future__ import annotations

import asyncio
import hashlib
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import asyncpg
import msgspec

from shared.eventstore.errors import MigrationError
from shared.logs import get_logger
from shared.settings import variable

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

log = get_logger(__name__)

# pg_advisory_lock key: two migrators (two app instances starting together) take turns.
MIGRATION_LOCK_KEY = 0x5EB5_E1B1_0000_0001
FILE_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")

_CREATE_LEDGER = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version     integer PRIMARY KEY,
    name        text NOT NULL,
    checksum    text NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT now()
)"""


class Migration(msgspec.Struct, frozen=True):
    """One migration file: its number, name, SQL text and the sha256 of that text."""

    version: int
    name: str
    sql: str
    checksum: str


def load_migrations(folder: Traversable | None = None) -> list[Migration]:
    """The migrations shipped in this package (or in `folder`), in version order; numbers run
    0001 … n without a gap or a repeat."""
    if folder is None:
        from importlib import resources  # with its tempfile and shutil: only when migrating

        folder = resources.files("shared.eventstore").joinpath("migrations")
    found = []
    for entry in folder.iterdir():
        match = FILE_NAME.match(entry.name)
        if match is None:
            continue
        sql = entry.read_text(encoding="utf-8")
        digest = hashlib.sha256(sql.encode()).hexdigest()
        found.append(Migration(int(match[1]), entry.name.removesuffix(".sql"), sql, digest))
    found.sort(key=lambda m: m.version)
    numbers = [m.version for m in found]
    if numbers != list(range(1, len(found) + 1)):
        raise MigrationError(f"migration numbers must run 1..n: {[m.name for m in found]}")
    return found


@asynccontextmanager
async def _session(
    target: str | asyncpg.Pool | asyncpg.Connection,
) -> AsyncIterator[asyncpg.Connection]:
    if isinstance(target, asyncpg.Connection):
        yield target
        return
    if isinstance(target, asyncpg.Pool):
        async with target.acquire() as conn:
            await _relax_timeouts(conn)
            try:
                yield conn
            finally:  # the pool does not reset session settings on release (pool.create_pool)
                await conn.execute("RESET lock_timeout; RESET statement_timeout")
        return
    conn = await asyncpg.connect(target)
    try:
        await _relax_timeouts(conn)
        yield conn
    finally:
        await conn.close()


async def _relax_timeouts(conn: asyncpg.Connection) -> None:
    # DDL may wait behind app traffic and take a while; _session restores both afterwards.
    await conn.execute("SET lock_timeout = '60s'; SET statement_timeout = 0")


async def migrate(target: str | asyncpg.Pool | asyncpg.Connection) -> list[str]:
    """Apply every pending migration; return the names applied now (empty when up to date).

    Idempotent. Each migration runs in its own transaction together with its ledger row. A
    migration edited after it was applied (checksum differs) raises MigrationError.
    """
    migrations = load_migrations()
    async with _session(target) as conn:
        await conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK_KEY)
        try:
            return await _apply_pending(conn, migrations)
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK_KEY)


async def _apply_pending(conn: asyncpg.Connection, migrations: list[Migration]) -> list[str]:
    await conn.execute(_CREATE_LEDGER)
    rows = await conn.fetch("SELECT version, name, checksum FROM schema_migrations")
    applied = {row["version"]: row for row in rows}
    for migration in migrations:
        row = applied.get(migration.version)
        if row is not None and row["checksum"] != migration.checksum:
            raise MigrationError(f"{migration.name} changed after it was applied")
    unknown = sorted(set(applied) - {m.version for m in migrations})
    if unknown:  # newer code migrated already (rolling deploy): migrations are additive
        log.warning("migration.unknown_versions", versions=unknown)
    done = []
    for migration in migrations:
        if migration.version in applied:
            continue
        async with conn.transaction():
            await conn.execute(migration.sql)
            await conn.execute(
                "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                migration.version,
                migration.name,
                migration.checksum,
            )
        log.info("migration.applied", name=migration.name)
        done.append(migration.name)
    return done


def main(argv: list[str] | None = None) -> int:
    """`python -m shared.eventstore.migrate [DSN]` (DSN defaults to $SEKSENBIR_PG_DSN)."""
    args = sys.argv[1:] if argv is None else argv
    dsn = args[0] if args else variable("SEKSENBIR_PG_DSN")
    if not dsn:
        print("usage: python -m shared.eventstore.migrate DSN  (or set SEKSENBIR_PG_DSN)")
        return 2
    applied = asyncio.run(migrate(dsn))
    print("applied: " + (", ".join(applied) if applied else "nothing (up to date)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
