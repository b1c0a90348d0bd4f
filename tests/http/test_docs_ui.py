"""Issue 20: the docs UI works offline. `/v1/schema/swagger` loaded Swagger UI from a CDN and
was blank without one; the page now names only this server's own URLs, and each of them
answers (shared/app/http/docs_ui.py, files vendored in shared/app/http/swagger_ui/, ADR-70)."""

from __future__ import annotations

import hashlib
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest

from shared.app.http.docs_ui import ASSETS, INITIALIZER
from tests.http.support import Api

PAGES = ("/v1/schema", "/v1/schema/swagger")


class _Links(HTMLParser):
    """Every URL a page makes a browser load: src, href, and the spec Swagger UI fetches."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href", "data-spec", "action") and value is not None:
                self.urls.append(value)


def _links(page: str) -> list[str]:
    parser = _Links()
    parser.feed(page)
    return parser.urls


@pytest.mark.parametrize("page", PAGES)
async def test_the_docs_ui_names_only_its_own_origin_and_every_asset_answers(
    memory_api: Api, page: str
) -> None:
    """The page's scripts, style, favicon and document are paths on this server (no scheme,
    no host, no `//`), each answers 200 with its type, and no script the page runs names
    another origin itself (the start-up script is ours; the bundle is told no validator)."""
    r = await memory_api.client.get(page)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/html")
    urls = _links(r.text)
    assert len(urls) >= 5, urls  # favicon, style, bundle, start-up script, the document
    for url in urls:
        parts = urlsplit(url)
        assert not parts.scheme and not parts.netloc and url.startswith("/"), url
        got = await memory_api.client.get(url)
        assert got.status_code == 200, url
        assert got.content, url
    assert "http://" not in r.text and "https://" not in r.text
    assert b"http://" not in INITIALIZER and b"https://" not in INITIALIZER
    assert b"validatorUrl: null" in INITIALIZER  # else the bundle asks validator.swagger.io
    types = {url.rsplit("/", 1)[-1]: (await memory_api.client.get(url)).headers for url in urls}
    assert types["swagger-ui-bundle.js"]["content-type"].startswith("text/javascript")
    assert types["swagger-ui.css"]["content-type"].startswith("text/css")
    assert types["openapi.json"]["content-type"].startswith("application/vnd.oai.openapi+json")


async def test_the_vendored_files_are_served_as_vendored_with_their_licence(
    memory_api: Api,
) -> None:
    """Each vendored file is served byte for byte as recorded (its sha256 in ASSETS), the
    licence and notice among them; a name that is not one of them is 404."""
    for name, (_media, digest) in ASSETS.items():
        r = await memory_api.client.get(f"/v1/schema/assets/{name}")
        assert r.status_code == 200, name
        assert hashlib.sha256(r.content).hexdigest() == digest, name
    licence = (await memory_api.client.get("/v1/schema/assets/LICENSE")).text
    assert "Apache License" in licence
    for name in ("swagger-ui-bundle.js.map", "..%2F..%2Fdocs_ui.py", "index.html"):
        r = await memory_api.client.get(f"/v1/schema/assets/{name}")
        assert r.status_code == 404, name


@pytest.mark.parametrize("ui", ["redoc", "elements", "rapidoc"])
async def test_no_docs_ui_that_loads_from_a_cdn_is_offered(memory_api: Api, ui: str) -> None:
    """ReDoc, Elements and RapiDoc were Litestar's CDN pages: they are not served any more."""
    r = await memory_api.client.get(f"/v1/schema/{ui}")
    assert r.status_code == 404, ui
