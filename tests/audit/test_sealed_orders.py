"""Sealed orders (issue 13, ADR-57, D-35): each bey's locked orders get a salted digest at the
lock, the public report lists them, and `seksenbir verify` proves from a full export that the
orders resolved are the orders sealed, naming the first event that does not hold.

The season is a live one of report version 3 played to its Kurultay (seed and salt revealed),
through an in-memory event store as the resolver appends it; the recipe is docs/export.md's
own Python block (tests/sealing.py), run on the export's JSON alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from entrypoints.cli import main
from shared.domain.state import SEALED_REPORT_VERSION, SEATS
from shared.eventstore import RecordedEvent
from tests.audit.support import Line, dump, edit_data, export_of, index_of, rechain, season_records
from tests.sealing import recipe

SEASON = "sealed-live"
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "season_live_3_divans.jsonl"


@pytest.fixture(scope="module")
def records() -> list[RecordedEvent]:
    return season_records(SEASON, 11, live=True, report_version=SEALED_REPORT_VERSION)


@pytest.fixture
def lines(records: list[RecordedEvent]) -> list[Line]:
    return export_of(SEASON, records)


def _data(line: Line) -> Any:
    return json.loads(line["data"])


def _verify(tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]) -> Any:
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(lines))
    code = main(["verify", str(path), "--lang", "en"])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


def test_d35_every_lock_is_followed_by_a_seal_of_every_bey_humans_and_computer_beys(
    lines: list[Line],
) -> None:
    """D-35: at each of the 16 locks, the next event seals all 19 seats, computer beys too."""
    locks = [i for i, x in enumerate(lines) if x.get("type") == "divan_locked.v1"]
    assert len(locks) == 16
    for i in locks:
        sealed = lines[i + 1]
        assert sealed["type"] == "orders_sealed.v1"
        data = _data(sealed)
        assert data["divan"] == _data(lines[i])["divan"]
        assert data["scheme"] == "seksenbir/sealed-orders/1"
        assert sorted(map(int, data["digests"])) == list(range(1, SEATS + 1))


def test_the_documented_recipe_recomputes_every_salt_and_digest_of_a_real_season(
    lines: list[Line],
) -> None:
    """docs/export.md "Sealed orders" is exact: its Python block, given the revealed seed and
    salt and each lock's orders (from the export's JSON only), gives every digest sealed, every
    digest the public report lists and every salt a bey's private report holds."""
    r = recipe()
    revealed = _data(lines[index_of(lines, lambda x: x["type"] == "seed_revealed.v1")])
    seed, seed_salt = revealed["seed"], revealed["salt"]
    reports = {_data(x)["divan"]: _data(x) for x in lines[1:] if x["type"] == "divan_resolved.v1"}
    checked = empty = 0
    for i, x in enumerate(lines):
        if x.get("type") != "divan_locked.v1":
            continue
        locked, sealed = _data(x), _data(lines[i + 1])
        n = locked["divan"]
        report = reports[n]
        public = {
            line["data"]["seat"]: line["data"]["digest"]
            for line in report["public"]
            if line["kind"] == "orders_sealed"
        }
        for seat_text, digest in sealed["digests"].items():
            salt = r["seal_salt"](seed_salt, seed, SEASON, n, int(seat_text))
            orders = locked["orders"].get(seat_text, [])
            empty += not orders
            assert r["sealed_digest"](salt, orders) == digest, (n, seat_text)
            assert public[int(seat_text)] == digest
            (own, *_rest) = report["private"][seat_text]
            assert own["kind"] == "orders_sealed"
            assert own["data"] == {"divan": n, "salt": salt.hex(), "digest": digest}
            checked += 1
    assert checked == 16 * SEATS
    assert 0 < empty < checked  # both kinds of set were sealed: empty ones and orders
    assert r["canonical"]([]) == b"[]"


def test_a_clean_sealed_export_verifies_its_seals(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    code, verdict, err = _verify(tmp_path, lines, capsys)
    assert code == 0, verdict
    assert verdict["sealed_orders"] == (
        f"ok: at 16 Divan(s) the orders resolved are the orders sealed ({16 * SEATS} digests"
        " recomputed)"
    )
    assert verdict["replay"] == "ok" and verdict["first_bad_event"] is None
    assert "sealed orders: ok: at 16 Divan(s)" in err


def _locked_with_orders(lines: list[Line]) -> tuple[int, str]:
    """The first lock with a non-empty set, and the seat whose set it is."""
    for i, x in enumerate(lines):
        if x.get("type") == "divan_locked.v1":
            seats = [s for s, o in _data(x)["orders"].items() if o]
            if seats:
                return i, seats[0]
    raise AssertionError("no Divan locked any order")


def test_an_order_altered_after_sealing_is_named_at_the_lock(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    """A forger changes a bey's locked order and recomputes the chain: the seal (and the report
    that published it) no longer match the lock, and verify names the lock (exit 1)."""
    i, seat = _locked_with_orders(lines)

    def more_units(data: Any) -> None:
        data["orders"][seat][0]["units"] += 1

    edit_data(lines[i], more_units)
    rechain(lines, i)
    code, verdict, err = _verify(tmp_path, lines, capsys)
    assert code == 1 and not verdict["ok"]
    bad = verdict["first_bad_event"]
    assert (bad["line"], bad["type"]) == (i + 1, "divan_locked.v1"), bad
    assert "divan_locked.v1" in err  # the line for people names it too
    assert f"seat {seat}'s locked orders are not the orders sealed" in bad["why"]
    assert verdict["sealed_orders"].startswith("broken: Divan ")
    assert [m["check"] for m in verdict["mismatches"] if "check" in m] == ["sealed_orders"]


def test_an_altered_digest_is_named_at_the_seal(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    """A forger changes one sealed digest and recomputes the chain: verify names the seal."""
    i = index_of(lines, lambda x: x["type"] == "orders_sealed.v1")

    def other_digest(data: Any) -> None:
        data["digests"]["3"] = "00" * 32

    edit_data(lines[i], other_digest)
    rechain(lines, i)
    code, verdict, err = _verify(tmp_path, lines, capsys)
    assert code == 1
    bad = verdict["first_bad_event"]
    assert (bad["line"], bad["type"]) == (i + 1, "orders_sealed.v1"), bad
    assert "orders_sealed.v1" in err  # the line for people names it too
    assert "seat 3's sealed digest is neither its locked orders'" in bad["why"]
    assert verdict["sealed_orders"].startswith("broken: Divan 1: seat 3's sealed digest")


def test_an_altered_published_digest_is_named_at_the_report(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    i = index_of(lines, lambda x: x["type"] == "divan_resolved.v1")

    def other_line(data: Any) -> None:
        for line in data["public"]:
            if line["kind"] == "orders_sealed" and line["data"]["seat"] == 5:
                line["data"]["digest"] = "11" * 32

    edit_data(lines[i], other_line)
    rechain(lines, i)
    code, verdict, err = _verify(tmp_path, lines, capsys)
    assert code == 1
    bad = verdict["first_bad_event"]
    assert (bad["line"], bad["type"]) == (i + 1, "divan_resolved.v1"), bad
    assert "divan_resolved.v1" in err  # the line for people names it too
    assert "the digest the report published for seat 5 is not the one sealed" in bad["why"]


def test_a_redacted_export_keeps_the_seals_and_says_it_cannot_recompute_them(
    tmp_path: Path, records: list[RecordedEvent], capsys: pytest.CaptureFixture[str]
) -> None:
    """R-14: an auditor's export during the season keeps `orders_sealed.v1` (digests only,
    public) and leaves out the locks and the seed: verify says the seals are not checkable
    and exits 3, as for re-running the Divans."""
    before = records[: next(k for k, r in enumerate(records) if r.type == "kurultay_held.v1")]
    redacted = export_of(SEASON, before, redact=True)
    seals = [x for x in redacted if x.get("type") == "orders_sealed.v1"]
    assert len(seals) == 16 and all("data" in x and "redacted" not in x for x in seals)
    assert all(x.get("redacted") == "R-14" for x in redacted if x.get("type") == "divan_locked.v1")
    code, verdict, _err = _verify(tmp_path, redacted, capsys)
    assert code == 3, verdict
    assert verdict["sealed_orders"].startswith("not checkable: a redacted export (R-14)")


def test_a_season_stored_before_report_version_3_seals_nothing_and_still_verifies(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The fixture season (report version 2) has no seal and verifies as it always did."""
    text = FIXTURE.read_text(encoding="utf-8")
    assert "orders_sealed.v1" not in text
    code = main(["verify", str(FIXTURE), "--lang", "en"])
    verdict = json.loads(capsys.readouterr().out)
    assert code == 0, verdict
    assert verdict["sealed_orders"].startswith("none: a season of report version 2 seals no orders")


def test_a_seal_taken_out_of_a_sealed_season_is_named_at_its_lock(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    """A forger deletes one Divan's seal (and its report lines stay as published), renumbers
    and recomputes the chain: the season is of report version 3, so the lock without its seal
    is named."""
    i = index_of(lines, lambda x: x["type"] == "orders_sealed.v1")
    del lines[i]
    for line in lines[i:]:
        line["version"] -= 1
    rechain(lines, i)
    code, verdict, err = _verify(tmp_path, lines, capsys)
    assert code == 1
    bad = verdict["first_bad_event"]
    assert (bad["line"], bad["type"]) == (i, "divan_locked.v1"), bad
    assert "the lock is not followed by its orders_sealed event" in bad["why"]
    assert "divan_locked.v1" in err
