"""How common a word is, in the five languages Veil reads: wordfreq's lists, read once.

Every part of Veil that asks "is this an everyday word?" (the name finder, the time parser's
typo repair, OCR's word splitting, the document summary) asks here, so the lists are chosen
and cached in one place.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import locate


def _caller_dir() -> Path:
    """`locate.this_dir` without `inspect.stack()`: the same answer from the caller's frame.

    wordfreq finds its data folder with `locate.this_dir()`, which reads the source of every
    frame on the stack: 80 ms on import from deep inside Veil's imports, and again for each
    language's list. The caller's globals name its file just as well.
    """
    caller = sys._getframe(1).f_globals
    if "__file__" in caller:
        return Path(os.path.abspath(caller["__file__"])).parent
    return Path(os.path.abspath(os.getcwd()))


locate.this_dir = _caller_dir  # before wordfreq's import reads it
from wordfreq import zipf_frequency  # noqa: E402

LANGUAGES = ("en", "de", "fr", "es", "pt", "it")
# wordfreq's "small" lists hold the words of Zipf 3.0 and above: 3 MB a language where "best"
# takes 30 to 80 MB. English keeps its full list (thresholds down to 1.5 read it); the other
# languages only decide "common there" (3.0 and up), and a rarer foreign word reads as unknown,
# which errs towards redacting.
_WORDLISTS = {"en": "best"}
# Per-word caches hold what users typed: bounded, so a server that reads for months stays flat.
WORD_CACHE_SIZE = 1 << 16


@functools.lru_cache(maxsize=WORD_CACHE_SIZE)
def zipf(word: str, language: str = "en") -> float:
    """How common a word is (Zipf scale: 7 for "the", about 3 for a rare word, 0 unknown)."""
    return zipf_frequency(word, language, wordlist=_WORDLISTS.get(language, "small"))
