"""The `seksenbir` command line: arguments outside the rules are refused (R-1.1)."""

from __future__ import annotations

import pytest

from entrypoints.cli import main


@pytest.mark.parametrize("divans", ["0", "-5", "17", "40", "three"])
def test_r1_1_simulate_refuses_a_divan_count_outside_1_to_16(
    divans: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "--seed", "1", "--divans", divans])
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "--divans" in captured.err


def test_r1_1_simulate_plays_the_divans_asked_for(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--seed", "1", "--divans", "2"]) == 0
    out = capsys.readouterr().out
    assert "== 1. Divan ==" in out
    assert "== 2. Divan ==" in out
    assert "== 3. Divan ==" not in out


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--seed", "1", "--divans", "2", "--lang", "en"],
        ["--lang", "en", "simulate", "--seed", "1", "--divans", "2"],
    ],
)
def test_simulate_in_english_has_no_turkish_lines(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 11: `--lang en` (before or after the command) gives every line in English: the
    headings, the report lines and the standings ("Bey 8", never "8. bey")."""
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "== Divan 1 ==" in out
    assert "== Divan 2 ==" in out
    assert "Standings: Bey " in out
    assert ". bey" not in out
    assert "Sıralama" not in out
    assert " ilini " not in out


@pytest.mark.parametrize(("lang", "text"), [("tr", "1 … 16. Divanlar"), ("en", "Divans 1 … 16")])
def test_r1_1_the_divans_refusal_speaks_the_language_asked_for(
    lang: str, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--seed", "1", "--divans", "17", "--lang", lang])
    assert text in capsys.readouterr().err


@pytest.mark.parametrize("divans", [-1, 17, 40])
def test_r1_1_a_simulated_season_never_runs_past_divan_16(divans: int) -> None:
    from shared.domain.simulate import season

    with pytest.raises(ValueError, match=r"R-1\.1"):
        list(season(1, divans))
