"""docs/decisions.md ADR-36: the distribution keeps its generic top-level packages (shared,
services, entrypoints) rather than a `seksenbir.*` namespace, on the condition this test checks:
no other installed distribution ships a top-level package of those names, which pip would let
overwrite ours (or ours overwrite it) without a word."""

from __future__ import annotations

import importlib.metadata

OURS = ("shared", "services", "entrypoints")


def test_no_other_installed_distribution_ships_our_top_level_packages() -> None:
    providers = importlib.metadata.packages_distributions()
    for name in OURS:
        others = set(providers.get(name, [])) - {"seksenbir"}
        assert others == set(), f"{name!r} is also installed by {sorted(others)}"
