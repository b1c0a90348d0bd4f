"""A season recorded by today's event versions, kept in the repo (issue 13): it must go on
replaying and verifying bit for bit whatever later changes (R-12.3). When an event's version
changes, its old tag stays readable through an upcaster (shared/domain/upcast.py) and this
file, left as it is, proves the path: every event decodes, the chain holds, every Divan re-runs
to the recorded outcome.

The file is `seksenbir export` of a live season (seed 7, three Divans, a late one) as written
on chain version 2; regenerate it only for a new fixture beside it, never over it."""

from __future__ import annotations

from pathlib import Path

from shared.app.ops.export_check import check
from shared.app.ops.export_read import parse
from shared.domain import codec
from shared.domain.events import EVENT_TYPES

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "season_live_3_divans.jsonl"
HEAD = "e12e3ae0f99124b926e845f349c7b9a11d1be8b2a437190192eceecc7631e7be"
TAGS = {
    "season_created.v1",
    "calendar_set.v1",
    "deadline_set.v1",
    "registration_closed.v1",
    "divan_held.v1",
    "orders_submitted.v1",
    "divan_locked.v1",
    "news_revealed.v1",
    "battles_resolved.v1",
    "rebellions_run.v1",
    "production_applied.v1",
    "divan_resolved.v1",
}


def test_r12_3_the_recorded_fixture_season_still_replays_and_verifies() -> None:
    with FIXTURE.open("rb") as f:
        export = parse(f)
    assert export.header["format"] == "seksenbir-export/2"
    assert export.header["chain"] == "seksenbir/event-chain/2"
    recorded = {r.type for r in export.records}
    assert recorded >= TAGS, recorded  # today's versions, as they were stored
    for record in export.records:  # old tags decode through the upcasters
        assert type(codec.decode_event(record.data)) in EVENT_TYPES
    verdict = check(export)
    assert verdict.ok and verdict.complete, verdict.as_json(True)
    assert verdict.head == HEAD == export.header["head"]
    assert verdict.state is not None and verdict.state.divan == 3
