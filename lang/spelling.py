"""Slips of the keyboard in the words Veil must read right: a weekday typed "modnay" is still
Monday to the time parser, and never a person's name to the redactor."""

from __future__ import annotations

import functools

from lang import data
from lang.frequency import zipf

WEEKDAYS = tuple(names.split()[0] for names in data.table("times")["weekdays"]["en"])


def one_edit(word: str, target: str) -> bool:
    """Whether `word` is `target` with one letter dropped, added, changed or two swapped."""
    if word == target or abs(len(word) - len(target)) > 1:
        return False
    if len(word) == len(target):
        diff = [i for i, (a, b) in enumerate(zip(word, target, strict=True)) if a != b]
        return len(diff) == 1 or (
            len(diff) == 2 and diff[1] == diff[0] + 1
            and word[diff[0]] == target[diff[1]] and word[diff[1]] == target[diff[0]]
        )  # fmt: skip
    short, long_ = sorted((word, target), key=len)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


@functools.lru_cache(maxsize=4096)
def misspelt_weekday(word: str) -> str | None:
    """The English weekday `word` is one keystroke from ("modnay", "Thurday"), when `word` is no
    word of its own (a "sundae" stays); None otherwise."""
    folded = word.casefold()
    if not 5 <= len(folded) <= 10 or not folded.isalpha() or zipf(folded) >= 2.0:
        return None
    return next((day for day in WEEKDAYS if one_edit(folded, day)), None)
