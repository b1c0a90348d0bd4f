"""Migration numbers (docs/eventstore.md): 0001 … n, without a gap or a repeat, so every
database applies the same files in the same order."""

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
    assert numbers == list(range(1, len(numbers) + 1)) and 9 in numbers


def test_migrations_load_in_number_order(tmp_path: Path) -> None:
    found = load_migrations(_folder(tmp_path, "0002_b.sql", "0001_a.sql"))
    assert [m.name for m in found] == ["0001_a", "0002_b"]


@pytest.mark.parametrize(
    "names",
    [
        ("0001_a.sql", "0001_b.sql"),
        ("0002_b.sql",),
        ("0000_z.sql", "0001_a.sql"),
        ("0001_a.sql", "0003_c.sql"),
    ],
)
def test_a_repeat_a_gap_or_a_start_other_than_0001_is_refused(
    tmp_path: Path, names: tuple[str, ...]
) -> None:
    with pytest.raises(MigrationError, match=r"must run 1\.\.n"):
        load_migrations(_folder(tmp_path, *names))
