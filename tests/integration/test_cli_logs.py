"""The CLI's own log records come out in the one log format (issue 11: one JSON format)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import SESSION, fresh_database


def test_migrate_logs_every_record_as_a_json_line(pg_server_dsn: str) -> None:
    with fresh_database(pg_server_dsn, f"seksenbir_clilog_{SESSION}") as dsn:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SEKSENBIR_")}
        done = subprocess.run(
            [sys.executable, "-m", "entrypoints.cli", "migrate", "--dsn", dsn, "--lang", "en"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=True,
        )
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    records = [json.loads(line) for line in lines if not line.startswith("applied: ")]
    assert [r["event"] for r in records if r["event"] == "migration.applied"]
    assert all("timestamp" in r and "level" in r for r in records)
    assert lines[-1].startswith("applied: 0001_event_log")  # the verb's own answer, for people
