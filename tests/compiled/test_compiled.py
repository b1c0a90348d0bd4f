"""ADR-60: the optional compiled hot path and its guard (shared/compiled.py).

The guard's decisions are checked here on a build of fake files (no compiler needed, part of
`make test`). The tests marked `compiled` build the real mypyc modules (about a minute the first
time, nothing while the build is current) and run against them: the golden digests, and the
guard with real extension files. They run with `--compiled` (`make test-compiled`, .ci/run) and
skip, saying why, only where no C compiler or no Python headers are present.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from shared import compiled
from shared.settings import compiled_wanted

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = (
    "tests/domain/test_equivalence.py",
    "tests/domain/test_deterministic_replay.py",
    "tests/audit/test_fixture_season.py",
)
WARNING = "compiled modules not used"


def _fake_tree(tmp_path: Path) -> tuple[Path, Path]:
    """A source root with two domain files and a build of it whose manifest matches."""
    root = tmp_path / "src"
    (root / "shared" / "domain" / "rules").mkdir(parents=True)
    (root / "shared" / "domain" / "board.py").write_text("X = 1\n")
    (root / "shared" / "domain" / "rules" / "battle.py").write_text("Y = 2\n")
    build = tmp_path / "build"
    build.mkdir()
    extensions = {}
    for name in compiled.MODULES:
        rel = name.replace(".", "/") + ".so"
        (build / rel).parent.mkdir(parents=True, exist_ok=True)
        (build / rel).write_bytes(b"")
        extensions[name] = rel
    manifest = {
        "format": compiled.FORMAT,
        "python": compiled.python_tag(),
        "extensions": extensions,
        "sources": compiled.sources(root),
    }
    (build / compiled.MANIFEST).write_text(json.dumps(manifest))
    return root, build


def test_adr_60_a_build_whose_hashes_all_match_is_used(tmp_path: Path) -> None:
    root, build = _fake_tree(tmp_path)
    plan = compiled.plan(build, root)
    assert (plan.compiled, plan.reason, plan.differing) == (True, "compiled", ())
    assert set(plan.extensions) == set(compiled.MODULES)


def test_adr_60_an_edited_added_or_removed_source_makes_the_build_stale(tmp_path: Path) -> None:
    root, build = _fake_tree(tmp_path)
    board = root / "shared" / "domain" / "board.py"
    board.write_text("X = 2\n")
    assert compiled.plan(build, root) == compiled.Plan(
        False, "stale", differing=["shared/domain/board.py"]
    )
    board.write_text("X = 1\n")
    assert compiled.plan(build, root).compiled
    (root / "shared" / "domain" / "new.py").write_text("")
    assert compiled.plan(build, root).differing == ["shared/domain/new.py"]
    (root / "shared" / "domain" / "new.py").unlink()
    (root / "shared" / "domain" / "rules" / "battle.py").unlink()
    assert compiled.plan(build, root).differing == ["shared/domain/rules/battle.py"]


def test_adr_60_a_missing_extension_other_python_or_no_build_is_not_used(tmp_path: Path) -> None:
    root, build = _fake_tree(tmp_path)
    (build / "shared" / "domain" / "resolve.so").unlink()
    plan = compiled.plan(build, root)
    assert (plan.compiled, plan.reason) == (False, "stale")
    assert plan.differing == [str(build / "shared" / "domain" / "resolve.so")]
    root, build = _fake_tree(tmp_path / "2")
    manifest = json.loads((build / compiled.MANIFEST).read_text())
    (build / compiled.MANIFEST).write_text(json.dumps({**manifest, "python": "cpython-312 x"}))
    assert compiled.plan(build, root).reason == "other_python"
    assert compiled.plan(tmp_path / "nothing", root).reason == "no_build"


def test_adr_60_a_build_of_other_modules_than_modules_is_stale(tmp_path: Path) -> None:
    root, build = _fake_tree(tmp_path)
    manifest = json.loads((build / compiled.MANIFEST).read_text())
    for extensions in (
        {**manifest["extensions"], "shared.domain.map": "shared/domain/board.so"},
        {k: v for k, v in manifest["extensions"].items() if k != "shared.domain.rng"},
    ):
        (build / compiled.MANIFEST).write_text(json.dumps({**manifest, "extensions": extensions}))
        assert compiled.plan(build, root) == compiled.Plan(False, "stale", differing=["modules"])


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SEKSENBIR_COMPILED")}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


PROBE = (
    "import shared.compiled as c, importlib;"
    "files = [importlib.import_module(m).__file__ for m in c.MODULES];"
    "print(c.status().reason, sorted({f.rsplit('.', 1)[1] for f in files}))"
)


def test_adr_60_a_stale_build_runs_the_pure_modules_with_one_warning(tmp_path: Path) -> None:
    """In a process, not only in `plan`: stale → the .py files, one line on stderr, none on
    stdout (a command's output stays its own)."""
    _, build = _fake_tree(tmp_path)  # its hashes are of the fake tree, not of this checkout
    ran = _run(PROBE, SEKSENBIR_COMPILED="1", SEKSENBIR_COMPILED_DIR=str(build))
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "stale ['py']\n"
    assert ran.stderr.count(WARNING) == 1, ran.stderr
    assert "shared/domain/board.py" in ran.stderr


def test_adr_60_without_the_variable_nothing_is_read_or_used(tmp_path: Path) -> None:
    _, build = _fake_tree(tmp_path)
    ran = _run(PROBE, SEKSENBIR_COMPILED_DIR=str(build))
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "off ['py']\n", "")


def test_adr_180_the_variable_is_read_as_every_flag_is() -> None:
    """ADR-172's spellings, any case: `true` asks for the build as `1` does (it was a silent
    off: only `1` counted); off, empty, unset and a spelling no flag has are off at import
    (Settings then refuses the last: tests/packaging/test_bad_settings.py)."""
    for on in ("1", "true", "TRUE", "Yes", " on "):
        assert compiled_wanted({"SEKSENBIR_COMPILED": on}) is True, on
    for off in ("", "0", "false", "No", "off", "ture", "2"):
        assert compiled_wanted({"SEKSENBIR_COMPILED": off}) is False, off
    assert compiled_wanted({}) is False


def test_adr_180_true_asks_for_the_build_in_a_process(tmp_path: Path) -> None:
    """`SEKSENBIR_COMPILED=true` reaches the build's check (stale here: the fake tree's
    hashes), where before it ran pure without a word."""
    _, build = _fake_tree(tmp_path)
    ran = _run(PROBE, SEKSENBIR_COMPILED="true", SEKSENBIR_COMPILED_DIR=str(build))
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "stale ['py']\n"
    assert ran.stderr.count(WARNING) == 1, ran.stderr


# --- against the real build (`--compiled`) ----------------------------------------------------


def _no_compiler() -> str | None:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc}) on this machine: the compiled build (ADR-60) cannot be made"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file():
        return "no Python.h on this machine: the compiled build (ADR-60) cannot be made"
    return None


@pytest.fixture(scope="module")
def build() -> Path:
    """The checkout's build (`make compile`), made or remade here when it is not current."""
    reason = _no_compiler()
    if reason is not None:
        pytest.skip(reason)
    plan = compiled.build()
    assert plan.compiled, plan
    return compiled.DEFAULT_DIR


@pytest.mark.compiled
def test_adr_60_a_current_build_is_used_for_every_module(build: Path) -> None:
    ran = _run(PROBE, SEKSENBIR_COMPILED="1")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "compiled ['so']\n"
    assert WARNING not in ran.stderr


@pytest.mark.compiled
def test_adr_60_a_changed_source_since_the_build_runs_the_pure_modules(
    build: Path, tmp_path: Path
) -> None:
    """The real build, its manifest naming another hash for one source (what an edit of that
    file after `make compile` looks like to the guard): the real .so files are not loaded."""
    copy = tmp_path / "compiled"
    shutil.copytree(build, copy)
    manifest = json.loads((copy / compiled.MANIFEST).read_text())
    manifest["sources"]["shared/domain/rules/battle.py"] = "0" * 64
    (copy / compiled.MANIFEST).write_text(json.dumps(manifest))
    ran = _run(PROBE, SEKSENBIR_COMPILED="1", SEKSENBIR_COMPILED_DIR=str(copy))
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "stale ['py']\n"
    assert ran.stderr.count(WARNING) == 1
    assert "shared/domain/rules/battle.py" in ran.stderr
    ran = _run(PROBE, SEKSENBIR_COMPILED="1", SEKSENBIR_COMPILED_DIR=str(build))
    assert ran.stdout == "compiled ['so']\n"  # the same files, a matching manifest: used


@pytest.mark.compiled
def test_adr_60_a_domain_module_imported_before_the_guard_keeps_the_process_pure(
    build: Path,
) -> None:
    """Never a mix of pure and compiled modules of one build: a guard that comes too late (here
    a second copy of it, after the pure pipeline was imported) installs nothing."""
    code = (
        "import importlib.util, sys, shared.domain.resolve as r;"
        "spec = importlib.util.spec_from_file_location('late', 'shared/compiled.py');"
        "late = sys.modules['late'] = importlib.util.module_from_spec(spec);"
        "spec.loader.exec_module(late);"
        "print(late.activate({'SEKSENBIR_COMPILED': '1'}).reason, late.plan(late.DEFAULT_DIR).reason);"
        "import shared.domain.board as b; print(r.__file__[-3:], b.__file__[-3:])"
    )
    ran = _run(code)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "imported_before compiled\n.py .py\n"
    assert ran.stderr.count(WARNING) == 1


@pytest.mark.compiled
def test_adr_60_the_golden_digests_hold_for_the_compiled_modules(build: Path) -> None:
    """tests/domain's sixty seasons and replay, and the recorded fixture season, byte for byte,
    in a process whose pipeline modules are the extension files."""
    code = (
        "import sys, shared.compiled as c, shared.domain.resolve as r;"
        "assert c.status().compiled and r.__file__.endswith('.so'), (c.status(), r.__file__);"
        "import pytest;"
        f"sys.exit(pytest.main(['-q', '-n', '0', '-p', 'no:cacheprovider', *{list(GOLDEN)!r}]))"
    )
    ran = _run(code, SEKSENBIR_COMPILED="1")
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-4000:]
    assert " passed" in ran.stdout and "failed" not in ran.stdout
