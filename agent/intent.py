"""What the user wants from a turn: deterministic rules first, the model when there is one."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Literal

from agent.errors import ModelError, ModelOutputError
from agent.gateway import ModelGateway
from agent.model import Message
from agent.prompts import load_prompt
from privacy import PrivacyGuard

logger = logging.getLogger(__name__)

Intent = Literal["schedule", "remind", "email", "question", "other"]
INTENTS: tuple[Intent, ...] = ("schedule", "remind", "email", "question", "other")

# The intent needs the request and the latest messages, and the prompt must fit the embedded
# model's 4,096-token context: keep the end of a long thread.
MAX_REQUEST_CHARS = 2_000
MAX_THREAD_CHARS = 6_000

INTENT_SCHEMA = {
    "type": "object",
    "properties": {
        "intent": {"type": "string", "enum": list(INTENTS)},
        "summary": {"type": "string", "maxLength": 160},
    },
    "required": ["intent", "summary"],
}

# Order matters: "remind me to email Tom" is a reminder, "email Tom about lunch" an e-mail.
_RULES: tuple[tuple[Intent, re.Pattern[str]], ...] = (
    ("remind", re.compile(r"\bremind(?:er)?s?\b", re.I)),
    ("email", re.compile(r"\b(?:e-?mail|reply|respond|write (?:to|back)|draft|answer)\b", re.I)),
    (
        "schedule",
        re.compile(
            r"\b(?:schedul\w*|book|calendar|meet(?:ing)?|lunch|dinner|breakfast|brunch|coffee"
            r"|call|appointment|invite|add (?:it|this|that)|put (?:it|this) in|event)\b",
            re.I,
        ),
    ),
    ("question", re.compile(r"\?\s*$|^(?:what|when|who|where|how|do|does|am|is|are)\b", re.I)),
)


@dataclass(frozen=True)
class IntentGuess:
    """The turn's intent and which path decided it."""

    intent: Intent
    summary: str
    decided_by: Literal["rules", "model"]


def intent_by_rules(request: str) -> Intent:
    """Keyword rules on the typed request; the safe answer when no model is there."""
    for intent, pattern in _RULES:
        if pattern.search(request):
            return intent
    return "other"


def classify_intent(
    request: str,
    thread: str,
    *,
    gateway: ModelGateway,
    guard: PrivacyGuard,
    session: str | None = None,
) -> IntentGuess:
    """Ask the model under a JSON grammar; fall back to the rules when it cannot answer."""
    ruled = intent_by_rules(request)
    if not gateway.is_available:
        return IntentGuess(ruled, request[:160], "rules")
    prompt = load_prompt("intent")
    messages = [
        Message("system", prompt["system"]),
        Message(
            "user",
            prompt["user"].format(
                request=request[:MAX_REQUEST_CHARS],
                thread=thread[-MAX_THREAD_CHARS:] if thread else "(none)",
            ),
        ),
    ]
    try:
        answer = gateway.complete_json(
            messages,
            guard=guard,
            purpose="intent",
            schema=INTENT_SCHEMA,
            schema_name=prompt["schema_name"],
            max_tokens=80,
            session=session,
        )
    except (ModelError, ModelOutputError) as error:
        logger.warning("intent model failed, using rules: %s", error)
        return IntentGuess(ruled, request[:160], "rules")
    intent = answer.get("intent")
    if intent not in INTENTS:
        return IntentGuess(ruled, request[:160], "rules")
    return IntentGuess(intent, str(answer.get("summary", ""))[:160], "model")
