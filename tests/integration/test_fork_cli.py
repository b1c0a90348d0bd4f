"""`seksenbir fork SEASON --divan N --seat S` (issue 13, D-32): the fork endpoint's own code
(service.fork_season) run by ops on the database; it prints the new season's id and its token
once, in Turkish or English, and the fork names its origin in its status."""

from __future__ import annotations

import re

import pytest

from services.command.season_reads import season_status
from services.command.service import Services
from shared.app.access import tokens
from shared.app.answers.fork_origin import ForkedFrom
from shared.app.repository.seasons import Seasons
from shared.domain import codec
from shared.domain import events as ev
from shared.eventstore import PostgresEventStore
from tests.audit.support import store_season
from tests.cli_language import wrong_language
from tests.integration.test_audit_cli import run_cli

TOKEN = re.compile(r"\bsb1\.[0-9a-f]{32}\.\d+\.\S+")
LOG = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[")  # structlog's lines, not for people
SEASON_ID = re.compile(r"^([0-9a-f]{32}):", re.M)


@pytest.mark.parametrize("lang", ["tr", "en"])
async def test_d32_fork_forks_a_running_season_as_ops_and_prints_id_and_token(
    lang: str, migrated_pg_dsn: str, event_store: PostgresEventStore
) -> None:
    """Ops fork any season at any Divan (here one still running, which anyone else may not);
    the token printed is the fork's seat-S token; the fork's status shows where it came from."""
    await store_season(event_store, "running", 3, divans=4)
    done = await run_cli(
        "fork", "running", "--divan", "2", "--seat", "7", "--dsn", migrated_pg_dsn, lang=lang
    )
    assert done.returncode == 0, done.stderr
    said = "\n".join(x for x in done.stdout.splitlines() if not LOG.match(x))
    assert said.count("\n") == 0 and wrong_language(said, lang) == [], done.stdout
    season = SEASON_ID.search(done.stdout)
    token = TOKEN.search(done.stdout)
    assert season is not None and token is not None, done.stdout
    fork_id = season.group(1)
    assert token.group(0).startswith(f"sb1.{fork_id}.7.")
    logged = [x for x in done.stdout.splitlines() if LOG.match(x)] + [done.stderr]
    assert all(token.group(0) not in x for x in logged)  # printed once for the operator, not logged
    # its wake-up is sent before the pool closes, not lost as it closes
    assert all("notify_failed" not in x for x in logged), logged
    records = await event_store.read_stream(fork_id)
    forked = next(
        e
        for e in map(codec.decode_event, (r.data for r in records))
        if isinstance(e, ev.SeasonForked)
    )
    assert (forked.source_season, forked.source_divan, forked.seat) == ("running", 2, 7)
    status = await season_status(Services(seasons=Seasons(event_store)), fork_id)
    assert status.forked_from == ForkedFrom("running", 2)
    assert status.divan == 2 and status.mode == "trial"
    state = (await Seasons(event_store).load(fork_id)).state
    assert state.tokens[7] == tokens.token_hash(token.group(0))
    # ADR-53: forking a running season reads its secrets: recorded as the endpoint records it
    reads = await event_store.ops_reads.list("running")
    assert [r.what for r in reads] == ["fork/2"] and reads[0].actor.startswith("cli:")


@pytest.mark.parametrize("lang", ["tr", "en"])
async def test_d32_fork_refuses_in_the_language_asked_for(
    lang: str, migrated_pg_dsn: str, event_store: PostgresEventStore
) -> None:
    """An unknown season (exit 2, as every verb that names one: ADR-155) and a Divan not
    reached (exit 1) are refused, a Divan or seat outside the endpoint's bounds too (exit 2,
    before the database), nothing appended."""
    await store_season(event_store, "short", 3, divans=2)
    before = await event_store.list_seasons()
    for argv, code in ((["nobody", "--divan", "1"], 2), (["short", "--divan", "5"], 1)):
        done = await run_cli("fork", *argv, "--seat", "1", "--dsn", migrated_pg_dsn, lang=lang)
        assert done.returncode == code, done.stdout
        assert done.stderr.startswith("seksenbir fork: ")
        said = "\n".join(x for x in done.stderr.splitlines() if not LOG.match(x))
        assert wrong_language(said, lang) == [], done.stderr
    for argv in (
        ["short", "--divan", "16", "--seat", "1"],
        ["short", "--divan", "1", "--seat", "20"],
    ):
        done = await run_cli("fork", *argv, "--dsn", migrated_pg_dsn, lang=lang)
        assert done.returncode == 2 and "…" in done.stderr, done.stderr  # the endpoint's bounds
    assert await event_store.list_seasons() == before
