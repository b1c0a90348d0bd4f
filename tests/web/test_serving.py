"""The gateway serves the browser client at `/` (issue 22): the shell revalidated on every load
under a strict Content-Security-Policy, the hashed assets cached for a year as immutable,
nothing else from the build folder, and the API under /v1 as before."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from entrypoints.gateway import create_app
from shared.settings import Settings

SHELL = b'<!doctype html><script type="module" src="/assets/index-AbCd1234.js"></script>'
SCRIPT = b"console.log('seksenbir')"


@pytest.fixture
def built(tmp_path: Path) -> Path:
    """A build folder as `npm run build` leaves it, and a secret beside it."""
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_bytes(SHELL)
    (tmp_path / "assets" / "index-AbCd1234.js").write_bytes(SCRIPT)
    (tmp_path / "assets" / "style-Ef5678gh.css").write_bytes(b"body{}")
    (tmp_path / "favicon.svg").write_bytes(b"<svg/>")
    (tmp_path / "manifest.webmanifest").write_bytes(b"{}")
    (tmp_path / "sw.js").write_bytes(b"self.addEventListener('fetch', () => {})")
    (tmp_path / "secret.txt").write_bytes(b"nope")
    return tmp_path


@pytest.fixture
async def client(built: Path) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(Settings(web_dir=str(built)))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://app") as c:
        yield c


def directives(policy: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for part in policy.split(";"):
        name, *values = part.split()
        out[name] = values
    return out


async def test_the_shell_is_revalidated_and_under_a_strict_policy(
    client: httpx.AsyncClient,
) -> None:
    r = await client.get("/")
    assert r.status_code == 200
    assert r.content == SHELL
    assert r.headers["content-type"].startswith("text/html")
    assert r.headers["cache-control"] == "no-cache"
    assert r.headers["x-content-type-options"] == "nosniff"
    policy = directives(r.headers["content-security-policy"])
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]  # no inline script, no eval, no other origin
    assert policy["connect-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    for values in policy.values():
        assert not {"'unsafe-inline'", "'unsafe-eval'", "*", "http:", "https:"} & set(values)


async def test_hashed_assets_are_immutable_for_a_year(client: httpx.AsyncClient) -> None:
    r = await client.get("/assets/index-AbCd1234.js")
    assert r.status_code == 200
    assert r.content == SCRIPT
    assert r.headers["content-type"].startswith("text/javascript")
    assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
    css = await client.get("/assets/style-Ef5678gh.css")
    assert css.headers["content-type"].startswith("text/css")


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/favicon.svg", "image/svg+xml"),
        ("/manifest.webmanifest", "application/manifest+json"),
        ("/sw.js", "text/javascript"),
    ],
)
async def test_the_files_asked_for_by_name_are_revalidated(
    client: httpx.AsyncClient, path: str, kind: str
) -> None:
    """The icon, the manifest and the service worker keep their names across builds: each use
    asks the server again, so a new service worker reaches players at once."""
    r = await client.get(path)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith(kind)
    assert r.headers["cache-control"] == "no-cache"


@pytest.mark.parametrize(
    "path",
    [
        "/assets/missing-AbCd1234.js",
        "/assets/..%2Fsecret.txt",
        "/assets/%2E%2E%2Findex.html",
        "/assets/index.html",
        "/secret.txt",
        "/index.html/",
    ],
)
async def test_nothing_else_of_the_build_folder_is_served(
    client: httpx.AsyncClient, path: str
) -> None:
    r = await client.get(path)
    assert r.status_code == 404, path
    assert b"nope" not in r.content
    assert r.headers["content-type"].startswith("application/problem+json")


async def test_without_a_build_the_shell_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    app = create_app(Settings(web_dir=str(tmp_path / "absent")))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://app") as c:
        r = await c.get("/")
    assert r.status_code == 404
    assert r.json()["code"] == "not_found"
    assert "make web" in r.json()["detail"]  # what to do, for whoever started the stack


async def test_the_api_and_its_document_are_unchanged_by_the_client(
    client: httpx.AsyncClient,
) -> None:
    r = await client.get("/v1/schema/openapi.json")
    assert r.status_code == 200
    paths = r.json()["paths"]
    assert all(p.startswith("/v1/") or p in {"/health", "/ready"} for p in paths), sorted(paths)
    assert (await client.get("/health")).status_code == 200


@pytest.mark.parametrize(
    ("path", "media_type"),
    [
        ("/", "text/html; charset=utf-8"),
        ("/assets/index-AbCd1234.js", "text/javascript; charset=utf-8"),
        ("/assets/style-Ef5678gh.css", "text/css; charset=utf-8"),
    ],
)
async def test_a_text_file_names_its_charset_once(
    client: httpx.AsyncClient, path: str, media_type: str
) -> None:
    """The Content-Type of a text file is its type and one charset (Litestar adds the charset
    to a text/* type: naming it in the type as well sent `; charset=utf-8; charset=utf-8`)."""
    r = await client.get(path)
    assert r.status_code == 200
    assert r.headers["content-type"] == media_type
