"""The installable app's files (issue 22, docs/web.md "Installable app"): the service worker at
the root with a fixed name, revalidated on every check and under the shell's policy; the
manifest as `application/manifest+json`, revalidated; and the client's text files sent
gzip-compressed to a browser that accepts it (the cold first load's budget is counted in
compressed bytes), byte-identical once decoded, and never to one that does not."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from entrypoints.gateway import create_app
from shared.settings import Settings

SHELL = b'<!doctype html><html lang="tr"><head>' + b"<meta>" * 100 + b"</head></html>"
SCRIPT = b"console.log('seksenbir');\n" * 200
WORKER = b"self.addEventListener('fetch', () => undefined);\n" * 20
MANIFEST = b'{"name": "Seksenbir", "short_name": "Seksenbir", "start_url": "/"' + b" " * 300 + b"}"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 2000


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_bytes(SHELL)
    (tmp_path / "sw.js").write_bytes(WORKER)
    (tmp_path / "manifest.webmanifest").write_bytes(MANIFEST)
    (tmp_path / "assets" / "index-AbCd1234.js").write_bytes(SCRIPT)
    (tmp_path / "assets" / "icon-192-AbCd1234.png").write_bytes(PNG)
    app = create_app(Settings(web_dir=str(tmp_path)))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://app") as c:
        yield c


async def test_the_service_worker_is_at_the_root_revalidated_under_the_policy(
    client: httpx.AsyncClient,
) -> None:
    r = await client.get("/sw.js")
    assert r.status_code == 200
    assert r.content == WORKER
    assert r.headers["content-type"].startswith("text/javascript")
    assert r.headers["cache-control"] == "no-cache"  # a new build's worker is found at once
    assert r.headers["service-worker-allowed"] == "/"
    policy = r.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe" not in policy


async def test_the_manifest_is_served_as_a_manifest_and_revalidated(
    client: httpx.AsyncClient,
) -> None:
    r = await client.get("/manifest.webmanifest")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/manifest+json"
    assert r.headers["cache-control"] == "no-cache"
    assert r.json()["start_url"] == "/"


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/", SHELL),
        ("/assets/index-AbCd1234.js", SCRIPT),
        ("/sw.js", WORKER),
        ("/manifest.webmanifest", MANIFEST),
    ],
)
async def test_text_files_go_gzip_compressed_to_a_browser_that_accepts_it(
    client: httpx.AsyncClient, path: str, body: bytes
) -> None:
    r = await client.get(path, headers={"Accept-Encoding": "gzip, deflate, br"})
    assert r.headers["content-encoding"] == "gzip"
    assert "accept-encoding" in r.headers["vary"].lower()
    assert r.content == body  # decoded by httpx: the same bytes
    assert int(r.headers["content-length"]) < len(body)

    plain = await client.get(path, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert plain.content == body
    assert int(plain.headers["content-length"]) == len(body)
    refused = await client.get(path, headers={"Accept-Encoding": "gzip;q=0"})
    assert "content-encoding" not in refused.headers


async def test_an_image_already_compressed_is_sent_as_it_is(client: httpx.AsyncClient) -> None:
    r = await client.get("/assets/icon-192-AbCd1234.png", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200
    assert "content-encoding" not in r.headers
    assert r.content == PNG
