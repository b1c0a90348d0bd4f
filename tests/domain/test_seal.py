"""Sealed orders in the domain (ADR-57, D-35): the canonical encoding, and a salt no other bey
can derive from what is public.

The export-level proofs (the documented recipe on a real season, altered orders and digests
named by `seksenbir verify`) are in tests/audit/test_sealed_orders.py."""

from __future__ import annotations

import hashlib
import hmac

from shared.domain import seal
from shared.domain.season import seed_commitment
from shared.domain.state import Order

LONG_SALT = "p" * 80  # a seed salt whose key text is longer than SHA-256's 64-byte block


def test_adr57_the_canonical_encoding_sorts_by_province_and_fills_every_key() -> None:
    """The order the bey listed its orders in does not matter; a hold has target null and
    units 0; the empty set is `[]` (docs/export.md "Sealed orders")."""
    a = Order(province=71, kind="hold")
    b = Order(province=6, kind="advance", target=71, units=3)
    assert (
        seal.canonical([a, b])
        == seal.canonical([b, a])
        == (
            b'[{"kind":"advance","province":6,"target":71,"units":3},'
            b'{"kind":"hold","province":71,"target":null,"units":0}]'
        )
    )
    assert seal.canonical([]) == b"[]"


def test_adr57_a_salt_is_per_season_divan_and_seat_and_keyed_by_the_secret_seed_salt() -> None:
    base = seal.salt("secret", 7, "s", 3, 4)
    assert len(base) == 32
    others = {
        seal.salt("secret", 7, "s", 3, 5),
        seal.salt("secret", 7, "s", 4, 4),
        seal.salt("secret", 7, "t", 3, 4),
        seal.salt("secret", 8, "s", 3, 4),
        seal.salt("other", 7, "s", 3, 4),
    }
    assert base not in others and len(others) == 5


def test_adr57_no_salt_follows_from_the_public_seed_commitment_even_for_a_long_seed_salt() -> None:
    """HMAC hashes a key longer than 64 bytes with SHA-256 first; were the key the text
    `{seed_salt}:{seed}`, that hash would be the season's public seed commitment (R-1.5) and
    anyone could compute every bey's salt. The key's prefix keeps the two apart."""
    seed, season, divan, seat = 12345, "s", 2, 9
    public = bytes.fromhex(seed_commitment(seed, LONG_SALT))
    msg = f"{season}:{divan}:{seat}".encode()
    from_public = hmac.new(public, msg, hashlib.sha256).digest()
    assert seal.salt(LONG_SALT, seed, season, divan, seat) != from_public


def test_d35_the_empty_set_is_sealed_and_its_digest_hides_it() -> None:
    """D-35: a bey that locked no order still has a digest, and without its salt the digest of
    `[]` under one bey's salt is not another's."""
    one = seal.digest(seal.salt("secret", 7, "s", 1, 1), [])
    two = seal.digest(seal.salt("secret", 7, "s", 1, 2), [])
    assert one != two and len(one) == 64
    assert one != hashlib.sha256(b"[]").hexdigest()
