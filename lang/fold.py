"""Text folded for the checks that read roles and instructions, with a map back to the original.

A pasted thread can hide "SYSTEM:" from a pattern in many ways a reader never notices: Cyrillic
look-alike letters ("ЅУЅТЕМ"), a full-width colon ("SYSTEM："), invisible Unicode tag
characters between the letters, a word spelled out ("S Y S T E M"). Every check that decides
whether text gives the assistant orders reads the folded copy instead (issue 40):

1. format characters (Unicode category Cf: zero-width joiners, bidi marks, the tag block
   U+E0000..E007F), variation selectors and combining marks on plain letters (an underline
   or a strike through each letter) are dropped;
2. each character is NFKC-normalised (full-width and mathematical letters become plain ones);
3. a letter or sign that Unicode's confusables table (UTS #39, via the maintained
   `confusable-homoglyphs` package, whose data is generated from Unicode's confusables.txt)
   lists as confusable with one ASCII character becomes that character;
4. a word spelled with single letters between spaces, dots or dashes ("S Y S T E M",
   "S.Y.S.T.E.M") is joined;
5. with `bare`, a precomposed Latin letter loses marks no word of Veil's languages is spelled
   with ("ṠẎṠṪĖṀ" is "SYSTEM"). That copy is read beside the other, not instead of it: an
   accent is part of a word ("système", and "ignoré", which must not read as "ignore"), a dot
   above an English word's letters is a disguise.

The folded text is for matching only: `origin` maps each folded character back to its offset
in the original, so a span found in the copy names the same characters of what the user pasted.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources

# Variation selectors are marks (Mn), not format characters, but show nothing either.
# ... and so is the combining grapheme joiner (U+034F).
_INVISIBLE_RANGES = ((0xFE00, 0xFE0F), (0xE0100, 0xE01EF), (0xE0000, 0xE007F), (0x034F, 0x034F))
# Three or more single letters with one separator between each: a word spelled out.
_SPELLED_RE = re.compile(r"(?<![^\W\d_])(?:[^\W\d_][ .\-_*·•]){2,}[^\W\d_](?![^\W\d_])")
_SEPARATORS = frozenset(" .-_*·•")


@dataclass(frozen=True, slots=True)
class Folded:
    """The folded text and, for each of its characters, the offset it came from."""

    text: str
    origin: tuple[int, ...]
    length: int  # the original's length: where a span that ends the folded text ends

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original offsets of the folded span [start, end)."""
        if start >= end:
            at = self.origin[start] if start < len(self.origin) else self.length
            return at, at
        return self.origin[start], self.origin[end - 1] + 1


@cache
def _ascii_twins() -> dict[str, str]:
    """Character -> the one ASCII character Unicode's confusables data says it looks like."""
    raw = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    twins: dict[str, str] = {}
    for char, glyphs in json.loads(raw).items():
        if len(char) != 1 or char.isascii():
            continue
        ascii_glyphs = [g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii()]
        if ascii_glyphs and ascii_glyphs[0].isprintable():
            twins[char] = ascii_glyphs[0]
    return twins


def _invisible(char: str) -> bool:
    point = ord(char)
    if any(low <= point <= high for low, high in _INVISIBLE_RANGES):
        return True
    return unicodedata.category(char) == "Cf"


def _decoration(char: str) -> bool:
    """A mark (Unicode category M: combining, enclosing, spacing): on a plain letter it only
    decorates ("S̲Y̲S̲T̲E̲M̲", "S⃝Y⃝S⃝", "M̶e"); a letter of a script that needs its marks
    (Devanagari, Arabic) is no plain letter, so its marks stay."""
    return unicodedata.category(char).startswith("M")


# Marks the languages Veil reads spell words with (grave, acute, circumflex, tilde, diaeresis,
# ring, cedilla): a letter carrying one stays as written even in the bare copy, so "ignoré"
# (French, "I ignored") never reads as the order "ignore".
_SPELLING_MARKS = frozenset("\u0300\u0301\u0302\u0303\u0308\u030a\u0327")


def _bare(char: str) -> str:
    """A precomposed letter's base letter when it is a plain one with marks no word of Veil's
    languages is spelled with ("Ṡ", "Ẏ" -> "S", "Y")."""
    parts = unicodedata.normalize("NFD", char)
    if (
        parts[0].isascii() and parts[0].isalpha() and len(parts) > 1
        and all(_decoration(p) and p not in _SPELLING_MARKS for p in parts[1:])
    ):  # fmt: skip
        return parts[0]
    return char


def fold(text: str, bare: bool = False) -> Folded:
    """`text` folded for pattern checks (see the module docstring), with its offset map."""
    twins = _ascii_twins()
    chars: list[str] = []
    origin: list[int] = []
    for at, char in enumerate(text):
        if char.isascii():
            chars.append(char)
            origin.append(at)
            continue
        if _invisible(char):
            continue
        for part in unicodedata.normalize("NFKC", char):
            if _invisible(part) or (_decoration(part) and chars and chars[-1].isascii()):
                continue
            if bare and not part.isascii():
                part = _bare(part)
            chars.append(part if part.isascii() else twins.get(part, part))
            origin.append(at)
    folded = "".join(chars)
    if not _SPELLED_RE.search(folded):
        return Folded(folded, tuple(origin), len(text))
    joined: list[str] = []
    kept: list[int] = []
    last = 0
    for match in _SPELLED_RE.finditer(folded):
        joined.append(folded[last : match.start()])
        kept.extend(origin[last : match.start()])
        for offset in range(match.start(), match.end()):
            if folded[offset] not in _SEPARATORS:
                joined.append(folded[offset])
                kept.append(origin[offset])
        last = match.end()
    joined.append(folded[last:])
    kept.extend(origin[last:])
    return Folded("".join(joined), tuple(kept), len(text))


_WORD_RE = re.compile(r"[^\W\d_]+")


@cache
def role_words() -> frozenset[str]:
    """The words of a role ("system", "assistant"), lower case."""
    from lang.thread import CHAT_ROLES, TURN_LABELS

    return frozenset(CHAT_ROLES | TURN_LABELS)


def unmask_roles(text: str) -> str:
    """`text` with any role word written in look-alike letters ("ЅУЅТЕМ", "Αssistant",
    full-width or mathematical letters) spelled in plain letters.

    The redactor runs before the injection check and took "ЅУЅТЕМ" for a person's name, so the
    check only ever saw a placeholder. No one's name folds to "system" or "assistant", so
    only those words change; "Me" and the other self labels are left as written, since a
    look-alike "Me:" is a forgery that must not become the user's own line (`clean_text`
    marks it so).
    """
    roles = role_words()

    def plain(match: re.Match[str]) -> str:
        word = match.group(0)
        if word.isascii():
            return word
        for folded in (fold(word).text, fold(word, bare=True).text):
            if folded.isascii() and folded.casefold() in roles:
                return folded
        return word

    return _WORD_RE.sub(plain, text)
