"""Outbound HTTP to addresses an attacker chooses (webhooks, Web Push endpoints; issue 25).

A receiver's URL is the caller's choice, so every call goes through `post`, which:
- takes https only, on port 443 only, unless the host is in SEKSENBIR_OUTBOUND_ALLOW;
- resolves the name itself and checks every address it would connect to, then connects to
  that very address (TLS still verifies the name): a second DNS answer (rebinding) is never
  asked for;
- refuses private, loopback, link-local (169.254.0.0/16), unspecified, multicast, reserved,
  shared (100.64.0.0/10) and IPv4-mapped / 6to4 / Teredo IPv6 forms (anything not globally
  routable) unless the host or the address is allowed;
- bounds the whole exchange by a short timeout and the answer by a size cap, and follows no
  redirect (a 3xx is an answer like any other, which the caller counts as a failure).
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
HTTPS_PORT = 443


class OutboundRefused(Exception):
    """The URL or its address is not one the server calls (`reason`: a stable word)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class OutboundFailed(Exception):
    """The call was made and failed: no answer in time, a broken or oversized answer."""


@dataclass(frozen=True, slots=True)
class Policy:
    """Where outbound calls may go. `allow`: host names, addresses or networks (CIDR) that may
    be private, plain http or on any port (SEKSENBIR_OUTBOUND_ALLOW; tests: 127.0.0.1)."""

    allow: tuple[str, ...] = ()
    timeout_s: float = 5.0
    max_answer_bytes: int = 64 * 1024
    ssl_context: ssl.SSLContext | None = field(default=None, compare=False)

    def _networks(self) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
        out = []
        for item in self.allow:
            try:
                out.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                continue  # a host name
        return out

    def host_allowed(self, host: str) -> bool:
        """The name itself is allowed, or it is an address inside an allowed network."""
        if host.lower() in {a.lower() for a in self.allow}:
            return True
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return False
        return self.address_allowed(ip)

    def address_allowed(self, ip: IP) -> bool:
        return any(ip.version == n.version and ip in n for n in self._networks())


# The numeric host forms the system's resolver reads as an IPv4 address (inet_aton: one to four
# parts, each decimal, octal with a leading 0, or hex with 0x: "2130706433", "0x7f.1", "127.1")
_NUMERIC_HOST = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}", re.I)


def literal_address(host: str) -> IP | None:
    """The address `host` names without asking DNS: an IP literal, or a numeric form that
    getaddrinfo reads as one (so it is checked as the address it is, not taken for a name)."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if _NUMERIC_HOST.fullmatch(host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def public(ip: IP) -> bool:
    """A globally routable unicast address, not an IPv6 form that embeds an IPv4 one."""
    if isinstance(ip, ipaddress.IPv6Address) and (
        ip.ipv4_mapped is not None or ip.sixtofour is not None or ip.teredo is not None
    ):
        return False
    return ip.is_global and not ip.is_multicast and not ip.is_unspecified


@dataclass(frozen=True, slots=True)
class Target:
    """A checked URL: where to connect (`address`) and what to say (`host`, `path`)."""

    https: bool
    host: str
    port: int
    path: str
    address: str


def check_url(url: str, policy: Policy) -> tuple[bool, str, int, str]:
    """(https, host, port, path) of an acceptable URL, else OutboundRefused. No address yet."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise OutboundRefused("url") from None
    host = parts.hostname or ""
    if not host or parts.username is not None or parts.password is not None:
        raise OutboundRefused("url")
    allowed = policy.host_allowed(host)
    if parts.scheme != "https" and not (parts.scheme == "http" and allowed):
        raise OutboundRefused("scheme")
    port = port or (HTTPS_PORT if parts.scheme == "https" else 80)
    if port != HTTPS_PORT and not allowed:
        raise OutboundRefused("port")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme == "https", host, port, path


async def resolve(url: str, policy: Policy) -> Target:
    """The checked target of `url`: resolved once, here, every answer checked."""
    https, host, port, path = check_url(url, policy)
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        raise OutboundRefused("dns") from None
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    if not addresses:
        raise OutboundRefused("dns")
    name_allowed = policy.host_allowed(host)
    for ip in addresses:  # one refused answer refuses the name: no picking the good one
        if not (public(ip) or name_allowed or policy.address_allowed(ip)):
            raise OutboundRefused("address")
    return Target(https, host, port, path, str(addresses[0]))


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


async def post(url: str, body: bytes, headers: Mapping[str, str], policy: Policy) -> Answer:
    """POST `body` to `url` under `policy` (module docstring); the answer as it came, a 3xx
    included (never followed). OutboundRefused before any connection, OutboundFailed after."""
    target = await resolve(url, policy)
    try:
        async with asyncio.timeout(policy.timeout_s):
            return await _exchange(target, body, headers, policy)
    except (TimeoutError, OSError, ValueError, asyncio.IncompleteReadError) as exc:
        raise OutboundFailed(type(exc).__name__) from None


async def _exchange(
    target: Target, body: bytes, headers: Mapping[str, str], policy: Policy
) -> Answer:
    context = None
    if target.https:
        context = policy.ssl_context or ssl.create_default_context()
    reader, writer = await asyncio.open_connection(
        target.address,
        target.port,
        ssl=context,
        server_hostname=target.host if target.https else None,
    )
    try:
        default_port = HTTPS_PORT if target.https else 80
        host = target.host if target.port == default_port else f"{target.host}:{target.port}"
        lines = [
            f"POST {target.path} HTTP/1.1",
            f"Host: {host}",
            f"Content-Length: {len(body)}",
            "Connection: close",
            "User-Agent: seksenbir-notify",
            *(f"{k}: {v}" for k, v in headers.items() if "\n" not in f"{k}{v}"),
        ]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        await writer.drain()
        return await _read_answer(reader, policy.max_answer_bytes)
    finally:
        writer.close()


async def _read_answer(reader: asyncio.StreamReader, cap: int) -> Answer:
    head = await reader.readuntil(b"\r\n\r\n")
    if len(head) > cap:
        raise ValueError("answer head too large")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    status = int(status_line.split(" ")[1])
    headers = {}
    for line in header_lines:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    body = b""
    while chunk := await reader.read(cap + 1 - len(body)):
        body += chunk
        if len(body) > cap:
            raise ValueError("answer too large")
    return Answer(status, headers, body)
