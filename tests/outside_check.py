"""An outside user's contract checker: every answer held against the served OpenAPI document.

Used by hand against a running stack (`seksenbir up`), never collected by pytest (its name does
not start with `test_`): `OutsideClient(base)` wraps an `httpx.Client`, fetches the document
from `/v1/schema/openapi.json` and, for every answer, checks that
- the status is one the operation lists (never a 5xx the document does not name);
- the content type is one that status lists;
- a JSON body validates against that status's schema (JSON Schema 2020-12, `jsonschema_rs`);
- a problem+json answer's `status` is the HTTP status, its `code` is one of that status's
  examples (the document lists one example per code), `Content-Language` is set and, asked in
  English, its `detail` is not the Turkish text;
- no answer carries a secret the caller was not given (the bey tokens registered with
  `secret()`), which is R-14 seen from outside.
Every finding goes to `self.findings` as one line (method, path, status, what).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import httpx
import jsonschema_rs

from shared.domain.map import PLATES, game_map

TURKISH = re.compile(r"[çğıöşüÇĞİÖŞÜ]")
PROVINCE_NAMES = sorted((game_map()[p].name for p in PLATES), key=len, reverse=True)


def _template_regex(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$")


@dataclass
class OutsideClient:
    base: str
    findings: list[str] = field(default_factory=list)
    seen: int = 0
    secrets: dict[str, str] = field(default_factory=dict)  # secret -> whose

    def __post_init__(self) -> None:
        self.http = httpx.Client(base_url=self.base, timeout=60)
        self.doc: dict[str, Any] = self.http.get("/v1/schema/openapi.json").json()
        self.routes: list[tuple[re.Pattern[str], str, str]] = []
        for path, ops in self.doc["paths"].items():
            for method in ops:
                if method in {"get", "post", "put", "delete", "patch"}:
                    self.routes.append((_template_regex(path), method, path))
        # literal paths first (`/v1/seasons/all` before `/v1/seasons/{season_id}`)
        self.routes.sort(key=lambda r: r[2].count("{"))
        self.validators: dict[str, Any] = {}

    def secret(self, value: str, whose: str) -> None:
        self.secrets[value] = whose

    def _validator(self, schema: dict[str, Any]) -> Any:
        key = json.dumps(schema, sort_keys=True)
        if key not in self.validators:
            root = {**schema, "components": self.doc["components"]}
            self.validators[key] = jsonschema_rs.Draft202012Validator(root)
        return self.validators[key]

    def operation(self, method: str, path: str) -> tuple[str, dict[str, Any]] | None:
        for regex, m, template in self.routes:
            if m == method.lower() and regex.match(path):
                return template, self.doc["paths"][template][m]
        return None

    def request(self, method: str, path: str, *, who: str = "anyone", **kw: Any) -> httpx.Response:
        answer = self.http.request(method, path, **kw)
        self.check(answer, who=who)
        return answer

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("POST", path, **kw)

    def note(self, answer: httpx.Response, what: str) -> None:
        line = f"{answer.request.method} {answer.request.url.path} {answer.status_code}: {what}"
        self.findings.append(line)
        print("FINDING", line)

    def check(self, answer: httpx.Response, *, who: str = "anyone") -> None:
        self.seen += 1
        body = self._leaks(answer, who)
        if answer.status_code == 304 or answer.request.method == "HEAD":
            return
        found = self.operation(answer.request.method, answer.request.url.path)
        if found is None:
            if answer.status_code not in (404, 405):
                self.note(answer, "no operation in the document")
            self._problem_shape(answer, None)
            return
        template, op = found
        spec = op["responses"].get(str(answer.status_code))
        if spec is None:
            self.note(answer, f"status not in the document for {template}: {body[:200]}")
            return
        ctype = answer.headers.get("content-type", "").split(";")[0].strip()
        content = spec.get("content") or {}
        if not content:
            if answer.content:
                self.note(answer, "a body where the document has none")
        elif ctype not in content:
            self.note(answer, f"content type {ctype!r} not in {list(content)}")
        elif ctype == "application/x-ndjson":
            self._lines(answer, body, content[ctype].get("schema"))
        elif ctype.endswith("json"):
            self._json(answer, content[ctype])

    def _leaks(self, answer: httpx.Response, who: str) -> str:
        """A 5xx the document cannot have (503 is documented), and another's secret."""
        if answer.status_code >= 500 and answer.status_code != 503:
            self.note(answer, f"server error {answer.text[:300]}")
        body = answer.content.decode("utf-8", "replace")
        for value, whose in self.secrets.items():
            if whose != who and value in body:
                self.note(answer, f"carries {whose}'s secret to {who}")
        return body

    def _errors(self, schema: dict[str, Any] | None, data: Any) -> list[str]:
        if schema is None:
            return []
        return [
            f"{'/'.join(map(str, e.instance_path))}: {e.message}"
            for e in self._validator(schema).iter_errors(data)
        ]

    def _lines(self, answer: httpx.Response, body: str, schema: dict[str, Any] | None) -> None:
        for number, line in enumerate(body.splitlines(), 1):
            try:
                item = json.loads(line)
            except ValueError:
                self.note(answer, f"line {number} not JSON")
                return
            if errors := self._errors(schema, item):
                self.note(answer, f"line {number}: " + "; ".join(errors[:2])[:400])
                return

    def _json(self, answer: httpx.Response, media: dict[str, Any]) -> None:
        try:
            data = answer.json()
        except ValueError:
            self.note(answer, "not JSON")
            return
        if errors := self._errors(media.get("schema"), data):
            self.note(answer, "schema: " + "; ".join(errors[:3])[:600])
        if answer.headers.get("content-type", "").startswith("application/problem+json"):
            self._problem_shape(answer, media)

    def _problem_shape(self, answer: httpx.Response, media: dict[str, Any] | None) -> None:
        if "problem+json" not in answer.headers.get("content-type", ""):
            if answer.status_code >= 400:
                self.note(answer, f"error not problem+json: {answer.headers.get('content-type')}")
            return
        data = answer.json()
        missing = [
            m for m in ("type", "title", "status", "detail", "instance", "code") if m not in data
        ]
        if missing:
            self.note(answer, f"problem without {missing}")
        if data.get("status") != answer.status_code:
            self.note(answer, f"problem status {data.get('status')} != {answer.status_code}")
        codes = set(((media or {}).get("examples") or {}).keys())
        if codes and data.get("code") not in codes:
            self.note(answer, f"code {data.get('code')!r} not among {sorted(codes)}")
        self._language(answer, data)

    def _language(self, answer: httpx.Response, data: dict[str, Any]) -> None:
        """Content-Language always; asked in English, no Turkish letters outside the names of
        provinces (proper names, the same in both languages)."""
        if "content-language" not in answer.headers:
            self.note(answer, "problem without Content-Language")
        asked = answer.request.headers.get("accept-language", "")
        if not (asked.startswith("en") or "lang=en" in str(answer.request.url)):
            return
        if answer.headers.get("content-language") != "en":
            self.note(answer, f"asked en, got {answer.headers.get('content-language')}")
        text = f"{data.get('detail', '')} {data.get('title', '')}"
        for name in PROVINCE_NAMES:
            text = text.replace(name, "")
        if TURKISH.search(text):
            self.note(answer, f"asked en, Turkish text: {data.get('detail')!r}")
