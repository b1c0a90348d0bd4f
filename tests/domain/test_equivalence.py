"""The Divan pipeline's outcomes pinned bit for bit: seeds 1 … 60 of whole simulated seasons
(R-12: a pure function of the seed and the inputs).

A change made for speed (issue 12's benchmark: precomputed map tables, keyed draw streams,
report templates) must leave every event byte for byte as it was. The speed work was checked
against the rules/1 digest of main at 17e8104 (tests/domain/test_rules_versions.py keeps that
one); the digest below pins the current rules (seksenbir-rules/2: computer beys make offers,
D-28) as of that merge, with simulate's salt stored (R-1.5). A change that means to alter outcomes (a rule, the
computer beys' play, a report's wording) changes it too: recompute it with
`.venv/bin/python -c "from tests.domain.test_equivalence import digest; print(digest())"` and
say why in the commit.
"""

from __future__ import annotations

import hashlib

import pytest

from shared.domain import draws, rng
from shared.domain.codec import encode
from shared.domain.simulate import season

SEEDS = range(1, 61)
DIGEST = "09ac00b6398baee98841a4639e3a673dd784078435c8e3b046b9154722188723"
EVENTS = 43624


def digest() -> tuple[str, int]:
    """sha256 over the canonical encoding of every event of every season, in order."""
    h = hashlib.sha256()
    n = 0
    for seed in SEEDS:
        for step in season(seed):
            for e in step.events:
                h.update(encode(e))
                n += 1
    return h.hexdigest(), n


@pytest.mark.slow
def test_r12_1_sixty_seasons_resolve_to_the_same_events_byte_for_byte() -> None:
    assert digest() == (DIGEST, EVENTS)


@pytest.mark.parametrize(
    ("seed", "divan", "purpose", "n", "key"),
    [
        (11, 8, "fate", 3, (34, "attack")),
        (11, 8, "fate", 3, (6, "defence")),
        (0, 1, "rebellion", 100, (19,)),
        (2**40, 16, "x", 2**63 + 5, ("a", 1)),  # about half the draws rejected: retries agree
        (7, 0, "p", 1, ()),
    ],
)
def test_r12_1_a_draw_stream_draws_what_uniform_int_draws(
    seed: int, divan: int, purpose: str, n: int, key: tuple[object, ...]
) -> None:
    stream = rng.Stream(seed, divan, purpose)
    for extra in range(50):
        k = (*key, extra)
        assert stream.uniform_int(n, "\x1f".join(map(str, k))) == rng.uniform_int(
            seed, divan, purpose, n, *k
        )


@pytest.mark.parametrize("forced_retry", [False, True])
def test_r5_4_the_fate_die_draws_what_uniform_int_draws(
    forced_retry: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Draws.fate` inlines the first attempt (its key bytes from a table for a plate, built
    for any other target); a rejected one (forced here: the bound at 0) must fall back to the
    general path and still draw `uniform_int`'s value."""
    if forced_retry:
        monkeypatch.setattr(draws, "_LIMIT_3", 0)
    for seed, divan in ((11, 8), (0, 1), (2**40, 16)):
        d = draws.Draws(seed, divan)
        for target in (*range(1, 82), 0, 82, 500):
            for side in ("attack", "defence"):
                assert d.fate(target, side) == rng.uniform_int(seed, divan, "fate", 3, target, side)


@pytest.mark.parametrize("forced_retry", [False, True])
def test_r6_3_r9_3_offer_and_rebellion_draws_draw_what_chance_draws(
    forced_retry: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`rng.chance_of` hashes the first attempt inline; a rejected one (forced: the bound at 0)
    falls back to the general path: both must answer `rng.chance`'s value."""
    if forced_retry:
        monkeypatch.setattr(rng, "_LIMIT_100", 0)
    for seed, divan in ((11, 8), (0, 1), (2**40, 16)):
        d = draws.Draws(seed, divan)
        for frm in range(1, 20):
            for to in range(1, 20):
                for percent in (50, 65):
                    assert d.offer(frm, to, percent) == rng.chance(
                        seed, divan, "offer", percent, f"{frm}-{to}"
                    )
            for percent in (40, 60):
                assert d.rebellion(frm, percent) == rng.chance(
                    seed, divan, "rebellion", percent, frm
                )
