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
    assert main(["simulate", "--seed", "1", "--divans", "2", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "== 1. Divan ==" in out
    assert "== 2. Divan ==" in out
    assert "== 3. Divan ==" not in out


@pytest.mark.parametrize("divans", [-1, 17, 40])
def test_r1_1_a_simulated_season_never_runs_past_divan_16(divans: int) -> None:
    from shared.domain.simulate import season

    with pytest.raises(ValueError, match=r"R-1\.1"):
        list(season(1, divans))
