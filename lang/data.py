"""Loading the data files of the neutral layer: export formats and word lists, read once."""

from __future__ import annotations

import functools
import re
import tomllib
from importlib import resources
from typing import Any

_PART_RE = re.compile(r"\{([A-Z_]+)\}")


@functools.cache
def table(name: str) -> dict[str, Any]:
    """The parsed `lang/data/<name>.toml`."""
    with resources.files("lang").joinpath("data", f"{name}.toml").open("rb") as handle:
        return tomllib.load(handle)


def expand(pattern: str, parts: dict[str, str]) -> str:
    """`pattern` with every {PART} replaced by its (itself expanded) definition."""

    def one(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in parts:
            return match.group(0)  # a regex quantifier such as {1,2} is no part
        return expand(parts[key], parts)

    return _PART_RE.sub(one, pattern)


@functools.cache
def format_parts() -> dict[str, str]:
    """The parts of formats.toml, with the weekdays of times.toml as two more: WEEKDAY_NAME
    (whole names and English short ones, [weekdays]) and WEEKDAY_SHORT (the other languages'
    short ones, [weekday_abbreviations]), so a stamp's day words live in one place."""

    def alternation(names: set[str]) -> str:
        return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))

    days = table("times")["weekdays"].values()
    return {
        **table("formats")["parts"],
        "WEEKDAY_NAME": alternation({w for d in days for day in d for w in day.split()}),
        "WEEKDAY_SHORT": alternation(set(words("times", "weekday_abbreviations"))),
    }


@functools.cache
def format_pattern(pattern: str) -> re.Pattern[str]:
    """A pattern of formats.toml, its parts expanded, compiled case-insensitively."""
    return re.compile(expand(pattern, format_parts()), re.IGNORECASE)


def part(name: str) -> str:
    """One expanded part of formats.toml ("STAMP", "TIME", ...) as regex source."""
    return expand(format_parts()[name], format_parts())


def words(file: str, section: str, *languages: str) -> frozenset[str]:
    """The word list `section` of `file`.toml for `languages` (all of them when none): a
    string of words, or a list whose entries may be phrases ("hard stop")."""
    entries = table(file)[section]
    chosen = languages or tuple(entries)
    return frozenset(
        w
        for code in chosen
        for w in (
            entries.get(code, "").split()
            if isinstance(entries.get(code, ""), str)
            else entries[code]
        )
    )


def alternation(file: str, section: str) -> str:
    """The entries of `section` (all languages) as a regex alternation, longest first."""
    entries = sorted(words(file, section), key=len, reverse=True)
    return "|".join(re.escape(w) for w in entries)


def word_pattern(file: str, section: str) -> re.Pattern[str]:
    """The words of `section` (all languages) as one case-insensitive, word-bounded pattern."""
    return re.compile(rf"\b(?:{alternation(file, section)})\b", re.IGNORECASE)


def regex_alternation(file: str, section: str) -> str:
    """The regular expressions of `section` (lists per language, in file order) as one
    alternation source, each kept in its written order."""
    return "|".join(p for patterns in table(file)[section].values() for p in patterns)


def phrase_pattern(file: str, section: str, *, nouns: bool = False) -> re.Pattern[str]:
    """The phrase lists of `section` (all languages) as one case-insensitive, word-bounded
    pattern; a space in a phrase matches any run of spaces, a "*" one word. `nouns`: a phrase
    may end in a plural or possessive "s" ("doctors appointment", "the dentist's")."""
    return phrases_regex(phrases(file, section), nouns=nouns)


def phrases(file: str, section: str) -> list[str]:
    """The phrase lists of `section` (all languages), in file order."""
    return [p for entries in table(file)[section].values() for p in entries]


def phrases_alternation(entries: list[str]) -> str:
    """Phrases as one regex alternation source, longest first; a space matches any run of
    spaces, a "*" one word."""
    return "|".join(
        r"\s+".join(r"[^\s.,;!?]+" if w == "*" else re.escape(w) for w in p.split())
        for p in sorted(entries, key=len, reverse=True)
    )


def phrases_regex(entries: list[str], *, nouns: bool = False) -> re.Pattern[str]:
    """Phrases as one case-insensitive, word-bounded pattern, as `phrase_pattern` reads them."""
    body = phrases_alternation(entries)
    ending = r"(?:['’]?s)?" if nouns else ""
    return re.compile(rf"(?<!\w)(?:{body}){ending}(?!\w)", re.IGNORECASE)
