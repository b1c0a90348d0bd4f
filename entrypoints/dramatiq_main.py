"""`python -m entrypoints.dramatiq_main <Dramatiq's arguments>`: Dramatiq's own command line
(`dramatiq entrypoints.resolver_worker …`) with every line in the one log format.

Dramatiq's main process never imports the worker modules, so it kept its text format
("[2026-…] [PID 1] [MainThread] [dramatiq.MainProcess] [INFO] Dramatiq '2.2.1' is booting up.")
and each worker process started in it before its module configured JSON. Here logging is
configured first and Dramatiq is told to leave it alone (`--skip-logging`): the main process's
records (booting, signals, a worker that died) and the workers' (which inherit the
configuration when forked, and configure it again on importing their module) are JSON lines.
`seksenbir worker` and `seksenbir up` start the workers this way.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from dramatiq.cli import main as dramatiq_cli
    from dramatiq.cli import make_argument_parser

    from entrypoints import bootstrap
    from entrypoints.cli_args import settings_or_refusal

    # refused: one line and exit 2, before Dramatiq starts (ADR-172)
    bootstrap.configure(settings_or_refusal("entrypoints.dramatiq_main"))
    given = list(sys.argv[1:] if argv is None else argv)
    # dramatiq.cli has no type annotations
    parser = make_argument_parser()  # type: ignore[no-untyped-call]
    args = parser.parse_args([*given, "--skip-logging"])
    return int(dramatiq_cli(args) or 0)  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    raise SystemExit(main())
