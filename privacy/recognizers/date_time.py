"""Dates and times said the way chats say them: kept visible, never mistaken for a person.

spaCy's small model misses many ("tomorrow" after a phone number, "3pm", "Thu"); the planner
and the time parser need them in clear, so they are detected only to be kept.
"""

from __future__ import annotations

from presidio_analyzer import Pattern, PatternRecognizer

_DAYS = (
    r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?|today|tonight|tomorrow"
    r"|tmrw|yesterday|weekend|heute|morgen|gestern|montag|dienstag|mittwoch|donnerstag|freitag"
    r"|samstag|sonntag|aujourd'hui|demain|hier|lundi|mardi|mercredi|jeudi|vendredi|samedi"
    r"|dimanche|hoy|mañana|ayer|lunes|martes|miércoles|jueves|viernes|sábado|domingo|hoje"
    r"|amanhã|ontem|segunda|terça|quarta|quinta|sexta"
)


class DateTimeRecognizer(PatternRecognizer):
    """DATE_TIME: day words, "next Friday", clock times ("3pm", "10:02", "15h30")."""

    PATTERNS = [
        Pattern("day word", rf"\b(?:(?:next|this|last)\s+)?(?:{_DAYS})\b", 0.6),
        Pattern(
            "clock time",
            r"\b\d{1,2}(?::\d{2})?\s?(?:a\.?m\.?|p\.?m\.?)(?!\w)|\b\d{1,2}:\d{2}(?::\d{2})?\b"
            r"|\b\d{1,2}h\d{2}\b|\b\d{1,2}\s?uhr\b",
            0.6,
        ),
    ]
    CONTEXT: list[str] = []

    def __init__(self) -> None:
        super().__init__(
            supported_entity="DATE_TIME", patterns=self.PATTERNS, name="DateTimeRecognizer"
        )
