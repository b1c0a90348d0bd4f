"""docs/rules.md is the repository's own statement of the rules, and the repository stands alone.

Every rule id docs/rules.md states (a list item `- R-5.4 …`, or a section `## R-13 …` that has no
numbered items) is cited by at least one test: a test module or an adjudication case under tests/
names it. And nothing the repository runs reads a path outside it (`../shared`): a plain clone
runs and passes on its own.
"""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules.md"
ITEM = re.compile(r"^- (R-\d+\.\d+) ", re.MULTILINE)
SECTION = re.compile(r"^## (R-\d+) ", re.MULTILINE)

# Rules of record with nothing built yet for a test to hold: words between beys (R-15.1,
# ) need the chat and the name moderation of the next round's features; R-15.4 (no real
# money) is an absence the game has no code for. Each entry must still be uncited: the first
# test that cites one makes this list fail until the entry is removed.
NOTHING_BUILT_YET = {
    "R-15.1": "promises in words: there is no chat yet",
    "R-15.4": "no real money: nothing in the code takes money, so nothing to test",
}

# Files the repository runs or builds from (sources, tests, configuration, CI, packaging).
RUN_TIME_SUFFIXES = {".py", ".toml", ".cfg", ".ini", ".sh", ".json", ".yml", ".yaml", ".ts"}
RUN_TIME_NAMES = {"Makefile", "run", "Dockerfile"}
# `../shared`, an absolute path to it, or a Path built up to a sibling `shared/docs|data|seeds`.
OUTSIDE = re.compile(
    r"\.\./shared|/work/shared|parents\[\d\]\s*/\s*[\"']shared[\"']\s*/\s*[\"'](docs|data|seeds)"
)


def rule_ids() -> list[str]:
    text = RULES.read_text(encoding="utf-8")
    items = ITEM.findall(text)
    sections = [s for s in SECTION.findall(text) if not any(i.startswith(s + ".") for i in items)]
    return items + sections


@functools.cache
def texts_of_tests() -> tuple[str, ...]:
    """Every test module and adjudication case but this file."""
    return tuple(
        path.read_text(encoding="utf-8")
        for path in sorted((ROOT / "tests").rglob("*"))
        if path.suffix in {".py", ".json"}
        and "node_modules" not in path.parts
        and path.resolve() != Path(__file__).resolve()
    )


def cited_in_tests(rule: str) -> bool:
    pattern = re.compile(rf"(?<![\w.-]){re.escape(rule)}(?![\d.]\d|\d)")
    return any(pattern.search(text) for text in texts_of_tests())


def test_docs_rules_states_every_rule_of_record_id() -> None:
    """The rules of record number R-1 … R-15; each has its items here, R-13 and R-14 whole."""
    ids = rule_ids()
    assert len(ids) == len(set(ids)), "a rule id is stated twice"
    assert {i.split(".")[0] for i in ids} == {f"R-{n}" for n in range(1, 16)}
    assert {"R-5.4", "R-9.4", "R-12.2", "R-13", "R-14", "R-15.4"} <= set(ids)
    assert "Where the player rules differ" in RULES.read_text(encoding="utf-8")


def test_every_rule_id_is_cited_by_a_test() -> None:
    uncited = [i for i in rule_ids() if i not in NOTHING_BUILT_YET and not cited_in_tests(i)]
    assert not uncited, f"rule ids no test cites: {uncited}"


def test_the_nothing_built_yet_list_holds_only_uncited_rule_ids() -> None:
    ids = set(rule_ids())
    for rule in NOTHING_BUILT_YET:
        assert rule in ids, f"{rule} is not a rule id of docs/rules.md"
        assert not cited_in_tests(rule), f"{rule} is cited now: take it off NOTHING_BUILT_YET"


def tracked_files() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    return [ROOT / name for name in out.split("\0") if name]


def test_nothing_the_repository_runs_reads_a_path_outside_it() -> None:
    """A plain clone runs and passes its tests: no source, test, configuration or CI file
    reaches `../shared` (the team's texts the docs were written from)."""
    files = [
        p
        for p in tracked_files()
        if (p.suffix in RUN_TIME_SUFFIXES or p.name in RUN_TIME_NAMES)
        and p.name != "package-lock.json"
        and p.resolve() != Path(__file__).resolve()
    ]
    assert any(p.name == "test_map.py" for p in files)
    offenders = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in files
        if p.is_file()
        for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert not offenders, f"paths outside the repository: {offenders}"
