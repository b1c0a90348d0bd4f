"""`seksenbir export` files and `seksenbir verify FILE`, with no database (issue 13, R-12.3, R-1.5).

A clean export verifies; each forgery an auditor must catch fails with a non-zero exit and names
the first event that does not match: a tampered payload, a dropped event, a reordered pair, a
changed Divan outcome or computer order with the chain recomputed (only the re-run catches it),
a cut tail, and a revealed seed that does not open the commitment.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from entrypoints.cli import main
from shared.app.ops.export import FORMAT, ExportError, RedactionUnavailable, export_lines
from shared.app.ops.export_check import check
from shared.app.ops.export_read import parse
from shared.domain.state import RULES_VERSION
from shared.eventstore import RecordedEvent
from tests.audit.support import (
    Line,
    dump,
    edit_data,
    export_of,
    index_of,
    rechain,
    season_records,
    season_records_v1,
)

SEASON = "audit-live"


@pytest.fixture(scope="module")
def records() -> list[RecordedEvent]:
    return season_records(SEASON, 11, live=True)


@pytest.fixture
def lines(records: list[RecordedEvent]) -> list[Line]:
    return export_of(SEASON, records)


def verify_file(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, Any], str]:
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(lines))
    code = main(["verify", str(path), "--lang", "en"])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


def test_the_first_line_names_the_format_season_rules_count_and_head(
    lines: list[Line], records: list[RecordedEvent]
) -> None:
    header = lines[0]
    assert header["format"] == FORMAT == "seksenbir-export/2"
    assert header["season_id"] == SEASON and header["mode"] == "live"
    assert header["rules_version"] == RULES_VERSION  # the season's own (simulate's default)
    assert header["events"] == len(records) == len(lines) - 1
    assert header["head"] == records[-1].hash.hex()
    assert header["chain"] == "seksenbir/event-chain/2" and header["genesis"] == "00" * 32
    assert header["redacted"] is None  # a full export
    first = lines[1]
    assert first["version"] == 1 and first["type"] == "season_created.v1"
    assert first["data"].encode() == records[0].data  # the exact stored bytes
    assert first["data_digest"] == hashlib.sha256(records[0].data).hexdigest()
    assert first["prev_hash"] == "00" * 32 and first["hash"] == records[0].hash.hex()


def test_a_clean_export_verifies_and_opens_the_seed_commitment(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    code, verdict, err = verify_file(tmp_path, lines, capsys)
    assert code == 0, verdict
    assert verdict["ok"] and verdict["hash_chain"] == "ok" and verdict["replay"] == "ok"
    assert verdict["mismatches"] == [] and verdict["first_bad_event"] is None
    assert verdict["divan"] == 16 and verdict["phase"] == "over"
    assert verdict["seed_commitment"].startswith("ok: sha256(salt:seed) = ")
    assert f"season {SEASON}: ok" in err and "seed commitment: ok" in err


def test_an_auditor_can_recheck_the_chain_from_the_documented_layout_alone(
    lines: list[Line],
) -> None:
    """docs/export.md is precise enough: hashlib alone rebuilds every hash and the head."""
    rebuilt = [dict(x) for x in lines]
    rechain(rebuilt)
    assert [x["hash"] for x in rebuilt[1:]] == [x["hash"] for x in lines[1:]]
    assert rebuilt[0]["head"] == lines[0]["head"]


def _orders(x: Line) -> bool:
    return bool(x["type"] == "orders_submitted.v1")


def _battles(x: Line) -> bool:
    return bool(x["type"] == "battles_resolved.v1" and json.loads(x["data"])["battles"])


def _first_unit_count(data: Any) -> None:
    """Add a unit to the first number found under the first battle (an altered outcome)."""
    battle = data["battles"][0]
    for key in sorted(battle):
        if isinstance(battle[key], int) and not isinstance(battle[key], bool):
            battle[key] += 1
            return
    raise AssertionError(f"no number in {battle}")


def _tamper_payload(lines: list[Line]) -> int:
    i = index_of(lines, _orders)
    edit_data(lines[i], lambda d: d["orders"][0].__setitem__("units", d["orders"][0]["units"] + 1))
    return i


def _drop(lines: list[Line]) -> int:
    i = index_of(lines, _battles)
    del lines[i]
    return i  # the event after it now sits there


def _reorder(lines: list[Line]) -> int:
    i = index_of(lines, _battles)
    lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return i


def _outcome(lines: list[Line]) -> int:
    i = index_of(lines, _battles)
    edit_data(lines[i], _first_unit_count)
    return i


def _outcome_rechained(lines: list[Line]) -> int:
    i = index_of(lines, _battles)
    edit_data(lines[i], _first_unit_count)
    rechain(lines, i)
    return i


def _order_rechained(lines: list[Line]) -> int:
    i = _tamper_payload(lines)
    rechain(lines, i)
    return i


def _tail_cut(lines: list[Line]) -> int:
    del lines[-1]
    lines[0]["events"] -= 1  # the forger fixes the count, not the head it cannot forge
    return len(lines) - 1


def _salt(lines: list[Line]) -> int:
    i = index_of(lines, lambda x: x["type"] == "seed_revealed.v1")
    edit_data(lines[i], lambda d: d.__setitem__("salt", "other"))
    rechain(lines, i)
    return i


CASES: dict[str, tuple[Callable[[list[Line]], int], str, str]] = {
    # name: (edit -> index of the line to be named, verdict field, words of the reason)
    "tampered payload": (_tamper_payload, "hash_chain", "hash does not match"),
    "altered outcome": (_outcome, "hash_chain", "hash does not match"),
    "dropped event": (_drop, "hash_chain", "is missing"),
    "reordered pair": (_reorder, "hash_chain", "out of order"),
    "changed outcome, chain recomputed": (_outcome_rechained, "replay", "outcome differs"),
    "changed order, chain recomputed": (_order_rechained, "replay", "computer beys' turn"),
    "cut tail": (_tail_cut, "hash_chain", "header's head"),
    "wrong salt revealed": (_salt, "seed_commitment", "not the season's seed_commitment"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_forgery_fails_and_names_the_first_event_that_does_not_match(
    name: str, tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    edit, field, words = CASES[name]
    named = edit(lines)
    code, verdict, err = verify_file(tmp_path, lines, capsys)
    assert code == 1, verdict
    assert not verdict["ok"]
    assert verdict[field] != "ok" and not verdict[field].startswith("ok")
    bad = verdict["first_bad_event"]
    assert bad["line"] == named + 1, bad  # lines[0] is the header, file line 1
    assert bad["version"] == lines[named]["version"]
    assert bad["event_id"] == lines[named]["event_id"]
    assert words in bad["why"], bad
    assert f"version {bad['version']}, line {bad['line']}" in err


def test_a_file_that_is_not_an_export_is_refused_without_a_traceback(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    lines[0]["format"] = "seksenbir-export/3"
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(lines))
    assert main(["verify", str(path), "--lang", "en"]) == 2  # not an export (docs/export.md)
    out = capsys.readouterr()
    assert "'seksenbir-export/3' is not one of" in json.loads(out.out)["error"]
    lines[0]["format"] = FORMAT
    with pytest.raises(ExportError, match="line 3: not JSON"):
        parse([dump(lines[:1]), dump(lines[1:2]), b"{not json"])
    with pytest.raises(ExportError, match="line 2: the field version is missing"):
        parse([dump(lines[:1]), b"{}"])


def test_a_season_not_over_says_its_seed_is_not_revealed_yet(records: list[RecordedEvent]) -> None:
    cut = records[: next(i for i, r in enumerate(records) if r.type == "kurultay_held.v1")]
    lines = export_of(SEASON, cut)
    verdict = check(parse(dump(lines).splitlines()))
    assert verdict.ok and verdict.seed_commitment.startswith("not revealed yet")


def test_verify_needs_no_database_and_no_server(tmp_path: Path, lines: list[Line]) -> None:
    """An export verified offline in an environment with no database configured (issue 13):
    the DSN names a port nothing listens on, so any connection attempt would fail."""
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(lines))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEKSENBIR_")}
    env["SEKSENBIR_PG_DSN"] = "postgresql://nobody@127.0.0.1:9/nowhere"
    env["SEKSENBIR_REDIS_URL"] = "redis://127.0.0.1:9/0"
    done = subprocess.run(
        [sys.executable, "-m", "entrypoints.cli", "verify", str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ok"] is True


def test_a_missing_file_is_a_usage_error_not_a_season_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for verb in ("verify", "replay"):
        with pytest.raises(SystemExit) as exc:
            main([verb, str(tmp_path / "season.jsonl"), "--lang", "en"])
        assert exc.value.code == 2
        assert "season.jsonl: no such file" in capsys.readouterr().err


def test_verify_needs_one_source_or_all(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--lang", "en"]) == 2
    assert "name a SOURCE" in capsys.readouterr().err
    assert main(["verify", "some-season", "--all", "--lang", "en"]) == 2
    assert "not both" in capsys.readouterr().err


def test_r14_a_redacted_export_proves_its_chain_and_says_the_divans_need_a_full_one(
    tmp_path: Path, records: list[RecordedEvent], capsys: pytest.CaptureFixture[str]
) -> None:
    """R-14, ADR-52: exit 3 (docs/export.md): the chain, count and head hold with the digests
    of what was left out, and the verdict says re-running the Divans needs a full export."""
    cut = records[: next(i for i, r in enumerate(records) if r.type == "kurultay_held.v1")]
    lines = export_of(SEASON, cut, redact=True)
    assert lines[0]["redacted"]["events"] == sum(1 for x in lines[1:] if x.get("redacted"))
    code, verdict, err = verify_file(tmp_path, lines, capsys)
    assert code == 3, verdict
    assert verdict["ok"] is True and verdict["complete"] is False
    assert verdict["hash_chain"] == "ok" and verdict["head"] == cut[-1].hash.hex()
    assert "needs a full export" in verdict["replay"] and "NOT re-run" in err
    # a forged digest of a left-out event breaks the chain there
    i = index_of(lines, lambda x: bool(x.get("redacted")))
    lines[i]["data_digest"] = "11" * 32
    code, verdict, _err = verify_file(tmp_path, lines, capsys)
    assert code == 1 and verdict["first_bad_event"]["version"] == lines[i]["version"]


def test_r14_after_the_kurultay_a_redacted_export_is_the_full_one(
    records: list[RecordedEvent],
) -> None:
    assert export_of(SEASON, records, redact=True) == export_of(SEASON, records)


def test_a_version_1_file_of_a_version_1_season_still_verifies(
    tmp_path: Path, records: list[RecordedEvent], capsys: pytest.CaptureFixture[str]
) -> None:
    """ADR-52: files written as seksenbir-export/1 (chain version 1, no data digests) before
    this change are still read and verified; a season on chain version 1 has no redacted
    export."""
    v1 = season_records_v1(SEASON, 11)
    lines = export_of(SEASON, v1)
    assert lines[0]["chain"] == "seksenbir/event-chain/1"
    old = [
        {**{k: v for k, v in lines[0].items() if k != "redacted"}, "format": "seksenbir-export/1"},
        *({k: v for k, v in x.items() if k != "data_digest"} for x in lines[1:]),
    ]
    code, verdict, _err = verify_file(tmp_path, old, capsys)
    assert code == 0 and verdict["complete"], verdict
    assert verdict["head"] == v1[-1].hash.hex() != records[-1].hash.hex()
    with pytest.raises(RedactionUnavailable):
        export_lines(SEASON, v1[:50], v1[49].hash, redact=True)
    old[0]["chain"] = "seksenbir/event-chain/2"  # /1 files name only chain version 1
    with pytest.raises(ExportError, match="chain scheme"):
        parse(dump(old).splitlines())


def test_a_pipe_is_read_as_the_file_it_streams_and_a_directory_is_not_called_missing(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    """Probe (session 23): `seksenbir verify <(zcat season.jsonl.gz)` said "/dev/fd/63: no
    such file" (only a regular file was taken for a file), and `verify /tmp` said the directory
    did not exist. A pipe is read as its export; a directory is refused as the OS says why."""
    import threading

    fifo = tmp_path / "season.pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(dump(lines)), daemon=True)
    writer.start()
    code = main(["verify", str(fifo), "--lang", "en"])
    writer.join(timeout=10)
    out = capsys.readouterr()
    assert code == 0, out.err
    assert json.loads(out.out)["ok"] is True
    for verb in ("verify", "replay"):
        try:
            code = main([verb, str(tmp_path), "--lang", "en"])
        except SystemExit as exc:
            code = int(exc.code or 0)
        assert code == 2
        err = capsys.readouterr().err
        assert "cannot be read (EISDIR)" in err and "no such file" not in err, err


@pytest.mark.parametrize("lang", ["tr", "en"])
def test_verify_json_of_a_file_it_cannot_read_is_a_code_and_words_never_the_os_text(
    tmp_path: Path, lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Probe (session 23): `verify /tmp`'s JSON carried Python's text in `error` ("[Errno 21] Is
    a directory: '/tmp'"). It is the English line's words without the file (its own field) and
    a stable code, as an export that does not parse is (docs/export.md)."""
    assert main(["verify", str(tmp_path), "--lang", lang]) == 2
    out = capsys.readouterr()
    document = json.loads(out.out)
    assert document == {
        "file": str(tmp_path),
        "error": "cannot be read (EISDIR)",
        "code": "os.EISDIR",
    }
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b'{"a\n')
    assert main(["verify", str(junk), "--lang", lang]) == 2
    document = json.loads(capsys.readouterr().out)
    assert document == {
        "file": str(junk),
        "error": "line 1: not JSON (it breaks at character 4)",
        "code": "export.not_json",
    }


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("tr", "bir SEZON ya da --all verin, ikisini birden değil"),
        ("en", "name a SEASON or --all, not both"),
    ],
)
def test_projections_rebuild_of_a_season_and_all_is_refused_not_everything_rebuilt(
    lang: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`projections rebuild S --all` rebuilt every season: which was meant is unknown, so it is
    refused as `verify` and `shadow` refuse a source with --all (exit 2, one line), before any
    store is opened (the --dsn here answers nothing)."""
    argv = ["projections", "rebuild", "0123456789abcdef0123456789abcdef", "--all"]
    assert main([*argv, "--dsn", "postgresql://nobody@127.0.0.1:9/nowhere", "--lang", lang]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == f"seksenbir projections rebuild: {words}\n"


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("tr", "mesaj kimliklerini ya da --all verin, ikisini birden değil"),
        ("en", "name message ids or --all, not both"),
    ],
)
def test_deadletters_replay_of_ids_and_all_is_refused_not_every_letter_sent(
    lang: str, words: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`deadletters replay ID --all` sent every dead letter again: refused as `projections
    rebuild S --all` is (exit 2, one line), before any broker is reached (none listens here)."""
    monkeypatch.setenv("SEKSENBIR_REDIS_URL", "redis://127.0.0.1:9/0")
    monkeypatch.delenv("SEKSENBIR_BROKER_URL", raising=False)
    assert main(["deadletters", "replay", "1700000000000-0", "--all", "--lang", lang]) == 2
    out = capsys.readouterr()
    assert (out.out, out.err) == ("", f"seksenbir deadletters replay: {words}\n")
