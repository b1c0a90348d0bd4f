"""Issue 27: a CLI verb that needs no HTTP app does not load one.

`seksenbir verify SEASON` took 0.69 s as a process against 0.08 s of work: it opened its store
through entrypoints.bootstrap, which imports the Dramatiq actors and the projector (and then
the whole Litestar app). The verbs on a store alone (export, verify, import, replay, migrate)
open it through entrypoints.stores, which imports none of them. Checked in a fresh interpreter
(sys.modules), so no timing is asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("litestar", "dramatiq", "uvicorn", "services.command.app", "entrypoints.bootstrap")


# Nothing listens on port 1: the verb opens its store and stops at once (exit 2, one line)
NOWHERE = "postgresql://nobody@127.0.0.1:1/nothing"


def _loaded(*modules: str, argv: list[str] | None = None) -> list[str]:
    """The heavy modules loaded after importing `modules` and running `seksenbir argv`."""
    code = (
        "import importlib, json, sys\n"
        f"for m in {list(modules)!r}: importlib.import_module(m)\n"
        f"if {argv!r} is not None:\n"
        "    from entrypoints import cli\n"
        f"    assert cli.main({argv!r}) == 2\n"
        f"print(json.dumps(sorted(h for h in {list(HEAVY)!r} if h in sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
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
    assert _loaded("entrypoints.cli", argv=argv) == []


def test_the_check_itself_sees_a_heavy_import() -> None:
    """The probe is not blind: the gateway loads the app, the composition root the broker."""
    assert "litestar" in _loaded("entrypoints.gateway")
    assert "dramatiq" in _loaded("entrypoints.bootstrap")
