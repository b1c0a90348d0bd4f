"""The browser client's files (web/, docs/web.md), served by the gateway at `/`.

`web/` is built by Vite into `SEKSENBIR_WEB_DIR` (`web/dist`; `make run` builds it when its
sources changed). The shell (`/`, index.html) is revalidated on every load (`no-cache`) and
carries a strict Content-Security-Policy: same origin only, no inline script, no eval, no
plugins, no framing. The assets under `/assets/` have a content hash in their names, so they
are cached for a year as immutable. Nothing here is in the OpenAPI document: it is not the API.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
from litestar import Request, Response, Router, get
from litestar.exceptions import NotFoundException

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
TYPES = {
    "js": "text/javascript; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "svg": "image/svg+xml",
    "png": "image/png",
    "woff2": "font/woff2",
    "json": "application/json",
    "html": "text/html; charset=utf-8",
}


async def read(path: Path) -> bytes:
    try:
        return await anyio.Path(path).read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise NotFoundException() from None


def web_dir(request: Request[Any, Any, Any]) -> Path:
    return Path(request.app.state.web_dir)


@get("/", include_in_schema=False)
async def shell(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The client's shell: revalidated on every load, under the strict policy."""
    body = await read(web_dir(request) / "index.html")
    return Response(body, media_type=TYPES["html"], headers=SHELL_HEADERS)


@get("/assets/{name:str}", include_in_schema=False)
async def asset(request: Request[Any, Any, Any], name: str) -> Response[bytes]:
    """A hashed build asset: its name changes with its content, so it never changes."""
    if not ASSET.match(name):
        raise NotFoundException()
    body = await read(web_dir(request) / "assets" / name)
    kind = name.rsplit(".", 1)[1]
    headers = {"Cache-Control": IMMUTABLE, "X-Content-Type-Options": "nosniff"}
    return Response(body, media_type=TYPES[kind], headers=headers)


# The files a browser asks for by a fixed name (no hash): revalidated at every use, so a new
# build reaches players at once (the service worker above all: it decides what is cached).
FIXED = {
    "favicon.svg": TYPES["svg"],
    "manifest.webmanifest": "application/manifest+json",
    "sw.js": TYPES["js"],
}


async def fixed(request: Request[Any, Any, Any], name: str) -> Response[bytes]:
    body = await read(web_dir(request) / name)
    headers = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}
    return Response(body, media_type=FIXED[name], headers=headers)


@get("/favicon.svg", include_in_schema=False)
async def favicon(request: Request[Any, Any, Any]) -> Response[bytes]:
    return await fixed(request, "favicon.svg")


@get("/manifest.webmanifest", include_in_schema=False)
async def manifest(request: Request[Any, Any, Any]) -> Response[bytes]:
    return await fixed(request, "manifest.webmanifest")


@get("/sw.js", include_in_schema=False)
async def service_worker(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The service worker (web/public/sw.js), at the root so that its scope is the whole app."""
    return await fixed(request, "sw.js")


def web_router() -> Router:
    return Router("/", route_handlers=[shell, asset, favicon, manifest, service_worker])
