"""What the user wants from a turn, by deterministic rules on the typed request.

The rule planner builds its steps from this; the model planner proposes its own steps and
the plan validator holds both to the same hard rules.
"""

from __future__ import annotations

import re
from typing import Literal

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
            r"\b(?:schedul\w*|book|calendar|cal|meet(?:ing)?|lunch|dinner|breakfast|brunch|coffee"
            r"|call|appointment|invite|add|put (?:it|this|that) in|event|plan|set up|termin\w*"
            r"|kalender|eintragen|agenda\w*|calendrier|ajoute\w*|añad\w*|agend\w*|adicion\w*)\b",
            re.I,
        ),
    ),
    (
        "question",
        re.compile(r"\?\s*$|^(?:what|when|who|where|how|do|does|am|is|are|which)\b", re.I),
    ),
)


def intent_by_rules(request: str) -> Intent:
    """Keyword rules on the typed request; "other" when none applies."""
    for intent, pattern in _RULES:
        if pattern.search(request):
            return intent
    return "other"
