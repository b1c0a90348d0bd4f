"""`make run`'s install of web/ and the tests' own (tests/node_tools.py) know each other's.

`npm ci` empties node_modules, the other installer's stamp with it: the tests' install removed
the Makefile's `.installed` and `make run`'s removed the tests' digest, so every `make test` ran
`npm ci` twice and built web/ again (tests/integration/test_stack.py's `make run` took 33 s
instead of 8). The Makefile's recipe now leaves the digest the tests look for.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests import node_tools

ROOT = Path(__file__).resolve().parents[2]
MAKEFILE = (ROOT / "Makefile").read_text()


def _recipe(target: str) -> list[str]:
    match = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n)+)", MAKEFILE, flags=re.MULTILINE)
    assert match is not None, target
    return [line.strip() for line in match.group(1).splitlines()]


def test_the_makefiles_web_install_leaves_the_digest_the_tests_install_accepts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recipe = _recipe("web/node_modules/.installed")
    ci = next(i for i, line in enumerate(recipe) if "npm ci" in line)
    stamp = next(i for i, line in enumerate(recipe) if "WEB_LOCK_STAMP" in line)
    assert ci < stamp < len(recipe) - 1 and recipe[-1] == "touch $@", recipe
    assert "export WEB_LOCK_STAMP" in MAKEFILE
    web = tmp_path / "web"
    (web / "node_modules").mkdir(parents=True)
    (web / "package-lock.json").write_bytes((ROOT / "web" / "package-lock.json").read_bytes())
    # the recipe's own line, run by make in a folder holding only a lock (no npm ci)
    subprocess.run(
        [
            "make",
            "-s",
            "-f",
            str(ROOT / "Makefile"),
            "--eval",
            f"stamp: ; {recipe[stamp]}",
            "stamp",
        ],
        cwd=tmp_path,
        check=True,
    )
    # the tests' install then finds its digest and installs nothing (no npm is even looked for)
    monkeypatch.setattr(node_tools.shutil, "which", lambda _name: None)
    node_tools.npm_ci(web, "in this test")
