"""The ops console's answers over HTTP (issue 26: every console view's answer well under 0.5 s).

Run: .venv/bin/python -m bench.console --base http://127.0.0.1:PORT --ops OPS_TOKEN
     [--auditor AUDITOR_TOKEN] [--divans 16] [--repeat 5]

Against a running stack (`seksenbir up` with that ops token, and the auditor token if given):
plays a trial season of --divans Divans over the API (its bey holds; the computer beys fight),
then times, --repeat times each, every request the console makes: the status, the map, the
ops-read trail, explain of every Divan, a what-if (a die pinned), a correction's dry run,
verify of the season, the full export, and with --auditor the season's betrayal history and
the redacted export. Prints the median and the worst per request; asserts nothing (the figures
of record are in docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

import httpx

from bench.common import machine


def _play(client: httpx.Client, divans: int) -> str:
    r = client.post("/v1/seasons", json={"memleket": 6})
    r.raise_for_status()
    season, token = r.json()["season_id"], r.json()["token"]
    bey = {"Authorization": f"Bearer {token}"}
    for n in range(1, divans + 1):
        client.post(f"/v1/seasons/{season}/divans", json={"divan": n}, headers=bey)
        for _ in range(300):
            if client.get(f"/v1/seasons/{season}").json()["divan"] >= n:
                break
            time.sleep(0.05)
    return str(season)


def _time(
    client: httpx.Client, call: tuple[str, str, dict[str, str], Any], repeat: int
) -> list[float]:
    method, url, headers, body = call
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        r = client.request(method, url, headers=headers, json=body)
        out.append(time.perf_counter() - t)
        if r.status_code >= 400:
            raise SystemExit(f"{method} {url}: {r.status_code} {r.text[:300]}")
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--base", default="http://127.0.0.1:8000")
    p.add_argument("--ops", default=(os.environ.get("SEKSENBIR_OPS_TOKENS") or "").split(",")[0])
    p.add_argument("--auditor", default=None)
    p.add_argument("--divans", type=int, default=16)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    with httpx.Client(base_url=args.base, timeout=60) as client:
        season = _play(client, args.divans)
        last = client.get(f"/v1/seasons/{season}").json()["divan"]
        ops = {"Authorization": f"Bearer {args.ops}"}
        fix = {
            "correction": {"kind": "province", "province": 34, "owner": None, "units": 5},
            "reason": "bench",
        }
        s, o = f"/v1/seasons/{season}", f"/v1/ops/seasons/{season}"
        calls: list[tuple[str, str, str, dict[str, str], Any]] = [
            ("status", "GET", s, {}, None),
            ("map", "GET", f"{s}/map", {}, None),
            ("ops-read trail", "GET", f"{s}/audit/ops-reads?limit=1000", ops, None),
            *[
                (f"explain Divan {n}", "GET", f"{o}/divans/{n}/explain", ops, None)
                for n in range(1, last + 1)
            ],
            (
                "what-if (a die pinned)",
                "POST",
                f"{o}/divans/{last}/what-if",
                ops,
                {"dice": [{"target": 6, "side": "defence", "value": 2}]},
            ),
            ("correction dry run", "POST", f"{o}/corrections/dry-run", ops, fix),
            ("verify", "GET", f"{o}/verify", ops, None),
            ("export (full)", "GET", f"{o}/export", ops, None),
        ]
        if args.auditor:
            auditor = {"Authorization": f"Bearer {args.auditor}"}
            calls += [
                ("betrayal history", "GET", f"{s}/betrayals/history", auditor, None),
                ("export (redacted)", "GET", f"{s}/export", auditor, None),
            ]
        print(f"bench.console: season {season}, {last} Divans, {args.repeat} each; {machine()}")
        worst = 0.0
        for name, method, url, headers, body in calls:
            samples = _time(client, (method, url, headers, body), args.repeat)
            worst = max(worst, *samples)
            p50, top = statistics.median(samples) * 1e3, max(samples) * 1e3
            print(f"  {name:28} p50 {p50:7.1f} ms   max {top:7.1f} ms")
        print(f"  worst of all: {worst * 1e3:.1f} ms (target: well under 500 ms)")


if __name__ == "__main__":
    main()
