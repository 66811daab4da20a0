"""Whether a typed request is one of Veil's own questions or commands, and what it is about.

The phrases are data (lang/data/requests.toml). A phrase counts only where a sentence of the
request begins, after words that lead in without changing the ask ("hey, can you tell me
what's on thursday?"), so "email sam when is good for lunch" stays an e-mail and "lunch with
sam, remember that friday" is not a note to remember.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lang import data

_WORD_RE = re.compile(r"[^\W\d_][\w'’-]*")
# A sentence ends at a mark followed by a space or the end: "karthik@acme.example" and "3.30"
# go on.
_SENTENCE_END_RE = re.compile(r"[.!?;](?=\s|$)|\n")
_LEAD = data.words("requests", "lead") | data.words("acts", "filler")
_OBJECT_FILLER = data.words("requests", "object_filler")
SECTIONS = (
    "calendar_list",
    "calendar_free",
    "calendar_when",
    "remember",
    "recall",
    "forget",
    "reply",
)
_PATTERNS = {name: data.phrase_pattern("requests", name) for name in SECTIONS}


@dataclass(frozen=True)
class Asked:
    """A request phrase found at a sentence start; `rest` is the sentence after it."""

    rest: str

    @property
    def object_words(self) -> list[str]:
        """The words of `rest` that name something ("my cfo?" -> ["cfo"])."""
        return [w for w in _WORD_RE.findall(self.rest) if w.casefold() not in _OBJECT_FILLER]

    @property
    def object(self) -> str:
        return " ".join(self.object_words)


def asked(request: str, section: str) -> Asked | None:
    """The first phrase of `section` that opens a sentence of `request`, or None."""
    for match in _PATTERNS[section].finditer(request):
        before = request[: match.start()]
        ends = [m.end() for m in _SENTENCE_END_RE.finditer(before)]
        opened = ends[-1] if ends else 0
        if all(w.casefold() in _LEAD for w in _WORD_RE.findall(before[opened:])):
            tail = request[match.end() :]
            stop = _SENTENCE_END_RE.search(tail)
            rest = (tail[: stop.start()] if stop else tail).strip(" \t,:;-")
            return Asked(rest)
    return None
