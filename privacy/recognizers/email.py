"""E-mail addresses with any domain, so "ann@team.internal" is caught too.

Presidio's own e-mail recognizer keeps only domains under a known public suffix; a private
mail server's address is just as personal, so Veil accepts any syntactically valid domain.
"""

from __future__ import annotations

from presidio_analyzer import Pattern, PatternRecognizer

# Spelled separators: "[dot]", "(dot)", " dot "; "[at]", "(at)", " at ", " @ ".
_DOT = r"(?:\s*[\[({]\s*dot\s*[\])}]\s*|\s+dot\s+)"
_DOT_OR_POINT = rf"(?:{_DOT}|\.)"
_AT = r"(?:\s*[\[({]\s*at\s*[\])}]\s*|\s+at\s+|\s*@\s*)"
_TLDS = (
    "com|org|net|edu|gov|io|co|uk|de|fr|es|it|nl|in|me|info|biz|ca|au|us|ch|be|se|no|dk|fi"
    "|pt|br|mx|jp|cn|ru|pl|ie|nz|za|sg|hk|ae"
)


class AnyDomainEmailRecognizer(PatternRecognizer):
    """EMAIL_ADDRESS: local part, "@", a dotted domain ending in letters."""

    PATTERNS = [
        Pattern(
            "email",
            r"(?<![\w.+'-])[\w!#$%&'*+/=?^`{|}~-]+(?:\.[\w!#$%&'*+/=?^`{|}~-]+)*"
            r"@(?:[\w](?:[\w-]*[\w])?\.)+[^\W\d_]{2,}(?![\w-])",
            0.6,
        ),
        # Spelled out so that scrapers miss it: "priya dot sharma at gmail dot com",
        # "priya[at]gmail[dot]com". The last label must be a common top-level domain, so
        # "look at this dot point" is no address.
        Pattern(
            "email_spelled",
            rf"(?<![\w.+-])[\w%+-]+(?:{_DOT}[\w%+-]+)*{_AT}[\w-]+(?:{_DOT_OR_POINT}[\w-]+)*"
            rf"{_DOT_OR_POINT}(?:{_TLDS})(?![\w-])",
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
