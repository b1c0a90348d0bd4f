"""Issue 11, one language policy: every line a CLI verb prints for people is Turkish by default
and English with `--lang en`, from the catalogue shared/domain/messages.py; the game's own words
(Divan, Hain, Kurultay, memleket, milis …) and data (JSON, event types, ids) are the same in both.

Each case runs a verb (or a refusal of one) that needs no server, in both languages, and fails
on any line of the other language (tests/cli_language.py). The verbs on PostgreSQL and Redis
(export, verify and replay by season id, import, migrate, deadletters) are in
tests/integration/test_cli_languages_stores.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from entrypoints.cli import main
from shared.eventstore import RecordedEvent
from tests.audit.support import Line, dump, edit_data, export_of, index_of, rechain, season_records
from tests.cli_language import human_lines, wrong_language

SEASON = "audit-lang"
CASES = Path(__file__).parents[1] / "domain" / "cases"


@pytest.fixture(scope="module")
def records() -> list[RecordedEvent]:
    return season_records(SEASON, 13, live=True)


def _changed_outcome(lines: list[Line]) -> None:
    i = index_of(
        lines, lambda x: x["type"].startswith("divan_resolved") and '"divan":2' in x["data"]
    )
    edit_data(lines[i], lambda d: d.__setitem__("divan", d["divan"]))
    i = index_of(lines, lambda x: x["type"].startswith("battles_fought"))
    lines[i]["data"] = lines[i]["data"].replace('"attacker":', '"attacker": ', 1)
    rechain(lines, i)


def _payload(lines: list[Line]) -> None:
    i = index_of(lines, lambda x: x["type"].startswith("orders_submitted"))
    edit_data(lines[i], lambda d: d["orders"][0].__setitem__("units", d["orders"][0]["units"] + 1))


def _cut(lines: list[Line]) -> None:
    del lines[-1]
    lines[0]["events"] -= 1


Edit = Callable[[list[Line]], None] | None
# (name, argv after the verb's file is written, how the export is edited first)
FILE_CASES: list[tuple[str, list[str], Edit]] = [
    ("verify a clean file", ["verify", "{file}"], None),
    ("verify a tampered file", ["verify", "{file}"], _payload),
    ("verify a cut file", ["verify", "{file}"], _cut),
    ("verify a file that is not an export", ["verify", "{junk}"], None),
    ("replay the state", ["replay", "{file}"], None),
    ("replay one Divan", ["replay", "{file}", "--divan", "3"], None),
    ("replay a broken chain", ["replay", "{file}", "--divan", "1"], _payload),
    ("replay past the record", ["replay", "{file}", "--as-of", "99999"], None),
    ("replay a file that is not an export", ["replay", "{junk}"], None),
    ("import a broken file", ["import", "{file}"], _payload),
    ("import a file that is not an export", ["import", "{junk}"], None),
]
USAGE_CASES: list[tuple[str, list[str]]] = [
    ("verify without a source", ["verify"]),
    ("verify a source and --all", ["verify", "s", "--all"]),
    ("verify a missing file", ["verify", "nowhere/season.jsonl"]),
    ("replay Divan 17", ["replay", "s", "--divan", "17"]),
    ("replay a version that is no number", ["replay", "s", "--as-of", "x"]),
    ("replay a negative version", ["replay", "s", "--as-of", "-1"]),
    ("simulate two Divans", ["simulate", "--seed", "5", "--divans", "2"]),
    ("simulate Divan 0", ["simulate", "--seed", "5", "--divans", "0"]),
    ("simulate 40 Divans", ["simulate", "--seed", "5", "--divans", "40"]),
    (
        "adjudicate a case",
        ["adjudicate", str(CASES / sorted(p.name for p in CASES.glob("*.json"))[0])],
    ),
    ("adjudicate a missing file", ["adjudicate", "nowhere.json"]),
    ("rebuild nothing", ["projections", "rebuild"]),
    ("replay no dead letters", ["deadletters", "replay"]),
]
DATA_ONLY = {"adjudicate a case"}  # its output is one JSON document (report lines carry both texts)
VERBS = [
    "adjudicate", "simulate", "migrate", "serve", "worker", "scheduler", "up", "projections",
    "deadletters", "export", "verify", "import", "replay", "explain", "what-if", "shadow",
    "fork", "vapid-keys",
]  # fmt: skip


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's refusals and --help
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.mark.parametrize("lang", ["tr", "en"])
@pytest.mark.parametrize(("name", "argv", "edit"), FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_issue_11_the_audit_verbs_speak_one_language(
    lang: str,
    name: str,
    argv: list[str],
    edit: Edit,
    records: list[RecordedEvent],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every line for people of export/verify/import/replay is in the language asked for."""
    lines = export_of(SEASON, records)
    if edit is not None:
        edit(lines)
    file = tmp_path / "season.jsonl"
    file.write_bytes(dump(lines))
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"format": "something-else"}\n')
    filled = [a.format(file=file, junk=junk) for a in argv]
    _, text = _run([*filled, "--lang", lang], capsys)
    assert human_lines(text), f"{name}: no line for people to check"
    assert wrong_language(text, lang, (str(tmp_path), SEASON)) == [], text


@pytest.mark.parametrize("lang", ["tr", "en"])
@pytest.mark.parametrize(("name", "argv"), USAGE_CASES, ids=[c[0] for c in USAGE_CASES])
def test_issue_11_refusals_and_reports_of_the_cli_speak_one_language(
    lang: str, name: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, text = _run([*argv, "--lang", lang], capsys)
    assert human_lines(text) or name in DATA_ONLY, f"{name}: no line for people to check"
    assert wrong_language(text, lang, (str(CASES),)) == [], text


@pytest.mark.parametrize("lang", ["tr", "en"])
@pytest.mark.parametrize("verb", VERBS)
def test_issue_11_every_verbs_help_speaks_one_language(
    lang: str, verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text = _run([verb, "--help", "--lang", lang], capsys)
    assert code == 0
    assert wrong_language(text, lang) == [], text


def test_issue_11_the_verbs_are_the_ones_help_lists(capsys: pytest.CaptureFixture[str]) -> None:
    """A new verb joins VERBS (and so the checks above)."""
    _, text = _run(["--help", "--lang", "en"], capsys)
    listed = text.split("{tr,en}", 1)[1].split("{", 1)[1].split("}", 1)[0].split(",")
    assert sorted(listed) == sorted(VERBS)


@pytest.mark.parametrize("lang", ["tr", "en"])
def test_issue_11_the_top_level_help_speaks_one_language(
    lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _, text = _run(["--help", "--lang", lang], capsys)
    assert wrong_language(text, lang) == [], text


CLOSED = "postgresql://nobody@127.0.0.1:9/nowhere"  # a port nothing listens on
UNREACHABLE_CASES: list[list[str]] = [
    ["migrate", "--dsn", CLOSED],
    ["export", "--dsn", CLOSED, "0123456789abcdef0123456789abcdef"],
    ["verify", "--dsn", CLOSED, "0123456789abcdef0123456789abcdef"],
    ["verify", "--dsn", CLOSED, "--all"],
    ["replay", "--dsn", CLOSED, "0123456789abcdef0123456789abcdef"],
    ["explain", "--dsn", CLOSED, "0123456789abcdef0123456789abcdef", "3"],
    ["fork", "--dsn", CLOSED, "0123456789abcdef0123456789abcdef", "--divan", "3", "--seat", "1"],
    ["projections", "rebuild", "--dsn", CLOSED, "--all"],
]


@pytest.mark.parametrize("lang", ["tr", "en"])
@pytest.mark.parametrize(
    "argv", UNREACHABLE_CASES, ids=[" ".join(a[:2]) for a in UNREACHABLE_CASES]
)
def test_issue_11_a_database_the_cli_cannot_reach_is_one_line_in_the_language_asked_for(
    lang: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A refused connection (a wrong --dsn, a server not started) is a line naming the database
    (never its password) and the verb, exit 2 — not a Python traceback in English."""
    code, text = _run([*argv, "--lang", lang], capsys)
    assert code == 2, text
    (line,) = text.splitlines()
    assert line.startswith(f"seksenbir {argv[0]}: "), line
    assert "nobody@127.0.0.1:9/nowhere" in line
    assert "Traceback" not in text
    assert wrong_language(text, lang) == [], text


@pytest.mark.parametrize("lang", ["tr", "en"])
@pytest.mark.parametrize("argv", [["deadletters", "list"], ["deadletters", "replay", "--all"]])
def test_issue_11_a_redis_the_cli_cannot_reach_is_one_line_in_the_language_asked_for(
    lang: str, argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEKSENBIR_REDIS_URL", "redis://:secret@127.0.0.1:9/0")
    monkeypatch.delenv("SEKSENBIR_BROKER_URL", raising=False)
    code, text = _run([*argv, "--lang", lang], capsys)
    assert code == 2, text
    (line,) = text.splitlines()
    assert line.startswith("seksenbir deadletters: ") and "127.0.0.1:9/0" in line, line
    assert "secret" not in line
    assert wrong_language(text, lang) == [], text


@pytest.mark.parametrize("lang", ["tr", "en"])
@pytest.mark.parametrize(
    "content",
    [b"root:x:0:0:root:/root:/bin/bash\n", b"\x00\xff\xfe", b"", b'{"format": '],
    ids=["text", "binary", "empty", "truncated"],
)
def test_adjudicate_a_file_that_is_not_json_says_so_in_one_line(
    lang: str, content: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`seksenbir adjudicate /etc/passwd` once ended in msgspec's traceback (exit 1): a file
    that is not JSON is refused as every bad scenario file is, one line, exit 2."""
    file = tmp_path / "not-a-scenario"
    file.write_bytes(content)
    code, text = _run(["adjudicate", str(file), "--lang", lang], capsys)
    assert code == 2, text
    assert text.count("\n") == 1 and text.startswith("seksenbir adjudicate: "), text
    assert wrong_language(text, lang, (str(tmp_path),)) == [], text


SCENARIOS = {
    "a missing field": b'{"format": "seksenbir-scenario/1", "beys": []}',
    "a wrong type": b'{"format": "seksenbir-scenario/1", "divan": "1", "beys": []}',
    "a wrong type inside": b'{"format": "seksenbir-scenario/1", "divan": 1, "beys": [{"seat": "x"}]}',
}


@pytest.mark.parametrize("lang", ["tr", "en"])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_adjudicate_a_json_file_that_is_not_a_scenario_says_why_in_the_language_asked_for(
    lang: str, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Probe (session 23): `seksenbir adjudicate` on JSON that is not a scenario printed
    msgspec's English inside the Turkish line ("senaryo dosyası geçersiz: Object missing
    required field `divan`"); it says what is wrong, where, in the language asked for."""
    file = tmp_path / "scenario.json"
    file.write_bytes(SCENARIOS[name])
    code, text = _run(["adjudicate", str(file), "--lang", lang], capsys)
    assert code == 2, text
    assert text.count("\n") == 1 and text.startswith("seksenbir adjudicate: "), text
    assert "$." in text, text  # the field it is about, as a JSON path
    assert "`" not in text and "Expected" not in text and "Object " not in text, text
    paths = ("$.beys[0].seat", "$.divan")  # a JSON path is data, the same in both languages
    assert wrong_language(text, lang, (str(tmp_path), *paths)) == [], text


CHANGES = {
    "an array": b"[]",
    "a seat out of bounds": b'{"orders": [{"seat": 99, "province": 6, "kind": "hold"}], "dice": []}',
    "an unknown field": b'{"orders": [], "dice": [], "extra": 1}',
    "not UTF-8": b"\xff\xfe",
    "cut short": b'{"orders": ',
}


@pytest.mark.parametrize("name", list(CHANGES))
def test_what_if_a_changes_file_it_cannot_take_is_one_line_in_the_language_asked_for(
    name: str,
    records: list[RecordedEvent],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Probe (session 20): `what-if … --file` printed msgspec's English ("Expected `int` <= 19
    - at `$.orders[0].seat`") whatever the language asked for; it says what the endpoint's 422
    says, in that language (the two lines differ: neither is left in English)."""
    file = tmp_path / "season.jsonl"
    file.write_bytes(dump(export_of(SEASON, records)))
    changes = tmp_path / "changes.json"
    changes.write_bytes(CHANGES[name])
    said = {}
    for lang in ("tr", "en"):
        argv = ["what-if", str(file), "2", "--file", str(changes), "--lang", lang]
        code, text = _run(argv, capsys)
        assert code == 2, text
        assert text.count("\n") == 1 and text.startswith("seksenbir what-if: "), text
        field = "$.orders[0].seat"  # a JSON path is data, the same in both languages
        assert wrong_language(text, lang, (str(tmp_path), field)) == [], text
        said[lang] = text
    assert said["tr"] != said["en"], said
