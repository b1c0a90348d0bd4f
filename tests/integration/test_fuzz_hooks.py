"""The fuzz run's hooks keep the `st` process clear of CPython gh-106905 (RELIABILITY 24): with
them loaded, threads parsing at once (schemathesis's workers, each letting Hypothesis parse a
module's source to describe a lambda) never get `SystemError: AST constructor recursion depth
mismatch`. Without them, on this interpreter, a few threads do within about a second.
"""

from __future__ import annotations

import subprocess
import sys

from tests.integration.processes import REPO

# Threads parsing a large module at once, with a garbage collection callback that runs Python
# code (so the interpreter may switch threads inside a parse), as CPython's issue reproduces it.
RACE = """
import ast, gc, sys, threading
import tests.schemathesis_hooks
from schemathesis.generation.jsonschema import strategy
source = open(strategy.__file__, encoding="utf-8").read()
gc.callbacks.append(lambda phase, info: sum(range(200)))
errors = []
def parse():
    try:
        for _ in range(8):
            ast.parse(source)
    except SystemError as e:
        errors.append(repr(e))
threads = [threading.Thread(target=parse) for _ in range(6)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(errors)
"""


def test_threads_parsing_at_once_in_the_fuzz_process_never_corrupt_the_ast_constructor():
    """RELIABILITY 24: the fuzz run fails only on the API, never on the interpreter's AST race."""
    done = subprocess.run(
        [sys.executable, "-c", RACE],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "[]", done.stdout
