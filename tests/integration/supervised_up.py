"""A stand-in for `seksenbir up` over cheap roles: entrypoints.stack's Supervisor, with its
signal handlers, running `supervised_child.py steady` three times, logging JSON lines.

`python -m tests.integration.supervised_up DIR`
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from entrypoints.stack import Role, Supervisor
from shared.logs import configure_logging

CHILD = str(Path(__file__).with_name("supervised_child.py"))


def main(folder: str) -> int:
    configure_logging(json=True, level="INFO")
    roles = [
        Role(name, [sys.executable, CHILD, "steady", folder], dict(os.environ))
        for name in ("api", "resolver", "scheduler")
    ]
    supervisor = Supervisor(roles, stop_timeout_s=20, poll_s=0.05)
    supervisor.install()
    supervisor.start()
    return supervisor.run()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
