"""ADR-156, as deployed (`seksenbir serve`, real uvicorn and httptools): a request target over
16 KiB is 414 `uri_too_long` as problem+json, in the language asked for.

uvicorn's httptools protocol split a target with 16-bit offsets: from 64 KiB on it answered
its own `400 Invalid HTTP request received.` in text/plain, before the app ran, so a client
got neither a problem+json nor a stable code.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
from pathlib import Path

import pytest

from tests.integration.processes import free_port, serving

pytestmark = pytest.mark.integration


def _get(port: int, target: bytes, lang: bytes) -> tuple[int, dict[str, str], bytes]:
    """One raw GET (no client library between: it is the target's bytes that count)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: x\r\nAccept-Language: " + lang)
        s.sendall(b"\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (x.partition(":") for x in lines)}
    return int(status_line.split()[1]), headers, body


def test_a_target_over_16_kib_is_414_problem_json_not_uvicorn_s_plain_400(
    migrated_pg_dsn: str, redis_url: str, tmp_path: Path
) -> None:
    port = free_port()
    env = {
        **os.environ,
        "SEKSENBIR_PG_DSN": migrated_pg_dsn,
        "SEKSENBIR_REDIS_URL": redis_url,
        "SEKSENBIR_READ_REDIS_URL": redis_url,
        "SEKSENBIR_BROKER_NAMESPACE": f"test-uri-{secrets.token_hex(4)}",
        "SEKSENBIR_DATA": str(tmp_path / "data"),
    }
    with serving(["serve", "--port", str(port)], env, tmp_path / "serve.log", port) as api:
        for size, lang, words in (
            (70_000, b"en", "at most 16384 bytes are taken"),
            (200_000, b"tr", "en çok 16384 bayt olur"),
            (20_000, b"en", "at most 16384 bytes are taken"),
        ):
            target = b"/v1/seasons?x=" + b"a" * size
            status, headers, body = _get(port, target, lang)
            assert status == 414, (size, body[:200], api.output())
            assert headers["content-type"] == "application/problem+json", headers
            assert headers["content-language"] == lang.decode(), headers
            problem = json.loads(body)
            assert (problem["status"], problem["code"]) == (414, "uri_too_long"), problem
            assert words in problem["detail"] and str(len(target)) in problem["detail"], problem
        status, _, body = _get(port, b"/v1/seasons?x=" + b"a" * 15_000, b"en")
        assert status != 414, body[:200]  # under the limit: the route answers it
