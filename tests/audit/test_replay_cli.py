"""`seksenbir replay`: a season's state folded to a point, one Divan re-run and compared with the
record event by event (R-12.3); a difference is a readable diff and exit 1; nothing is written."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from entrypoints.cli import main, parser
from shared.eventstore import RecordedEvent
from tests.audit.support import (
    LATE_DIVAN,
    Line,
    dump,
    edit_data,
    export_of,
    index_of,
    rechain,
    season_records,
)

SEASON = "audit-replay"


@pytest.fixture(scope="module")
def records() -> list[RecordedEvent]:
    return season_records(SEASON, 5)


@pytest.fixture
def lines(records: list[RecordedEvent]) -> list[Line]:
    return export_of(SEASON, records)


def run(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(lines))
    before = path.read_bytes()
    code = main(["replay", str(path), *args, "--lang", "en"])
    assert path.read_bytes() == before  # nothing is ever rewritten
    out = capsys.readouterr()
    return code, out.out, out.err


def _divan_of(line: Line) -> int:
    return int(json.loads(line["data"])["divan"])


def test_a_divan_re_run_matches_the_record_and_shows_the_state_after_it(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(tmp_path, lines, capsys, "--divan", "3")
    assert code == 0, out
    assert err == ""  # a chain that verifies: no warning
    assert "Divan 3 re-run from its recorded inputs and the seed" in out
    assert "battles_resolved.v1" in out and "same as the record" in out
    assert "Divan 3" in out.splitlines()[out.splitlines().index("") + 1]
    assert "\nbeys\n" in out and "\nprovinces\n" in out and "\ntreaties\n" in out
    assert "Ankara" in out  # plate 6, by name


def test_the_beys_table_names_a_memleket_by_its_name_with_the_plate(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    """Round 1 left it (session 23): the beys table's memleket read "34 İstanbul", the plate
    then the name; the audit CLIs say "İstanbul (34)" (what-if, explain), and so does it."""
    from shared.app.ops.ops_replay import state_table

    view = {
        "season": SEASON, "version": 9, "phase": "divans", "divan": 3, "rules_version": "r",
        "beys": [
            {"seat": 1, "memleket": 34, "memleket_name": "İstanbul", "computer": False,
             "gold": 1, "provinces": 2, "units": 3, "score": None, "hain_through": None},
        ],
        "provinces": [], "treaties": [],
    }  # fmt: skip
    table = state_table(view, "en")
    row = next(x for x in table.splitlines() if x.lstrip().startswith("1 "))
    assert "İstanbul (34)" in row and "34 İstanbul" not in row, table


def test_a_changed_outcome_is_a_readable_diff_and_exit_1(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    i = index_of(lines, lambda x: x["type"] == "production_applied.v1" and _divan_of(x) == 4)
    edit_data(lines[i], lambda d: d.__setitem__("divan", 5))  # a Divan, not this one
    rechain(lines, i)
    code, out, _ = run(tmp_path, lines, capsys, "--divan", "4")
    assert code == 1, out
    assert f"version {lines[i]['version']}  production_applied.v1  differs" in out
    assert "divan: 5 -> 4" in out  # recorded -> re-run
    assert "DIFFERS from the record (R-12.3)" in out
    code, out, _ = run(tmp_path, lines, capsys, "--divan", "3")
    assert code == 0, out  # the Divans before it still re-run the same


def test_json_output_for_scripts(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(tmp_path, lines, capsys, "--divan", "2", "--json")
    assert code == 0
    doc: dict[str, Any] = json.loads(out)
    assert doc["rerun"]["ok"] and doc["rerun"]["divan"] == 2
    assert all(e["same"] for e in doc["rerun"]["events"])
    assert doc["state"]["divan"] == 2 and len(doc["state"]["provinces"]) == 81
    assert len(doc["state"]["beys"]) == 19
    code, out, _ = run(tmp_path, lines, capsys, "--as-of", "5", "--json")
    assert code == 0
    state = json.loads(out)["state"]
    assert (state["version"], state["divan"], state["phase"]) == (5, 0, "running")
    code, out, _ = run(tmp_path, lines, capsys, "--json")
    assert json.loads(out)["state"]["phase"] == "over"


def test_points_outside_the_record_are_refused(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    cut = lines[: index_of(lines, lambda x: x["type"] == "divan_locked.v1" and _divan_of(x) == 3)]
    rechain(cut)
    code, _, err = run(tmp_path, cut, capsys, "--divan", "3")
    assert code == 2
    assert "Divan 3 was never locked: the season is at Divan 2" in err
    code, _, err = run(tmp_path, lines, capsys, "--as-of", str(len(lines)))
    assert code == 2 and f"the season has {len(lines) - 1} events" in err
    with pytest.raises(SystemExit) as exc:
        main(["replay", "x", "--divan", "17"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        main(["replay", "x", "--divan", "1", "--as-of", "3"])


VERBS = ("export", "verify", "import", "replay")


@pytest.mark.parametrize("verb", VERBS)
def test_every_option_of_the_audit_verbs_has_help(verb: str) -> None:
    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    verb_parser = sub.choices[verb]
    assert sub._choices_actions and any(c.dest == verb and c.help for c in sub._choices_actions)
    for action in verb_parser._actions:
        assert action.help, f"seksenbir {verb} {action.option_strings or action.dest}: no help"


def test_replay_of_a_broken_chain_warns_that_it_does_not_vouch_for_the_record(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    i = index_of(lines, lambda x: x["type"] == "orders_submitted.v1")
    lines[i]["hash"] = "00" * 32
    code, out, err = run(tmp_path, lines, capsys, "--divan", "1")
    assert code == 0 and "same as the record" in out
    assert f"version {lines[i]['version']}: hash does not match" in err and "warning" in err


def test_a_live_divan_held_late_re_runs_with_its_late_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 12: a Divan held after downtime says so in its report; the re-run knows it."""
    lines = export_of("audit-late", season_records("audit-late", 9, live=True))
    held = [json.loads(x["data"]) for x in lines[1:] if x["type"] == "divan_held.v1"]
    assert [h["divan"] for h in held if h.get("late")] == [LATE_DIVAN]
    code, out, _ = run(tmp_path, lines, capsys, "--divan", str(LATE_DIVAN), "--json")
    assert code == 0, out
    assert json.loads(out)["rerun"]["ok"]
