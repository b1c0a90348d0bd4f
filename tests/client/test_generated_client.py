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

import subprocess
from pathlib import Path

from tests.node_tools import npm_ci, served_document

HERE = Path(__file__).parent
MODULES = HERE / "node_modules"
GENERATED = HERE / "generated"  # git-ignored, rewritten by every run
BIN = MODULES / ".bin"


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], check=False, cwd=HERE, capture_output=True, text=True, timeout=120
    )


async def test_a_typescript_client_generated_from_the_document_type_checks_a_trial() -> None:
    """Issue 11: a client generated from the served document by a pinned generator
    type-checks a small program (create a trial season, submit orders, read the map), and the
    program's deliberate mistakes are type errors."""
    npm_ci(HERE, "to generate the TypeScript client", timeout=300)
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
