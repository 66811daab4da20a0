"""The integrity check: a reply may claim only what this turn's files back.

A sentence that asserts a calendar write ("I've put it in your calendar", "Lunch is booked")
needs an .ics created this turn; one that asserts a draft needs an .eml. Veil never sends, so
"sent", "e-mailed", "invited", "let them know" are never true: with a draft they become "I
drafted a reply", without one they are removed. Questions, offers ("shall I book it?") and
negations ("I did not schedule it") claim nothing and stay.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+|\n+")
_NEGATION_RE = re.compile(
    r"\b(?:not|n't|never|no|nothing|unable|cannot|without|couldn't|didn't|haven't|hasn't"
    r"|wasn't|won't|isn't|aren't|yet\s+to)\b|n't\b",
    re.IGNORECASE,
)
_OFFER_RE = re.compile(
    r"\b(?:shall|should|would|could|can|may|might|will|'ll|going\s+to|want\s+me\s+to|if\s+you"
    r"|let\s+me\s+know|once\s+you|before\s+you|to\s+be)\b|\?\s*$",
    re.IGNORECASE,
)
_CALENDAR_VERB_RE = re.compile(
    r"\b(?:scheduled|booked|reserved|calendared|pencil+ed(?:\s+in)?|locked\s+in|blocked\s+(?:off|out)"
    r"|added|put|created|set\s+up|set|entered|saved|placed|made|confirmed|organi[sz]ed|arranged"
    r"|all\s+set|done|taken\s+care\s+of"
    r"|(?:is|it's|are|now)\s+(?:now\s+)?(?:in|on)\s+(?:your|the)\s+calendar)\b",
    re.IGNORECASE,
)
_STRONG_CALENDAR_RE = re.compile(
    r"\b(?:scheduled|booked|reserved|calendared|pencil+ed|locked\s+in|blocked\s+(?:off|out)"
    r"|(?:in|on)\s+(?:your|the)\s+calendar|all\s+set)\b",
    re.IGNORECASE,
)
_CALENDAR_NOUN_RE = re.compile(
    r"\b(?:calendar|event|meeting|appointment|reminder|invite|invitation|lunch|dinner|breakfast"
    r"|brunch|coffee|call|slot|booking|reservation|\.ics|it)\b",
    re.IGNORECASE,
)
_SEND_RE = re.compile(
    r"\b(?:sent|send|emailed|e-mailed|mailed|forwarded|replied|responded|messaged|texted"
    r"|invited|notified|informed|let\s+\S+\s+know|told|shared|delivered|dispatched)\b",
    re.IGNORECASE,
)
_DRAFT_RE = re.compile(
    r"\b(?:drafted|draft(?:ed)?\s+(?:a|an|the|your)\s+(?:reply|e-?mail|message|response)"
    r"|wrote\s+(?:a|an|the|your)\s+(?:reply|e-?mail|message|draft|response)|prepared\s+(?:a|an|the)"
    r"\s+(?:reply|e-?mail|message|draft))\b",
    re.IGNORECASE,
)
DRAFTED = "I drafted a reply you can open in your mail app; nothing was sent."


@dataclass(frozen=True)
class Checked:
    text: str
    removed: tuple[str, ...]


# Words in quotation marks are reported, not asserted: 'I ignored ... ("User: add drinks
# Friday 7pm to my calendar")' claims nothing; 'Created "Lunch"' still claims by its verb.
_QUOTED_RE = re.compile(r'"[^"\n]*"|“[^”\n]*”|„[^“”\n]*[“”]|«[^»\n]*»')


def _asserts(sentence: str, pattern: re.Pattern[str]) -> bool:
    sentence = _QUOTED_RE.sub(" ", sentence)
    return (
        bool(pattern.search(sentence))
        and not _NEGATION_RE.search(sentence)
        and not (_OFFER_RE.search(sentence))
    )


def _calendar_claim(sentence: str) -> bool:
    if not _asserts(sentence, _CALENDAR_VERB_RE):
        return False
    return bool(_STRONG_CALENDAR_RE.search(sentence) or _CALENDAR_NOUN_RE.search(sentence))


def check_claims(reply: str, *, has_ics: bool, has_eml: bool) -> Checked:
    """The reply with every unbacked claim removed or rewritten, and what was removed."""
    kept: list[str] = []
    removed: list[str] = []
    for piece in _SENTENCE_END_RE.split(reply):
        sentence = piece.strip()
        if not sentence:
            continue
        if _asserts(sentence, _SEND_RE):
            removed.append(sentence)
            if has_eml and DRAFTED not in kept:
                kept.append(DRAFTED)
            continue
        if _asserts(sentence, _DRAFT_RE) and not has_eml:
            removed.append(sentence)
            continue
        if _calendar_claim(sentence) and not has_ics and not _asserts(sentence, _DRAFT_RE):
            removed.append(sentence)
            continue
        kept.append(sentence)
    return Checked(" ".join(kept), tuple(removed))
