"""requirements.lock pins every dependency pyproject.toml names (reproducible installs)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert match is not None, requirement
    return re.sub(r"[-_.]+", "-", match.group(0)).lower()


def test_every_dependency_of_pyproject_is_pinned_with_hashes_in_the_lock() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in project["dependencies"]}
    wanted |= {_name(r) for r in project["optional-dependencies"]["dev"]}
    text = (ROOT / "requirements.lock").read_text()
    pinned = {
        _name(m.group(1)): m.group(2)
        for m in re.finditer(r"^([A-Za-z0-9._-]+)==(\S+) \\$", text, flags=re.MULTILINE)
    }
    missing = sorted(wanted - pinned.keys())
    assert not missing, f"not in requirements.lock (run `make lock`): {missing}"
    blocks = re.split(r"\n(?=[A-Za-z0-9._-]+==)", text)
    unhashed = [b.split("==")[0] for b in blocks[1:] if "--hash=sha256:" not in b]
    assert not unhashed, f"pinned without a hash: {unhashed}"


def test_the_lock_names_no_machine_specific_index() -> None:
    text = (ROOT / "requirements.lock").read_text()
    assert "--extra-index-url" not in text and "--find-links" not in text
    assert "file://" not in text
