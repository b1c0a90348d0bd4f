"""The server's words the browser client says (ADR-170): generated from the one catalogue,
shared.domain.messages, into web/src/api/words.json, committed beside the API types.

ADR-157: one word for one event. The client once kept its own words for a battle's outcome
("alındı / tutuldu / denge") while the reports and `seksenbir explain` said the catalogue's
("düştü / direndi / kimse alamadı"): a player saw two vocabularies for one thing. Now the
player's screens and the console read these:

- `outcome`: a battle's outcome (`taken`, `held`, `standoff`), the catalogue's
  `explain.what_if_outcome.<outcome>`, the words of the Divan report's battle line;
- `why`: why an order did nothing or a support did or did not count (`not_owned`, `ally` …),
  the catalogue's `explain.why.<reason>`, said with its code in the console.

`python -m tests.web.catalogue_words` (`make web-words`) rewrites the file;
tests/web/test_catalogue_words.py fails when it differs from what the catalogue generates.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from shared.domain.messages import CATALOGUE

COMMITTED = Path(__file__).resolve().parents[2] / "web" / "src" / "api" / "words.json"
OUTCOMES = ("taken", "held", "standoff")
_WHY = "explain.why."


def words() -> dict[str, dict[str, dict[str, str]]]:
    """The catalogue's words the client says, by group and code, each in both languages."""
    outcome = {o: CATALOGUE[f"explain.what_if_outcome.{o}"] for o in OUTCOMES}
    why = {k.removeprefix(_WHY): v for k, v in CATALOGUE.items() if k.startswith(_WHY)}
    return {
        group: {code: {"tr": text.tr, "en": text.en} for code, text in sorted(entries.items())}
        for group, entries in (("outcome", outcome), ("why", why))
    }


def generate() -> str:
    """The file as committed: sorted, indented, one newline at the end."""
    return json.dumps(words(), ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def main() -> None:
    COMMITTED.write_text(generate(), encoding="utf-8")
    print(f"wrote {COMMITTED}", file=sys.stderr)


if __name__ == "__main__":
    main()
