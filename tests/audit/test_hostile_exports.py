"""Hostile export files against the verbs that read one (issue 13, docs/export.md): each answers
one line for people in the language asked and an exit code docs/export.md names, never a
traceback, and `verify` says ok only for a file that is one season read one way.

The files are what an outsider crafts from docs/export.md: a line nested too deep to parse, a
number that is no integer (1e400, NaN, true), a name twice in one object (two parsers, two
seasons), a line whose `type` is not its data's own, bytes that are valid JSON but not the
stored encoding (whitespace, a name twice inside the data), one event id twice, an upcast type
whose data was never such an event, and a redacted export handed to the verbs that fold.
Every forged line is re-chained (`rechain`), so only these checks can catch it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from entrypoints.cli import main
from shared.domain.state import NAMED_REPORT_VERSION
from shared.eventstore import RecordedEvent
from tests.audit.support import Line, dump, export_of, index_of, rechain, season_records

SEASON = "hostile"
VERBS: dict[str, list[str]] = {  # what each verb is given beside the file, and its exits
    "verify": [],
    "replay": [],
    "explain": ["2"],
}
EXITS = {"verify": {2}, "replay": {2}, "explain": {2}}  # a file that is not a season's export


@pytest.fixture(scope="module")
def records() -> list[RecordedEvent]:
    return season_records(SEASON, 7, live=True, report_version=NAMED_REPORT_VERSION)


@pytest.fixture
def lines(records: list[RecordedEvent]) -> list[Line]:
    return export_of(SEASON, records)


def raw(lines: list[Line]) -> list[bytes]:
    """The lines as the server writes them (compact), to edit as bytes."""
    return [json.dumps(x, ensure_ascii=False, separators=(",", ":")).encode() for x in lines]


def deep_metadata(lines: list[Line]) -> bytes:
    rows = raw(lines)
    rows[3] = rows[3].replace(
        b'"metadata":{', b'"metadata":{"x":' + b"[" * 100_000 + b"]" * 100_000 + b",", 1
    )
    return b"\n".join(rows) + b"\n"


def deep_header(lines: list[Line]) -> bytes:
    return b"[" * 100_000 + b"]" * 100_000 + b"\n" + b"\n".join(raw(lines)[1:]) + b"\n"


def header_events(text: bytes) -> Callable[[list[Line]], bytes]:
    def edit(lines: list[Line]) -> bytes:
        rows = raw(lines)
        rows[0] = rows[0].replace(b'"events":%d' % (len(lines) - 1), b'"events":' + text, 1)
        assert text in rows[0]
        return b"\n".join(rows) + b"\n"

    return edit


def line_number(field: str, text: bytes) -> Callable[[list[Line]], bytes]:
    def edit(lines: list[Line]) -> bytes:
        rows = raw(lines)
        rows[3] = rows[3].replace(
            b'"%s":3,' % field.encode(), b'"%s":%s,' % (field.encode(), text), 1
        )
        assert text in rows[3]
        return b"\n".join(rows) + b"\n"

    return edit


def name_twice(where: int, name: str, first: str) -> Callable[[list[Line]], bytes]:
    def edit(lines: list[Line]) -> bytes:
        rows = raw(lines)
        key = b'"%s":' % name.encode()
        rows[where] = rows[where].replace(key, key + first.encode() + b"," + key, 1)
        assert rows[where].count(key) == 2
        return b"\n".join(rows) + b"\n"

    return edit


def metadata_field(lines: list[Line]) -> bytes:
    """Metadata with a field this build does not know: it was dropped without a word, so an
    import kept less than the file holds (docs/export.md: the metadata is kept the same)."""
    lines[3]["metadata"] = {**lines[3].get("metadata", {}), "reviewed_by": "someone"}
    return dump(lines)


UNREADABLE: dict[str, Callable[[list[Line]], bytes]] = {
    "metadata with a field this build does not know": metadata_field,
    "metadata nested 100,000 deep": deep_metadata,
    "a header nested 100,000 deep": deep_header,
    "events 1e400": header_events(b"1e400"),
    "events NaN": header_events(b"NaN"),
    "events 798.0": header_events(b"3.0"),
    "version 1e400": line_number("version", b"1e400"),
    "version true": line_number("version", b"true"),
    "version 2^70": line_number("version", str(2**70).encode()),
    "position 2^64": line_number("position", str(2**64).encode()),
    "position -Infinity": line_number("position", b"-Infinity"),
    "the header's format twice": name_twice(0, "format", '"seksenbir-export/9"'),
    "an event's data twice": name_twice(3, "data", '"{}"'),
    "an event's hash twice": name_twice(3, "hash", '"' + "0" * 64 + '"'),
}


@pytest.mark.parametrize("verb", list(VERBS))
@pytest.mark.parametrize("name", list(UNREADABLE))
def test_a_file_read_two_ways_or_not_at_all_is_one_line_and_a_documented_exit(
    name: str, verb: str, tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "season.jsonl"
    path.write_bytes(UNREADABLE[name](lines))
    for lang, words in (("en", "line "), ("tr", "satır")):
        code = main([verb, str(path), *VERBS[verb], "--lang", lang])  # no exception escapes
        out = capsys.readouterr()
        assert code in EXITS[verb], (code, out.err)
        assert len(out.err.splitlines()) == 1, out.err
        assert words in out.err, out.err
        if verb == "verify":  # a file that is not an export: its error, never "ok"
            assert json.loads(out.out).get("ok", False) is False


def set_data(line: Line, data: str) -> None:
    """A forger's new data, with its data_digest (chain version 2 covers the digest)."""
    line["data"] = data
    line["data_digest"] = hashlib.sha256(data.encode()).hexdigest()


def retype(type_: str) -> Callable[[list[Line]], int]:
    def edit(lines: list[Line]) -> int:
        i = index_of(lines, lambda x: x["type"] == "battles_resolved.v1")
        lines[i]["type"] = type_
        return i

    return edit


def reencode(type_: str, dump_data: Callable[[object], str]) -> Callable[[list[Line]], int]:
    def edit(lines: list[Line]) -> int:
        i = index_of(lines, lambda x: x["type"] == type_)
        set_data(lines[i], dump_data(json.loads(lines[i]["data"])))
        return i

    return edit


def seat_twice(lines: list[Line]) -> int:
    """`{"seat":4,…,"seat":1}`: a decoder that keeps the last name reads seat 1."""
    i = index_of(lines, lambda x: x["type"] == "orders_submitted.v1")
    data = lines[i]["data"]
    assert data.startswith("{")
    set_data(lines[i], '{"seat":4,' + data[1:])
    return i


def id_twice(lines: list[Line]) -> int:
    i = index_of(lines, lambda x: x["type"] == "orders_submitted.v1")
    lines[i + 1]["event_id"] = lines[i]["event_id"]
    return i + 1


def calendar_not_an_object(lines: list[Line]) -> int:
    i = index_of(lines, lambda x: x["type"] == "calendar_set.v2")
    lines[i]["type"] = "calendar_set.v1"
    set_data(lines[i], '{"calendar":5,"type":"calendar_set.v1"}')
    return i


def calendar_without_fields(lines: list[Line]) -> int:
    i = index_of(lines, lambda x: x["type"] == "calendar_set.v2")
    lines[i]["type"] = "calendar_set.v1"
    set_data(lines[i], '{"calendar":{},"type":"calendar_set.v1"}')
    return i


def relabel(season_id: str) -> Callable[[list[Line]], int]:
    """Another season's events under this id: the envelope covers the id, so re-chained the
    links hold; the season's own id (in its season_created.v1) says otherwise."""

    def edit(lines: list[Line]) -> int:
        lines[0]["season_id"] = season_id
        return 1

    return edit


def memleket(plate: int) -> Callable[[list[Line]], int]:
    """A computer bey seated on a plate no province has: it decoded (its fields were integers)
    and the fold met it (IndexError); now a plate is 1 … 81 where the event type declares it
    (shared/domain/event_bounds.py), so the data is not a possible event."""

    def edit(lines: list[Line]) -> int:
        i = index_of(lines, lambda x: x["type"] == "registration_closed.v1")
        data = json.loads(lines[i]["data"])
        data["computer_beys"][0][1] = plate
        dumped = json.dumps(data, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
        set_data(lines[i], dumped)
        return i

    return edit


def out_of_order(lines: list[Line]) -> int:
    """The season's creation and its registration close swapped, then re-chained: every event
    is a possible one, but the first no state can take (the fold met a registration close
    before any season was created)."""
    i = index_of(lines, lambda x: x["type"] == "registration_closed.v1")
    for name in ("type", "data", "data_digest", "event_id"):
        lines[1][name], lines[i][name] = lines[i][name], lines[1][name]
    return 1


FORGED: dict[str, tuple[Callable[[list[Line]], int], str]] = {
    "events out of order": (out_of_order, "cannot be applied"),
    "a season labelled as another": (relabel("another-season"), "a season labelled as another"),
    "a season labelled with a path": (relabel("../../etc/passwd"), "a season labelled as another"),
    "a type no event has": (retype("evil_thing.v1"), "its data's own type"),
    "a later version of the type": (retype("battles_resolved.v9"), "its data's own type"),
    "another event's type": (retype("orders_submitted.v1"), "its data's own type"),
    "an order with spaces": (
        reencode("orders_submitted.v1", lambda d: json.dumps(d, sort_keys=True, indent=1)),
        "canonical encoding",
    ),
    "an outcome with its keys unsorted": (
        reencode("divan_resolved.v1", lambda d: json.dumps(d, separators=(",", ":"))),
        "canonical encoding",
    ),
    "the season's creation with \\u escapes": (
        reencode(
            "season_created.v1",
            lambda d: json.dumps(d, separators=(",", ":"), sort_keys=True).replace(
                '"live"', '"\\u006cive"', 1
            ),
        ),
        "canonical encoding",
    ),
    "a name twice inside the data": (seat_twice, "canonical encoding"),
    "one event id twice": (id_twice, "a second time"),
}


@pytest.mark.parametrize("name", list(FORGED))
def test_a_rechained_forgery_the_chain_cannot_see_is_named_by_verify(
    name: str, tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    edit, words = FORGED[name]
    named = edit(lines)
    rechain(lines)  # the chain, the count and the head hold: only the content checks remain
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(lines))
    code = main(["verify", str(path), "--lang", "en"])
    out = capsys.readouterr()
    verdict = json.loads(out.out)
    assert code == 1, out.err
    assert verdict["ok"] is False
    bad = verdict["first_bad_event"]
    assert bad["line"] == named + 1 and bad["version"] == lines[named]["version"], bad
    assert words in bad["why"], bad
    assert len(out.err.splitlines()) == 1, out.err


@pytest.mark.parametrize("verb", ["replay", "explain", "what-if", "shadow"])
def test_the_verbs_that_fold_refuse_an_undecodable_or_redacted_file_in_one_line(
    verb: str,
    tmp_path: Path,
    records: list[RecordedEvent],
    lines: list[Line],
    capsys: pytest.CaptureFixture[str],
) -> None:
    changes = tmp_path / "changes.json"
    changes.write_text('{"orders": [], "dice": []}')
    extra = {
        "replay": [],
        "explain": ["2"],
        "what-if": ["2", "--file", str(changes)],
        "shadow": ["--adjudicate-cmd", "false"],
    }[verb]
    undecodable = [dict(x) for x in lines]
    i = index_of(undecodable, lambda x: x["type"] == "battles_resolved.v1")
    set_data(undecodable[i], '{"type":"evil_thing.v1"}')
    rechain(undecodable)
    cut = next(k for k, r in enumerate(records) if r.type == "kurultay_held.v1")
    redacted = export_of(SEASON, records[:cut], redact=True)
    for name, file_lines, words in (
        ("undecodable", undecodable, ("data is not a known event", "bilinen bir olay değil")),
        ("redacted", redacted, ("needs a full export", "tam dışa aktarım gerekir")),
    ):
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(dump(file_lines))
        for lang, word in zip(("en", "tr"), words, strict=True):
            code = main(
                [
                    verb,
                    *([] if verb == "shadow" else [str(path)]),
                    *extra,
                    *([str(path)] if verb == "shadow" else []),
                    "--lang",
                    lang,
                ]
            )
            err = capsys.readouterr().err
            assert code == 2, (name, err)
            assert len(err.splitlines()) == 1 and word in err, (name, err)


@pytest.mark.parametrize("plate", ["0", "82", "999", "-6"])
def test_explain_refuses_a_plate_that_is_no_province_as_the_endpoint_does(
    plate: str, tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    """`GET …/explain?province=999` is 422 `invalid_parameter`; the verb answered "There was
    no battle in this Divan at 999" and exit 0, as if 999 were a province."""
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(lines))
    for lang, words in (("en", "a plate is 1 … 81"), ("tr", "bir plaka 1 … 81 arasıdır")):
        with pytest.raises(SystemExit) as exc:
            main(["explain", str(path), "2", plate, "--lang", lang])
        assert exc.value.code == 2
        assert words in capsys.readouterr().err


def test_a_heads_file_nested_too_deep_is_a_usage_error_not_a_traceback(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(lines))
    heads = tmp_path / "heads.json"
    heads.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SystemExit) as exc:
        main(["verify", str(path), "--heads", str(heads), "--lang", "en"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "nested too deeply" in err, err


@pytest.mark.parametrize("verb", ["verify", "replay", "explain"])
def test_a_standard_output_that_cannot_be_written_is_one_line_not_a_traceback(
    verb: str, tmp_path: Path, lines: list[Line]
) -> None:
    """`seksenbir verify F > /dev/full` (a full disk, a closed log): print raised ENOSPC and the
    verb died with a traceback; now one line in the language asked, exit 1."""
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(lines))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEKSENBIR_")}
    for lang, words in (
        ("en", "could not be read or written (ENOSPC)"),
        ("tr", "yazılamadı (ENOSPC)"),
    ):
        with open("/dev/full", "wb") as full:
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "entrypoints.cli",
                    verb,
                    str(path),
                    *VERBS[verb],
                    "--lang",
                    lang,
                ],
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                timeout=120,
                check=False,
            )
        assert done.returncode == 1, done.stderr
        assert len(done.stderr.splitlines()) == 1 and words in done.stderr, done.stderr


def test_replay_of_a_cut_file_warns_that_it_does_not_vouch_for_it(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    """A file cut after line 200 (or a header over no events) replayed as a whole season with
    no word: replay checked the links but not the header's count and head."""
    for name, kept in (("cut", lines[:200]), ("header only", lines[:1])):
        path = tmp_path / "season.jsonl"
        path.write_bytes(dump(kept))
        for lang, words in (("en", "the file holds"), ("tr", "dosyada")):
            assert main(["replay", str(path), "--lang", lang]) == 0, name
            err = capsys.readouterr().err
            assert len(err.splitlines()) == 1 and words in err, (name, err)


def swapped(lines: list[Line]) -> bytes:
    """Two events out of order, not re-chained: replay warns about the chain and goes on,
    so the fold met beys seated before their season was created (IndexError)."""
    rows = raw(lines)
    i = index_of(lines, lambda x: x["type"] == "registration_closed.v1")
    rows[1], rows[i] = rows[i], rows[1]
    return b"\n".join(rows) + b"\n"


@pytest.mark.parametrize("verb", ["replay", "explain"])
@pytest.mark.parametrize("name", ["swapped", "out of order, re-chained"])
def test_the_verbs_that_fold_refuse_events_no_state_can_take_in_one_line(
    verb: str, name: str, tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    """Probe (session 20): `replay` and `explain` of such a file ended in a traceback."""
    if name == "swapped":
        content = swapped(lines)
    else:
        out_of_order(lines)
        rechain(lines)
        content = dump(lines)
    path = tmp_path / "season.jsonl"
    path.write_bytes(content)
    for lang, words in (("en", "cannot be applied"), ("tr", "uygulanamıyor")):
        code = main([verb, str(path), *VERBS[verb], "--lang", lang])
        err = capsys.readouterr().err
        assert code == 2, err
        assert words in err.splitlines()[-1], err
        assert "Traceback" not in err
