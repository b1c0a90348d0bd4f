"""Every option of the `seksenbir` command line says what it does (issue 11, "Running it":
every CLI option has help text): `seksenbir <verb> --help` documents the whole CLI."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from typing import Any

import pytest

from entrypoints.cli import parser


def arguments(
    p: argparse.ArgumentParser, path: tuple[str, ...] = ("seksenbir",)
) -> Iterator[tuple[str, argparse.Action]]:
    """(where, action) for every argument of every (sub)command, the verbs themselves too."""
    for action in p._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if isinstance(action, argparse._SubParsersAction):
            verbs = {a.dest: a for a in action._choices_actions}  # the verbs' own help lines
            for name, sub in action.choices.items():
                yield " ".join(path), verbs.get(name, argparse.Action([], name))
                yield from arguments(sub, (*path, name))
            continue
        yield " ".join(path), action


ARGUMENTS = list(arguments(parser()))


def label(action: argparse.Action) -> str:
    return "/".join(action.option_strings) or action.dest


def test_the_walk_sees_every_verb_and_their_options() -> None:
    """The walk reaches nested verbs and positionals, so the check below checks them too."""
    seen = {(where, label(a)) for where, a in ARGUMENTS}
    assert ("seksenbir", "verify") in seen
    assert ("seksenbir projections", "rebuild") in seen
    assert ("seksenbir projections rebuild", "--all") in seen
    assert ("seksenbir adjudicate", "file") in seen
    assert ("seksenbir simulate", "--seed") in seen


@pytest.mark.parametrize(
    "action", [a for _, a in ARGUMENTS], ids=[f"{w} {label(a)}" for w, a in ARGUMENTS]
)
def test_every_cli_option_and_verb_has_help_text(action: argparse.Action) -> None:
    assert action.help not in (None, "", argparse.SUPPRESS), f"{label(action)} has no help text"


def _readme_rows(verb: str) -> str:
    """The first cells of README's command table that name `seksenbir <verb>`."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    return " ".join(
        line.split(" | ")[0]
        for line in readme.splitlines()
        if line.startswith("| `seksenbir") and f"`seksenbir {verb}" in line.split(" | ")[0]
    )


def _verbs(p: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every verb path: ("verify",), ("projections",), ("projections", "rebuild") …"""
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name)
                yield from _verbs(sub, (*path, name))


def test_readmes_command_table_names_every_verb_and_option() -> None:
    """README ("The `seksenbir` command") is where an outsider learns the verbs: each verb,
    sub-verb and option the parser has is in its row (session 24: `projections rebuild --dsn`
    was not). `--lang` is told once for all, above the table."""

    def named(word: str, cells: str) -> bool:
        return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", cells) is not None

    missing = [
        " ".join(path)
        for path in _verbs(parser())
        if not (_readme_rows(path[0]) and all(named(w, _readme_rows(path[0])) for w in path))
    ]
    for where, action in ARGUMENTS:
        path = where.split()[1:]
        if not path or not action.option_strings or "--lang" in action.option_strings:
            continue
        if not any(named(o, _readme_rows(path[0])) for o in action.option_strings):
            missing.append(f"{where} {label(action)}")
    assert missing == [], "README's command table lacks these"


# A placeholder the docs write in a command, and a value of its kind.
SAMPLE = {
    "SEASON": "0123456789abcdef0123456789abcdef",
    "FILE": "season.jsonl",
    "HEADS": "heads.json",
    "CMD": "true",
    "…": "x",
    "/other/venv/bin/seksenbir adjudicate": "/other/venv/bin/seksenbir adjudicate",
}


def _invocation(cmd: str) -> list[str] | None:
    """The arguments of a command as a doc writes it (`verify [--dsn] SEASON\\|FILE`), with each
    optional part left out, the first of each alternative, and a value for each placeholder;
    None for a verb only named (`seksenbir export`, `seksenbir explain --json`)."""
    import shlex

    cmd = " ".join(cmd.split())
    while re.search(r"\[[^\[\]]*\]", cmd):
        cmd = re.sub(r"\s*\[[^\[\]]*\]", "", cmd)
    cmd = cmd.replace("\\|", "|").split(" > ")[0]
    words = []
    for written in shlex.split(cmd):
        word = SAMPLE.get(written.split("|")[0], written.split("|")[0])
        words.append("1" if re.fullmatch(r"[A-Z]+", word) else word)
    verbs = {path[-1] for path in _verbs(parser())}
    if not [w for w in words if not w.startswith("-") and w not in verbs | {"en", "x"}]:
        return None
    return words


def _documents() -> list[Any]:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    docs = [p for p in sorted((root / "docs").glob("*.md")) if p.name != "decisions.md"]
    return [root / "README.md", root / "CONTRIBUTING.md", *docs]


def test_every_seksenbir_command_the_docs_write_out_parses() -> None:
    """A command README or docs/ writes out with its arguments is one the parser takes (session
    24: the runbook's `seksenbir what-if SEASON N changes.json` lacked `--file`)."""
    import contextlib
    import io

    wrong = []
    for doc in _documents():
        for cmd in sorted(set(re.findall(r"`seksenbir ([^`]+)`", doc.read_text()))):
            words = _invocation(cmd)
            if words is None:
                continue
            said = io.StringIO()
            try:
                with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
                    parser().parse_args(["--lang", "en", *words])
            except SystemExit as stop:
                if stop.code not in (0, None):
                    wrong.append(f"{doc.name}: `seksenbir {cmd}`: {said.getvalue().strip()[-120:]}")
    assert wrong == []
