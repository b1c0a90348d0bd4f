"""Reading an export from outside (docs/export.md): the header's `genesis` and `redacted` said
against the lines; the one fold of `verify`; why a file is not read, in words and a code.

- The header's `genesis` and `redacted` were read by no one: a full export could call itself
  redacted, a redacted one call itself full (`redacted: null`), or name another genesis, and
  `verify` said ok. Each is now a line-1 refusal, exit 2.
- `check` folded a file once to find an event no state can take (`first_unapplied`) and then
  again in the re-run (+5.7 % on verify): the one fold catches it now.
- A Turkish line said Python's and the JSON parser's own English ("Expecting value: line 1
  column 1 (char 0)", "KeyError('hash')", "non-hexadecimal number found in fromhex()"): every
  reason is now in words in the language asked for, with its stable code.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from entrypoints.cli import main
from shared.app.ops.export_check import check
from shared.app.ops.export_read import parse
from shared.domain.evolve import evolve
from shared.domain.state import NAMED_REPORT_VERSION
from shared.eventstore import RecordedEvent
from tests.audit.support import Line, dump, export_of, season_records, season_records_v1

SEASON = "reading"


@pytest.fixture(scope="module")
def records() -> list[RecordedEvent]:
    return season_records(SEASON, 7, live=True, report_version=NAMED_REPORT_VERSION)


@pytest.fixture
def lines(records: list[RecordedEvent]) -> list[Line]:
    return export_of(SEASON, records)


def redacted_lines(records: list[RecordedEvent]) -> list[Line]:
    cut = next(k for k, r in enumerate(records) if r.type == "kurultay_held.v1")
    return export_of(SEASON, records[:cut], redact=True)


def header(**fields: object) -> Callable[[list[Line]], None]:
    def edit(lines: list[Line]) -> None:
        lines[0].update(fields)

    return edit


HEADERS: dict[str, tuple[bool, Callable[[list[Line]], None], str, str]] = {
    # name: (redacted file?, the edit, the English, the Turkish)
    "another genesis": (False, header(genesis="11" * 32), "genesis must be", "genesis alanı"),
    "no genesis in a /2 file": (
        False,
        lambda lines: lines[0].pop("genesis"),
        "genesis must be a hash",
        "genesis alanı",
    ),
    "a full export calling itself redacted": (
        False,
        header(redacted={"rule": "R-14", "events": 3}),
        "the header says 3 events' data is left out, the file leaves out 0",
        "başlık 3 olayın verisi dışarıda diyor",
    ),
    "a redacted export calling itself full": (
        True,
        header(redacted=None),
        "the header says a full export (redacted: null)",
        "başlık tam bir dışa aktarım diyor",
    ),
    "a redacted export naming fewer": (
        True,
        lambda lines: lines[0]["redacted"].update(events=lines[0]["redacted"]["events"] - 1),
        "the file leaves out",
        "dosyada",
    ),
    "a redacted export under another rule": (
        True,
        lambda lines: lines[0]["redacted"].update(rule="R-99"),
        "the header's redacted must be null or",
        "başlığın redacted alanı",
    ),
}


@pytest.mark.parametrize("name", list(HEADERS))
def test_a_header_whose_genesis_or_redacted_does_not_describe_its_lines_is_refused(
    name: str,
    tmp_path: Path,
    records: list[RecordedEvent],
    lines: list[Line],
    capsys: pytest.CaptureFixture[str],
) -> None:
    redacted, edit, en, tr = HEADERS[name]
    file_lines = redacted_lines(records) if redacted else lines
    edit(file_lines)  # the header is in no link: nothing to re-chain
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(file_lines))
    for lang, words, at in (("en", en, "line 1: "), ("tr", tr, "satır 1: ")):
        code = main(["verify", str(path), "--lang", lang])
        out = capsys.readouterr()
        assert code == 2, out.err
        assert json.loads(out.out)["code"].startswith("export."), out.out
        assert len(out.err.splitlines()) == 1 and at in out.err and words in out.err, out.err


def test_the_header_of_a_clean_export_a_redacted_one_and_a_v1_file_still_reads(
    records: list[RecordedEvent], lines: list[Line]
) -> None:
    assert parse(dump(lines).splitlines(keepends=True)).redacted == frozenset()
    hidden = redacted_lines(records)
    assert (
        len(parse(dump(hidden).splitlines(keepends=True)).redacted)
        == hidden[0]["redacted"]["events"]
        > 0
    )
    v1 = export_of(SEASON, season_records_v1(SEASON, 7))  # chain version 1 (ADR-52)
    first = {k: v for k, v in v1[0].items() if k not in ("genesis", "redacted")}
    old = [{**first, "format": "seksenbir-export/1"}, *v1[1:]]
    assert parse(dump(old).splitlines(keepends=True)).count == len(v1) - 1  # /1 had neither


def test_verify_folds_the_season_once(lines: list[Line], monkeypatch: pytest.MonkeyPatch) -> None:
    """Each event is folded once (a lock twice more: the state the Divan re-runs from); the
    extra fold that looked for an event no state can take before the re-run is gone."""
    export = parse(dump(lines).splitlines(keepends=True))
    calls = 0

    def counted(state: object, event: object) -> object:
        nonlocal calls
        calls += 1
        return evolve(state, event)  # type: ignore[arg-type]

    monkeypatch.setattr("shared.domain.replay.evolve", counted)
    verdict = check(export)
    assert verdict.ok, verdict.as_json(True)
    locks = sum(1 for x in lines[1:] if x["type"] == "divan_locked.v1")
    assert calls == len(lines) - 1 + 2 * locks


def set_line(index: int, text: bytes) -> Callable[[list[Line]], bytes]:
    def edit(lines: list[Line]) -> bytes:
        rows = dump(lines).split(b"\n")
        rows[index] = text
        return b"\n".join(rows)

    return edit


def line_field(name: str, value: object) -> Callable[[list[Line]], bytes]:
    def edit(lines: list[Line]) -> bytes:
        lines[3][name] = value
        return dump_ascii(lines)

    return edit


def dump_ascii(lines: list[Line]) -> bytes:
    """The lines with every non-ASCII character escaped (`\\ud800` stays an escape)."""
    return b"".join(json.dumps(x).encode() + b"\n" for x in lines)


# what an outsider hands the verbs; the stable code each is refused with
UNREADABLE: dict[str, tuple[Callable[[list[Line]], bytes], str]] = {
    "a line cut in half": (set_line(3, b'{"version":3,"position":3,"event_'), "export.not_json"),
    "a line of Latin-1": (set_line(3, '{"version":"é"}'.encode("latin-1")), "export.not_utf8"),
    "a head of 3 hex digits": (
        lambda lines: (lines[0].update(head="abc"), dump(lines))[1],
        "export.not_hash",
    ),
    "events as a string": (
        lambda lines: (lines[0].update(events="3"), dump(lines))[1],
        "export.not_count",
    ),
    "a hash that is no hex": (line_field("hash", "zz" * 32), "export.not_hash"),
    "an event id that is no UUID": (line_field("event_id", "ü-ü"), "export.field_bad"),
    "a type that is a number": (line_field("type", 7), "export.field_bad"),
    "a recorded_at without its offset": (
        line_field("recorded_at", "2026-12-01T00:00:00"),
        "export.field_bad",
    ),
    "data_b64 that is no Base64": (
        lambda lines: (lines[3].pop("data"), line_field("data_b64", "!!")(lines))[1],
        "export.field_bad",
    ),
    "a line without its hash": (
        lambda lines: (lines[3].pop("hash"), dump(lines))[1],
        "export.field_missing",
    ),
    "metadata with an actor no one is": (
        line_field("metadata", {"actor": "şeytan"}),
        "export.metadata",
    ),
    "a version of 10^30": (line_field("version", 10**30), "export.not_count"),
    "a number of 5,000 digits": (
        set_line(3, b'{"version":' + b"9" * 5000 + b"}"),
        "export.number_too_long",
    ),
    "an empty file": (lambda lines: b"", "export.empty"),
    # JSON's \ud800 escape reads as a lone surrogate, which no UTF-8 holds: the chain's envelope
    # and an import's metadata failed on it with a UnicodeEncodeError traceback (probe)
    "a type with a lone surrogate": (line_field("type", "x\ud800"), "export.field_bad"),
    "a season id with a lone surrogate": (
        lambda lines: (lines[0].update(season_id="s\ud800"), dump_ascii(lines))[1],
        "export.field_bad",
    ),
    "data with a lone surrogate": (line_field("data", "\ud800"), "export.field_bad"),
    "metadata with a lone surrogate": (
        line_field("metadata", {"actor": "system", "command_id": "\ud800"}),
        "export.field_bad",
    ),
    "a header only of spaces": (lambda lines: b"   \n", "export.not_json"),
}


@pytest.mark.parametrize("name", list(UNREADABLE))
def test_why_a_file_is_not_read_is_said_in_words_with_its_code(
    name: str, tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    content, code = UNREADABLE[name]
    path = tmp_path / "season.jsonl"
    path.write_bytes(content(lines))
    said = {}
    for lang in ("en", "tr"):
        assert main(["verify", str(path), "--lang", lang]) == 2
        out = capsys.readouterr()
        assert json.loads(out.out)["code"] == code, out.out
        assert len(out.err.splitlines()) == 1 and f"[{code}]" in out.err, out.err
        said[lang] = out.err
    # no Python or parser English in the Turkish line (the field names and the code aside)
    for english in ("Expecting", "Error", "fromhex", "must be", "not ", "(char", "invalid"):
        assert english not in said["tr"], said["tr"]
    assert said["tr"] != said["en"]


HEADS: dict[str, tuple[bytes, str, str]] = {
    "a version past a bigint": (
        b'[{"divan": 1, "version": 99999999999999999999999, "hash": "ab"}]',
        "$[0].version must be ≤ 9223372036854775807",
        "$[0].version alanı ≤ 9223372036854775807 olmalı",
    ),
    "a divan as a string": (
        b'{"heads": [{"divan": "x", "version": 1, "hash": "ab"}]}',
        "$[0].divan must be an integer",
        "$[0].divan alanı bir tamsayı olmalı",
    ),
    "a hash that is no hash": (
        b'[{"divan": 1, "version": 5, "hash": "zz"}]',
        "$[0].hash",
        "$[0].hash",
    ),
    "not JSON": (b"[{", "not JSON (it breaks at character 3)", "JSON değil (3. karakterde"),
    "a report whose chain_head is no object": (
        b'{"reports": [{"kind": "divan", "divan": 1, "chain_head": 5}], "heads": 1}',
        "$[0] must be an object",
        "$[0] alanı bir nesne olmalı",
    ),
}


@pytest.mark.parametrize("name", list(HEADS))
def test_a_heads_file_that_is_not_heads_is_said_in_words(
    name: str, tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    """Probe: `--heads` said msgspec's and the JSON parser's English in a Turkish line
    (`Expected \\`int\\`, got \\`str\\` - at \\`$[0].divan\\``, `Expecting value: line 1 column 1`),
    and a saved reports answer whose chain_head was no object was a traceback."""
    content, en, tr = HEADS[name]
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(lines))
    heads = tmp_path / "heads.json"
    heads.write_bytes(content)
    for lang, words in (("en", en), ("tr", tr)):
        try:
            code = main(["verify", str(path), "--heads", str(heads), "--lang", lang])
        except SystemExit as exc:
            code = exc.code  # type: ignore[assignment]
        err = capsys.readouterr().err
        assert "Traceback" not in err and len(err.splitlines()) == 1, err
        if words:
            assert code == 2 and words in err, err
            assert "Expect" not in err and "got `" not in err, err


NO_HEADS = {
    "an empty list": b"[]",
    "an empty heads list": b'{"heads": []}',
    "a reports answer before Divan 1": b'{"reports": []}',
    "reports of no Divan": b'{"reports": [{"kind": "kurultay", "divan": 16}]}',
}


@pytest.mark.parametrize("name", list(NO_HEADS))
def test_a_heads_file_holding_no_head_is_not_done_never_ok(
    name: str, tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    """Probe: `verify --heads FILE` with no usable head in FILE said "ok: 0 published heads
    are in the chain" and exit 0: it checked nothing and said it held. Now it is not done
    (exit 2, ADR-155's convention) with a stable code and words (ADR-161)."""
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(lines))
    heads = tmp_path / "heads.json"
    heads.write_bytes(NO_HEADS[name])
    said = {}
    for lang in ("en", "tr"):
        try:
            code = main(["verify", str(path), "--heads", str(heads), "--lang", lang])
        except SystemExit as exc:
            code = exc.code  # type: ignore[assignment]
        out, err = capsys.readouterr()
        assert code == 2, (code, err)
        assert out == "" and len(err.splitlines()) == 1, err
        assert err.rstrip().endswith("[export.heads_none]"), err
        said[lang] = err
    assert "nothing was checked" in said["en"]
    assert "hiçbir şey denetlenmedi" in said["tr"]


def test_a_name_from_the_file_cannot_rewrite_the_line_that_shows_it(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    """Probe: a header's season id holding U+202E (right-to-left override) or 100 KB, or an
    event type of 5,000 characters, was printed as it was in verify's line: a terminal showed
    the rest of the line reversed, or a screenful. Such a name is shown quoted, escaped, cut."""
    lines[0]["season_id"] = "şeytan\u202eko.txt"
    lines[3]["type"] = "x" * 5000
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(lines))
    for lang in ("en", "tr"):
        assert main(["verify", str(path), "--lang", lang]) == 1
        err = capsys.readouterr().err
        assert "\u202e" not in err and "'şeytan\\u202eko.txt'" in err, err
        assert len(err) < 400 and len(err.splitlines()) == 1, len(err)


REWRITTEN: dict[str, tuple[Callable[[bytes], bytes], str, int]] = {
    # name: (the rewrite of the exported bytes, the code, the line it names)
    "a byte order mark": (lambda b: b"\xef\xbb\xbf" + b, "export.bom", 1),
    "CR LF line ends": (lambda b: b.replace(b"\n", b"\r\n"), "export.crlf", 1),
    "one CR LF further down": (
        lambda b: b.replace(b"\n", b"\r\n", 3).replace(b"\r\n", b"\n", 2),
        "export.crlf",
        3,
    ),
}


@pytest.mark.parametrize("name", list(REWRITTEN))
def test_an_export_whose_bytes_were_rewritten_is_refused_saying_what_is_wrong(
    name: str, tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    """Probe: an export saved again with a UTF-8 BOM (an editor) or CR LF line ends (git's
    autocrlf) verified ok. An export is our own LF, no-BOM format (docs/export.md): such a file
    is not the bytes exported, so verify and the folding verbs refuse it, exit 2, naming the
    line and the code, with what to do (ADR-161)."""
    rewrite, code, line = REWRITTEN[name]
    path = tmp_path / "season.jsonl"
    path.write_bytes(rewrite(dump(lines)))
    for verb in (["verify"], ["replay"]):
        for lang, at in (("en", f"line {line}:"), ("tr", f"satır {line}:")):
            assert main([*verb, str(path), "--lang", lang]) == 2
            out, err = capsys.readouterr()
            assert len(err.splitlines()) == 1 and at in err, err
            assert err.rstrip().endswith(f"[{code}]"), err
            if verb == ["verify"]:
                assert json.loads(out)["code"] == code


def test_a_file_name_in_a_refusal_is_quoted_and_cut(
    tmp_path: Path, lines: list[Line], capsys: pytest.CaptureFixture[str]
) -> None:
    """Probe: refusal lines echoed a file's name as it was: a name holding U+202E (right-to-left
    override) turned the rest of the line around on a terminal, a long one filled it. A file's
    name is shown as an id is (ADR-155): quoted with its escapes when it holds a control or
    bidi character, cut past 200 characters."""

    def run(*args: str) -> int:
        try:
            return main([*args, "--lang", "en"])
        except SystemExit as exc:
            return int(exc.code or 0)

    bidi = tmp_path / "season\u202elnosj.jsonl"
    bidi.write_bytes(b"\xef\xbb\xbf" + dump(lines))
    assert run("verify", str(bidi)) == 2
    err = capsys.readouterr().err
    assert "\u202e" not in err and "\\u202e" in err, err
    missing = tmp_path / ("x" * 300 + "\u202e.jsonl")
    assert run("verify", str(missing)) == 2
    err = capsys.readouterr().err
    assert "\u202e" not in err and "x" * 300 not in err and "…" in err, err
    heads = tmp_path / "heads\u202e.json"
    heads.write_bytes(b"[]")
    assert run("verify", str(bidi), "--heads", str(heads)) == 2
    err = capsys.readouterr().err
    assert "\u202e" not in err and "[export.heads_none]" in err, err
