"""The optional compiled hot path (ADR-60): the Divan pipeline's modules built by mypyc.

Nothing here runs unless asked for. `make compile` (`python -m shared.compiled build`) builds
MODULES with mypyc into `build/compiled/` (outside the source tree, git-ignored) with a
manifest of the SHA-256 of every source file of the domain, the modules built and those they
were type-checked against. A process uses the build only when SEKSENBIR_COMPILED is on (`1`,
`true`, `yes`, `on`, any case: ADR-180) and every hash in the manifest still matches its
source: then a `sys.meta_path` finder answers MODULES (and mypyc's shared library) with the
extension files. On any mismatch (an edited, added or
removed domain file, another Python, a missing file) the pure-Python modules run and one
warning names what differed: a stale extension never shadows an edited `.py`.

`shared/__init__.py` calls `activate()` when SEKSENBIR_COMPILED is on (else this module is not
even imported: the plan is "off"), so it runs before any `shared.domain` module can be
imported, in every process (services, CLI, tests, benches): the choice is all-or-nothing by the
import system's own order (compiled and pure modules of one build never mix). The domain stays
pure: this module, not the domain, reads the environment and the manifest; it is import
machinery, and the compiled modules compute exactly what the sources do (the golden digests
run against the build: tests/compiled).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader, ModuleSpec
from importlib.util import spec_from_file_location
from pathlib import Path
from types import ModuleType

from shared.settings import COMPILED, compiled_wanted, environment

# The pipeline's modules (`resolve.adjudicate`, steps 1-7 and the report). Measured in
# docs/decisions.md (ADR-60) and docs/benchmarks.md (`make bench-mila`); `draws.py` is left
# out (mypyc's C for its dataclass subclass of `Draws` does not compile), `events.py`/`state.py`
# are msgspec structs.
MODULES: tuple[str, ...] = (
    "shared.domain.board",
    "shared.domain.report",
    "shared.domain.report_battles",
    "shared.domain.report_lines",
    "shared.domain.report_offers",
    "shared.domain.resolve",
    "shared.domain.rng",
    "shared.domain.scoring",
    "shared.domain.rules.battle",
    "shared.domain.rules.battle_groups",
    "shared.domain.rules.kinds",
    "shared.domain.rules.missions",
    "shared.domain.rules.news",
    "shared.domain.rules.orders",
    "shared.domain.rules.production",
    "shared.domain.rules.rebellion",
    "shared.domain.rules.treaties",
)
ENABLE = COMPILED  # a flag (ADR-172): 1, true, yes, on
DIRECTORY = "SEKSENBIR_COMPILED_DIR"
MANIFEST = "manifest.json"
FORMAT = 1
ROOT = Path(__file__).resolve().parent.parent  # the checkout: shared/ and build/ beside it
DEFAULT_DIR = ROOT / "build" / "compiled"
log = logging.getLogger("seksenbir.compiled")


@dataclass(frozen=True)
class Plan:
    """What a process does: `extensions` (module name → file) when the build is current."""

    compiled: bool
    reason: str  # "off", "compiled", "no_build", "other_python", "stale", "imported_before"
    extensions: Mapping[str, str] = field(default_factory=dict)
    differing: Sequence[str] = ()  # source files (or extension files) that do not match


def sources(root: Path = ROOT) -> dict[str, str]:
    """SHA-256 of every `.py` of the domain, by path relative to `root`: what a build is of."""
    out = {}
    for path in sorted((root / "shared" / "domain").rglob("*.py")):
        out[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def python_tag() -> str:
    """The interpreter a build is for: an extension only loads into the same ABI."""
    return f"{sys.implementation.cache_tag} {EXTENSION_SUFFIXES[0]}"


def plan(build: Path, root: Path = ROOT) -> Plan:
    """Compare the build in `build` with the sources under `root`; read-only."""
    try:
        manifest = json.loads((build / MANIFEST).read_text())
    except (OSError, ValueError):
        return Plan(False, "no_build", differing=[str(build / MANIFEST)])
    if manifest.get("format") != FORMAT or manifest.get("python") != python_tag():
        return Plan(False, "other_python", differing=[str(manifest.get("python"))])
    built: dict[str, str] = manifest.get("sources", {})
    now = sources(root)
    differing = sorted(p for p in built.keys() | now.keys() if built.get(p) != now.get(p))
    extensions = {name: str(build / rel) for name, rel in manifest.get("extensions", {}).items()}
    differing += sorted(p for p in extensions.values() if not Path(p).is_file())
    built_modules = {name for name in extensions if not name.endswith("__mypyc")}
    if differing or built_modules != set(MODULES):  # MODULES changed since: rebuild
        return Plan(False, "stale", differing=differing or ["modules"])
    return Plan(True, "compiled", extensions=extensions)


class _Finder:
    """Answers the built modules with their extension files; any other name: not ours. (A
    finder of sys.meta_path needs only find_spec: importlib.abc, which loads importlib.resources
    and tempfile, stays out of every process's start.)"""

    def __init__(self, extensions: Mapping[str, str]) -> None:
        self.extensions = dict(extensions)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        file = self.extensions.get(fullname)
        if file is None:
            return None
        return spec_from_file_location(fullname, file, loader=ExtensionFileLoader(fullname, file))


_state: list[Plan] = []


def status() -> Plan:
    """This process's plan (decided once, by `activate`)."""
    return _state[0] if _state else Plan(False, "off")


def activate(env: Mapping[str, str] | None = None) -> Plan:
    """Use the compiled modules when asked for and current (this process's environment unless
    `env` is given); decided once per process."""
    if _state:
        return _state[0]
    env = environment() if env is None else env
    if not compiled_wanted(env):
        chosen = Plan(False, "off")
    else:
        chosen = plan(Path(env.get(DIRECTORY) or DEFAULT_DIR))
        early = sorted(m for m in MODULES if m in sys.modules)
        if chosen.compiled and early:
            chosen = Plan(False, "imported_before", differing=early)
        if chosen.compiled:
            sys.meta_path.insert(0, _Finder(chosen.extensions))
        else:
            # One line, on stderr before logging is configured (never on a command's stdout).
            log.warning(
                "compiled modules not used (%s: %s); the pure-Python modules run",
                chosen.reason,
                ", ".join(chosen.differing),
                extra={"compiled_reason": chosen.reason, "differing": list(chosen.differing)},
            )
    _state.append(chosen)
    return chosen


# --- the build (`make compile`): dev tools only, never imported by a running process ----------


def build(out: Path = DEFAULT_DIR) -> Plan:
    """Build MODULES with mypyc into `out` (replaced whole) unless it is current already."""
    current = plan(out)
    if current.compiled:
        return current
    import shutil
    import tempfile

    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="compiled-", dir=out.parent))
    try:
        before = sources()
        lib = _mypyc(work)
        if before != sources():
            raise SystemExit("the domain's sources changed during the build: run it again")
        suffix = EXTENSION_SUFFIXES[0]
        extensions = {
            p.relative_to(lib).as_posix()[: -len(suffix)].replace("/", "."): p.relative_to(lib)
            for p in lib.rglob("*" + suffix)
        }
        manifest = {
            "format": FORMAT,
            "python": python_tag(),
            "extensions": {name: rel.as_posix() for name, rel in sorted(extensions.items())},
            "sources": before,
        }
        (lib / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
        old = work / "old"
        if out.exists():
            out.rename(old)
        lib.rename(out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return plan(out)


def _mypyc(work: Path) -> Path:
    """mypyc and the C compiler over MODULES; answers the directory of the extension files."""
    from mypyc.build import mypycify  # dev tools: the project's .venv
    from setuptools import setup  # type: ignore[import-untyped]

    paths = [str(Path(*name.split(".")).with_suffix(".py")) for name in MODULES]
    cwd = Path.cwd()
    os.chdir(ROOT)  # mypyc names the modules by their paths from the checkout
    try:
        setup(
            name="seksenbir-compiled",
            ext_modules=mypycify(paths, opt_level="3", target_dir=str(work / "c")),
            script_args=[
                "-q",
                "build_ext",
                "--build-lib",
                str(work / "lib"),
                "--build-temp",
                str(work / "tmp"),
            ],
        )
    finally:
        os.chdir(cwd)
    return work / "lib"


def main(argv: Sequence[str]) -> None:
    """`make compile`: `main(["build"])`; `main(["status"])` says whether the build is current."""
    if list(argv) == ["build"]:
        done = build()
        print(f"compiled: {len(done.extensions)} extension files in {DEFAULT_DIR} ({done.reason})")
        if not done.compiled:
            raise SystemExit(1)
    elif list(argv) == ["status"]:
        now = plan(DEFAULT_DIR)
        print(
            f"{now.reason}: {', '.join(now.differing) or f'{len(now.extensions)} extension files'}"
        )
    else:
        raise SystemExit("usage: shared.compiled.main(['build' | 'status'])")
