"""What every read route answers with: the response with its caching headers, lines in the asker's
language, a Redis hash decoded."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from litestar import Response

from services.projections.reads import decode
from shared.domain.messages import Lang

S = TypeVar("S", bound=msgspec.Struct)


_enc = msgspec.json.Encoder()


def answer(meta: dict[str, Any], out: type[S], body: dict[str, Any]) -> Response[S]:
    """The season read as `out`, with the version it reflects (the header says it too)."""
    version = meta.get("version", 0)
    payload = {"season_id": meta.get("season_id"), "version": version, **body}
    return Response(msgspec.convert(payload, out), headers={"X-Season-Version": str(version)})


def in_language(lines: list[dict[str, Any]], lang: Lang) -> list[dict[str, Any]]:
    """Report lines as stored (both texts), each with `text` in the language asked for."""
    return [{**line, "text": line[lang]} for line in lines]


def decoded_hash(raw: dict[bytes, bytes]) -> dict[str, Any]:
    return {k.decode(): decode(v) for k, v in raw.items()}


def names_of(beys: dict[bytes, bytes]) -> dict[str, str]:
    """seat -> the name shown (R-15.5), from the projected public beys."""
    return {seat: bey.get("name") or f"{seat}. bey" for seat, bey in decoded_hash(beys).items()}
