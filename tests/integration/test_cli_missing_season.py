"""ADR-155 (docs/export.md "Exit codes"): a season the database does not hold is exit 2 from
every verb that names one, in one line in the language asked for.

An operator's script could not tell "no such season" from "the record does not hold": replay,
explain, what-if and shadow exited 2, export, verify, fork and projections rebuild 1.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

VERBS: tuple[tuple[str, ...], ...] = (
    ("export", "nobody"),
    ("verify", "nobody"),
    ("replay", "nobody"),
    ("explain", "nobody", "1"),
    ("what-if", "nobody", "1", "--file", "changes.json"),
    ("shadow", "nobody", "--adjudicate-cmd", "true"),
    ("fork", "nobody", "--divan", "1", "--seat", "1"),
    ("projections", "rebuild", "nobody"),
)


@pytest.mark.parametrize("verb", VERBS, ids=lambda v: v[0])
def test_a_season_the_database_does_not_hold_is_exit_2_from_every_verb(
    migrated_pg_dsn: str, redis_url: str, tmp_path: Path, verb: tuple[str, ...]
) -> None:
    (tmp_path / "changes.json").write_text('{"orders": [], "dice": []}')
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEKSENBIR_")}
    env |= {"SEKSENBIR_PG_DSN": migrated_pg_dsn, "SEKSENBIR_REDIS_URL": redis_url}
    for lang, words in (
        ("en", ("no season 'nobody'", "no such season")),
        ("tr", ("sezonu yok", "sezon yok")),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "entrypoints.cli", *verb, "--lang", lang],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
            check=False,
        )
        said = [x for x in done.stderr.splitlines() if x.startswith("seksenbir ")]
        assert done.returncode == 2, (verb, done.stderr)
        assert "Traceback" not in done.stderr and said, (verb, done.stderr)
        assert any(w in said[-1] for w in words), (verb, said)  # verify names its database first
