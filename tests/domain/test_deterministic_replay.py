"""RELIABILITY 23, deterministic replay (R-12): a season replays to the same bytes in any process.

Three parts, as RELIABILITY 23 asks:
- two separate Python processes, each with its own random `PYTHONHASHSEED`, simulate seasons
  and replay them from the seed plus the event log (`replay.verify`); the event digests and
  the folded states' digests are byte-identical, and equal to this process's;
- a lint (tests/domain/set_lint.py) refuses iterating a set in `shared/domain/` outside
  `sorted()` and any module-level `random` draw; it passes on today's domain and fails on
  planted examples;
- a second Python minor version cannot be installed here: the committed golden digest of 60
  fixture seasons in tests/domain/test_equivalence.py (DIGEST, EVENTS; the rules/1 one in
  test_rules_versions.py) stands in for it: any interpreter that runs the suite must
  reproduce those bytes. This file checks that the digest it computes is that one's
  algorithm (same encoding), so the three agree.

The hypothesis property over random order sets is tests/domain/test_properties.py
(`test_r12_2_permuting_orders_beys_and_treaties_changes_nothing`).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.domain.set_lint import check_sources, findings

pytestmark = pytest.mark.fault  # RELIABILITY tests: never skipped silently in CI

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = ROOT / "shared" / "domain"
SEEDS = (3, 17, 41)

# Run in a fresh interpreter: simulate each seed, replay its log, print the digests as JSON.
_REPLAY = textwrap.dedent(
    """
    import hashlib, json, sys
    from shared.domain.codec import encode
    from shared.domain.replay import verify
    from shared.domain.simulate import season

    out = {"hashseed": sys.flags.hash_randomization, "seasons": {}}
    for seed in map(int, sys.argv[1:]):
        events = [e for step in season(seed) for e in step.events]
        h = hashlib.sha256()
        for e in events:
            h.update(encode(e))
        state, problems = verify(events)
        out["seasons"][seed] = {
            "events": len(events),
            "event_digest": h.hexdigest(),
            "state_digest": hashlib.sha256(encode(state)).hexdigest(),
            "mismatches": len(problems),
        }
    print(json.dumps(out, sort_keys=True))
    """
)


def _replay_in_process(hashseed: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    done = subprocess.run(
        [sys.executable, "-c", _REPLAY, *map(str, SEEDS)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_r12_two_processes_with_random_hash_seeds_replay_byte_identically() -> None:
    """RELIABILITY 23 (R-12): the same seasons simulated and replayed in two processes whose
    PYTHONHASHSEED differ (drawn at random, and 'random' itself) give the same event digests
    and the same folded state digests, with no Divan mismatching its re-run."""
    a_seed = str(secrets.randbelow(2**32 - 1) + 1)
    b_seed = "random"
    a, b = _replay_in_process(a_seed), _replay_in_process(b_seed)
    assert a["hashseed"] == b["hashseed"] == 1  # hash randomisation was on in both
    assert a["seasons"] == b["seasons"], f"PYTHONHASHSEED={a_seed} and =random replay differently"
    seasons = a["seasons"]
    assert isinstance(seasons, dict)
    for seed, found in seasons.items():
        assert found["mismatches"] == 0, f"seed {seed}: a Divan does not match its re-run"
        assert found["events"] > 100


def test_r12_the_digest_is_the_golden_digests_encoding() -> None:
    """RELIABILITY 23: the subprocess's event digest is the golden digest's algorithm
    (tests/domain/test_equivalence.py: sha256 over codec.encode of every event in order), so the
    committed golden hashes and the two-process run check the same bytes."""
    from shared.domain.codec import encode
    from shared.domain.simulate import season
    from tests.domain import test_equivalence

    h = hashlib.sha256()
    for step in season(SEEDS[0]):
        for e in step.events:
            h.update(encode(e))
    found = _replay_in_process("0")["seasons"]
    assert isinstance(found, dict)
    assert found[str(SEEDS[0])]["event_digest"] == h.hexdigest()
    # the golden digest stands in for a second Python version: committed, 64 hex digits
    assert len(test_equivalence.DIGEST) == 64 and test_equivalence.EVENTS > 40_000


def test_r12_the_domain_iterates_no_set_and_draws_no_module_random() -> None:
    """RELIABILITY 23: no `for`/comprehension over a set outside sorted(), no list()/tuple()/
    join() of one, no `random` module in shared/domain/ (its draws are keyed: shared.domain.rng)."""
    assert [str(f) for f in findings(DOMAIN)] == []


PLANTED = {
    "loop over a literal": "def f():\n    for x in {'a', 'b'}:\n        print(x)\n",
    "loop over a frozenset call": "def f(xs):\n    for x in frozenset(xs):\n        yield x\n",
    "comprehension over an assigned set": "def f(xs):\n    s = set(xs)\n    return [x for x in s]\n",
    "annotated parameter": "def f(s: set[str]):\n    return [x.upper() for x in s]\n",
    "annotated local": "def f(xs):\n    s: frozenset[str] = frozenset(xs)\n    return list(s)\n",
    "set algebra": "def f(a, b):\n    s = set(a)\n    for x in s - set(b):\n        print(x)\n",
    "a set-returning function": (
        "def parties() -> set[int]:\n    return {1}\n"
        "def f():\n    return tuple(p for p in parties())\n"
    ),
    "an attribute set in __init__": (
        "class V:\n    def __init__(self, xs):\n        self.friends = frozenset(xs)\n"
        "    def g(self):\n        return [f for f in self.friends]\n"
    ),
    "an item of a tuple of sets": (
        "class M:\n    def __init__(self):\n"
        "        self.near: tuple[frozenset[int], ...] = ()\n"
        "    def g(self, p):\n        for q in self.near[p]:\n            print(q)\n"
    ),
    "join of a set": "def f(xs):\n    return ','.join(set(xs))\n",
    "min with a key over a set": "def f(xs):\n    s = set(xs)\n    return min((x for x in s), key=len)\n",
    "random.shuffle": "import random\ndef f(xs):\n    random.shuffle(xs)\n",
}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_r12_the_lint_refuses_a_planted_set_iteration(name: str) -> None:
    """RELIABILITY 23: each planted shape is found (the lint is not vacuous)."""
    assert check_sources({f"shared/domain/planted_{name}.py": PLANTED[name]}) != []


ALLOWED = {
    "sorted generator": "def f(xs):\n    s = set(xs)\n    return sorted(x for x in s if x)\n",
    "sorted call": "def f(xs):\n    s = set(xs)\n    for x in sorted(s):\n        print(x)\n",
    "membership and size": "def f(xs, y):\n    s = set(xs)\n    return y in s and len(s) > 1\n",
    "any over a set": "def f(xs):\n    s = set(xs)\n    return any(x > 1 for x in s)\n",
    "rebound to a list": "def f(xs):\n    s = set(xs)\n    s = sorted(s)\n    return [x for x in s]\n",
    "a set built from a set": "def f(xs):\n    s = set(xs)\n    return {x + 1 for x in s}\n",
    "dict iteration": "def f(d: dict[str, int]):\n    return [k for k in d]\n",
}


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_r12_the_lint_allows_order_blind_uses(name: str) -> None:
    """RELIABILITY 23: order-blind uses of a set are not findings (no false positives)."""
    assert check_sources({f"shared/domain/ok_{name}.py": ALLOWED[name]}) == []
