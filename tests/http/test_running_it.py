"""Issue 11, "Running it": `make run` takes PORT= (and HOST=), the README points to the JSON
OpenAPI document and the docs UI and tells how to let a browser client in (CORS), and what it
points to is there."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from shared.eventstore import InMemoryEventStore
from tests.clock import StepClock
from tests.http.support import Api, open_litestar_client, settings

ROOT = Path(__file__).parents[2]
ORIGIN = "http://localhost:5173"


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_run_passes_port_and_host_to_seksenbir_up() -> None:
    done = subprocess.run(
        ["make", "-n", "run", "PORT=9123", "HOST=0.0.0.0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "seksenbir up --host 0.0.0.0 --port 9123" in done.stdout, done.stdout


def test_the_readme_names_the_openapi_document_the_docs_ui_and_cors_origins() -> None:
    readme = (ROOT / "README.md").read_text()
    for said in ("/v1/schema/openapi.json", "`/v1/schema`", "SEKSENBIR_CORS_ORIGINS", "PORT="):
        assert said in readme, said


async def test_the_document_and_the_docs_ui_the_readme_names_are_served(memory_api: Api) -> None:
    r = await memory_api.client.get("/v1/schema/openapi.json")
    assert r.status_code == 200 and r.json()["openapi"].startswith("3.")
    for path in ("/v1/schema", "/v1/schema/swagger"):
        r = await memory_api.client.get(path)
        assert r.status_code == 200, path
        assert r.headers["content-type"].startswith("text/html"), path


async def test_a_browser_client_on_a_configured_origin_may_call_the_api_and_no_other(
    clock: StepClock,
) -> None:
    """SEKSENBIR_CORS_ORIGINS (settings.cors_origins): a preflight from that origin is allowed,
    one from another origin is not; with none configured, no origin is."""
    preflight = {
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
    }
    config = settings(cors_origins=(ORIGIN,))
    async with open_litestar_client(InMemoryEventStore(clock=clock), config) as api:
        r = await api.client.options("/v1/seasons", headers={"Origin": ORIGIN, **preflight})
        assert r.status_code in (200, 204), r.text
        assert r.headers["access-control-allow-origin"] == ORIGIN
        r = await api.client.post("/v1/seasons", json={"memleket": 6}, headers={"Origin": ORIGIN})
        assert r.status_code == 201 and r.headers["access-control-allow-origin"] == ORIGIN
        r = await api.client.options(
            "/v1/seasons", headers={"Origin": "http://evil.example", **preflight}
        )
        assert r.headers.get("access-control-allow-origin") != "http://evil.example"
    async with open_litestar_client(InMemoryEventStore(clock=clock)) as api:
        r = await api.client.post("/v1/seasons", json={"memleket": 6}, headers={"Origin": ORIGIN})
        assert "access-control-allow-origin" not in r.headers
