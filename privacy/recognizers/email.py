"""E-mail addresses with any domain, so "ann@team.internal" is caught too.

Presidio's own e-mail recognizer keeps only domains under a known public suffix; a private
mail server's address is just as personal, so Veil accepts any syntactically valid domain.
"""

from __future__ import annotations

from presidio_analyzer import Pattern, PatternRecognizer


class AnyDomainEmailRecognizer(PatternRecognizer):
    """EMAIL_ADDRESS: local part, "@", a dotted domain ending in letters."""

    PATTERNS = [
        Pattern(
            "email",
            r"(?<![\w.+'-])[\w!#$%&'*+/=?^`{|}~-]+(?:\.[\w!#$%&'*+/=?^`{|}~-]+)*"
            r"@(?:[\w](?:[\w-]*[\w])?\.)+[^\W\d_]{2,}(?![\w-])",
            0.6,
        ),
    ]
    CONTEXT = ["email", "e-mail", "mail"]

    def __init__(self) -> None:
        super().__init__(
            supported_entity="EMAIL_ADDRESS",
            patterns=self.PATTERNS,
            context=self.CONTEXT,
            name="AnyDomainEmailRecognizer",
        )
