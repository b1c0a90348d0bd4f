"""The nearest-bey table (M-9, R-10.1) is cached per season, and the cache is bounded: a worker
that resolves seasons without end keeps at most NEAREST_SEASONS of them (issue 14, the soak's
memory; docs/benchmarks.md). Before, an unbounded @cache kept one entry per season ever seen."""

from __future__ import annotations

from shared.domain.rules import missions


def test_the_nearest_bey_cache_keeps_at_most_its_bound_of_seasons():
    missions._nearest.cache_clear()
    seasons = missions.NEAREST_SEASONS + 50
    for n in range(seasons):  # each a season of its own (a third bey in seat 2 + n)
        memlekets = ((0, 6), (1, 34), (2 + n, 35))
        assert set(missions._nearest(memlekets)) == {0, 1, 2 + n}  # every bey has its nearest
    info = missions._nearest.cache_info()
    assert info.maxsize == missions.NEAREST_SEASONS
    assert info.currsize == missions.NEAREST_SEASONS < seasons
