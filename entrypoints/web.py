"""The browser client's files (web/, docs/web.md), served by the gateway at `/`.

`web/` is built by Vite into `SEKSENBIR_WEB_DIR` (`web/dist`; `make run` builds it when its
sources changed). The shell (`/`, index.html) is revalidated on every load (`no-cache`) and
carries a strict Content-Security-Policy: same origin only, no inline script, no eval, no
plugins, no framing. The assets under `/assets/` have a content hash in their names, so they
are cached for a year as immutable. The installable app's service worker (`/sw.js`, scope `/`)
and manifest (`/manifest.webmanifest`) have fixed names, so they are revalidated like the shell.
Every answer here is gzip-compressed when the browser accepts it (`Vary: Accept-Encoding`).
Nothing here is in the OpenAPI document: it is not the API.
"""

from __future__ import annotations

import gzip
import html
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import anyio
from litestar import Request, Response, Router, get
from litestar.exceptions import NotFoundException

from shared.app.http import encoding
from shared.app.http.language import negotiate
from shared.app.http.problems import Problem
from shared.domain.messages import Lang, render

# The shell's policy: everything from this origin only (the API and its event stream included);
# no inline script or style, no eval, no <object>, no <base>, never inside another site's frame.
CSP = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "manifest-src 'self'",
        "worker-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
SHELL_HEADERS = {
    "Cache-Control": "no-cache",
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
# `make run` builds web/ here; an installed package (the image) sets SEKSENBIR_WEB_DIR instead.
BUILT = str(Path(__file__).resolve().parents[1] / "web" / "dist")
IMMUTABLE = "public, max-age=31536000, immutable"
# A built asset's name: Vite's `name-hash.ext`; nothing else (no dot-dot, no slash) is served.
ASSET = re.compile(r"^[A-Za-z0-9_-]+-[A-Za-z0-9_-]{8,}\.(js|css|svg|png|woff2|json)$")
# Litestar adds "; charset=utf-8" to a text/* type itself (the Response's charset)
TYPES = {
    "js": "text/javascript",
    "css": "text/css",
    "svg": "image/svg+xml",
    "png": "image/png",
    "woff2": "font/woff2",
    "json": "application/json",
    "html": "text/html",
    "webmanifest": "application/manifest+json",
}
# Worth compressing: text. PNG and woff2 are compressed already.
COMPRESSIBLE = ("text/", "application/json", "application/manifest+json", "image/svg+xml")
MIN_GZIP = 256


@lru_cache(maxsize=64)
def gzipped(body: bytes) -> bytes:
    """The gzip form of a served file; the same bytes are asked for again and again."""
    return gzip.compress(body, compresslevel=9, mtime=0)


def accepts_gzip(request: Request[Any, Any, Any]) -> bool:
    return encoding.accepts_gzip(request.headers.get("accept-encoding"))


def static(
    request: Request[Any, Any, Any], body: bytes, media_type: str, headers: dict[str, str]
) -> Response[bytes]:
    """A file of the build, gzip-compressed when that helps and the browser accepts it."""
    headers = {**headers, "Vary": "Accept-Encoding"}
    if len(body) >= MIN_GZIP and media_type.startswith(COMPRESSIBLE) and accepts_gzip(request):
        body = gzipped(body)
        headers["Content-Encoding"] = "gzip"
    return Response(body, media_type=media_type, headers=headers)


async def read(path: Path) -> bytes:
    try:
        return await anyio.Path(path).read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise NotFoundException() from None


def web_dir(request: Request[Any, Any, Any]) -> Path:
    return Path(request.app.state.web_dir)


# What `/` answers without a build: problem+json to an API client (JSON or anything, `*/*`),
# a page to a browser, which asks for HTML by name (ADR-167).
ANSWERS = ("application/problem+json", "application/json", "text/html")


@get("/", include_in_schema=False)
async def shell(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The client's shell: revalidated on every load, under the strict policy. Without a build
    (`seksenbir up` run before `make web`) the 404 says so: a page for a browser, a problem
    for an API client."""
    try:
        body = await read(web_dir(request) / "index.html")
    except NotFoundException:
        if request.accept.best_match(list(ANSWERS)) != "text/html":
            raise Problem(404, "not_found.client") from None
        return not_built(negotiate(request.scope))
    return static(request, body, TYPES["html"], SHELL_HEADERS)


def not_built(lang: Lang) -> Response[bytes]:
    """The page a browser gets at `/` without a build (404, as the problem): what is missing,
    what to run, and that the API works. No script, no style, no server path; never cached,
    so the shell is there at the first reload after `make web`."""
    title = html.escape(render("web.missing_title", lang))
    body = html.escape(render("web.missing_body", lang))
    api = html.escape(render("web.missing_api", lang))
    page = (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title></head><body><h1>{title}</h1><p>{body}</p>"
        f'<p>{api} <a href="/v1/schema">/v1/schema</a>.</p></body></html>\n'
    )
    headers = {**SHELL_HEADERS, "Cache-Control": "no-store", "Vary": "Accept, Accept-Language"}
    return Response(page.encode(), status_code=404, media_type=TYPES["html"], headers=headers)


@get("/assets/{name:str}", include_in_schema=False)
async def asset(request: Request[Any, Any, Any], name: str) -> Response[bytes]:
    """A hashed build asset: its name changes with its content, so it never changes."""
    if not ASSET.match(name):
        raise NotFoundException()
    body = await read(web_dir(request) / "assets" / name)
    kind = name.rsplit(".", 1)[1]
    headers = {"Cache-Control": IMMUTABLE, "X-Content-Type-Options": "nosniff"}
    return static(request, body, TYPES[kind], headers)


# The files a browser asks for by a fixed name (no hash): revalidated at every use, so a new
# build reaches players at once (the service worker above all: it decides what is cached).
FIXED = {
    "favicon.svg": TYPES["svg"],
    "manifest.webmanifest": TYPES["webmanifest"],
    "sw.js": TYPES["js"],
}


async def fixed(
    request: Request[Any, Any, Any], name: str, extra: dict[str, str] | None = None
) -> Response[bytes]:
    body = await read(web_dir(request) / name)
    headers = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff", **(extra or {})}
    return static(request, body, FIXED[name], headers)


@get("/favicon.svg", include_in_schema=False)
async def favicon(request: Request[Any, Any, Any]) -> Response[bytes]:
    return await fixed(request, "favicon.svg")


@get("/manifest.webmanifest", include_in_schema=False)
async def manifest(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The installable app's manifest (web/pwa/plugin.mjs writes it)."""
    return await fixed(request, "manifest.webmanifest")


@get("/sw.js", include_in_schema=False)
async def service_worker(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The service worker (web/pwa/sw.js), at the root so that its scope is the whole app; it
    runs under the shell's policy."""
    return await fixed(request, "sw.js", {**SHELL_HEADERS, "Service-Worker-Allowed": "/"})


def web_router() -> Router:
    return Router("/", route_handlers=[shell, asset, favicon, manifest, service_worker])
