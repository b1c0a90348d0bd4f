"""Migration numbers (docs/eventstore.md): unique, from 0001; a gap is allowed because numbers
are handed out ahead to parallel branches (issue 13 took 0009 before 0007 was merged)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.eventstore import MigrationError
from shared.eventstore.migrate import load_migrations


def _folder(tmp_path: Path, *names: str) -> Path:
    for name in names:
        (tmp_path / name).write_text(f"-- {name}\nSELECT 1;\n", encoding="utf-8")
    return tmp_path


def test_the_shipped_migrations_load_in_order() -> None:
    numbers = [m.version for m in load_migrations()]
    assert numbers == sorted(set(numbers)) and numbers[0] == 1 and 9 in numbers


def test_a_gap_in_the_numbers_loads_in_order(tmp_path: Path) -> None:
    found = load_migrations(_folder(tmp_path, "0003_c.sql", "0001_a.sql"))
    assert [m.name for m in found] == ["0001_a", "0003_c"]


@pytest.mark.parametrize(
    "names", [("0001_a.sql", "0001_b.sql"), ("0002_b.sql",), ("0000_z.sql", "0001_a.sql")]
)
def test_a_repeated_number_or_a_start_other_than_0001_is_refused(
    tmp_path: Path, names: tuple[str, ...]
) -> None:
    with pytest.raises(MigrationError, match="unique from 0001"):
        load_migrations(_folder(tmp_path, *names))
