"""Issue 20 item 7 (docs/export.md "An event line"): an export is read strictly and bounded.

An unknown top-level field of an event line was dropped (so `seksenbir import` kept less than
the file held; an unknown metadata field was already refused), and a line was read whole
whatever its size (a 60 MB line took 212 MB before it was refused). Now the field is refused
naming the line, and a line over MAX_LINE_BYTES is refused as soon as that is known.
"""

from __future__ import annotations

import io
import json

import pytest

from shared.app.ops.export import ExportError
from shared.app.ops.export_read import MAX_LINE_BYTES, bounded_lines, parse
from tests.audit.support import dump, export_of, season_records


@pytest.fixture(scope="module")
def lines() -> list[dict[str, object]]:
    records = season_records("limits", 5, live=True)
    return export_of("limits", records)


def test_a_genuine_export_reads_and_its_longest_line_is_far_under_the_limit(lines) -> None:
    data = dump(lines)
    assert len(parse(bounded_lines(io.BytesIO(data))).records) == len(lines) - 1
    assert max(len(x) for x in data.splitlines()) * 30 < MAX_LINE_BYTES


@pytest.mark.parametrize("field", ["extra", "Data", "season_id", "\u0000"])
def test_an_unknown_top_level_field_of_an_event_line_is_refused_naming_the_line(
    lines, field: str
) -> None:
    """The chain does not cover it, so the file still verifies: only the reader can refuse it."""
    bad = json.loads(json.dumps(lines))
    bad[3][field] = "kept?"
    with pytest.raises(ExportError) as refused:
        parse(bounded_lines(io.BytesIO(dump(bad))))
    assert refused.value.line == 4
    assert repr(field)[:10] in refused.value.said.text("en")
    assert "never dropped" in refused.value.said.text("en")


def test_a_line_over_the_limit_is_refused_and_one_at_it_is_read(lines) -> None:
    ok = bounded_lines(io.BytesIO(b"x" * MAX_LINE_BYTES + b"\ny" * 3))
    assert [len(x) for x in ok] == [MAX_LINE_BYTES + 1, 2, 2, 1]
    data = dump(lines[:3]) + b'{"pad": "' + b"x" * MAX_LINE_BYTES + b'"}\n' + dump(lines[3:])
    with pytest.raises(ExportError) as refused:
        parse(bounded_lines(io.BytesIO(data)))
    assert refused.value.line == 4
    assert str(MAX_LINE_BYTES) in refused.value.said.text("en")


class Endless(io.RawIOBase):
    """A file of one line that never ends: a reader that reads a line whole never returns."""

    def __init__(self, most: int) -> None:
        self.given, self.most = 0, most

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def, override]
        n = len(buffer)
        self.given += n
        assert self.given <= self.most, f"read {self.given} bytes of one line"
        buffer[:n] = b"x" * n
        return n


def test_a_line_is_never_read_whole_only_up_to_the_limit() -> None:
    source = Endless(most=4 * MAX_LINE_BYTES)
    with pytest.raises(ExportError) as refused:
        parse(bounded_lines(io.BufferedReader(source)))
    assert refused.value.line == 1
    assert source.given <= MAX_LINE_BYTES + 2 * io.DEFAULT_BUFFER_SIZE
