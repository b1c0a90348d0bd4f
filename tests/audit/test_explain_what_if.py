"""Ops' explanation of a Divan (R-5.8) and what-if re-runs (issue 13): explaining changes no
event; every support's classification says why; dice show their key, never the seed; one
flipped die changes exactly the battle it touches and what follows from it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
import pytest

from entrypoints.cli import main
from shared.app.ops.divan_text import explain_text, what_if_text
from shared.app.ops.divan_tools import DiePin, OrderChange, WhatIfIn, explain, what_if
from shared.domain import codec, scenario
from shared.domain import events as ev
from shared.domain.evolve import evolve, fold
from shared.domain.explain import explain_divan
from shared.domain.lifecycle import inputs_of
from shared.domain.map import game_map
from shared.domain.resolve import resolve_divan
from shared.eventstore import RecordedEvent
from tests.audit.support import dump, export_of, season_records

SEASON = "audit-explain"
SEED = 11


@pytest.fixture(scope="module")
def records() -> list[RecordedEvent]:
    return season_records(SEASON, SEED)


@pytest.fixture(scope="module")
def events(records: list[RecordedEvent]) -> list[ev.Event]:
    return [codec.decode_event(r.data) for r in records]


def _locks(events: list[ev.Event]) -> list[tuple[int, ev.DivanLocked]]:
    return [(i, e) for i, e in enumerate(events) if isinstance(e, ev.DivanLocked)]


def test_explaining_a_divan_changes_no_event(events: list[ev.Event]) -> None:
    """R-12.3: the explanation is recorded beside the resolution; the outcome events of every
    Divan are byte for byte those of resolve_divan."""
    for i, locked in _locks(events):
        state = evolve(fold(events[:i]), locked)
        _explanation, explained = explain_divan(state, inputs_of(state, locked))
        assert codec.encode(explained) == codec.encode(
            resolve_divan(state, inputs_of(state, locked))
        )


def test_every_battle_adds_up_from_its_parts(events: list[ev.Event]) -> None:
    """R-5.4: attack = the fighting group's strength + its die; defence = units left + the
    bonuses (memleket, sur, hemşehri) + counted defence support + its die; the record agrees."""
    seen = 0
    for divan in range(1, 17):
        out = explain(SEASON, events, divan)
        assert out.verification.ok
        records = next(
            e for e in events if isinstance(e, ev.BattlesResolved) and e.divan == divan
        ).battles
        assert [b.target for b in out.explanation.battles] == [r.target for r in records]
        for b, r in zip(out.explanation.battles, records, strict=True):
            assert b.bonus.total == r.defence_bonus
            assert b.rules == r.rules and b.outcome == r.outcome
            if b.outcome == "standoff":
                assert b.dice == ()
                continue
            seen += 1
            fighting = next(g for g in b.groups if g.fighting)
            dice = {d.side: d.value for d in b.dice}
            assert b.attack == fighting.strength + dice["attack"]
            support = sum(s.units for s in b.supports if s.classified == "defence" and s.counted)
            assert b.defence == b.defender_units + b.bonus.total + support + dice["defence"]
            assert all(d.key == (b.target, d.side) and d.divan == divan for d in b.dice)
    assert seen > 50


def test_dice_show_their_key_and_never_the_seed() -> None:
    """R-12.1: a die's key is (Divan, purpose, key); the season seed appears nowhere."""
    from shared.domain.lifecycle import run_divan
    from shared.domain.simulate import start

    seed = 4_815_162_342_108_000_001
    state, events = start(seed, SEASON)
    for _ in range(3):
        more = run_divan(state)
        state, events = fold(more, state), events + more
    for divan in (1, 2, 3):
        body = msgspec.json.encode(explain(SEASON, events, divan)).decode()
        assert str(seed) not in body and '"seed"' not in body
        assert '"purpose":"fate"' in body


def _scenario(doc: dict[str, object]) -> scenario.Scenario:
    return scenario.load(msgspec.json.encode({"format": scenario.FORMAT, **doc}))


def test_each_support_says_how_it_was_classified_and_why_it_did_not_count() -> None:
    """R-5.3: bey 1 attacks Kırıkkale (71) from Ankara with its ally bey 2's support (counted for
    the fighting group); bey 1's own support of its own attack is void (a bey is not its own
    ally); bey 3 supports without an ally attacking (void). R-5.4: milis has no bonus; a
    traitor's die is 0 (R-6.5) elsewhere."""
    sc = _scenario(
        {
            "divan": 5,
            "beys": [
                {"seat": 1, "memleket": 6},
                {"seat": 2, "memleket": 40},
                {"seat": 3, "memleket": 18},
            ],
            "provinces": {
                "6": {"owner": 1, "units": 8},
                "40": {"owner": 2, "units": 6},
                "18": {"owner": 3, "units": 6},
                "66": {"owner": 1, "units": 4},
                "71": {"owner": None, "milis": 2},
            },
            "treaties": [{"kind": "alliance", "beys": [1, 2], "through_divan": 8}],
            "orders": [
                {"seat": 1, "from": 6, "kind": "advance", "to": 71, "units": 5},
                {"seat": 1, "from": 66, "kind": "support", "to": 71, "units": 2},
                {"seat": 2, "from": 40, "kind": "support", "to": 71, "units": 3},
                {"seat": 3, "from": 18, "kind": "support", "to": 71, "units": 9},
            ],
            "draws": {"fate": {"71": {"attack": 1, "defence": 2}}},
        }
    )
    state = scenario.to_state(sc)
    explanation, _events = explain_divan(state, scenario.to_inputs(sc, state))
    (battle,) = explanation.battles
    assert battle.target == 71 and battle.defender is None and battle.bonus.total == 0
    by_seat = {s.seat: s for s in battle.supports}
    assert (by_seat[2].classified, by_seat[2].counted, by_seat[2].why) == (
        "attack",
        True,
        "ally_attack",
    )
    assert (by_seat[1].classified, by_seat[1].counted, by_seat[1].why) == (
        "void",
        False,
        "own_attack",
    )
    assert by_seat[1].rules == ("R-5.3",)
    assert (by_seat[3].classified, by_seat[3].why) == ("void", "no_ally_attacking")
    assert by_seat[3].units == 5  # clamped to units − 1
    (group,) = battle.groups
    assert group.strength == 5 + 3 and group.support == 3
    assert [(d.side, d.value, d.pinned) for d in battle.dice] == [
        ("attack", 1, True),
        ("defence", 2, True),
    ]
    assert battle.attack == 9 and battle.defence == 4 and battle.outcome == "taken"


def test_a_defender_s_bonuses_are_listed_one_by_one() -> None:
    """R-5.4: Ankara is bey 1's memleket (+2) in its own region (hemşehri +1) with a sur (+1)."""
    sc = _scenario(
        {
            "divan": 5,
            "beys": [{"seat": 1, "memleket": 6}, {"seat": 2, "memleket": 71}],
            "provinces": {
                "6": {"owner": 1, "units": 3, "sur": True},
                "71": {"owner": 2, "units": 9},
            },
            "orders": [{"seat": 2, "from": 71, "kind": "advance", "to": 6, "units": 8}],
            "draws": {"fate": {"6": {"attack": 0, "defence": 0}}},
        }
    )
    state = scenario.to_state(sc)
    explanation, _ = explain_divan(state, scenario.to_inputs(sc, state))
    (battle,) = explanation.battles
    b = battle.bonus
    assert (b.memleket, b.sur, b.hemsehri, b.total) == (2, 1, 1, 4)
    assert battle.defence == 3 + 4 and battle.attack == 8 and battle.outcome == "taken"


def _flippable(events: list[ev.Event]) -> tuple[int, int, int]:
    """A Divan, target and attack-die value whose flip turns a held battle into a taken one
    (or back): a battle decided by one point of the die."""
    for divan in range(2, 17):
        for b in explain(SEASON, events, divan).explanation.battles:
            if b.outcome == "standoff" or b.attack is None or b.defence is None:
                continue
            die = next(d for d in b.dice if d.side == "attack")
            if not die.drawn:
                continue
            for value in range(3):
                attack = b.attack - die.value + value
                if (attack > b.defence) != (b.outcome == "taken"):
                    return divan, b.target, value
    raise AssertionError("no battle decided by its attack die")


def test_one_flipped_die_changes_exactly_the_battle_it_touches(events: list[ev.Event]) -> None:
    """Issue 13: what-if with one die pinned to another value: that battle's outcome changes,
    no other battle does, the province it is about changes hands, and nothing is written."""
    divan, target, value = _flippable(events)
    before = codec.encode(events)
    out = what_if(SEASON, events, divan, WhatIfIn(dice=[DiePin(target, "attack", value)]))
    assert codec.encode(events) == before
    assert out.changed
    assert [b.target for b in out.battles] == [target]
    assert out.battles[0].recorded != out.battles[0].what_if
    changed = {p.plate: p for p in out.provinces}
    assert changed[target].recorded.owner != changed[target].what_if.owner
    assert out.report_only_recorded or out.report_only_what_if


def test_a_what_if_without_changes_is_the_record(events: list[ev.Event]) -> None:
    out = what_if(SEASON, events, 4, WhatIfIn())
    assert not out.changed and out.battles == [] and out.provinces == []


def test_a_removed_order_is_a_hold(events: list[ev.Event]) -> None:
    """R-4.1: without its order a province holds; its battle is gone from the what-if."""
    out = explain(SEASON, events, 6)
    battle = next(b for b in out.explanation.battles if len(b.groups) == 1)
    (adv, *_) = battle.groups[0].advances
    removals = [OrderChange(a.seat, a.origin, "remove") for a in battle.groups[0].advances]
    result = what_if(SEASON, events, 6, WhatIfIn(orders=removals))
    change = next(b for b in result.battles if b.target == battle.target)
    assert change.recorded == battle.outcome and change.what_if is None
    assert adv.origin in {p.plate for p in result.provinces} or battle.outcome == "standoff"


# --- the command line ----------------------------------------------------------------------
def _file(tmp_path: Path, records: list[RecordedEvent]) -> Path:
    path = tmp_path / "season.jsonl"
    path.write_bytes(dump(export_of(SEASON, records)))
    return path


def test_explain_prints_turkish_by_default_and_english_on_request(
    tmp_path: Path, records: list[RecordedEvent], capsys: pytest.CaptureFixture[str]
) -> None:
    """The language policy: texts from shared.domain.messages, Turkish unless --lang en."""
    path = _file(tmp_path, records)
    assert main(["explain", str(path), "3"]) == 0
    tr = capsys.readouterr().out
    assert "3. Divan: açıklama" in tr and "Savaş:" in tr and "anahtar (3, fate," in tr
    assert main(["--lang", "en", "explain", str(path), "3"]) == 0
    en = capsys.readouterr().out
    assert "Divan 3: explanation" in en and "Battle of" in en and "key (3, fate," in en


def test_explain_names_each_province_by_its_name_with_the_plate(events: list[ev.Event]) -> None:
    """Round 1 left it (session 23): explain's battle line read "Savaş: 34 İstanbul", the
    plate then the name, and an advance, a support or a dropped order named its provinces by
    plate alone ("6 ilinden"). Every province is "İstanbul (34)", as what-if and the console
    say it, in both languages."""
    names = game_map().names

    def place(p: int) -> str:
        return f"{names[p]} ({p})"

    outs = [explain(SEASON, events, d) for d in range(1, 17)]
    assert any(o.explanation.dropped for o in outs) and any(
        b.supports for o in outs for b in o.explanation.battles
    )
    for out in outs:
        for lang, battle in (("tr", "Savaş: {}; savunan "), ("en", "Battle of {}; defender ")):
            text = explain_text(out, lang)  # type: ignore[arg-type]
            for b in out.explanation.battles:
                assert "\n" + battle.format(place(b.target)) in text, text
                for a in (a for g in b.groups for a in g.advances):
                    origin = {"tr": "{} ilinden", "en": "from {} with"}[lang]
                    assert origin.format(place(a.origin)) in text, text
                assert all(place(s.origin) in text for s in b.supports), text
            for d in out.explanation.dropped:
                to = place(d.target) if d.target is not None else "-"
                assert f" {place(d.origin)} → {to} " in text, text
            assert not re.search(r"(Savaş:|Battle at|→) \d", text), text
            assert not re.search(r"\b\d+ ilinden|from \d+ with", text), text


def test_explain_narrows_to_a_province_and_prints_json(
    tmp_path: Path, events: list[ev.Event], records: list[RecordedEvent],
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    target = explain(SEASON, events, 5).explanation.battles[0].target
    assert main(["explain", str(_file(tmp_path, records)), "5", str(target), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert [b["target"] for b in body["explanation"]["battles"]] == [target]
    assert body["verification"]["ok"] is True


def test_explain_of_a_divan_not_in_the_record_is_exit_2(
    tmp_path: Path, records: list[RecordedEvent], capsys: pytest.CaptureFixture[str]
) -> None:
    short = [r for r in records if r.version <= 40]
    path = tmp_path / "short.jsonl"
    path.write_bytes(dump(export_of(SEASON, short)))
    assert main(["explain", str(path), "9"]) == 2
    assert "9. Divan hiç kilitlenmedi" in capsys.readouterr().err  # Turkish by default
    assert main(["explain", str(path), "9", "--lang", "en"]) == 2
    assert "Divan 9 was never locked" in capsys.readouterr().err


def test_what_if_cli_reads_the_changes_and_writes_nothing(
    tmp_path: Path, events: list[ev.Event], records: list[RecordedEvent],
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    divan, target, value = _flippable(events)
    path = _file(tmp_path, records)
    before = path.read_bytes()
    changes = tmp_path / "changes.json"
    changes.write_text(json.dumps({"dice": [{"target": target, "side": "attack", "value": value}]}))
    assert main(["what-if", str(path), str(divan), "--file", str(changes), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert [b["target"] for b in body["battles"]] == [target]
    assert main(["--lang", "en", "what-if", str(path), str(divan), "--file", str(changes)]) == 0
    assert f"Battle of {game_map().names[target]} ({target}): recorded" in capsys.readouterr().out
    assert path.read_bytes() == before


def test_a_what_if_names_each_province_with_its_plate_in_the_language_asked_for(
    events: list[ev.Event],
) -> None:
    """Probe (session 22): a what-if's battle line said "Battle at 34: recorded taken,
    what-if held", the plate alone and the outcome's code in a Turkish line too. Every line
    names a province as the explanation and the console do, its name with the plate, and
    says the outcome in words: Turkish by default, English on request."""
    divan, target, value = _flippable(events)
    out = what_if(SEASON, events, divan, WhatIfIn(dice=[DiePin(target, "attack", value)]))
    name = game_map().names[target]
    words = {"tr": ("düştü", "direndi"), "en": ("fell", "held")}
    for lang, battle in (
        ("tr", f"{name} ({target}) savaşı: kayıtta "),
        ("en", f"Battle of {name} ({target}): recorded "),
    ):
        text = what_if_text(out, lang)  # type: ignore[arg-type]
        (line,) = [x for x in text.splitlines() if battle in x]
        assert sorted(w for w in words[lang] if w in line) == sorted(words[lang]), line
        assert not re.search(r"\b(taken|standoff)\b", line) and f"at {target}" not in line
        assert all(f"{p.name} ({p.plate}): " in text for p in out.provinces), text
        assert not re.search(r"^  \d+ ", text, re.M), text  # no line opens with a bare plate


def test_a_what_if_the_rules_cannot_run_is_said_in_words_with_a_code(
    tmp_path: Path, events: list[ev.Event], records: list[RecordedEvent],
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """Probe: an unexpected ValueError from the re-run (a defect of the rules or of the record,
    not the change's) was printed as Python's English `str(exc)` in a Turkish line. It is said
    in words, Turkish unless --lang en, with a stable code, exit 2 (ADR-161); a refused change
    and a Divan not in the record carry their codes too."""
    divan, target, value = _flippable(events)
    path = _file(tmp_path, records)
    changes = tmp_path / "changes.json"
    changes.write_text(json.dumps({"dice": [{"target": target, "side": "attack", "value": value}]}))

    def broken(*_a: object, **_k: object) -> None:
        raise ValueError("n must be positive")

    monkeypatch.setattr("shared.app.ops.divan_tools.explain_divan", broken)
    said = {}
    for lang in ("tr", "en"):
        assert main(["--lang", lang, "what-if", str(path), str(divan), "--file", str(changes)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1, err
        assert "must be positive" not in err and err.rstrip().endswith("[audit.what_if_failed]")
        said[lang] = err
    assert f"{divan}. Divan bu değişikliklerle yeniden koşulamadı" in said["tr"]
    assert f"Divan {divan} could not be re-run with these changes" in said["en"]
    monkeypatch.undo()
    changes.write_text(json.dumps({"orders": [{"seat": 19, "from": 6, "kind": "hold"}]}))
    assert main(["what-if", str(path), str(divan), "--file", str(changes)]) == 2
    assert capsys.readouterr().err.rstrip().endswith("[invalid_body.what_if_order]")


def test_a_refused_change_says_its_reason_in_words_with_its_code(
    tmp_path: Path, events: list[ev.Event], records: list[RecordedEvent],
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Found from outside: a refused change's reason was its raw code ("…: not_your_province").
    The reason is the refusal catalogue's text (Turkish unless --lang en), its code kept in
    brackets, and the line ends with the refusal's own code, as every CLI line does."""
    divan, _target, _value = _flippable(events)
    i = next(i for i, e in _locks(events) if e.divan == divan)
    state = fold(events[:i])
    plate = next(n for n, p in enumerate(state.provinces, 1) if p.owner not in (None, 1))
    name = game_map()[plate].name
    path = _file(tmp_path, records)
    changes = tmp_path / "changes.json"
    changes.write_text(json.dumps({"orders": [{"seat": 1, "from": plate, "kind": "hold"}]}))
    said = {}
    for lang in ("tr", "en"):
        assert main(["--lang", lang, "what-if", str(path), str(divan), "--file", str(changes)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1, err
        said[lang] = err.rstrip()
    assert said["tr"].endswith(
        f": {name} sizin değil [not_your_province] [invalid_body.what_if_order]"
    )
    assert said["en"].endswith(
        f": {name} is not yours [not_your_province] [invalid_body.what_if_order]"
    )


def test_explain_in_english_counts_in_singular_and_plural(
    tmp_path: Path, records: list[RecordedEvent], capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: `seksenbir explain --lang en` printed "1 units". English takes the
    singular after 1 and the plural after any other count; Turkish has no plural after a number
    ("1 birlik", "3 birlik") and stays as it is."""
    path = _file(tmp_path, records)
    en, tr = [], []
    for divan in range(1, 17):
        assert main(["--lang", "en", "explain", str(path), str(divan)]) in (0, 1)
        en.append(capsys.readouterr().out)
        assert main(["explain", str(path), str(divan)]) in (0, 1)
        tr.append(capsys.readouterr().out)
    english, turkish = "\n".join(en), "\n".join(tr)
    assert not re.findall(r"(?<![\d.])\b1 (units|orders|provinces)\b", english)
    assert not re.findall(r"(?<![\d.])\b(?:[02-9]|\d\d+) (unit|order|province)\b", english)
    assert re.search(r"(?<![\d.])\b1 (unit|order|province)\b", english), "a singular is printed"
    assert re.search(r"\b1 birlik\b", turkish) and not re.search(r"\bbirlikler\b", turkish)
