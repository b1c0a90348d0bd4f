"""The docs UI at `/v1/schema` (and `/v1/schema/swagger`): Swagger UI, served from the product.

Litestar's render plugins load their scripts, styles and favicon from CDNs, so the page was
blank offline or behind a firewall (issue 20). This one serves Swagger UI from files vendored
in `shared/app/http/swagger_ui/` (swagger-ui-dist, Apache-2.0: its LICENSE and NOTICE beside them;
the version, where they came from and how to update them: README.md there) at
`/v1/schema/assets/<file>`, and its page names no other origin. It is the only docs UI the API
offers: ReDoc, Elements and RapiDoc were CDN pages too, and one UI is enough (ADR-70).
"""

from __future__ import annotations

import functools
import hashlib
import html
from importlib import resources
from typing import Any, Final

from litestar import Request, Response, Router, get
from litestar.exceptions import NotFoundException
from litestar.openapi.plugins import OpenAPIRenderPlugin

SWAGGER_UI_VERSION: Final = "5.35.0"
# Every file served, its media type and its sha256 (the vendored bytes, unchanged).
ASSETS: Final = {
    "swagger-ui-bundle.js": (
        "text/javascript",
        "e6a898692f2d768e807c3ba4626068a69a2c5dd960dd6c76f3e4d3a3de180af2",
    ),
    "swagger-ui.css": (
        "text/css",
        "5ed08757e53da3e026d6cbecc61fe5d43585c9560b302d534ad56692519a273d",
    ),
    "favicon-32x32.png": (
        "image/png",
        "3ed612f41e050ca5e7000cad6f1cbe7e7da39f65fca99c02e99e6591056e5837",
    ),
    "LICENSE": (
        "text/plain",
        "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30",
    ),
    "NOTICE": (
        "text/plain",
        "0d20d1adef18aee3f40dd258172155521ce702ac445cb5f7b7d60ed32dad2fb2",
    ),
    "swagger-ui-bundle.js.LICENSE.txt": (
        "text/plain",
        "37eb6e7e59aed57b2c1acf076574b818ea07b74265717e0bd67b59e0baf9abbb",
    ),
}
# Our own start-up script (no inline script: the page works under a strict CSP too)
INITIALIZER: Final = b"""\
// Seksenbir: Swagger UI on the served OpenAPI document (shared/app/http/docs_ui.py)
const root = document.getElementById("swagger-ui");
window.ui = SwaggerUIBundle({
  url: root.dataset.spec,
  dom_id: "#swagger-ui",
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
"""
CACHE: Final = "public, max-age=86400"


@functools.cache
def asset(name: str) -> bytes:
    """A vendored file's bytes, checked against its recorded digest."""
    data = resources.files("shared.app.http").joinpath("swagger_ui", name).read_bytes()
    if hashlib.sha256(data).hexdigest() != ASSETS[name][1]:
        raise RuntimeError(f"shared/app/http/swagger_ui/{name} is not the vendored file")
    return data


class SwaggerOffline(OpenAPIRenderPlugin):
    """Swagger UI whose page and assets all come from this server."""

    def __init__(self) -> None:
        super().__init__(path=["/swagger"], favicon="", style="")
        self.base = "/schema"  # the OpenAPI router's path, set in receive_router

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        title = html.escape(str(openapi_schema["info"]["title"]))
        spec = html.escape(self.get_openapi_json_route(request))
        assets = html.escape(f"{self.base}/assets")
        return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" type="image/png" href="{assets}/favicon-32x32.png">
<link rel="stylesheet" href="{assets}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-spec="{spec}"></div>
<script src="{assets}/swagger-ui-bundle.js"></script>
<script src="{assets}/swagger-initializer.js"></script>
</body>
</html>
""".encode()

    def receive_router(self, router: Router) -> None:
        """The assets, beside the page: `<router>/assets/<file>`."""
        self.base = router.path
        router.register(
            get("/assets/{name:str}", include_in_schema=False, sync_to_thread=False)(serve_asset)
        )


def serve_asset(name: str) -> Response[bytes]:
    if name == "swagger-initializer.js":
        media = ASSETS["swagger-ui-bundle.js"][0]
        return Response(INITIALIZER, media_type=media, headers={"Cache-Control": CACHE})
    if name not in ASSETS:
        raise NotFoundException()
    return Response(asset(name), media_type=ASSETS[name][0], headers={"Cache-Control": CACHE})
