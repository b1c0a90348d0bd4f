"""The browser client says the catalogue's words for a battle's outcome and an order's reason
(ADR-157 one word for one event; ADR-170 the generated file, not a second copy)."""

from __future__ import annotations

import json
import re

from shared.domain import explain, report
from shared.domain.event_records import BattleRecord
from shared.domain.report_battles import battle_lines
from tests.web.catalogue_words import COMMITTED, OUTCOMES, generate

WEB_SRC = COMMITTED.parents[1]


def test_the_clients_words_file_is_what_the_catalogue_generates() -> None:
    """web/src/api/words.json is generated from shared.domain.messages: a catalogue change not
    regenerated into the client fails here (`make web-words` rewrites the file)."""
    assert COMMITTED.read_text(encoding="utf-8") == generate(), (
        "web/src/api/words.json differs from what the catalogue generates: "
        "run `make web-words` and commit the file"
    )


def test_the_outcome_words_are_the_reports() -> None:
    """The words the client says for an outcome are the ones the Divan report's battle line
    says (the line of every report version, and the current version's taken and held)."""
    outcome = json.loads(COMMITTED.read_text(encoding="utf-8"))["outcome"]
    assert sorted(outcome) == sorted(OUTCOMES)
    for o in OUTCOMES:
        taken = o == "taken"
        r = BattleRecord(
            target=6,
            defender=2,
            defender_units=3,
            defence_bonus=0,
            defence_support=(),
            groups=(),
            outcome=o,  # type: ignore[arg-type]  # one of the Literal's three, from OUTCOMES
            attack=None if o == "standoff" else 5,
            defence=None if o == "standoff" else 4,
            taker=1 if taken else None,
        )
        line = report._battle_line(r)
        assert f"savaşı: {outcome[o]['tr']}" in line.tr, (o, line.tr)
        assert f"Ankara: {outcome[o]['en']}" in line.en, (o, line.en)
        if o != "standoff":
            said = battle_lines(r)[0][1]
            assert f"Ankara {outcome[o]['tr']} 5–4" in said.tr, (o, said.tr)
            assert f"Ankara {outcome[o]['en']} 5–4" in said.en, (o, said.en)


def test_every_dropped_orders_reason_has_its_words() -> None:
    """The console says a dropped order's reason in the catalogue's words beside its code:
    every reason the explanation can give is in the file."""
    why = json.loads(COMMITTED.read_text(encoding="utf-8"))["why"]
    assert set(explain.DROP_RULE) <= set(why)


def test_the_client_keeps_no_outcome_words_of_its_own() -> None:
    """Probe (session 24): i18n.ts (`outcome_taken` "alındı" …) and the console's texts
    (`word_taken`) kept words of their own for the outcomes, not the reports'."""
    own = re.compile(r"\b(?:outcome|word)_(?:taken|held|standoff)\b|'(?:alındı|tutuldu|denge)'")
    found = [
        f"{path.relative_to(WEB_SRC)}: {m.group(0)}"
        for path in sorted(WEB_SRC.rglob("*.ts"))
        if path.name != "schema.d.ts"
        for m in own.finditer(path.read_text(encoding="utf-8"))
    ]
    assert found == []
