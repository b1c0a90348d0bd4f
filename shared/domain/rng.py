"""Keyed randomness: every draw is a pure function of (seed, Divan, purpose, key) (R-12.1)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")
_SPACE = 1 << 64


def limit(n: int) -> int:
    """The rejection bound of a uniform draw in [0, n): the largest multiple of n ≤ 2^64."""
    return _SPACE - _SPACE % n


_LIMIT_100 = limit(100)


def draw64(seed: int, divan: int, purpose: str, *key: object) -> int:
    """A uniform 64-bit integer for one keyed draw (blake2b over seed and key)."""
    text = "\x1f".join([str(seed), str(divan), purpose, *map(str, key)])
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


class Stream:
    """The draws of one (seed, Divan, purpose), bit for bit those of `uniform_int`: the common
    prefix of their keys is hashed once and each draw hashes only its own key on a copy.

    `prefix` parts, if any, are the first parts of every draw's key (a computer bey's target
    jitter: seat, "target"), hashed once with the rest of the prefix."""

    __slots__ = ("prefix",)

    def __init__(self, seed: int, divan: int, purpose: str, *prefix: object) -> None:
        head = "".join(f"{part}\x1f" for part in prefix)
        self.prefix = hashlib.blake2b(
            f"{seed}\x1f{divan}\x1f{purpose}\x1f{head}".encode(), digest_size=8
        )

    def uniform_int(self, n: int, key: str) -> int:
        """`uniform_int(seed, divan, purpose, n, *prefix, *k)` for `key` the parts of k (k not
        empty) joined by the unit separator U+001F, as `draw64` joins them."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = _SPACE - _SPACE % n
        attempt = 0
        while True:
            h = self.prefix.copy()
            h.update(f"{key}\x1f{attempt}".encode())
            value = int.from_bytes(h.digest(), "big")
            if value < limit:
                return value % n
            attempt += 1


def uniform_int(seed: int, divan: int, purpose: str, n: int, *key: object) -> int:
    """A uniform integer in [0, n) by rejection sampling, so no value is favoured."""
    if n <= 0:
        raise ValueError("n must be positive")
    limit = _SPACE - _SPACE % n
    attempt = 0
    while True:
        value = draw64(seed, divan, purpose, *key, attempt)
        if value < limit:
            return value % n
        attempt += 1


def chance(seed: int, divan: int, purpose: str, percent: int, *key: object) -> bool:
    """True with probability percent/100."""
    return uniform_int(seed, divan, purpose, 100, *key) < percent


def chance_of(seed: int, divan: int, purpose: str, percent: int, key: str) -> bool:
    """`chance(seed, divan, purpose, percent, key)` for one text key: the first attempt's bytes
    hashed inline, as `draw64` joins them (one f-string, no call chain chance → uniform_int
    → draw64, issue 12); a rejected first draw takes the general path from attempt 0."""
    text = f"{seed}\x1f{divan}\x1f{purpose}\x1f{key}\x1f0"
    value = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
    if value < _LIMIT_100:
        return value % 100 < percent
    return chance(seed, divan, purpose, percent, key)


def choose(seed: int, divan: int, purpose: str, items: Sequence[T], *key: object) -> T | None:
    """One item, uniformly, of a sequence the caller sorted in a defined order (R-12.2)."""
    if not items:
        return None
    return items[uniform_int(seed, divan, purpose, len(items), *key)]


def shuffled(seed: int, divan: int, purpose: str, items: Iterable[T]) -> list[T]:
    """Fisher-Yates with keyed draws: the permutation depends on the seed only."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = uniform_int(seed, divan, purpose, i + 1, i)
        out[i], out[j] = out[j], out[i]
    return out
