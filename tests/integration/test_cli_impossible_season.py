"""Issue 20 item 1, the CLI: a season id no season can have never reaches PostgreSQL.

A command line cannot hold a NUL, but it can hold bytes that are not UTF-8 (Python reads them
as lone surrogates, which asyncpg cannot encode), a line break or an over-long id; each verb
that looks a season up in the database answers one line and exit 2, no traceback, before it
connects (shared.eventstore.model.possible_season_id, entrypoints.audit.possible_season).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HOSTILE = (b"x\xff", b"\xed\xa0\x80", b"a\nb", b"7" * 101)
VERBS: tuple[tuple[bytes, ...], ...] = (
    (b"export", b"%s"),
    (b"verify", b"%s"),
    (b"replay", b"%s"),
    (b"explain", b"%s", b"1"),
    (b"what-if", b"%s", b"1", b"--file", b"orders.json"),
    (b"shadow", b"%s", b"--adjudicate-cmd", b"true"),
    (b"fork", b"%s", b"--divan", b"1", b"--seat", b"1"),
    (b"projections", b"rebuild", b"%s"),
)


@pytest.mark.parametrize("verb", VERBS, ids=lambda v: v[0].decode())
def test_a_season_id_no_season_can_have_is_one_line_and_exit_2(
    migrated_pg_dsn: str, tmp_path: Path, verb: tuple[bytes, ...]
) -> None:
    """Issue 20 item 1 (R-14: nothing is read, so no ops read is recorded); the languages in
    turn, one per hostile id."""
    (tmp_path / "orders.json").write_text("{}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEKSENBIR_")}
    env["SEKSENBIR_PG_DSN"] = migrated_pg_dsn
    for n, season_id in enumerate(HOSTILE):
        lang = ("en", "tr")[n % 2]
        words = "no season can have this id" if lang == "en" else "hiçbir sezonun böyle bir kimliği"
        argv = [a.replace(b"%s", season_id) if a == b"%s" else a for a in verb]
        done = subprocess.run(
            [sys.executable.encode(), b"-m", b"entrypoints.cli", *argv, b"--lang", lang.encode()],
            capture_output=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
            check=False,
        )
        err = done.stderr.decode("utf-8", "replace")
        assert done.returncode == 2, (argv, err)
        assert "Traceback" not in err and len(err.splitlines()) == 1, (argv, err)
        assert words in err, (argv, err)
