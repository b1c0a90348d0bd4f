"""A Python client can be generated from the served OpenAPI document too (issue 20, "What the
API must give a client"): openapi-python-client (a dev extra, pinned in requirements.lock)
generates one with no duplicate-model warning and every answer typed.

Two component schemas with one title (the command's and the query side's `OrdersOut`, before
the command's became `OrdersAcceptedOut`) made the generator drop the second model, so
`GET /orders/{divan}` was typed `Any`.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import typing
from pathlib import Path

from tests.node_tools import served_document

BIN = Path(sys.executable).parent
PACKAGE = "seksenbir_client"
# The generator cannot type an NDJSON answer (its limit, not the document's): the two exports
# are the only operations it may warn about.
NDJSON = ("GET /v1/ops/seasons/{season_id}/export", "GET /v1/seasons/{season_id}/export")


def _generate(tmp_path: Path, document: bytes) -> str:
    path = tmp_path / "openapi.json"
    path.write_bytes(document)
    # the generator formats its output with ruff, found on PATH
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [BIN / "openapi-python-client", "generate", "--path", path, "--meta", "none"]
    gen = subprocess.run(
        [*command, "--output-path", tmp_path / PACKAGE],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    out = gen.stdout + gen.stderr
    assert gen.returncode == 0, out
    return out


def _warned_operations(out: str) -> list[str]:
    return [
        line.removeprefix("WARNING parsing ").split(" within ")[0]
        for line in out.splitlines()
        if line.startswith("WARNING parsing ")
    ]


async def test_a_python_client_generated_from_the_document_has_no_duplicate_model_and_types_orders(
    tmp_path: Path,
) -> None:
    """Issue 20: openapi-python-client generates a client from the served document with no
    duplicate model and nothing it cannot parse (the NDJSON exports aside), and
    `GET /orders/{divan}` answers the typed model of every bey's orders, not `Any`; a join's
    problem model has its `free_neighbours` as a list of integers."""
    out = _generate(tmp_path, await served_document())
    assert "duplicate" not in out.lower(), out
    assert "Unable to parse" not in out, out
    assert sorted(_warned_operations(out)) == sorted(NDJSON), out

    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module(
            f"{PACKAGE}.api.default.v1_seasons_season_id_orders_divan_all_orders"
        )
        answers = typing.get_args(typing.get_type_hints(module._parse_response)["return"])
        problem = importlib.import_module(f"{PACKAGE}.models.join_season_problem")
        joined = problem.JoinSeasonProblem.__annotations__
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]
    models = {a.__name__: a for a in answers if isinstance(a, type)}
    assert "OrdersOut" in models, answers
    fields = set(models["OrdersOut"].__annotations__)  # (its hints name TYPE_CHECKING imports)
    assert {"season_id", "version", "divan", "orders"} <= fields, fields
    # a join's problems are typed: the free neighbours of a taken memleket are plates
    assert "list[int]" in str(joined["free_neighbours"]), joined
