"""What the user wants from a turn, by deterministic rules on the typed request.

The rule planner builds its steps from this; the model planner proposes its own steps and
the plan validator holds both to the same hard rules.
"""

from __future__ import annotations

import re
from typing import Literal

from lang import data

Intent = Literal["schedule", "remind", "email", "question", "other"]

# Order matters: "remind me to email Tom" is a reminder, "email Tom about lunch" an e-mail.
_RULES: tuple[tuple[Intent, re.Pattern[str]], ...] = (
    (
        "remind",
        re.compile(r"\b(?:remind(?:er)?s?|erinner\w*|rappel\w*|recu[eé]rd\w*|lembr\w*)\b", re.I),
    ),
    (
        "email",
        re.compile(
            r"\b(?:e-?mail|mail|reply|respond|write (?:to|back)|draft|answer|antwort\w*|répond\w*"
            r"|respond\w*|respond[ae]r?)\b",
            re.I,
        ),
    ),
    (
        "schedule",
        re.compile(
            r"\b(?:schedul\w*|cal|meet(?:ing)?|lunch|dinner|breakfast|brunch|coffee|call"
            r"|appointment|add|put (?:it|this|that) in|event|plan|set up|termin\w*|agenda\w*"
            r"|ajoute\w*|añad\w*|agend\w*|adicion\w*)\b"
            # ... and every language's ask to add, as the vocabulary writes it
            rf"|{data.phrase_pattern('requests', 'schedule_ask').pattern}",
            re.I,
        ),
    ),
    (
        "question",
        re.compile(r"\?\s*$|^(?:what|when|who|where|how|do|does|am|is|are|which)\b", re.I),
    ),
)


# "what's this invite about?", "who is this?": a question word opening a request that asks for
# no event ("when can you add it?" does) is a question, whatever plan it names.
_WH_QUESTION_RE = re.compile(
    r"^\s*(?:what|when|who|where|why|how|which|whose)\b[^\n]*\?\s*$", re.IGNORECASE
)
_VERBS = "|".join(
    (data.alternation("labels", "request_verbs"), data.alternation("labels", "subject_verbs"))
)
_ASKS_FOR_EVENT_RE = re.compile(
    rf"\b(?:{_VERBS}|remind\w*|e-?mail|reply|draft|calendar\s+(?:it|this|that))\b", re.IGNORECASE
)


# A request that opens with a verb asking for an event, as an order ("create garage sale",
# "please make an ebay listing"); "this will create confusion" and "can you make sense of
# this?" order no event.
_ORDERS_EVENT_RE = re.compile(
    rf"^\W*(?:(?:please|pls|kindly|just)\s+)?(?:{data.alternation('labels', 'request_verbs')})\b"
    r"(?!\s+(?:it|this|that|them)\b)(?![^\n]*\?\s*$)",  # "make it shorter" changes a text
    re.IGNORECASE,
)


def intent_by_rules(request: str) -> Intent:
    """Keyword rules on the typed request; "other" when none applies."""
    if _WH_QUESTION_RE.match(request) and not _ASKS_FOR_EVENT_RE.search(request):
        return "question"
    for intent, pattern in _RULES:
        if pattern.search(request):
            return intent
    return "schedule" if _ORDERS_EVENT_RE.match(request) else "other"
