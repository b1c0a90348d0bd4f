"""docs/reliability.md lists a test for each of RELIABILITY.md's 24, and every test it names exists.

Each numbered section of the doc (`### N. title`) names the tests that implement RELIABILITY N as
pytest node ids (`tests/…py::test_name`) or says it is `pending` (built by another issue). This
test collects every named node id with pytest itself, so a renamed or deleted test fails here,
not silently in the doc.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "reliability.md"
NODE = re.compile(r"`(tests/[\w/]+\.py::test_\w+)`")
SECTION = re.compile(r"^### (\d+)\. ", re.MULTILINE)


def sections() -> dict[int, str]:
    text = DOC.read_text(encoding="utf-8")
    marks = list(SECTION.finditer(text))
    return {
        int(m[1]): text[m.end() : marks[i + 1].start() if i + 1 < len(marks) else len(text)]
        for i, m in enumerate(marks)
    }


def test_every_reliability_test_has_its_section_with_a_test_or_a_pending_note():
    found = sections()
    assert sorted(found) == list(range(1, 25))
    for number, body in found.items():
        assert NODE.search(body) or "pending" in body, f"RELIABILITY {number} names no test"
        assert "fail" in body, f"RELIABILITY {number} does not say how it was shown to fail"


def test_every_test_the_doc_names_is_collected_by_its_node_id():
    nodes = sorted({n for body in sections().values() for n in NODE.findall(body)})
    assert nodes
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *nodes],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    collected = {line.split("[", 1)[0] for line in run.stdout.splitlines() if "::" in line}
    missing = [n for n in nodes if n not in collected]
    assert not missing, f"named in docs/reliability.md but not collected: {missing}\n{run.stderr}"
