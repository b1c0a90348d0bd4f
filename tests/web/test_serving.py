"""The gateway serves the browser client at `/` (issue 22): the shell revalidated on every load
under a strict Content-Security-Policy, the hashed assets cached for a year as immutable,
nothing else from the build folder, and the API under /v1 as before."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from entrypoints import stack
from entrypoints.gateway import create_app
from shared.domain.messages import Lang
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


BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


async def test_without_a_build_a_browser_is_told_what_to_run(tmp_path: Path) -> None:
    """Probe (session 22): a browser opening `/` of a stack started without a build (after
    `make install` alone) got a bare problem+json 404. A browser (asking for HTML by name) gets
    a page in its language saying the client is not built, what to run (`make web`, `make
    run`) and where the API's documentation is: still 404, under the shell's policy, never
    cached, naming no server path. An API client (JSON, problem+json, `*/*`, no Accept) still
    gets the problem (ADR-167)."""
    absent = tmp_path / "absent"
    app = create_app(Settings(web_dir=str(absent)))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://app") as c:
        for lang, words in (("tr", "derlenmemiş"), ("en", "is not built")):
            r = await c.get("/", headers={"Accept": BROWSER, "Accept-Language": lang})
            assert r.status_code == 404
            assert r.headers["content-type"] == "text/html; charset=utf-8"
            assert r.headers["content-language"] == lang
            assert r.headers["cache-control"] == "no-store"
            assert {"Accept", "Accept-Language"} <= {
                v.strip() for v in r.headers["vary"].split(",")
            }, r.headers["vary"]
            assert directives(r.headers["content-security-policy"])["script-src"] == ["'self'"]
            page = r.text
            assert page.startswith("<!doctype html>") and f'<html lang="{lang}">' in page
            assert words in page and "`make web`" in page and "`make run`" in page, page
            assert '<a href="/v1/schema">' in page and "<script" not in page
            assert "<style" not in page and str(tmp_path) not in page
        for accept in ("application/json", "application/problem+json", "*/*", None):
            headers = {} if accept is None else {"Accept": accept}
            problem = await c.get("/", headers=headers)
            assert problem.status_code == 404, accept
            assert problem.headers["content-type"].startswith("application/problem+json"), accept
            assert problem.json()["code"] == "not_found"
        # the rest of the build's names stay plain 404 problems, for a browser too
        asset = await c.get("/assets/index-AbCd1234.js", headers={"Accept": BROWSER})
        assert asset.headers["content-type"].startswith("application/problem+json")


class _Stopped(Exception):
    """Raised where `up` would start PostgreSQL: what it printed before is its start."""


@pytest.mark.parametrize("lang", ["tr", "en"])
def test_up_warns_first_when_the_client_is_not_built(
    tmp_path: Path, built: Path, lang: Lang,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Probe (session 22): `seksenbir up` after `make install` alone said nothing of the
    missing client until its "Game:" line, among the roles' log lines. Its first line, on
    stderr, before any server starts, warns that the client is not built, naming the folder
    and what to run (`make web`, `make run`), in the language asked for; with a build, no
    warning (ADR-167)."""

    def stop(_settings: Settings) -> None:
        raise _Stopped

    monkeypatch.setattr(stack, "postgres", stop)
    absent = tmp_path / "absent"
    with pytest.raises(_Stopped):
        stack.up(Settings(web_dir=str(absent)), port=18201, lang=lang)
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1, err
    assert err.startswith({"tr": "Uyarı: ", "en": "Warning: "}[lang]), err
    assert str(absent) in err and "`make web`" in err and "`make run`" in err, err
    assert "http://127.0.0.1:18201/" in err
    with pytest.raises(_Stopped):
        stack.up(Settings(web_dir=str(built)), port=18201, lang=lang)
    assert capsys.readouterr() == ("", "")


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
