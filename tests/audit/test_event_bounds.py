"""The bounds the event types declare (shared/domain/event_bounds.py, docs/export.md "Bounds").

A forged export re-chained by its forger (digests, links, count and head all hold) seated a bey
at seat 25 or on memleket 0, or gave it gold no season has, and `verify` said "ok": the event
types took any integer. Now each event type declares its fields' bounds (seats 1 … 19 R-1.1,
plates 1 … 81 R-2.1, Divans 1 … 16 R-1.1, units and gold never negative and bounded, the
known enums), every decode checks them, and the verbs that read a file refuse such an event in
one line naming its line, its event and the field, in the language asked for, exit 2.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from entrypoints.cli import main
from shared.app.ops.export_read import decode_problem
from shared.domain import codec
from shared.domain import events as ev
from shared.domain.state import NAMED_REPORT_VERSION
from shared.eventstore import RecordedEvent
from tests.audit.support import Line, dump, edit_data, export_of, index_of, rechain, season_records

SEASON = "bounds"


@pytest.fixture(scope="module")
def records() -> list[RecordedEvent]:
    return season_records(SEASON, 7, live=True, report_version=NAMED_REPORT_VERSION)


@pytest.fixture
def lines(records: list[RecordedEvent]) -> list[Line]:
    return export_of(SEASON, records)


def data_of(type_: str, change: Callable[[Any], None]) -> Callable[[list[Line]], int]:
    """The first event of `type_` with its data changed (its digest with it)."""

    def edit(lines: list[Line]) -> int:
        i = index_of(lines, lambda x: x["type"] == type_)
        edit_data(lines[i], change)
        return i

    return edit


def set_at(*path: Any) -> Callable[[Any], None]:
    """data[path[0]]…[path[-2]] = path[-1]."""

    def change(data: Any) -> None:
        for key in path[:-2]:
            data = data[key]
        data[path[-2]] = path[-1]

    return change


def raw_calendar(body: str) -> Callable[[list[Line]], int]:
    """A calendar_set.v1 (upcast on read, ADR-58) whose body is `body`."""

    def edit(lines: list[Line]) -> int:
        i = index_of(lines, lambda x: x["type"] == "calendar_set.v2")
        lines[i]["type"] = "calendar_set.v1"

        def replace(data: dict[str, Any]) -> None:
            data.clear()
            data.update(json.loads(body))

        edit_data(lines[i], replace)
        return i

    return edit


# what is forged, the field named, and the bound or kind (its English, its Turkish)
IMPOSSIBLE: dict[str, tuple[Callable[[list[Line]], int], str, str, str]] = {
    "orders of a bey in seat 25": (
        data_of("orders_submitted.v1", set_at("seat", 25)),
        "$.seat",
        "must be ≤ 19",
        "≤ 19 olmalı",
    ),
    "a computer bey on memleket 0": (
        data_of("registration_closed.v1", set_at("computer_beys", 0, 1, 0)),
        "$.computer_beys[0][1]",
        "must be ≥ 1",
        "≥ 1 olmalı",
    ),
    "a computer bey on plate 99": (
        data_of("registration_closed.v1", set_at("computer_beys", 0, 1, 99)),
        "$.computer_beys[0][1]",
        "must be ≤ 81",
        "≤ 81 olmalı",
    ),
    "missions dealt to seat 20": (
        data_of("registration_closed.v1", lambda d: d["missions"].update({"20": ["M-1"]})),
        "$.missions.<key>",
        "must be ≤ 19",
        "≤ 19 olmalı",
    ),
    # main's verify said "ok" for these two (nothing re-derives them): the bounds alone see them
    "a deadline at Divan 40": (
        data_of("deadline_set.v1", set_at("divan", 40)),
        "$.divan",
        "must be ≤ 16",
        "≤ 16 olmalı",
    ),
    "a calendar interval of -5 s": (
        data_of("calendar_set.v2", set_at("interval_seconds", -5)),
        "$.interval_seconds",
        "must be ≥ 2",
        "≥ 2 olmalı",
    ),
    "Divan 17 locked": (
        data_of("divan_locked.v1", set_at("divan", 17)),
        "$.divan",
        "must be ≤ 16",
        "≤ 16 olmalı",
    ),
    "a province left with -1 units": (
        data_of("production_applied.v1", set_at("changes", 0, "units", -1)),
        "$.changes[0].units",
        "must be ≥ 0",
        "≥ 0 olmalı",
    ),
    "a trillion gold": (
        data_of("production_applied.v1", set_at("gold", 0, "amount", 10**12)),
        "$.gold[0].amount",
        "must be ≤ 99999",
        "≤ 99999 olmalı",
    ),
    "a seed of 2^64": (
        data_of("season_created.v1", set_at("seed", 2**64)),
        "$.seed",
        "must be ≤ 9223372036854775807",
        "≤ 9223372036854775807 olmalı",
    ),
    "a mode no season has": (
        data_of("season_created.v1", set_at("mode", "şaka")),
        "$.mode",
        "holds a value it cannot: 'şaka'",
        "olmayacak bir değer: 'şaka'",
    ),
    "a seat as a string": (
        data_of("orders_submitted.v1", set_at("seat", "1")),
        "$.seat",
        "must be an integer",
        "bir tamsayı olmalı",
    ),
    "calendar_set.v1 whose calendar is no object": (
        raw_calendar('{"calendar":5,"type":"calendar_set.v1"}'),
        "$.calendar",
        "must be an object",
        "bir nesne olmalı",
    ),
    "calendar_set.v1 without its fields": (
        raw_calendar('{"calendar":{},"type":"calendar_set.v1"}'),
        "$.calendar.registration_closes_at",
        "is missing",
        "alanı yok",
    ),
}


@pytest.mark.parametrize("name", list(IMPOSSIBLE))
def test_a_rechained_event_out_of_its_bounds_is_refused_naming_event_and_field(
    name: str, tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    edit, field, en, tr = IMPOSSIBLE[name]
    named = edit(lines)
    rechain(lines)  # chain, count and head hold: only the bounds can catch it
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(lines))
    for lang, words, said in (
        ("en", en, "not a possible event"),
        ("tr", tr, "olabilecek bir olay değil"),
    ):
        code = main(["verify", str(path), "--lang", lang])
        out = capsys.readouterr()
        assert code == 2, out.err
        verdict = json.loads(out.out)
        assert verdict["ok"] is False
        bad = verdict["first_bad_event"]
        assert (bad["line"], bad["type"]) == (named + 1, lines[named]["type"]), bad
        assert field in bad["why"] and en in bad["why"], bad  # the JSON's: English, stable
        assert len(out.err.splitlines()) == 1, out.err
        err = out.err
        assert field in err and words in err and said in err, err
        assert lines[named]["type"] in err and "Expected" not in err, err
        for verb, extra in (("replay", []), ("explain", ["2"])):
            assert main([verb, str(path), *extra, "--lang", lang]) == 2
            err = capsys.readouterr().err
            assert len(err.splitlines()) == 1 and field in err and words in err, err
            assert f"{'line' if lang == 'en' else 'satır'} {named + 1}:" in err, err


@pytest.mark.parametrize(
    ("event", "good", "bad"),
    [
        (ev.BeyJoined, {"seat": 1, "memleket": 81}, {"seat": 0, "memleket": 81}),
        (ev.BeyJoined, {"seat": 19, "memleket": 1}, {"seat": 20, "memleket": 1}),
        (ev.BeyJoined, {"seat": 19, "memleket": 1}, {"seat": 19, "memleket": 82}),
        (ev.DivanRequested, {"divan": 16}, {"divan": 0}),
        (ev.VoteCast, {"seat": 2, "candidate": 19}, {"seat": 2, "candidate": -1}),
        (
            ev.MercenariesHired,
            {"seat": 2, "province": 6, "units": 0},
            {"seat": 2, "province": 6, "units": -2},
        ),
    ],
)
def test_the_bounds_are_declared_on_the_event_types_and_checked_on_every_decode(
    event: type[ev.Event], good: dict[str, int], bad: dict[str, int]
) -> None:
    """R-1.1, R-2.1: the edges of each bound decode, one past them does not, through the one
    decoder every read uses (the store's, an export's)."""
    tag = str(event.__struct_config__.tag)
    assert codec.decode_event(msgspec.json.encode({"type": tag, **good})) == event(**good)
    with pytest.raises(msgspec.ValidationError) as exc:
        codec.decode_event(msgspec.json.encode({"type": tag, **bad}))
    assert decode_problem(exc.value).key == "decode.bound"


def test_the_store_s_own_events_decode_within_their_bounds(records: list[RecordedEvent]) -> None:
    """A whole live season as the domain wrote it, and the trial fixture's: every event decodes
    and re-encodes to its own bytes (the golden digests do not move: tests/domain)."""
    for r in records:
        assert codec.encode(codec.decode_checked(r.data, r.type)) == r.data


def test_the_exit_follows_the_first_fault_a_changed_line_that_breaks_its_digest_is_1(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    """Probe: data changed to an impossible event without its digest (the chain names that
    line first) exited 2 while the line said "data_digest is not the sha256 of the line's
    data": the exit is the first bad event's, a broken chain 1."""
    i = index_of(lines, lambda x: x["type"] == "orders_submitted.v1")
    lines[i]["data"] = lines[i]["data"].replace('"seat":', '"seat":2', 1)  # seat 2N: > 19
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(lines))
    code = main(["verify", str(path), "--lang", "en"])
    out = capsys.readouterr()
    assert code == 1, out.err
    assert json.loads(out.out)["first_bad_event"]["code"] == "export.digest_wrong", out.out


@pytest.mark.parametrize(
    "body",
    [
        b'{"type":"message_sent.v1","channel":"all","seat":20,"digest":"d"}',
        b'{"type":"bey_muted.v1","seat":2,"muted":0,"on":true}',
        b'{"type":"message_reported.v1","message":-1,"seat":3}',
    ],
)
def test_chat_events_declare_their_bounds_too(body: bytes) -> None:
    """ADR-106's chat chain is read from exports as the season's events are: a seat 1 … 19."""
    from shared.domain.chat_events import decode_chat

    with pytest.raises(msgspec.ValidationError) as exc:
        decode_chat(body)
    assert decode_problem(exc.value).key == "decode.bound"


def test_the_bounds_that_name_another_module_s_numbers_say_the_same() -> None:
    """event_bounds.py imports nothing of the domain (state imports it): its report versions
    and calendar intervals are checked against theirs here."""
    from typing import get_args

    from shared.domain import calendar, event_bounds
    from shared.domain.state import REPORT_VERSIONS

    report = get_args(event_bounds.ReportVersion)[1]
    interval = get_args(event_bounds.Interval)[1]
    assert (report.ge, report.le) == (min(REPORT_VERSIONS), max(REPORT_VERSIONS))
    assert (interval.ge, interval.le) == (
        calendar.MIN_INTERVAL_SECONDS,
        calendar.MAX_INTERVAL_SECONDS,
    )
