"""The one privacy check at the model boundary: no known raw value leaves in a prompt.

Every prompt of every backend passes `PrivacyGuard.screen`. It knows the session's real
values (every spelling) and the user's contacts; any of them found in a prompt, in any case,
is replaced by its placeholder again (or, with `refuse=True`, the call is refused). E-mail
addresses and phone numbers need no model to spot, so the guard also catches ones the session
has not seen yet. The redactor decides what else is personal; the guard is the last line that
makes sure a value once known never slips out. It loads no model, so it is cheap on every call.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from privacy.entity_map import PLACEHOLDER_RE, EntityMap, fold_accents, normalize_value
from privacy.errors import PrivacyError, PrivacyLeakError, RedactionFailedError
from privacy.phone import phone_key

_EMAIL_RE = re.compile(r"(?<![\w.+-])[\w.+'-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE_RE = re.compile(r"(?<![\w+/.:-])(?:\+|00)?\(?\d[\d \t().\-/]{4,20}\d(?![\w/]|[.:-]\d)")


@dataclass(frozen=True)
class Screened:
    """A prompt after screening, and the placeholders that had to be put back into it."""

    text: str
    reredacted: list[str] = field(default_factory=list)


def _is_everyday_word(value: str) -> bool:
    # imported here: word frequencies load only once a session has values to screen
    from privacy.lexicon import is_everyday_word

    return is_everyday_word(value)


def _key(value: str) -> str:
    """The lookup key of a value as the screen pattern may meet it: a handle's dots, dashes and
    underscores read as spaces ("karthik.raman"), so a hyphenated given name ("Seo-yeon") and
    its match share one key."""
    return normalize_value(re.sub(r"[._-]+", " ", value))


def _value_pattern(values: Iterable[str]) -> re.Pattern[str] | None:
    """One alternation over all values, longest first, bounded so "Al" never hits "Alan".

    Any case matches, except for one-word names that are everyday words ("Will", "Mark"):
    those match only as written, capitalised or in capitals, so "I will" passes untouched.
    """
    unique = sorted({v.strip() for v in values if v and v.strip()}, key=len, reverse=True)
    if not unique:
        return None
    parts = []
    for value in unique:
        if _is_everyday_word(value):
            forms = sorted({value, value.capitalize(), value.upper()})
            parts.append("(?-i:" + "|".join(re.escape(fold_accents(f)) for f in forms) + ")")
        else:
            # "Karthik Raman" also as a handle: "karthik.raman", "karthik_raman"
            words = fold_accents(value).split()  # matched in the text as folded
            parts.append(r"[\s._-]+".join(re.escape(word) for word in words))
    # E-mail addresses are screened before names, so "@karthik" here is a chat mention and is
    # screened too; a dotted tail ("karthik.raman:") joins the match so no surname is left.
    return re.compile(
        r"(?<![\w<])(?P<value>" + "|".join(parts) + r")(?P<tail>(?:[._-][^\W_]+)*)(?!\w)",
        re.IGNORECASE,
    )


class PrivacyGuard:
    """Screens prompts against the session map and the known contacts."""

    def __init__(
        self, entity_map: EntityMap, contacts: Iterable[str] = (), *, refuse: bool = False
    ) -> None:
        self.entity_map = entity_map
        self.contacts = [c for c in contacts if c and c.strip()]
        self.needs_refusal = refuse

    def screen(self, text: str) -> Screened:
        """Return `text` with every known raw value replaced by its placeholder.

        Fails closed like the redactor: a screen that breaks raises RedactionFailedError, so the
        gateway never sends the unscreened prompt.
        """
        try:
            return self._screen(text)
        except PrivacyError:
            raise
        except Exception as error:
            raise RedactionFailedError("the prompt guard", error) from error

    def _screen(self, text: str) -> Screened:
        found: list[str] = []
        text = self._screen_patterns(text, found)
        # normalised raw value -> its placeholder; contacts not yet in the map get one now
        # Contacts the map lacks get a placeholder first, so their parts are screened as well.
        known = {_key(value) for _, value in self.entity_map.variants()}
        for contact in self.contacts:
            if _key(contact) not in known:
                self.entity_map.placeholder_for("PERSON", contact)
                known.add(_key(contact))
        by_key: dict[str, str] = {}
        spellings = list(self.entity_map.variants())
        for placeholder, value in spellings:
            by_key.setdefault(_key(value), placeholder)
        spellings += self._name_parts(by_key)
        for placeholder, value in spellings:
            by_key.setdefault(_key(value), placeholder)
        pattern = _value_pattern([v for _, v in spellings] + self.contacts)
        if pattern is None:
            return self._verdict(text, found)

        # matched in the text with its accents folded ("Zoë" known, "zoe" written), spliced
        # into the text as written
        pieces, position = [], 0
        for match in pattern.finditer(fold_accents(text)):
            placeholder = by_key[_key(match.group("value"))]
            found.append(placeholder)
            pieces += [text[position : match.start()], placeholder]
            position = match.end()
        pieces.append(text[position:])
        return self._verdict("".join(pieces), found)

    def _name_parts(self, by_key: dict[str, str]) -> list[tuple[str, str]]:
        """Each part of a known full name ("karthik" of "Karthik Raman") that points at one person.

        A thread may mention only a first name or a handle ("@karthik"); the redactor links
        those when it sees them, but the guard must not depend on it having seen them.
        """
        owners: dict[str, set[str]] = {}
        spelled: dict[str, str] = {}
        for placeholder, value in self.entity_map.variants():
            if self.entity_map.type_of(placeholder) != "PERSON":
                continue
            parts = value.split()
            for part in parts if len(parts) > 1 else []:
                key = _key(part)
                if len(key) >= 3 and key not in by_key and not _is_everyday_word(part):
                    owners.setdefault(key, set()).add(placeholder)
                    spelled.setdefault(key, part)
        return [(next(iter(p)), spelled[k]) for k, p in owners.items() if len(p) == 1]

    def _screen_patterns(self, text: str, found: list[str]) -> str:
        """Replace e-mail addresses and phone numbers, known to the map or not."""

        def email(match: re.Match[str]) -> str:
            found.append(self.entity_map.placeholder_for("EMAIL", match.group(0)))
            return found[-1]

        # a number the map knows under any spelling keeps its placeholder
        known_phones = {
            phone_key(value): placeholder
            for placeholder, value in self.entity_map.variants()
            if self.entity_map.type_of(placeholder) == "PHONE"
        }

        def phone(match: re.Match[str]) -> str:
            key = phone_key(match.group(0), needs_valid=True)
            if key is None or PLACEHOLDER_RE.fullmatch(match.group(0)):
                return match.group(0)
            placeholder = known_phones.get(key) or self.entity_map.placeholder_for(
                "PHONE", match.group(0), key=key
            )
            found.append(placeholder)
            return placeholder

        return _PHONE_RE.sub(phone, _EMAIL_RE.sub(email, text))

    def _verdict(self, screened: str, found: list[str]) -> Screened:
        if found and self.needs_refusal:
            raise PrivacyLeakError(
                f"prompt refused: it held {len(found)} known personal value(s) in clear"
            )
        return Screened(screened, sorted(set(found)))
