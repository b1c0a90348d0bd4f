"""What the tests that run Node.js tools share: the served OpenAPI document, and `npm ci` of a
folder's pinned tools (tests/client for the generated TypeScript client, web/ for the browser
client's API types)."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import httpx

from entrypoints.gateway import create_app
from shared.settings import Settings

STAMP = ".seksenbir-lock-sha256"  # in node_modules: the digest of the lock it was installed from


def npm_ci(folder: Path, needed_for: str, timeout: float = 600) -> None:
    """`npm ci` in `folder` from its package-lock.json, unless its node_modules already holds
    exactly that lock (its digest is kept beside the modules): a fresh clone installs once."""
    digest = hashlib.sha256((folder / "package-lock.json").read_bytes()).hexdigest()
    stamp = folder / "node_modules" / STAMP
    if stamp.is_file() and stamp.read_text() == digest:
        return
    npm = shutil.which("npm")
    assert npm is not None, f"npm (Node.js >= 20) is needed {needed_for}"
    subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
        cwd=folder,
        check=True,
        timeout=timeout,
    )
    stamp.write_text(digest)


async def served_document() -> bytes:
    """The document exactly as the gateway serves it (both APIs), from the app in process (no
    server)."""
    app = create_app(Settings())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://app") as client:
        r = await client.get("/v1/schema/openapi.json")
    assert r.status_code == 200, r.text
    return r.content
