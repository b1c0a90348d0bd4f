"""`seksenbir explain SEASON DIVAN PROVINCE…` narrowed to provinces that saw no battle said
"There was no battle in this Divan" (found from outside: Divan 3 of a played season had
battles, none at Ankara); it now names the provinces it looked at, in both languages."""

from __future__ import annotations

from pathlib import Path

import pytest

from entrypoints.cli import main
from shared.app.ops.divan_text import explain_text
from shared.app.ops.divan_tools import explain
from shared.app.ops.ops_replay import place
from shared.domain import codec
from tests.audit.support import dump, export_of, season_records

SEASON = "audit-explain-narrowed"


def test_a_narrowed_explanation_without_battles_says_where_it_looked() -> None:
    events = [codec.decode_event(r.data) for r in season_records(SEASON, 11)]
    whole = explain(SEASON, events, 2)
    assert whole.explanation.battles, "the test season fights at Divan 2"
    fought = {b.target for b in whole.explanation.battles}
    quiet = next(p for p in range(1, 82) if p not in fought)
    narrowed = explain(SEASON, events, 2, [quiet])
    assert not narrowed.explanation.battles
    en = explain_text(narrowed, "en", [quiet])
    assert f"There was no battle in this Divan at {place(quiet)}" in en
    assert place(quiet).endswith(f" ({quiet})")  # named with its plate, as every audit line
    assert "There was no battle in this Divan\n" not in en + "\n"
    assert f"Bu Divanda şu illerde savaş olmadı: {place(quiet)}" in explain_text(
        narrowed, "tr", [quiet]
    )
    assert "There was no battle in this Divan" in explain_text(narrowed, "en")  # not narrowed


def test_explain_without_arguments_does_not_call_the_plates_required(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Probe (session 20): `seksenbir explain` alone said "the following arguments are
    required: source, divan, province"; the plates are optional (default: every battle)."""
    with pytest.raises(SystemExit) as exit_:
        main(["explain", "--lang", "en"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "source, divan" in err and "province" not in err.splitlines()[-1], err


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("tr", "Bu Divanda şu illerde savaş olmadı: {q}, {r}\n"),
        ("en", "There was no battle in this Divan at {q}, {r}\n"),
    ],
)
def test_a_plate_given_several_times_is_one_plate(
    lang: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Probe (session 23): `seksenbir explain S 1 6 6 6` said "no battle at 6, 6, 6". A plate
    named again adds nothing: each is looked at once, in the order first given."""
    records = season_records(SEASON, 11)
    file = tmp_path / "season.jsonl"
    file.write_bytes(dump(export_of(SEASON, records)))
    events = [codec.decode_event(r.data) for r in records]
    fought = {b.target for b in explain(SEASON, events, 2).explanation.battles}
    q, r = [p for p in range(1, 82) if p not in fought][:2]
    argv = ["explain", str(file), "2", str(r), str(q), str(r), str(r), str(q), "--lang", lang]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert words.format(q=place(r), r=place(q)) in out, out
