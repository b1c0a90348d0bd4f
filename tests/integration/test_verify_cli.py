"""`seksenbir verify SEASON` as ops run it: a real process over PostgreSQL (R-12.3).

It names the database it read (issue 11) and answers 0 only when the chain and every Divan
check out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from shared.app.repository.seasons import Seasons
from shared.domain import events as ev
from shared.domain.evolve import fold
from shared.domain.lifecycle import run_divan
from shared.domain.simulate import start
from shared.eventstore import EventMetadata, PostgresEventStore
from shared.unreachable import describe_dsn

SYSTEM = EventMetadata(actor="system")


def verify(dsn: str, season_id: str) -> tuple[int, dict[str, object]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEKSENBIR_")}
    done = subprocess.run(
        [sys.executable, "-m", "entrypoints.cli", "verify", season_id, "--dsn", dsn],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    return done.returncode, json.loads(done.stdout)


async def test_verify_names_its_database_and_passes_a_season_replayed_from_its_inputs(
    migrated_pg_dsn: str, event_store: PostgresEventStore
) -> None:
    seasons = Seasons(event_store)
    state, events = start(7, season_id="verified")
    await seasons.append("verified", 0, "setup", events, SYSTEM)
    for n in (1, 2):
        divan = run_divan(state)
        assert any(isinstance(e, ev.DivanResolved) for e in divan)
        loaded = await seasons.load("verified")
        await seasons.append("verified", loaded.version, f"divan/{n}", divan, SYSTEM)
        state = fold(divan, state)
    code, verdict = verify(migrated_pg_dsn, "verified")
    assert code == 0, verdict
    assert verdict["database"] == describe_dsn(migrated_pg_dsn)
    assert verdict["hash_chain"] == "ok" and verdict["mismatches"] == [] and verdict["divan"] == 2
    code, verdict = verify(migrated_pg_dsn, "no-such-season")
    assert (code, verdict["error"]) == (2, "no such season")  # ADR-155: as replay's
    assert verdict["database"] == describe_dsn(migrated_pg_dsn)


def test_a_dsn_is_described_without_its_password() -> None:
    described = describe_dsn("postgresql://ops:s3cret@db.internal:5433/seksenbir")
    assert described == "ops@db.internal:5433/seksenbir"
    assert "s3cret" not in described
    assert describe_dsn("postgresql://postgres@127.0.0.1/test") == "postgres@127.0.0.1/test"


@pytest.mark.parametrize(
    ("lang", "said"), [("tr", "bir olay deposu tutmuyor"), ("en", "holds no event store")]
)
def test_verify_on_a_database_with_no_event_store_says_so_without_a_traceback(
    pg_server_dsn: str, lang: str, said: str
) -> None:
    """Issue 11: said in the language asked for (`--lang`, Turkish by default)."""
    from tests.conftest import SESSION, fresh_database

    with fresh_database(pg_server_dsn, f"seksenbir_noevents_{SESSION}_{lang}") as dsn:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SEKSENBIR_")}
        argv = ["verify", "some-season", "--dsn", dsn, *(["--lang", lang] if lang == "en" else [])]
        done = subprocess.run(
            [sys.executable, "-m", "entrypoints.cli", *argv],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2
    assert said in done.stderr and describe_dsn(dsn) in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "dsn",
    [
        "not a dsn",  # no scheme: asyncpg's ClientConfigurationError
        "mysql://ops:s3cret@db.internal/x",  # another scheme
        "postgresql://ops:s3cret@[::1/x",  # urllib's "Invalid IPv6 URL"
        "postgresql://ops:s3cret@db.internal:port/x",  # a port that is no number
    ],
)
@pytest.mark.parametrize(
    "argv", [["verify", "x"], ["export", "x"], ["replay", "x"], ["migrate"]], ids=lambda a: a[0]
)
def test_a_dsn_that_cannot_be_read_is_one_line_and_exit_2(dsn: str, argv: list[str]) -> None:
    """README: a verb that cannot connect to its database (a wrong --dsn …) says so in one line
    naming it, never its password, and exits 2. Found by h-probe3: a --dsn that is no
    PostgreSQL URL was asyncpg's or urllib's traceback, exit 1."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEKSENBIR_")}
    for lang, said in (("tr", "bağlanılamadı"), ("en", "cannot connect")):
        done = subprocess.run(
            [sys.executable, "-m", "entrypoints.cli", *argv, "--dsn", dsn, "--lang", lang],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr and "s3cret" not in done.stderr
        assert said in lines[-1], done.stderr
        assert len([line for line in lines if line.startswith("seksenbir")]) <= 2, lines
