"""The README is a newcomer's first screen: every command, flag and make target it names must
exist, its links must lead somewhere, and it stays short (issue 42)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

import run

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse offers no public way to list subcommands
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    return {flag for action in parser._actions for flag in action.option_strings}


def _commands(text: str) -> list[tuple[str, list[str]]]:
    """Each `run.py SUBCOMMAND ...` in the text with the flags written after it, a shell line
    continued with a backslash counting as one."""
    joined = re.sub(r"\\\n\s*", " ", text)
    found = []
    for match in re.finditer(r"run\.py(?P<subs>(?: [a-z]+)*)(?P<rest>[^\n`|#]*)", joined):
        found.append(
            (match["subs"].strip(), re.findall(r"(?<![\w-])--[a-z][a-z-]*", match["rest"]))
        )
    return found


def _make_targets() -> set[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][\w-]*):", makefile, flags=re.M))


def test_every_run_py_subcommand_and_its_flags_exist() -> None:
    parser = run.build_parser()
    commands = _commands(README)
    assert commands, "the README shows no run.py command"
    for words, flags in commands:
        # `run.py` alone is the page; a word after it must be a real subcommand, and a word
        # after that one of its own subcommands where it has them ("calendar connect").
        command, sub, subs = parser, "", _subparsers(parser)
        for word in words.split():
            if not subs and command is not parser:
                break  # a positional argument, not a subcommand
            assert word in subs, f"README: run.py {sub} has no subcommand {word!r}"
            command, sub = subs[word], f"{sub} {word}".strip()
            subs = _subparsers(command)
        known = _flags(command)
        for flag in flags:
            assert flag in known, f"README: run.py {sub} {flag} is not a flag of that command"


def _all_parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    return [parser, *(p for sub in _subparsers(parser).values() for p in _all_parsers(sub))]


def test_every_flag_the_readme_names_exists_somewhere() -> None:
    known = set().union(*(_flags(p) for p in _all_parsers(run.build_parser())))
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", README))
    assert named, "the README names no flag"
    assert not named - known, f"flags in the README that run.py lacks: {named - known}"


def test_every_make_target_the_readme_names_exists() -> None:
    # `make X` in code spans, and lines of code blocks that start with it
    named = set(re.findall(r"(?:`|^)make ([a-z][\w-]*)", README, flags=re.M))
    assert {"run", "test"} <= named, "the two commands must be in the README"
    missing = named - _make_targets()
    assert not missing, f"make targets the Makefile lacks: {missing}"


def test_local_links_lead_to_files() -> None:
    links = set(re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README))
    assert links
    missing = {link for link in links if not (ROOT / link).exists()}
    assert not missing, f"README links to missing files: {missing}"


def test_readme_is_one_to_two_hundred_lines() -> None:
    assert 100 <= len(README.splitlines()) <= 200


@pytest.mark.parametrize(
    "heading",
    ["Two commands", "Choosing a model", "Where data lives", "Map of the code",
     "Your own calendar (CalDAV)", "From another agent (MCP)", "Safe on a shared laptop"],
)  # fmt: skip
def test_newcomer_sections_are_there(heading: str) -> None:
    assert f"\n## {heading}\n" in README


def test_readme_flag_parser_catches_a_wrong_flag() -> None:
    """The check above can fail: a made-up flag after `run.py ask` is caught."""
    parser = run.build_parser()
    [(sub, flags)] = _commands("python run.py ask --now X \\\n    --colour red 'hi'")
    assert sub == "ask" and flags == ["--now", "--colour"]
    assert "--colour" not in _flags(_subparsers(parser)["ask"])
