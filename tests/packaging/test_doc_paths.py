"""Every file or folder of the repository that README, CONTRIBUTING and docs/ name in backticks
is there (session 24: docs/web.md named `tests/e2e/push.e2e.mjs`, which is
`web/tests/e2e/push.e2e.mjs`: an outsider following it from the checkout's root found nothing).
docs/decisions.md is history: an ADR may name a file a later one removed."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAMED = re.compile(r"`((?:tests|docs|shared|services|entrypoints|bench|web|deploy|\.ci)/[\w./-]+)`")
# made by a run, never in a checkout: the e2e screenshots, a template of a name
MADE = ("web/artefacts/", "web/dist", "build/")


def documents() -> list[Path]:
    docs = [p for p in sorted((ROOT / "docs").glob("*.md")) if p.name != "decisions.md"]
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *docs]


def test_every_path_the_docs_name_is_in_the_repository() -> None:
    missing = []
    for doc in documents():
        for path in sorted(set(NAMED.findall(doc.read_text()))):
            if path.startswith(MADE) or "NNNN" in path:
                continue
            if not (ROOT / path.rstrip(".")).exists():
                missing.append(f"{doc.relative_to(ROOT)}: {path}")
    assert missing == []
