"""`seksenbir shadow` (issue 13): every Divan of a season through another build's `seksenbir
adjudicate` (a subprocess, the scenario format of SCENARIO.md); every Divan whose outcome would
change is listed, nothing is changed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from entrypoints.cli import main
from shared.app.ops.shadow import divan_scenarios, this_build
from shared.domain import codec
from shared.domain import events as ev
from shared.domain.evolve import fold
from tests.audit.support import dump, export_of, season_records

SEASON = "audit-shadow"
SEKSENBIR = Path(sys.executable).parent / "seksenbir"
FAKE = """
import json, subprocess, sys
path = sys.argv[1]
out = json.loads(subprocess.run([{real!r}, "adjudicate", path], capture_output=True).stdout)
if json.load(open(path))["divan"] == 2:  # this build resolves Divan 2 otherwise
    out["provinces"]["6"]["units"] = out["provinces"]["6"].get("units", 0) + 1
print(json.dumps(out))
"""


def test_every_divan_as_a_scenario_reproduces_the_record() -> None:
    """R-12.3, SCENARIO.md: a recorded Divan written as a scenario with every draw pinned
    adjudicates to the state the record holds after it (so the shadow compares like with like)."""
    events = [codec.decode_event(r.data) for r in season_records(SEASON, 5)]
    divans = 0
    for divan, doc in divan_scenarios(events):
        end = next(
            i for i, e in enumerate(events) if isinstance(e, ev.DivanResolved) and e.divan == divan
        )
        state, out = fold(events[: end + 1]), this_build(doc)
        for plate, p in enumerate(state.provinces, start=1):
            want = (
                {"owner": None, "milis": p.units}
                if p.owner is None
                else {"owner": p.owner, "units": p.units, "sur": p.sur}
            )
            assert out["provinces"][str(plate)] == want, (divan, plate)
        for b in state.beys:
            got = next(x for x in out["beys"] if x["seat"] == b.seat)
            assert (got["gold"], got["hain_through"]) == (b.gold, b.hain_through), (divan, b.seat)
            assert sorted(got["missions_done"]) == sorted(b.missions_done)
        divans += 1
    assert divans == 16


@pytest.fixture
def season_file(tmp_path: Path) -> Path:
    records = [r for r in season_records(SEASON, 5) if r.version <= 120]  # Divans 1 … 3
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(export_of(SEASON, records)))
    return path


def test_this_build_as_the_other_build_changes_no_divan(
    season_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = season_file.read_bytes()
    code = main(["shadow", str(season_file), "--adjudicate-cmd", f"{SEKSENBIR} adjudicate"])
    out = capsys.readouterr()
    assert code == 0, out.err
    body = json.loads(out.out)
    assert body["divans"] >= 2 and body["changed"] == []
    assert season_file.read_bytes() == before


def test_a_build_that_resolves_one_divan_otherwise_is_listed(
    season_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = tmp_path / "fake_adjudicate.py"
    fake.write_text(FAKE.format(real=str(SEKSENBIR)))
    code = main(["shadow", str(season_file), "--adjudicate-cmd", f"{sys.executable} {fake}"])
    out = capsys.readouterr()
    assert code == 1
    changed = json.loads(out.out)["changed"]
    assert [(c["season"], c["divan"]) for c in changed] == [(SEASON, 2)]
    assert changed[0]["differences"][0].startswith("province 6:")


def test_a_build_that_fails_is_listed_with_its_error(
    season_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["shadow", str(season_file), "--adjudicate-cmd", f"{sys.executable} -c 'exit(3)'"])
    changed = json.loads(capsys.readouterr().out)["changed"]
    assert code == 1 and changed and all("exit 3" in c["error"] for c in changed)


@pytest.mark.parametrize("lang", ["tr", "en"])
@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("no-such-adjudicator-xyz adjudicate", "ENOENT"),
        ("/etc/passwd", "EACCES"),
        ('seksenbir "adjudicate', '"adjudicate'),
        ("", "--adjudicate-cmd"),
        ("   ", "--adjudicate-cmd"),
    ],
    ids=["missing", "not-executable", "unclosed-quote", "empty", "blank"],
)
def test_a_command_that_cannot_be_run_is_not_done_in_one_line(
    season_file: Path, capsys: pytest.CaptureFixture[str], command: str, said: str, lang: str
) -> None:
    """Probe (session 23): a command that cannot be started at all was called a build whose
    every Divan "would change" (exit 1) with the OS's English ("[Errno 2] No such file or
    directory"), and one with an unclosed quote ended in shlex's traceback. Neither ran any
    Divan: not done (exit 2, ADR-155), said once, in the language asked for."""
    from tests.cli_language import wrong_language

    try:
        code = main(["shadow", str(season_file), "--adjudicate-cmd", command, "--lang", lang])
    except SystemExit as exc:  # argparse's refusal
        code = int(exc.code or 0)
    out = capsys.readouterr()
    assert code == 2, out
    assert out.out == "", out.out
    lines = out.err.strip().splitlines()
    assert lines[-1].startswith("seksenbir shadow: ") and said in lines[-1], out.err
    assert "Errno" not in out.err and "Traceback" not in out.err, out.err
    assert wrong_language(lines[-1], lang, (command.strip(), said)) == [], lines[-1]
