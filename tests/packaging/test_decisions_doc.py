"""docs/decisions.md's index lists every record, as its heading states it.

Each `### ADR-n (date): title` record has one index row `| ADR-n | date | area | Title | status |`
with the same number, date and title (first letter capitalised, a `— superseded …` or
`(supersedes …)` tail left to the status column), and no row names a record that is not there.
A record superseded in its heading is not "in force" in the index.
"""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "decisions.md"
HEADING = re.compile(r"^### ADR-(\d+) \((\d{4}-\d{2}-\d{2})\): (.+)$", re.MULTILINE)
ROW = re.compile(r"^\| ADR-(\d+) \| (\d{4}-\d{2}-\d{2}) \| ([^|]+) \| (.+) \| ([^|]+) \|$", re.M)
TAIL = re.compile(r"\s+(— superseded.*|\(supersedes[^)]*\))$")


def records() -> dict[int, tuple[str, str]]:
    found: dict[int, tuple[str, str]] = {}
    for number, date, title in HEADING.findall(DOC.read_text(encoding="utf-8")):
        assert int(number) not in found, f"ADR-{number} is recorded twice"
        found[int(number)] = (date, title.strip())
    return found


def index() -> dict[int, tuple[str, str, str]]:
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("## Index") : text.index("## Records")]
    found: dict[int, tuple[str, str, str]] = {}
    for number, date, _area, title, status in ROW.findall(table):
        assert int(number) not in found, f"ADR-{number} has two index rows"
        found[int(number)] = (date, title.strip(), status.strip())
    return found


def test_the_index_lists_every_record_and_only_those() -> None:
    recorded, listed = records(), index()
    assert len(recorded) >= 50
    assert sorted(set(recorded) - set(listed)) == [], "records missing from the index"
    assert sorted(set(listed) - set(recorded)) == [], "index rows without a record"
    assert list(listed) == sorted(listed), "the index is in number order"


def test_each_row_has_its_records_date_and_title() -> None:
    listed = index()
    for number, (date, heading) in records().items():
        row_date, row_title, status = listed[number]
        assert row_date == date, f"ADR-{number}: {row_date} in the index, {date} in the record"
        title = TAIL.sub("", heading)
        assert row_title == title[:1].upper() + title[1:], f"ADR-{number}: {row_title!r}"
        if "— superseded" in heading:
            assert status.startswith("superseded"), f"ADR-{number} is superseded: {status!r}"
