"""Split a pasted chat or e-mail thread into lines: who spoke, when (metadata), and what was said.

Privacy needs the speaker labels (they are names the stock model never sees as such) and the
time parser needs the message stamps (they are metadata that anchor "tomorrow", never times the
user stated). Both read the same structure, so it is parsed once, here, without any model.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Literal

# Stamps: "10:02", "10:02 AM", "Mon 23:50", "12/03/26, 10:02", "Jun 3, 2024 at 10:00 AM".
_DAY = (
    r"(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|rsday|urday)?\.?"
    r"|today|yesterday)"
)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_MONTH_DATE = (
    rf"(?:{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"
    rf"|\d{{1,2}}\.?\s+{_MONTH}(?:,?\s+\d{{4}})?)"
)
_NUM_DATE = r"(?:\d{4}-\d{2}-\d{2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4})"
_TIME = (
    r"(?:\d{1,2}[:.]\d{2}(?:[:.]\d{2})?(?:\s?[ap]\.?\s?m\.?)?(?![\w:])"
    r"|\d{1,2}\s?[ap]\.?\s?m\.?(?!\w))"
)
_DATE = rf"(?:{_MONTH_DATE}|{_NUM_DATE})"
_STAMP = (
    rf"(?:(?:{_DAY},?\s+)?(?:{_DATE}(?:,?\s+(?:at\s+)?|\s*T\s*|\s+))?{_TIME}"
    rf"|(?:{_DAY},?\s+)?{_DATE}|{_DAY})"
)
STAMP_RE = re.compile(rf"\s*{_STAMP}\s*", re.IGNORECASE)
# A time alone on a line, the second line of an iMessage/Slack copy ("Today at 10:02 AM").
_TIME_LINE_RE = re.compile(rf"\s*(?:(?:today|yesterday)\s+at\s+)?{_STAMP}\s*", re.IGNORECASE)

_MARKS = "[\u200e\u200f\u202a-\u202e\ufeff]*"  # bidi marks WhatsApp puts at line starts
# A name token, or a placeholder the redactor left in its place ("<PERSON_1>: hi").
_NAME_TOKEN = r"(?:<[A-Z][A-Z_]*_\d+>|[^\W\d_][\w'’.\-]*)"
_NAME = rf"{_NAME_TOKEN}(?:[ \t]+{_NAME_TOKEN}){{0,3}}"
_NAME_RE = re.compile(_NAME)
# Lower-case words that may sit inside a name: "María de la Cruz", "Ludwig van Beethoven".
_PARTICLES = frozenset(
    "de da do dos das del della der den di du la le van von bin ibn al el y e zu ter ten".split()
)

# WhatsApp (Android): "12/03/26, 10:02 - Priya: hi" (also "12.03.26, 10:02 – ...").
_WHATSAPP_RE = re.compile(
    rf"{_MARKS}(?P<stamp>{_NUM_DATE},?\s+{_TIME})\s+[-–]\s+(?P<rest>.*)", re.IGNORECASE
)
# "[10:02] Priya Patel: hi", "[12/03/2026, 10:02:11] Priya: hi", "[Mon 23:50] tom: hi".
_BRACKET_RE = re.compile(rf"{_MARKS}\[(?P<stamp>{_STAMP})\]\s*(?P<rest>.*)", re.IGNORECASE)
# "10:02 Priya: hi", "Mon 23:50 - tom: hi": an unbracketed stamp, then a name-shaped label.
_TIME_PREFIX_RE = re.compile(
    rf"{_MARKS}(?P<stamp>(?:{_DAY},?\s+)?{_TIME})\s*[-–|]?\s*(?P<rest>{_NAME}:(?:\s.*)?)",
    re.IGNORECASE,
)
# Label after a stamp: anything without a colon, up to ": " ("~ Priya", "+44 7700 900123").
_STAMPED_LABEL_RE = re.compile(r"(?P<speaker>[^:\[\]]{1,60}?)\s*:(?:\s+|$)")
# "Sarah: hi" with no stamp: the label must look like a name.
_PLAIN_LABEL_RE = re.compile(rf"{_MARKS}(?P<speaker>{_NAME})\s*:(?:\s+|$|(?=[\"“„«]))")
# Slack/iMessage one line: "Priya Patel  10:02 AM", "Priya Patel [10:02 AM]", Telegram
# "Priya Patel, [12.03.2026 10:02]".
_NAME_STAMP_RE = re.compile(
    rf"{_MARKS}(?P<speaker>{_NAME})(?P<gap>,?\s+)(?P<open>\[?)(?P<stamp>{_STAMP})\]?\s*",
    re.IGNORECASE,
)

# E-mail headers, English and the four other languages Veil reads; field names normalised.
_HEADER_FIELDS = {
    "from": "from", "von": "from", "de": "from", "expéditeur": "from", "remetente": "from",
    "to": "to", "an": "to", "à": "to", "a": "to", "para": "to", "destinataire": "to",
    "cc": "cc", "bcc": "bcc", "cci": "bcc", "cco": "bcc", "kopie": "cc",
    "sent": "sent", "gesendet": "sent", "envoyé": "sent", "enviado": "sent",
    "enviada": "sent", "date": "date", "datum": "date", "fecha": "date", "data": "date",
    "subject": "subject", "betreff": "subject", "objet": "subject", "asunto": "subject",
    "assunto": "subject", "reply-to": "reply-to", "antwort an": "reply-to",
}  # fmt: skip
_HEADER_RE = re.compile(
    r"(?P<name>"
    + "|".join(sorted(map(re.escape, _HEADER_FIELDS), key=len, reverse=True))
    + r")[ \t]*:[ \t]*(?P<value>.*)",
    re.IGNORECASE,
)
_ADDRESS_FIELDS = frozenset({"from", "to", "cc", "bcc", "reply-to"})
_EMAIL_RE = re.compile(r"[\w.+'-]+@[\w-]+(?:\.[\w-]+)+")
# Reply attribution lines: "On Mon, Jun 3, 2024 at 10:00 AM Tom <t@x.com> wrote:" and kin.
_ADDR = r"\(?<?(?P<addr>[^<>()\s]+@[^<>()\s]+|<EMAIL_\d+>)>?\)?"
_WHO = r"(?:<[A-Z][A-Z_]*_\d+>|[^<>()])+?"  # a display name, or its placeholder
_WROTE_RES = (
    re.compile(
        rf"On\s+(?P<stamp>.+?{_TIME}|.+?\d{{4}}),?\s+(?P<speaker>{_WHO})\s*(?:{_ADDR})?\s*wrote:\s*",
        re.IGNORECASE,
    ),
    re.compile(
        rf"Am\s+(?P<stamp>.+?)\s+schrieb\s+(?P<speaker>{_WHO})\s*(?:{_ADDR})?\s*:\s*",
        re.IGNORECASE,
    ),
    re.compile(
        rf"(?:Le|El|Em)\s+(?P<stamp>.+?{_TIME}|.+?\d{{4}}),?\s+(?:(?P<speaker>{_WHO})\s*(?:{_ADDR})?"
        r"\s*)?(?:a\s+écrit|escribió|escribiste|escreveu|escreveste|as\s+écrit|avez\s+écrit)\s*:\s*",
        re.IGNORECASE,
    ),
)

# Words that end in a colon at a line start without being anyone's name ("Note: bring cake").
_NOT_SPEAKERS = frozenset(
    """note notes nb ps p.s p.p.s re fwd fw update reminder todo warning important agenda location
    time date when where what why who how address phone email e-mail tel mobile fax question
    answer q a tip fyi edit example summary total price cost venue menu tldr ingredients remember
    attendees link url password deadline status result reason goal task item option plan topic
    title meeting call event lunch dinner breakfast brunch pickup parking directions room floor
    budget details info news source context background problem solution issue bug fix step next
    action decision outcome notice attention caution hint idea thought quote day week morning
    afternoon evening tonight tomorrow today yesterday monday tuesday wednesday thursday friday
    saturday sunday first second third also and but so ok okay well yes no btw lol wait guys
    everyone all team reply response message comment feedback bonus error input output
    translation caption photo image video file attachment theme rsvp cc bcc to from sent
    subject re original forwarded p.s. hinweis achtung betreff datum uhrzeit ort wichtig notiz
    termin remarque objet lieu heure nota asunto fecha hora lugar importante assunto data local
    obs aviso ojo rappel recordatorio lembrete frage antwort pregunta respuesta pergunta resposta
    update edit warning welcome hi hello hey thanks cheers dear""".split()
)

# Words that start sentences, never names: "[10:02] the plan is: go" has no speaker.
_FUNCTION_WORDS = _NOT_SPEAKERS | frozenset(
    "the an my our your their his her its this that these those it i we you they there here "
    "is are was were be if in on at for with of as".split()
)
_PLACEHOLDER_LABEL_RE = re.compile(r"<(?:PERSON|PHONE|EMAIL)_\d+>(?:\s+<PERSON_\d+>)*")
_PHONE_LABEL_RE = re.compile(r"\+?\d[\d\s().\-]{5,}\d")


@dataclass(frozen=True)
class ThreadLine:
    """One non-blank line of a thread, with the offsets of its speaker, stamp and body."""

    kind: Literal["message", "header", "text"]
    start: int
    end: int
    speaker: str | None
    speaker_start: int | None
    speaker_end: int | None
    stamp: str | None
    stamp_start: int | None
    stamp_end: int | None
    field: str | None
    body_start: int
    body_end: int
    # Every display name of a From/To/Cc header as (name, start, end); `speaker` is the first.
    names: tuple[tuple[str, int, int], ...] = ()


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line, newline (and a trailing CR) excluded."""
    spans = []
    position = 0
    for raw in text.split("\n"):
        end = position + len(raw)
        spans.append((position, end - 1 if raw.endswith("\r") else end))
        position = end + 1
    return spans


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    """Offsets of text[start:end] without surrounding whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _is_name_label(label: str, seen: Counter[str]) -> bool:
    """Judge whether an unstamped "Label:" is a person, not a heading like "Note:"."""
    if _PLACEHOLDER_LABEL_RE.fullmatch(label.strip()):
        return True  # the redactor already found a person here
    words = label.split()
    if not words or len(words) > 4 or label.casefold().rstrip(".") in _NOT_SPEAKERS:
        return False
    if words[0].casefold().rstrip(".") in _NOT_SPEAKERS and len(words) > 1:
        return False
    # "Action items:" is a heading: every word of a name is capitalised, bar particles.
    capitalised = all(w[0].isupper() or w.casefold() in _PARTICLES for w in words)
    if capitalised and words[0][0].isupper():
        return True
    # A lower-case label ("tom:") counts in a chat: used twice, or among other labelled lines.
    own = seen[label.casefold()]
    return own >= 2 or (own >= 1 and sum(seen.values()) - own >= 2)


def _is_stamped_label(label: str) -> bool:
    """A label after a stamp: a name in any case, a saved-contact-less number, not "the plan"."""
    label = label.lstrip("~\u202f\u200e ").strip()
    if _PHONE_LABEL_RE.fullmatch(label) or _PLACEHOLDER_LABEL_RE.fullmatch(label):
        return True
    label = re.sub(r"[^\w.'’\-]+$", "", label)  # "Mom ❤️": emoji after a contact name
    words = label.split()
    if not _NAME_RE.fullmatch(label) or not words:
        return False
    if label.casefold() in _NOT_SPEAKERS or words[0].casefold() in _FUNCTION_WORDS:
        return False
    lower = [w for w in words if not w[0].isupper() and w.casefold() not in _PARTICLES]
    return not lower or len(words) <= 2


def _text_line(start: int, end: int, text: str) -> ThreadLine:
    body_start, body_end = _stripped(text, start, end)
    return ThreadLine("text", start, end, None, None, None, None, None, None, None,
                      body_start, body_end)  # fmt: skip


def _message(
    text: str, start: int, end: int, stamp: tuple[int, int] | None,
    speaker: tuple[int, int] | None, body_start: int,
) -> ThreadLine:  # fmt: skip
    """A message line from the offsets of its parts (speaker without a leading "~ ")."""
    name = None
    if speaker is not None:
        s_start, s_end = _stripped(text, *speaker)
        while s_start < s_end and text[s_start] in "~\u202f\u200e@ ":
            s_start += 1
        speaker = (s_start, s_end) if s_start < s_end else None
        name = text[s_start:s_end] if speaker else None
    if stamp is not None:
        stamp = _stripped(text, *stamp)
    b_start, b_end = _stripped(text, body_start, end)
    return ThreadLine(
        "message", start, end, name,
        speaker[0] if speaker else None, speaker[1] if speaker else None,
        text[stamp[0]:stamp[1]] if stamp else None,
        stamp[0] if stamp else None, stamp[1] if stamp else None,
        None, b_start, b_end,
    )  # fmt: skip


def _split_addresses(value: str, offset: int) -> list[tuple[str, int, int]]:
    """Display names of an address list: "Tom Baker <t@x.com>; \"Lee, Ann\" <a@x.com>"."""
    names = []
    # Entries end at a separator after an address; without addresses, at any separator.
    has_address = bool(re.search(r"<[^>]*>|\[mailto:|\([^)]*@", value))
    separator = r"(?<=[>\])])\s*[,;]" if has_address else r"[,;]"
    position = 0
    for part in [*re.split(separator, value), None]:
        if part is None:
            break
        local = value.find(part, position)
        position = local + len(part)
        name_part = re.sub(r"<[^>]*>|\[mailto:[^\]]*\]|\([^)]*@[^)]*\)", "", part)
        match = re.search(r"[^\s\"',;]", name_part)
        if not match:
            continue
        name_end = len(name_part.rstrip(" \t\"',;"))
        name = name_part[match.start() : name_end]
        if _EMAIL_RE.fullmatch(name) or not re.search(r"[^\W\d_]", name):
            continue
        names.append((name, offset + local + match.start(), offset + local + name_end))
    return names


def _header(text: str, start: int, end: int) -> ThreadLine | None:
    """An e-mail header or reply attribution line, or None."""
    line = text[start:end]
    for pattern in _WROTE_RES:
        match = pattern.fullmatch(line)
        if match:
            t0, t1 = _stripped(text, start + match.start("stamp"), start + match.end("stamp"))
            if match.group("speaker") is None:  # "El lun, 3 ago 2026 a las 18:20, escribiste:"
                return ThreadLine("header", start, end, None, None, None, text[t0:t1], t0, t1,
                                  "wrote", start, end)  # fmt: skip
            s0, s1 = _stripped(text, start + match.start("speaker"), start + match.end("speaker"))
            return ThreadLine("header", start, end, text[s0:s1], s0, s1, text[t0:t1], t0, t1,
                              "wrote", start, end, ((text[s0:s1], s0, s1),))  # fmt: skip
    match = _HEADER_RE.fullmatch(line.lstrip("\u200e\ufeff"))
    if not match:
        return None
    shift = start + len(line) - len(line.lstrip("\u200e\ufeff"))
    field = _HEADER_FIELDS[match.group("name").casefold()]
    v_start, v_end = _stripped(text, shift + match.start("value"), shift + match.end("value"))
    names: tuple[tuple[str, int, int], ...] = ()
    stamp = None
    if field in _ADDRESS_FIELDS:
        names = tuple(_split_addresses(text[v_start:v_end], v_start))
    elif field in ("sent", "date"):
        stamp = (v_start, v_end)
    first = names[0] if names else (None, None, None)
    return ThreadLine(
        "header", start, end, first[0], first[1], first[2],
        text[stamp[0]:stamp[1]] if stamp else None,
        stamp[0] if stamp else None, stamp[1] if stamp else None,
        field, v_start, v_end, names,
    )  # fmt: skip


def _is_header_block(block: list[ThreadLine]) -> bool:
    """Header lines count only in an e-mail-like block, so "Date: Friday at 3" stays text."""
    fields = {h.field for h in block}
    # "Sent:" is only ever a mail client's label: alone it is still metadata, never an event time
    if fields & {"wrote", "sent"}:
        return True
    if len(block) >= 2 and fields & {"from", "to", "cc"}:
        return True
    return any(h.field == "from" and h.names for h in block) and len(block) == 1


def _stamped(text: str, start: int, end: int, stamp: tuple[int, int], rest: int) -> ThreadLine:
    """A line with a stamp, then a label ("Priya: hi") or a system message without one."""
    label = _STAMPED_LABEL_RE.match(text, rest, end)
    if label and _is_stamped_label(label.group("speaker")):
        return _message(text, start, end, stamp, (rest, label.end("speaker")), label.end())
    return _message(text, start, end, stamp, None, rest)


def _chat_line(
    text: str, start: int, end: int, seen: Counter[str], next_line: tuple[int, int] | None
) -> ThreadLine | None:
    """A chat message line in any of the supported styles, or None for plain text."""
    head_end = min(end, start + 300)  # labels sit at the line start; bounds regex work
    for pattern in (_WHATSAPP_RE, _BRACKET_RE):
        match = pattern.match(text, start, head_end)
        if match:
            stamp = (match.start("stamp"), match.end("stamp"))
            return _stamped(text, start, end, stamp, match.start("rest"))
    match = _TIME_PREFIX_RE.match(text, start, head_end)
    if match:
        label = _PLAIN_LABEL_RE.match(text, match.start("rest"), head_end)
        if label and label.group("speaker").casefold() not in _NOT_SPEAKERS:
            stamp = (match.start("stamp"), match.end("stamp"))
            speaker = (label.start("speaker"), label.end("speaker"))
            return _message(text, start, end, stamp, speaker, label.end())
    match = _NAME_STAMP_RE.fullmatch(text, start, end)
    if match and next_line is not None and _is_name_label(match.group("speaker"), seen):
        # "John 3:16" is a verse: one word, one space, a bare time is not a Slack header.
        roomy = match.group("open") or len(match.group("gap")) >= 2 or "," in match.group("gap")
        if roomy or (len(match.group("speaker").split()) >= 2 and re.search(
                r"[ap]\.?m\.?\s*$", match.group("stamp"), re.IGNORECASE)):  # fmt: skip
            stamp = (match.start("stamp"), match.end("stamp"))
            speaker = (match.start("speaker"), match.end("speaker"))
            return _message(text, start, end, stamp, speaker, end)
    match = _PLAIN_LABEL_RE.match(text, start, head_end)
    if match and _is_name_label(match.group("speaker"), seen):
        speaker = (match.start("speaker"), match.end("speaker"))
        return _message(text, start, end, None, speaker, match.end())
    # iMessage/Slack copy: a name alone on its line, then a time alone on the next.
    if next_line is not None and _TIME_LINE_RE.fullmatch(text, *next_line):
        s_start, s_end = _stripped(text, start, end)
        name = text[s_start:s_end]
        if _NAME_RE.fullmatch(name) and _is_name_label(name, seen):
            t_start, t_end = _stripped(text, *next_line)
            t_start += len(re.match(r"(?:(?:today|yesterday)\s+at\s+)?", text[t_start:t_end],
                                    re.IGNORECASE).group(0))  # fmt: skip
            line = _message(text, start, next_line[1], (t_start, t_end), (s_start, s_end), end)
            return replace(line, body_start=next_line[1], body_end=next_line[1])
    return None


def _label_counts(text: str, lines: list[tuple[int, int]]) -> Counter[str]:
    """How often each "label:" starts a line: a repeated lower-case label is a chat speaker."""
    seen: Counter[str] = Counter()
    for start, end in lines:
        match = _PLAIN_LABEL_RE.match(text, start, min(end, start + 80))
        if match:
            seen[match.group("speaker").casefold()] += 1
    return seen


def split_thread(text: str) -> list[ThreadLine]:
    """Every non-blank line of `text` as a chat message, an e-mail header or plain text."""
    lines = [(s, e) for s, e in _lines(text) if text[s:e].strip()]
    seen = _label_counts(text, lines)
    headers = [_header(text, s, e) for s, e in lines]
    # Header lines only count inside an e-mail-like block of consecutive header lines.
    accepted: set[int] = set()
    index = 0
    while index < len(lines):
        if headers[index] is None:
            index += 1
            continue
        block_end = index
        while block_end + 1 < len(lines) and headers[block_end + 1] is not None:
            block_end += 1
        block = [h for h in headers[index : block_end + 1] if h is not None]
        if _is_header_block(block):
            accepted.update(range(index, block_end + 1))
        index = block_end + 1
    result: list[ThreadLine] = []
    skip_to = -1
    for index, (start, end) in enumerate(lines):
        if index <= skip_to:
            continue
        header = headers[index]
        if header is not None and index in accepted:
            result.append(header)
            continue
        next_line = lines[index + 1] if index + 1 < len(lines) else None
        line = _chat_line(text, start, end, seen, next_line)
        if line is None:
            result.append(_text_line(start, end, text))
            continue
        if line.end > end:  # a name line merged with the time line under it
            skip_to = index + 1
        result.append(line)
    return result
