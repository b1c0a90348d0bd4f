"""Issue 11, one language policy, for the verbs that read PostgreSQL or Redis: export, verify
(one season, --all), import, replay by season id, migrate, deadletters list and replay print
every line for people in Turkish by default and in English with `--lang en`
(tests/cli_language.py); `seksenbir verify` says which database it read, in both languages.
The verbs that need no server: tests/audit/test_cli_languages.py."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shared.eventstore import PostgresEventStore
from shared.unreachable import describe_dsn
from tests.audit.support import store_season
from tests.cli_language import human_lines, wrong_language

pytestmark = pytest.mark.integration
LANGS = ["tr", "en"]
DATABASE_READ = {"tr": "okunan veritabanı: ", "en": "database read: "}


def run(
    lang: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SEKSENBIR_")}
    return subprocess.run(
        [sys.executable, "-m", "entrypoints.cli", *args, "--lang", lang],
        capture_output=True,
        text=True,
        env=base | (env or {}),
        timeout=120,
        check=False,
    )


def cli(lang: str, *args: str, env: dict[str, str] | None = None) -> str:
    done = run(lang, *args, env=env)
    return done.stdout + done.stderr


@pytest.mark.parametrize("lang", LANGS)
async def test_issue_11_the_store_verbs_speak_one_language_and_verify_names_its_database(
    lang: str, migrated_pg_dsn: str, event_store: PostgresEventStore, tmp_path: Path
) -> None:
    season = f"lang-{lang}"
    await store_season(event_store, season, 3, divans=2)
    path = tmp_path / "season.jsonl"
    database = describe_dsn(migrated_pg_dsn)
    runs = {
        "export": ("export", season, "--dsn", migrated_pg_dsn, "-o", str(path)),
        "export of a missing season": ("export", "nobody", "--dsn", migrated_pg_dsn),
        "verify": ("verify", season, "--dsn", migrated_pg_dsn),
        "verify a missing season": ("verify", "nobody", "--dsn", migrated_pg_dsn),
        "verify --all": ("verify", "--all", "--dsn", migrated_pg_dsn),
        "import over a stored season": ("import", str(path), "--dsn", migrated_pg_dsn),
        "replay by id": ("replay", season, "--divan", "2", "--dsn", migrated_pg_dsn),
        "replay a missing season": ("replay", "nobody", "--dsn", migrated_pg_dsn),
        "migrate": ("migrate", "--dsn", migrated_pg_dsn),
    }
    said = {}
    for name, argv in runs.items():  # in order: the export writes the file the import reads
        said[name] = await asyncio.to_thread(cli, lang, *argv)
        assert human_lines(said[name]), f"{name}: no line for people"
        wrong = wrong_language(said[name], lang, (str(tmp_path), season, database))
        assert wrong == [], (name, said[name])
    for name in ("verify", "verify a missing season", "verify --all"):
        assert DATABASE_READ[lang] + database in said[name], (name, said[name])


@pytest.mark.parametrize("lang", LANGS)
def test_issue_11_deadletters_speak_one_language(lang: str, redis_url: str) -> None:
    env = {"SEKSENBIR_REDIS_URL": redis_url, "SEKSENBIR_BROKER_NAMESPACE": f"lang-{lang}-dl"}
    for argv in (["deadletters", "list"], ["deadletters", "replay", "nope"]):
        text = cli(lang, *argv, env=env)
        assert human_lines(text), argv
        assert wrong_language(text, lang, (f"lang-{lang}-dl",)) == [], text


@pytest.mark.parametrize("lang", LANGS)
def test_rebuilding_a_season_the_store_does_not_hold_says_so_and_exits_2(
    lang: str, migrated_pg_dsn: str, redis_url: str
) -> None:
    """`seksenbir projections rebuild <typo>` once printed "<typo>: rebuilt from 0 events" and
    exited 0: an operator's mistyped id looked like a rebuild done. It is refused as verify
    refuses a missing season: one line naming the database, exit 2 (ADR-155: every verb that
    names a season the database does not hold)."""
    env = {"SEKSENBIR_REDIS_URL": redis_url, "SEKSENBIR_PG_DSN": migrated_pg_dsn}
    done = run(lang, "projections", "rebuild", "nobody", env=env)
    database = describe_dsn(migrated_pg_dsn)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == "", done.stdout
    words = {
        "tr": f"{database} içinde 'nobody' sezonu yok",
        "en": f"no season 'nobody' in {database}",
    }
    assert done.stderr == f"seksenbir projections rebuild: {words[lang]}\n", done.stderr
