"""Issue 27: a CLI verb that needs no HTTP app does not load one.

`seksenbir verify SEASON` took 0.69 s as a process against 0.08 s of work: it opened its store
through entrypoints.bootstrap, which imports the Dramatiq actors and the projector (and then
the whole Litestar app). The verbs on a store alone (export, verify, import, replay, migrate)
open it through entrypoints.stores, which imports none of them. Nor do the verbs that log
nothing import structlog (whose own import loads its console renderer and `rich`, ~0.1 s), nor
a store verb the domain's re-run before it has events to re-run (ADR-110). Checked in a fresh
interpreter (sys.modules), so no timing is asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HEAVY = ("litestar", "dramatiq", "uvicorn", "services.command.app", "entrypoints.bootstrap")
# structlog's import loads structlog.dev and rich: only a verb that logs needs it (migrate)
LOGGING = ("structlog", "structlog.dev", "rich")
# the re-run of Divans (export_check's modules): only once a season's events are read
RERUN = ("shared.app.ops.export_check", "shared.app.ops.ops_replay", "shared.domain.lifecycle")
PROBED = HEAVY + LOGGING + RERUN


# Nothing listens on port 1: the verb opens its store and stops at once (exit 2, one line)
NOWHERE = "postgresql://nobody@127.0.0.1:1/nothing"


def _loaded(
    *modules: str,
    argv: list[str] | None = None,
    exit_code: int = 2,
    env: dict[str, str] | None = None,
) -> list[str]:
    """The probed modules loaded after importing `modules` and running `seksenbir argv`, which
    ends with `exit_code` (returned, or SystemExit as argparse's --help raises it); `env` is
    added to the process's environment."""
    code = (
        "import contextlib, importlib, io, json, sys\n"
        f"for m in {list(modules)!r}: importlib.import_module(m)\n"
        f"if {argv!r} is not None:\n"
        "    from entrypoints import cli\n"
        "    try:\n"
        "        with contextlib.redirect_stdout(io.StringIO()):\n"
        f"            code = cli.main({argv!r})\n"
        "    except SystemExit as exc:\n"
        "        code = exc.code\n"
        f"    assert code == {exit_code}, code\n"
        f"print(json.dumps(sorted(h for h in {list(PROBED)!r} if h in sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_importing_the_cli_loads_no_http_app_nor_broker() -> None:
    assert _loaded("entrypoints.cli") == []


@pytest.mark.parametrize(
    "argv",
    [
        ["verify", "0123456789abcdef0123456789abcdef", "--dsn", NOWHERE],
        ["export", "0123456789abcdef0123456789abcdef", "--dsn", NOWHERE],
        ["migrate", "--dsn", NOWHERE],
    ],
    ids=lambda argv: argv[0],
)
def test_the_store_verbs_load_no_http_app_nor_broker(argv: list[str]) -> None:
    """A verb on a store alone, run up to its store (which is not there)."""
    assert set(_loaded("entrypoints.cli", argv=argv)).isdisjoint(HEAVY)


@pytest.mark.parametrize(
    "argv",
    [
        ["verify", "0123456789abcdef0123456789abcdef", "--dsn", NOWHERE],
        ["export", "0123456789abcdef0123456789abcdef", "--dsn", NOWHERE],
        ["replay", "0123456789abcdef0123456789abcdef", "--dsn", NOWHERE],
    ],
    ids=lambda argv: argv[0],
)
def test_a_store_verb_that_logs_nothing_loads_no_logging_renderer_nor_the_rerun(
    argv: list[str],
) -> None:
    """Issue 27's `seksenbir verify SEASON` start: no structlog (nor rich), and the Divans'
    re-run only once there are events to re-run."""
    assert _loaded("entrypoints.cli", argv=argv) == []


@pytest.mark.parametrize(
    ("argv", "exit_code"),
    [
        (["--help"], 0),
        (["verify", "--help"], 0),
        (["--lang", "en", "explain", "--help"], 0),
        (["adjudicate", "no-such-scenario.json"], 2),
        (["simulate", "--seed", "1", "--divans", "1", "--json"], 0),
    ],
    ids=lambda x: "-".join(x) if isinstance(x, list) else str(x),
)
def test_the_verbs_on_no_store_load_neither_app_broker_nor_logging(
    argv: list[str], exit_code: int
) -> None:
    loaded = _loaded("entrypoints.cli", argv=argv, exit_code=exit_code)
    assert set(loaded).isdisjoint(HEAVY + LOGGING)


def test_deadletters_list_loads_no_composition_root() -> None:
    """Listing reads the broker's dead-letter sets; only `replay` needs the broker's actors."""
    nowhere = {"SEKSENBIR_BROKER_URL": "redis://127.0.0.1:1/0"}  # exit 2: not reachable
    loaded = _loaded("entrypoints.cli", argv=["deadletters", "list"], env=nowhere)
    assert set(loaded).isdisjoint({"entrypoints.bootstrap", "litestar", *LOGGING})


def test_the_check_itself_sees_a_heavy_import() -> None:
    """The probe is not blind: the gateway loads the app, the composition root the broker, a
    verb that logs (migrate configures the log format) structlog and with it rich."""
    assert "litestar" in _loaded("entrypoints.gateway")
    assert "dramatiq" in _loaded("entrypoints.bootstrap")
    assert {"structlog", "rich"} <= set(
        _loaded("entrypoints.cli", argv=["migrate", "--dsn", NOWHERE])
    )
    assert "shared.domain.lifecycle" in _loaded("shared.app.ops.export_check")
