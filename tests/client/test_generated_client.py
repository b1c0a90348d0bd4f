"""A frontend can generate a client from the served OpenAPI document (issue 11, "Contracts a
frontend can generate a client from").

The document is fetched from the gateway app in process (`GET /v1/schema/openapi.json`, no
server), a pinned generator from npm turns it into TypeScript types (openapi-typescript, with
openapi-fetch as the client and TypeScript's tsc, all pinned with integrity hashes in
`tests/client/package-lock.json`), and tsc type-checks `tests/client/trial.ts` against them:
create a trial season, read `/me`, submit orders, read the map. That program's
`@ts-expect-error` lines are mistakes a typed client catches; tsc fails when one stops being
an error, so a response or body that loses its type fails this test too.

The tools are installed with `npm ci` into `tests/client/node_modules` (git-ignored) the first
time, and again whenever the lock changes (a digest of the lock is kept beside them): a fresh
clone, as in CI, installs them once, in a few seconds, with npm's own download cache. They are
dev tools of this test only, never a dependency of the server.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import httpx

from entrypoints.gateway import create_app
from shared.settings import Settings

HERE = Path(__file__).parent
LOCK = HERE / "package-lock.json"
MODULES = HERE / "node_modules"
STAMP = MODULES / ".seksenbir-lock-sha256"  # the lock these modules were installed from
GENERATED = HERE / "generated"  # git-ignored, rewritten by every run
BIN = MODULES / ".bin"


def install_tools() -> None:
    """`npm ci` from the lock, unless node_modules already holds exactly that lock's tools."""
    digest = hashlib.sha256(LOCK.read_bytes()).hexdigest()
    if STAMP.is_file() and STAMP.read_text() == digest:
        return
    npm = shutil.which("npm")
    assert npm is not None, "npm (Node.js) is needed to generate the TypeScript client"
    subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
        cwd=HERE,
        check=True,
        timeout=300,
    )
    STAMP.write_text(digest)


async def served_document() -> bytes:
    """The document exactly as the gateway serves it (both APIs), from the app in process."""
    app = create_app(Settings())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://app") as client:
        r = await client.get("/v1/schema/openapi.json")
    assert r.status_code == 200, r.text
    return r.content


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], check=False, cwd=HERE, capture_output=True, text=True, timeout=120
    )


async def test_a_typescript_client_generated_from_the_document_type_checks_a_trial() -> None:
    """Issue 11: a client generated from the served document by a pinned generator
    type-checks a small program (create a trial season, submit orders, read the map), and the
    program's deliberate mistakes are type errors."""
    install_tools()
    GENERATED.mkdir(exist_ok=True)
    document = GENERATED / "openapi.json"
    document.write_bytes(await served_document())
    # --default-non-nullable=false: a field with a default stays optional in a request body
    # (`mode` of CreateSeasonIn, `units` of Order), as the document says.
    gen = run(
        BIN / "openapi-typescript",
        document,
        "--output",
        GENERATED / "api.ts",
        "--default-non-nullable=false",
    )
    assert gen.returncode == 0, gen.stdout + gen.stderr
    check = run(BIN / "tsc", "--project", HERE / "tsconfig.json")
    assert check.returncode == 0, check.stdout + check.stderr
