"""Outbound calls to attacker-chosen addresses (issue 25): https on 443 only, addresses checked
after resolution, private and special ranges refused unless allowed, no redirect followed,
a short timeout."""

from __future__ import annotations

import ipaddress

import pytest

from shared.app.messaging import outbound
from tests.notify.receiver import Receiver, receiving

LOCAL = outbound.Policy(allow=("127.0.0.1",), timeout_s=0.5)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://example.com/x", "scheme"),
        ("ftp://example.com/x", "scheme"),
        ("https://example.com:8443/x", "port"),
        ("https://user:pw@example.com/x", "url"),
        ("https:///x", "url"),
    ],
)
def test_only_https_on_port_443_without_configuration(url: str, reason: str) -> None:
    with pytest.raises(outbound.OutboundRefused) as refused:
        outbound.check_url(url, outbound.Policy())
    assert refused.value.reason == reason


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "0.0.0.0",
        "224.0.0.1",
        "100.64.0.1",
        "::1",
        "::",
        "fe80::1",
        "fc00::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:8.8.8.8",
        "2002:7f00:1::1",
        "255.255.255.255",
    ],
)
def test_private_loopback_link_local_and_mapped_addresses_are_not_public(address: str) -> None:
    assert not outbound.public(ipaddress.ip_address(address))


def test_global_addresses_are_public() -> None:
    assert outbound.public(ipaddress.ip_address("93.184.216.34"))
    assert outbound.public(ipaddress.ip_address("2606:2800:220:1::1"))


async def test_a_name_resolving_to_a_private_address_is_refused_without_configuration() -> None:
    """The check is on the resolved address (localhost -> 127.0.0.1), not on the name."""
    with pytest.raises(outbound.OutboundRefused) as refused:
        await outbound.resolve("https://localhost/hook", outbound.Policy())
    assert refused.value.reason == "address"
    with pytest.raises(outbound.OutboundRefused):
        await outbound.resolve("https://127.0.0.1/hook", outbound.Policy())
    with pytest.raises(outbound.OutboundRefused):
        await outbound.resolve("https://[::ffff:127.0.0.1]/hook", outbound.Policy())


async def test_the_connection_goes_to_the_checked_address() -> None:
    target = await outbound.resolve("http://127.0.0.1:9/x", LOCAL)
    assert target.address == "127.0.0.1" and target.port == 9 and not target.https


async def test_a_redirect_is_answered_not_followed() -> None:
    async with receiving(Receiver(statuses=[302], extra_headers={"Location": "/elsewhere"})) as r:
        answer = await outbound.post(r.url(), b"{}", {}, LOCAL)
    assert answer.status == 302
    assert [g.path for g in r.got] == ["/hook"]  # nothing asked of /elsewhere


async def test_a_hanging_receiver_fails_after_the_timeout() -> None:
    async with receiving(Receiver(hang=True)) as r:
        with pytest.raises(outbound.OutboundFailed):
            await outbound.post(
                r.url(), b"{}", {}, outbound.Policy(allow=("127.0.0.1",), timeout_s=0.1)
            )


async def test_an_answer_over_the_cap_fails() -> None:
    async def big(reader, writer) -> None:  # type: ignore[no-untyped-def]
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\n\r\n" + b"x" * 5000)
        await writer.drain()
        writer.close()

    import asyncio

    server = await asyncio.start_server(big, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        policy = outbound.Policy(allow=("127.0.0.1",), timeout_s=1, max_answer_bytes=1000)
        with pytest.raises(outbound.OutboundFailed):
            await outbound.post(f"http://127.0.0.1:{port}/", b"{}", {}, policy)
    finally:
        server.close()
