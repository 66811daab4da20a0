"""Text as it enters Veil: control characters and lone surrogates removed at the boundary.

A NUL byte made Duckling's Rust code panic, and a lone surrogate cannot be stored in SQLite or
encoded as UTF-8; no parser, store or model has a use for either. Every front-end (page, CLI)
passes what the user typed or pasted through `clean_text` before anything else reads it.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from lang import data

# C0 controls except tab, newline and carriage return; DEL; UTF-16 surrogates (in a Python str
# a surrogate is always a lone one: a valid pair is already one code point); and characters
# that show nothing but split a word for every reader ("S\u200bystem:" hid a forged turn from
# the injection check): zero-width space and non-joiner, word joiner, a BOM inside the text,
# a soft hyphen, and a zero-width joiner between letters (between emoji it builds one). Unicode
# tag characters (U+E0000..E007F) are invisible too: "S<tag Y>YSTEM" showed as SYSTEM yet split
# the word for the redactor and the injection check (issue 40).
_UNWANTED = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\u200b\u200c\u2060\ufeff\u00ad"
    "\U000e0000-\U000e007f]"
    "|(?<=[^\\W\\d_])\u200d(?=[^\\W\\d_])"
)
# A terminal's escape sequences go whole, before their ESC alone would be dropped: the "[31m"
# left of a colour code was read as a 31-minute duration (issue 40). CSI ("ESC [ ... m") and
# OSC ("ESC ] ... BEL or ESC \\") sequences, and the two-byte ones ("ESC c").
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-~]"
)
_UNWANTED_BYTES = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])


# One to three words right before a colon (full-width too; not a clock's "11:30"), where a
# speaker label stands:
# "Me:", "Priya Shah:", "[03/12/2026, 19:02] M\u200be:".
_LABEL = (
    r"((?:[^\s:\uff1a\[\]]{1,24}[^\S\n]){0,2}[^\s:\uff1a\[\]]{1,24})"
    r"(?=[^\S\n]*[:\uff1a](?!\d))"
)
_LABEL_RE = re.compile(rf"(?<![^\s\]\-]){_LABEL}")
_SELF = data.words("labels", "self_speakers")


@functools.lru_cache(maxsize=4096)  # an export repeats its few speakers' labels
def _forged(label: str) -> bool:
    """Whether a label is written to pass for another: one that shows as the user's own
    ("M<zero width>e", Cyrillic "Ме", "Ｍｅ", "M̶e") but is written with other characters, or a
    word that mixes scripts to spell plain letters (Latin with Cyrillic "о" in "nоtice", UTS
    #39's mixed-script check). Names in one script ("Маша", "José", "田中") are names; role
    words ("ЅУЅТЕМ") are spelled plainly by `lang.fold.unmask_roles` for the injection check."""
    from confusable_homoglyphs import confusables

    from lang.fold import fold, role_words  # lang.fold reads lang.thread, which reads this

    shown = "".join(
        c for c in unicodedata.normalize("NFKD", fold(label).text) if not unicodedata.combining(c)
    )
    if shown != label and shown.strip().casefold() in _SELF:
        return True
    for word in label.split():
        word = _UNWANTED.sub("", word)  # an invisible character is no script of its own
        plain = fold(word).text
        if (
            not word.isascii() and plain.isascii() and plain.casefold() not in role_words()
            and confusables.is_mixed_script(word)
        ):  # fmt: skip
            return True
    return False


_MARK = "\u00b7"
_MARKED_RE = re.compile(rf"(?<![^\s\]\-])\u00b7{_LABEL}")


def _mark_forged(match: re.Match[str]) -> str:
    """A forged label gets a visible dot in front, so its line stays part of the message of
    whoever pasted it in rather than turning into the user's own line, or another person's,
    once its characters are folded or dropped."""
    label = match.group(1)
    if label.isascii() or label.startswith(_MARK) or not _forged(label):
        return label  # marked already: cleaning twice reads the same
    return _MARK + _UNWANTED.sub("", label)


def has_forged_label(cleaned: str) -> bool:
    """Whether text `clean_text` cleaned holds a label it marked as written to pass for someone
    (see `_forged`): a thread that forges a line in the user's name, or another person's, is
    not to be trusted on what was agreed."""
    return _MARK in cleaned and _MARKED_RE.search(cleaned) is not None


def clean_text(text: str) -> str:
    """`text` without control characters (tab, newline and CR stay), lone surrogates and
    invisible word-splitting characters."""
    text = _ESCAPE_SEQUENCE.sub("", text)
    if not text.isascii():
        text = _LABEL_RE.sub(_mark_forged, text)
    return _UNWANTED.sub("", text)


def clean_bytes(data: bytes) -> bytes:
    """The same for an uploaded file's bytes: ASCII controls never occur inside UTF-8 letters."""
    return data.translate(None, _UNWANTED_BYTES)


# A sentence ends at ".", "!", "?" or ";" before a space; not after a number's dot ("am 3. Juli")
# nor after an abbreviation ("Dr. Ruiz"), whose words live in lang/data/labels.toml.
# A number's dot does end one after an English month ("Essay due Dec 11. Advising meeting").
_SENTENCE_END_RE = re.compile(r"(?<=[.!?;])\s+")
_LAST_WORD_RE = re.compile(r"(?<![\w.])([^\W\d_][\w.]*)\.$")
ABBREVIATIONS = data.words("labels", "abbreviations")
_MONTHS = sorted(data.words("times", "month_names", "en"))
_MONTH_ABBREVIATIONS = frozenset([*(m[:3] for m in _MONTHS), "sept"])
_MONTH_DAY_END_RE = re.compile(
    rf"\b(?:{'|'.join([*_MONTHS, *(m[:3] for m in _MONTHS), 'sept'])})\.?\s+\d{{1,2}}"
    r"(?:st|nd|rd|th)?\.$",
    re.IGNORECASE,
)


def sentence_breaks(text: str) -> list[re.Match[str]]:
    """The runs of space between the sentences of `text`, in order."""
    breaks = []
    for match in _SENTENCE_END_RE.finditer(text):
        if (
            text[max(0, match.start() - 2) : match.start() - 1].isdigit()
            and text[match.start() - 1] == "."
            and not _MONTH_DAY_END_RE.search(text, max(0, match.start() - 20), match.start())
        ):
            continue  # "am 3. Juli": an ordinal's dot
        word = _LAST_WORD_RE.search(text, max(0, match.start() - 12), match.start())
        if word is not None and word.group(1).casefold() in ABBREVIATIONS:
            continue
        if (
            word is not None
            and word.group(1).casefold() in _MONTH_ABBREVIATIONS
            and text[match.end() : match.end() + 1].isdigit()
        ):
            continue  # "Thursday Dec. 24": a month's short form before its day
        breaks.append(match)
    return breaks


def fold_accents(text: str) -> str:
    """`text` with accents taken off letter by letter, at the same length, so a match in the
    folded text has the same offsets in the original ("Zoë" -> "Zoe", "retrásala" ->
    "retrasala")."""
    return text if text.isascii() else "".join(map(_fold_char, text))


@functools.cache
def _fold_char(char: str) -> str:
    if char.isascii():
        return char
    base = "".join(c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c))
    return base if len(base) == 1 else char
