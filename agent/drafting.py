"""What a draft says and to whom, read by code from the request and the pasted e-mail.

"reply to sam that friday works and ask if we can bring a friend" asks for two points: a
statement ("Friday works.") and a question ("Can we bring a friend?"). The cue phrases are data
(lang/data/requests.toml); reported speech turns into direct speech by one rule: in a question to
the recipient, a pronoun that means the recipient becomes "you" and the auxiliary moves first.
A reply goes to the sender of the newest pasted message, with that message's subject.
Everything here reads redacted text: placeholders stay until the draft tool restores them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.asked import asked
from lang import data
from lang.thread import split_thread
from privacy.entity_map import PLACEHOLDER_RE

_REPLY_RE = data.phrase_pattern("requests", "reply")
_COMPOSE_RE = data.phrase_pattern("requests", "compose")
_SCHEDULE_ASK_RE = data.phrase_pattern("requests", "schedule_ask")
_CUES = (
    ("say", data.phrase_pattern("requests", "say")),
    ("ask_if", data.phrase_pattern("requests", "ask_if")),
    ("ask_to", data.phrase_pattern("requests", "ask_to")),
)
_AUXILIARY = data.words("requests", "auxiliary")
_YOU: dict[str, str] = {k: v for table in data.table("requests")["to_you"].values()
                        for k, v in table.items()}  # fmt: skip
_RECIPIENT = frozenset(k for k, v in _YOU.items() if v == "you")
_SUBJECTS = _RECIPIENT | {"i", "we", "you", "it"}
_JOINERS_RE = re.compile(r"(?:[\s,;]+(?:and|but|also|then|plus))*[\s,;]*$", re.I)


def is_reply_only(request: str) -> bool:
    """A request that opens with a reply ("reply to sam that ...", "tell her that ...") and
    asks for no event: it creates nothing in the calendar. "lunch with sam at 1, draft a
    reply" states the event first, and keeps it."""
    return asked(request, "reply") is not None and not _SCHEDULE_ASK_RE.search(request)


def draft_points(request: str) -> list[str]:
    """The sentences the request asks the draft to say, in order, in direct speech."""
    found = [m for m in (_REPLY_RE.search(request), _COMPOSE_RE.search(request)) if m]
    if not found:
        return []
    reply = min(found, key=lambda m: m.start())
    cues = sorted(
        ((m.start(), m.end(), kind) for kind, pattern in _CUES
         for m in pattern.finditer(request, reply.start())),
        key=lambda cue: (cue[0], -cue[1]),
    )  # fmt: skip
    kept: list[tuple[int, int, str]] = []
    for cue in cues:  # the longest cue at a place; none inside another
        if not kept or cue[0] >= kept[-1][1]:
            kept.append(cue)
    points = []
    for index, (_, end, kind) in enumerate(kept):
        stop = kept[index + 1][0] if index + 1 < len(kept) else len(request)
        asked = _SCHEDULE_ASK_RE.search(request, end, stop)  # "..., and add it" is for Veil
        said = _JOINERS_RE.sub("", request[end : asked.start() if asked else stop])
        said = said.strip(" .!?")
        if kind == "say" and index + 1 < len(kept) and said == "":
            continue
        sentence = _direct(said, kind)
        if sentence:
            points.append(sentence)
    return points


def _direct(said: str, kind: str) -> str:
    words = said.split()
    if not words:
        return ""
    if kind == "say":
        return _capital(said) + "."
    if kind == "ask_to":
        return f"Could you {_to_you(said)}?"
    lowered = [w.casefold() for w in words]
    if len(words) >= 2 and lowered[0] in _SUBJECTS and lowered[1] in _AUXILIARY:
        to_you = lowered[0] in _RECIPIENT
        subject = "you" if to_you else words[0]
        verb = _YOU.get(lowered[1], words[1]) if to_you else words[1]
        rest = _to_you(" ".join(words[2:]))
        return _capital(f"{verb} {subject} {rest}".strip()) + "?"
    return f"Could you let me know if {said}?"


def _to_you(text: str) -> str:
    """Pronouns that mean the recipient, as "you" and "your" (verbs stay: see _direct)."""
    return " ".join(
        _YOU[w.casefold()] if _YOU.get(w.casefold()) in ("you", "your") else w for w in text.split()
    )


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class ReplyTarget:
    """Who a reply goes to and what it is about, from the newest pasted message's headers."""

    to: list[str]  # placeholders: an address where the header had one, else the name
    subject: str
    names: list[str]  # the sender's name placeholder, for the greeting


def reply_target(thread: str) -> ReplyTarget | None:
    """The sender and subject of the newest message of a pasted e-mail, or None."""
    sender = subject = None
    for line in split_thread(thread):
        if line.kind != "header" or line.block != "reply":
            continue
        value = thread[line.body_start : line.body_end]
        if line.field == "from" and sender is None:
            sender = value
        elif line.field == "subject" and subject is None:
            subject = value.strip()
    if sender is None:
        return None
    found = PLACEHOLDER_RE.findall(sender)
    emails = [f"<EMAIL_{n}>" for kind, n in found if kind == "EMAIL"]
    people = [f"<PERSON_{n}>" for kind, n in found if kind == "PERSON"]
    to = emails[:1] or people[:1]
    if not to:
        return None
    return ReplyTarget(to, subject or "", people[:1])
