"""Who a request comes from: the peer's address, or the forwarded one when the peer is a trusted
proxy (SEKSENBIR_TRUSTED_PROXIES)."""

from __future__ import annotations

import ipaddress
from typing import Any

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(trusted: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(t, strict=False) for t in trusted)


def _within(address: str, trusted: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in trusted)


def client_address(scope: dict[str, Any], trusted: tuple[Network, ...] = ()) -> str:
    """The address a request comes from: the peer, or, when the peer is a trusted proxy, the
    rightmost X-Forwarded-For hop that is not a trusted proxy (each proxy appends the address it
    saw, so hops left of that one are the client's own claims and never trusted)."""
    peer = str(scope["client"][0]) if scope.get("client") else "?"
    if not trusted or not _within(peer, trusted):
        return peer
    hops: list[str] = [
        hop.strip()
        for name, value in scope["headers"]
        if name == b"x-forwarded-for"
        for hop in value.decode("latin-1").split(",")
    ]
    for hop in reversed(hops):
        if hop and not _within(hop, trusted):
            return hop
    return peer  # only proxies named: the request is the proxies' own
