"""The `seksenbir` command line: arguments outside the rules are refused (R-1.1)."""

from __future__ import annotations

import json

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


@pytest.mark.parametrize("lang", ["tr", "en"])
@pytest.mark.parametrize("seed", ["-1", str(2**63), "x"])
def test_r1_5_simulate_refuses_a_seed_outside_0_to_2_63(
    seed: str, lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """R-1.5: a seed is 0 … 2^63 − 1, as over HTTP; the refusal speaks the language asked for."""
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "--seed", seed, "--divans", "1", "--lang", lang])
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "--seed" in captured.err
    assert ("2^63" in captured.err) == (seed != "x")
    assert ("argümanı" in captured.err) == (lang == "tr")


def test_r1_5_simulate_takes_the_largest_seed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--seed", str(2**63 - 1), "--divans", "1"]) == 0


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


def test_issue_11_a_whole_simulated_season_in_english_names_every_bey_in_english(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Seed 5's travelling merchant is drawn for a bey at Divan 11: its English line said
    "(12. bey)". Every line of the whole season, the Kurultay's included, is English."""
    assert main(["--lang", "en", "simulate", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "News: Travelling merchant (Bey " in out
    assert "The Han: Bey " in out
    assert ". bey" not in out
    assert "orders were sealed" not in out  # the seals' digests are in --json only


def test_simulate_json_keeps_every_line_of_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--seed", "5", "--divans", "1", "--json"]) == 0
    (divan,) = json.loads(capsys.readouterr().out)
    kinds = {line["kind"] for line in divan["report"]}
    assert "orders_sealed" in kinds


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


def test_issue_11_every_help_text_of_the_cli_has_its_turkish_text() -> None:
    """The language policy covers `--help` too: a new option needs its Turkish help."""
    from entrypoints.cli import parser
    from entrypoints.cli_help import HELP_TR, helps, untranslated

    assert untranslated(parser("en")) == []
    assert set(helps(parser("tr"))) <= set(HELP_TR.values())  # no English left in Turkish


@pytest.mark.parametrize(
    ("argv", "said", "not_said"),
    [
        (["verify", "--help"], ["kullanım:", "seçenekler", "dışa aktarım dosyası"], ["usage:"]),
        (["--lang", "en", "verify", "--help"], ["usage:", "options"], ["kullanım:"]),
        (["simulate", "--help", "--lang", "en"], ["the season seed"], ["sezon tohumu"]),
    ],
    ids=["tr by default", "en before", "en after"],
)
def test_issue_11_help_is_turkish_by_default_and_english_with_lang_en(
    argv: list[str], said: list[str], not_said: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from entrypoints.cli import main

    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert all(s in out for s in said), out
    assert not any(s in out for s in not_said), out


@pytest.mark.parametrize(
    ("argv", "tr", "en"),
    [
        (["up", "--port", "99999"], "99999: port 1 … 65535 olur", "99999: a port is 1 … 65535"),
        (["up", "--port", "-1"], "-1: port 1 … 65535 olur", "-1: a port is 1 … 65535"),
        (["serve", "--port", "0"], "0: port 1 … 65535 olur", "0: a port is 1 … 65535"),
        (["up", "--processes", "0"], "0: en az 1 süreç", "0: at least 1 process"),
        (["worker", "resolver", "--processes", "-3"], "-3: en az 1 süreç", "-3: at least 1"),
        (["worker", "resolver", "--threads", "-1"], "-1: iş parçacığı 0 ya da", "-1: threads are"),
    ],
    ids=["up 99999", "up -1", "serve 0", "up 0 processes", "worker -3", "worker -1 threads"],
)
def test_a_port_or_a_count_out_of_bounds_is_refused_before_anything_starts(
    argv: list[str], tr: str, en: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by h-probe3: `seksenbir up --port 99999` (or -1) started PostgreSQL, Redis and
    the workers, then restarted an API that could never listen, for ever; `worker
    --processes -3` went to Dramatiq. Now argparse refuses them (exit 2, one line) in the
    language asked for, before any server, process or connection."""
    from entrypoints.cli import main

    for lang, text in (("tr", tr), ("en", en)):
        with pytest.raises(SystemExit) as done:
            main([*argv, "--lang", lang])
        assert done.value.code == 2
        err = capsys.readouterr().err
        assert text in err, err
        assert "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "text"),
    [
        (["replay", "s1", "--divan", "\u0661"], "'\u0661'"),  # Arabic-Indic one: int() took it
        (["replay", "s1", "--divan", " 3"], "' 3'"),
        (["replay", "s1", "--as-of", "1_0"], "'1_0'"),
        (["simulate", "--seed", "+3"], "'+3'"),
        (["simulate", "--seed", "1", "--divans", "007"], "'007'"),
        (["serve", "--port", "8081\n"], "'8081\\n'"),
        (["worker", "resolver", "--threads", "\uff12"], "'\uff12'"),  # a fullwidth two
        (["fork", "s1", "--divan", "\u0663", "--seat", "1"], "'\u0663'"),
        (["fork", "s1", "--divan", "1", "--seat", "1_9"], "'1_9'"),
    ],
    ids=[
        "arabic digit",
        "space",
        "underscore",
        "plus",
        "leading zeros",
        "newline",
        "fullwidth",
        "fork divan",
        "fork seat",
    ],
)
def test_a_cli_integer_is_read_as_strictly_as_the_api_reads_one(
    argv: list[str], text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by h-probe3: the command line took whatever int() takes ("١", " 3", "1_0",
    "+3", "007"), which the API refuses as a JSON integer (D-27). Every integer option now
    has the API's grammar (cli_args.whole): refused by argparse, one line, exit 2, tr or en,
    the text quoted so a space or a newline shows."""
    from entrypoints.cli import main

    for lang, said in (("tr", "tam sayı değil: "), ("en", "not a whole number: ")):
        with pytest.raises(SystemExit) as done:
            main([*argv, "--lang", lang])
        assert done.value.code == 2
        err = capsys.readouterr().err
        assert err.strip().splitlines()[-1].endswith(said + text), err  # usage, then one line
        assert "Traceback" not in err


def test_a_cli_integer_keeps_what_the_api_takes() -> None:
    """The strict grammar still takes 0, a plain number and a minus (the bounds then refuse a
    negative where it means nothing, as `--port -1` above)."""
    from entrypoints.cli_args import whole

    assert [whole("en")(t) for t in ("0", "16", "-1", "9223372036854775807")] == [
        0,
        16,
        -1,
        2**63 - 1,
    ]
