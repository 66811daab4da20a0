"""The message model: any pasted chat, e-mail or screenshot text as lines and messages.

Who spoke, when it was sent (metadata), how deeply it is quoted, whether it was forwarded, and
what was said. Privacy reads the speaker labels (names the stock model never sees as such); the
time parser reads the stamps (they anchor "tomorrow", never become event times) and only the
bodies; the linker reads the order of messages. Export formats are rows of
`lang/data/formats.toml`, field labels rows of `lang/data/labels.toml`: this module is the only
code that knows them, and it imports no other Veil package.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Literal

from lang import data
from lang.activities import names_event

_FORMATS = data.table("formats")
_TIME = data.part("TIME")
_STAMP = data.part("STAMP")
STAMP_RE = re.compile(rf"\s*{_STAMP}\s*", re.IGNORECASE)
_TIME_LINE_RE = data.format_pattern(_FORMATS["label"]["time_line"])
_NAME = data.part("NAME")
_NAME_RE = re.compile(_NAME)
_PARTICLES = data.words("labels", "name_particles")

# Chat exports: (row name, compiled pattern, how the rest of the line is read).
_CHAT_ROWS = tuple(
    (row["name"], data.format_pattern(row["pattern"]), row["then"]) for row in _FORMATS["chat"]
)
_STAMPED_LABEL_RE = data.format_pattern(_FORMATS["label"]["stamped"])
_PLAIN_LABEL_RE = re.compile(data.expand(_FORMATS["label"]["plain"], data.format_parts()))

_HEADER_FIELDS = {
    alias: name for name, aliases in _FORMATS["header_fields"].items() for alias in aliases
}
_HEADER_RE = re.compile(
    r"(?P<name>"
    + "|".join(sorted(map(re.escape, _HEADER_FIELDS), key=len, reverse=True))
    + r")[ \t]*:[ \t]*(?P<value>.*)",
    re.IGNORECASE,
)
_ADDRESS_FIELDS = frozenset({"from", "to", "cc", "bcc", "reply-to"})
_SENDER_SENT_RE = data.format_pattern(_FORMATS["sender_sent"]["pattern"])
_WEBMAIL_ROWS = tuple(
    (row["field"], data.format_pattern(row["pattern"])) for row in _FORMATS["webmail"]
)
_EMAIL_RE = re.compile(r"[\w.+'-]+@[\w-]+(?:\.[\w-]+)+")
_WROTE_RES = tuple(data.format_pattern(row["pattern"]) for row in _FORMATS["attribution"])
_SEPARATORS = tuple(
    (row["name"], data.format_pattern(row["pattern"]), row["opens"])
    for row in _FORMATS["separator"]
)
_STATUS_RES = tuple(
    (row["name"], data.format_pattern(row["pattern"])) for row in _FORMATS["status"]
)
_DIVIDER_RE = data.format_pattern(_FORMATS["divider"]["pattern"])
# Links run together inside a line ("Need to make a change? Modify · Cancel"): joined by the
# dots and bars pages use, which no one types between words they mean.
BUTTONS_RE = data.format_pattern(r"(?<!\w){BUTTON}(?:[ \t]*[·|•][ \t]*{BUTTON}){1,6}(?!\w)")
_QUOTE_RE = re.compile(_FORMATS["quote"]["marks"])
_CLOCK_RE = re.compile(_TIME, re.IGNORECASE)

# A chat template's turn names ("SYSTEM:", "User:") label no person of the thread.
CHAT_ROLES = data.words("labels", "chat_roles")
TURN_LABELS = CHAT_ROLES | data.words("labels", "turn_labels")
ORDER_FILLERS = data.words("labels", "order_fillers")
TURN_WORDS = data.words("labels", "turn_words")
TURN_WORD_LINKS = data.words("labels", "turn_word_links")
ADDRESSEE_LINKS = data.words("labels", "addressee_links")
# ... and the labels of a time that is no start ("Arrive: 14:05", times.toml [end_labels]).
_NOT_SPEAKERS = (
    data.words("labels", "field_labels") | TURN_LABELS | data.words("times", "end_labels")
)
# "Tracking ID:", "Order number:": a label whose last word is a form's (labels.toml).
_FIELD_ENDS = data.words("labels", "field_label_ends")
# Words that start sentences, never names: "[10:02] the plan is: go" has no speaker.
_FUNCTION_WORDS = _NOT_SPEAKERS | data.words("labels", "function_words")
# Labels that stand for the user ("Me:", "Moi :").
SELF_SPEAKERS = data.words("labels", "self_speakers")
# A clock with a zero-led hour ("09:20", "06h45"): 24-hour, so a morning, and a stamp's,
# never a verse's "3:16".
ZERO_LED_CLOCK_RE = re.compile(r"(?<!\d)0\d[:.h]\d{2}", re.IGNORECASE)
# What a label says of its speaker in parentheses: "Aiko (Tokyo):", "Mike (NY):".
_SPEAKER_NOTE_RE = re.compile(r"\s*\((?P<note>[^()\n:]{1,40})\)\s*:")
_CALENDAR_WORDS = data.words("labels", "calendar_words")
_HEADER_CLOCK_RE = data.format_pattern("{TIME}")
_PLACEHOLDER_LABEL_RE = re.compile(r"<(?:PERSON|PHONE|EMAIL)_\d+>(?:,?\s+<PERSON_\d+>)*")
_PHONE_LABEL_RE = re.compile(r"\+?\d[\d\s().\-]{5,}\d")

Block = Literal["reply", "original", "forwarded"]


@dataclass(frozen=True)
class ThreadLine:
    """One non-blank line of a thread, with the offsets of its speaker, stamp and body.

    `kind` "meta" is client chrome or a separator (a read receipt, a date divider, "-----
    Original Message-----"): never anything a person said, so its body is empty. `quote_depth`
    counts quote marks and the original messages the line sits under (older is deeper);
    `block` says whether it is the newest reply, a quoted original or a forwarded message.
    """

    kind: Literal["message", "header", "text", "meta"]
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
    quote_depth: int = 0
    block: Block = "reply"


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


def _field_label(label: str, seen: Counter[str]) -> bool:
    """A field's label, or outside a chat its plural ("Questions:" beside "question"; in a
    chat with "Me:", "Gates:" is someone)."""
    word = label.casefold().rstrip(".")
    if word in _NOT_SPEAKERS:
        return True
    return word.endswith("s") and word[:-1] in _NOT_SPEAKERS and not _chatting(seen)


def _chatting(seen: Counter[str]) -> bool:
    """Whether the labels include the user's ("Me:") or a person the redactor found."""
    return any(is_self(label) or _PLACEHOLDER_LABEL_RE.fullmatch(label.upper()) for label in seen)


def _is_name_label(label: str, seen: Counter[str]) -> bool:
    """Judge whether an unstamped "Label:" is a person, not a heading like "Note:"."""
    if _PLACEHOLDER_LABEL_RE.fullmatch(label.strip()):
        return True  # the redactor already found a person here
    words = label.split()
    if not words or len(words) > 4 or _field_label(label, seen):
        return False
    if label.casefold() in getattr(seen, "sections", ()):
        return False  # "MUSIC:" among a bulletin's other sections
    if words[0].casefold().rstrip(".") in _NOT_SPEAKERS and len(words) > 1:
        return False
    if len(words) > 1 and words[-1].casefold() in _FIELD_ENDS and not _chatting(seen):
        return False  # "Tracking ID:", "Amount paid:": a form's field ("Koa New Number:" in a
        # chat beside "Me:" is a contact saved with a word after the name)
    # "Action items:" is a heading: every word of a name is capitalised, bar particles.
    capitalised = all(w[0].isupper() or w.casefold() in _PARTICLES for w in words)
    if capitalised and words[0][0].isupper():
        # "Winter Concert: Thursday 17 December": a notice's heading names its event; a
        # speaker's label recurs ("Doris Day:" twice in a chat is someone)
        return seen[label.casefold()] >= 2 or not names_event(label)
    # A lower-case label ("tom:") counts in a chat: used twice, or among other labelled lines;
    # a mixed-case one that is not all capitalised is a heading ("Created event:").
    if not label.islower():
        return False
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


# A Lotus Notes address: the name, then its units and organisation ("Sally Beck/HOU/ECT@ECT").
_NOTES_ADDRESS_RE = re.compile(r"(?P<name>[^/@<>]+?)(?:/[\w&.\-]+)+(?:@[\w.\-]+)?\s*$")


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
        # an address goes; a person the redactor already found ("<PERSON_1> <EMAIL_1>") stays
        name_part = re.sub(
            r"<+(?!PERSON_\d+>)[^<>]*>+|\[mailto:[^\]]*\]|\([^)]*@[^)]*\)", "", part
        )  # ("<<EMAIL_1>>": an address in brackets, redacted)
        match = re.search(r"[^\s\"',;]", name_part)
        if not match:
            continue
        name_end = len(name_part.rstrip(" \t\"',;"))
        notes = _NOTES_ADDRESS_RE.match(name_part, match.start(), name_end)
        if notes:  # Lotus Notes: "Sally Beck/HOU/ECT@ECT" is Sally Beck of unit HOU, org ECT
            name_end = notes.end("name")
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
    shift = start + len(line) - len(line.lstrip("\u200e\ufeff"))
    match = _HEADER_RE.fullmatch(line.lstrip("\u200e\ufeff"))
    if match:
        field = _HEADER_FIELDS[match.group("name").casefold()]
    else:  # a webmail copy's unlabelled header line
        field, match = next(
            ((f, m) for f, p in _WEBMAIL_ROWS if (m := p.fullmatch(line.lstrip("\u200e\ufeff")))),
            (None, None),
        )
    if field is None or match is None:
        return None
    v_start, v_end = _stripped(text, shift + match.start("value"), shift + match.end("value"))
    names: tuple[tuple[str, int, int], ...] = ()
    stamp = None
    sent_on = _SENDER_SENT_RE.fullmatch(text, v_start, v_end) if field == "from" else None
    if sent_on:  # "Patti Thompson on 03/01/2001 04:32 PM": a name and when it was sent
        n0, n1 = _stripped(text, sent_on.start("name"), sent_on.end("name"))
        names, stamp = ((text[n0:n1], n0, n1),), sent_on.span("stamp")
    elif field in _ADDRESS_FIELDS:
        names = tuple(_split_addresses(text[v_start:v_end], v_start))
    elif field in ("sent", "sent_alone", "date"):
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


_DAY_STAMP_RE = data.format_pattern(r"\b{DAY}(?!\w)|\d{1,2}[/.]\d{1,2}")


def _names_a_day(label: str) -> bool:
    """Whether a label is made only of day and month words ("Mon, Dec 7", "Tuesday, March")."""
    return all(w.casefold().strip(".,") in _CALENDAR_WORDS for w in label.split())


def _header_shaped(text: str, line: tuple[int, int] | None) -> bool:
    """Whether a line has the shape of a chat header ("Name  10:02"), whoever it names; a date
    line ("Tuesday, March 3") is a divider, not one."""
    if line is None:
        return False
    for _name, pattern, then in _CHAT_ROWS:
        match = pattern.fullmatch(text, *line) if then == "header" else None
        if match and not _names_a_day(match.group("speaker")):
            return True
    return False


def _chat_line(
    text: str, start: int, end: int, seen: Counter[str], next_line: tuple[int, int] | None,
    previous: tuple[int, int] | None = None,
) -> ThreadLine | None:  # fmt: skip
    """A chat message line in any of the export formats of formats.toml, or None for text."""
    head_end = min(end, start + 300)  # labels sit at the line start; bounds regex work
    # A header opens a message written below it: a run of header-shaped lines whose stamps
    # name days is a timetable ("HIIT - Mon 6am" / "Spin - Sat 8:30am"); a chat copy's stamps
    # are clocks ("Priya Patel  10:02 AM" above "Team Lunch Friday 12:30 PM")
    listed = _header_shaped(text, previous) or _header_shaped(text, next_line)
    for _name, pattern, then in _CHAT_ROWS:
        if then == "header":
            match = pattern.fullmatch(text, start, end)
            timetable = listed and match is not None and _DAY_STAMP_RE.search(match.group("stamp"))
            if match and next_line is not None and not timetable and _is_name_header(match, seen):
                stamp = (match.start("stamp"), match.end("stamp"))
                speaker = (match.start("speaker"), match.end("speaker"))
                return _message(text, start, end, stamp, speaker, end)
            continue
        match = pattern.match(text, start, head_end)
        if not match:
            continue
        stamp = (match.start("stamp"), match.end("stamp"))
        if then == "named":  # the speaker, then the stamp, then the body
            if match.group("speaker").casefold() in _NOT_SPEAKERS:
                continue
            speaker = (match.start("speaker"), match.end("speaker"))
            return _message(text, start, end, stamp, speaker, match.start("rest"))
        if then == "stamped":
            return _stamped(text, start, end, stamp, match.start("rest"))
        label = _PLAIN_LABEL_RE.match(text, match.start("rest"), head_end)
        if label and label.group("speaker").casefold() not in _NOT_SPEAKERS:
            speaker = (label.start("speaker"), label.end("speaker"))
            return _message(text, start, end, stamp, speaker, label.end())
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


def _is_name_header(match: re.Match[str], seen: Counter[str]) -> bool:
    """ "Dana Whit  10:02", "Schmidt, Lena 09:14" and "You 09:20" open a message; "John 3:16"
    (one word, one space) is a verse, and
    "Mon, Dec 7" (a name made only of day and month words, a stamp with no clock) a date line."""
    speaker = match.group("speaker")
    # Discord's "zed — Today at 09:12": a long dash before the stamp, which no one types in
    # a chat line, lets a username in any case through
    dashed = any(dash in match.group("gap") for dash in "—–") and _is_stamped_label(speaker)
    named = _is_name_label(speaker, seen) or dashed
    if not named or not _HEADER_CLOCK_RE.search(match.group("stamp")):
        return False
    if _names_a_day(speaker):
        return False
    roomy = (
        match.group("open")
        or len(match.group("gap")) >= 2
        or "," in match.group("gap")
        or "," in speaker  # "Schmidt, Lena 09:14": a surname first, as Teams writes it
        # "You 09:20", "<PERSON_1> 09:33": the user, or someone the redactor found, over a stamp
        or (
            (is_self(speaker) or _PLACEHOLDER_LABEL_RE.fullmatch(speaker))
            and ZERO_LED_CLOCK_RE.match(match.group("stamp"))
        )
    )
    return bool(roomy) or (
        # "Sam Kim 11:31 AM", as the redacted text says it: "<PERSON_2> 11:31 AM"
        (len(speaker.split()) >= 2 or _PLACEHOLDER_LABEL_RE.fullmatch(speaker) is not None)
        and re.search(r"[ap]\.?m\.?\s*$", match.group("stamp"), re.IGNORECASE) is not None
    )


def _meta(text: str, start: int, end: int, kind: str, match: re.Match[str] | None = None
          ) -> ThreadLine:  # fmt: skip
    """Client chrome or a separator: metadata only; a Lotus forwarder keeps name and stamp."""
    speaker = stamp = (None, None)
    if match is not None and "speaker" in match.re.groupindex and match.group("speaker"):
        speaker = _stripped(text, match.start("speaker"), match.end("speaker"))
    if match is not None and "stamp" in match.re.groupindex and match.group("stamp"):
        stamp = _stripped(text, match.start("stamp"), match.end("stamp"))
    return ThreadLine(
        "meta", start, end,
        text[speaker[0]:speaker[1]] if speaker[0] is not None else None, speaker[0], speaker[1],
        text[stamp[0]:stamp[1]] if stamp[0] is not None else None, stamp[0], stamp[1],
        kind, end, end,
    )  # fmt: skip


def _separator(text: str, start: int, end: int) -> tuple[ThreadLine, Block] | None:
    """ "-----Original Message-----" and kin: the line, and the block it opens."""
    if end - start > 200:
        return None
    for name, pattern, opens in _SEPARATORS:
        match = pattern.fullmatch(text, start, end)
        if match:
            return _meta(text, start, end, name, match), opens  # type: ignore[return-value]
    return None


def _status(text: str, start: int, end: int) -> ThreadLine | None:
    """A read receipt or an app label ("Delivered", "Read 10:02", "iMessage")."""
    if end - start > 120:
        return None
    for name, pattern in _STATUS_RES:
        if pattern.fullmatch(text, start, end):
            return _meta(text, start, end, name)
    return None


class _Labels(Counter[str]):
    """How often each "label:" starts a line, and the capitals a bulletin's sections are in."""

    sections: frozenset[str] = frozenset()


def _label_counts(text: str, lines: list[tuple[int, int]]) -> _Labels:
    """How often each "label:" starts a line: a repeated lower-case label is a chat speaker.
    Three or more labels in capitals, each said once, head a bulletin's sections ("ATHLETICS:",
    "CLUBS:", "MUSIC:"): people in a chat speak more than once."""
    seen = _Labels()
    capitals = []
    for start, end in lines:
        match = _PLAIN_LABEL_RE.match(text, start, min(end, start + 80))
        if match:
            seen[match.group("speaker").casefold()] += 1
            if match.group("speaker").isupper():
                capitals.append(match.group("speaker").casefold())
    once = frozenset(c for c in capitals if seen[c] == 1)
    seen.sections = once if len(once) >= 3 else frozenset()
    return seen


def split_thread(text: str, *, screen: bool = False) -> list[ThreadLine]:
    """Every non-blank line of `text` as a chat message, an e-mail header, text or metadata.

    `screen`: the text was read off a screenshot, where a stamp alone on a line is always the
    app's (a status bar, a date divider), since bubbles carry no labels to tell them apart.
    """
    lines = [(s, e) for s, e in _lines(text) if text[s:e].strip()]
    marks = [_QUOTE_RE.match(text, s, e) for s, e in lines]
    depths = [m.group(0).count(">") if m else 0 for m in marks]
    content = [(m.end() if m else s, e) for m, (s, e) in zip(marks, lines, strict=True)]
    seen = _label_counts(text, content)
    headers = [_header(text, s, e) for s, e in content]
    accepted = _header_blocks(lines, headers)
    result: list[ThreadLine] = []
    nest, block = 0, "reply"
    after_content = False  # a header block below what someone wrote quotes an older mail
    skip_to = -1
    for index, (start, end) in enumerate(content):
        if index <= skip_to:
            continue
        line_start = lines[index][0]
        next_line = content[index + 1] if index + 1 < len(content) else None
        separator = _separator(text, start, end)
        if separator is not None:
            line, opens = separator
            if opens == "original":
                nest += 1
            block = opens
            after_content = False
            result.append(replace(line, start=line_start, quote_depth=depths[index] + nest,
                                  block=block))  # fmt: skip
            continue
        header = headers[index]
        if header is not None and header.field == "sent_alone":
            header = replace(header, field="sent")
        if header is not None and index in accepted:
            if (
                header.field != "wrote"
                and after_content
                and index in accepted.block_starts
                and _HEADER_RE.fullmatch(text[start:end].lstrip("\u200e\ufeff"))
            ):  # a labelled block under a reply quotes; a webmail one opens the next message
                nest, block = nest + 1, "original"
            after_content = False
            result.append(replace(header, start=line_start, quote_depth=depths[index] + nest,
                                  block=block))  # fmt: skip
            if header.field == "wrote":
                nest, block = nest + 1, "original"
            continue
        line = _status(text, start, end)
        if line is None:
            previous = content[index - 1] if index else None
            line = _chat_line(text, start, end, seen, next_line, previous)
        if line is None and _DIVIDER_RE.fullmatch(text, start, end):
            # In a paste, only a day alone between two messages is a divider: a clock time
            # alone may be the rest of a message ("when?" / "Friday at 3pm").
            after = content[index + 2] if index + 2 < len(content) else None
            following = _chat_line(text, *next_line, seen, after) if next_line is not None else None
            dated = _CLOCK_RE.search(text, start, end) is None
            # ... or a stamp on the paste's first line, over a labelled message ("Today 9:41 AM")
            top = not result
            if screen or ((dated or top) and following is not None and following.kind == "message"):
                line = _meta(text, start, end, "divider", None)
                line = replace(line, stamp=text[start:end].strip(), stamp_start=start,
                               stamp_end=end)  # fmt: skip
        if line is None:
            line = _text_line(start, end, text)
        if line.end > end:  # a name line merged with the time line under it
            skip_to = index + 1
        if line.kind in ("message", "text"):
            after_content = True
        result.append(replace(line, start=line_start, quote_depth=depths[index] + nest,
                              block=block))  # fmt: skip
    return _unstamped_as_text(text, result)


def _unstamped_as_text(text: str, lines: list[ThreadLine]) -> list[ThreadLine]:
    """An export stamps every message it holds, so in one (two or more stamped messages) a
    labelled line with no stamp below a stamped message is a line of that message: "Me:
    yes, confirmed" typed into someone else's message is their text, not the user's word."""
    stamped = [i for i, line in enumerate(lines) if line.kind == "message" and line.stamp]
    if len(stamped) < 2:
        return lines
    for index in range(stamped[0] + 1, len(lines)):
        line = lines[index]
        if line.kind == "message" and not line.stamp and line.speaker_start is not None:
            lines[index] = replace(
                _text_line(line.speaker_start, line.end, text),
                start=line.start, quote_depth=line.quote_depth, block=line.block,
            )  # fmt: skip
    return lines


class _Accepted(set[int]):
    """Line indexes inside accepted header blocks, and where each block starts."""

    block_starts: set[int]


def _header_blocks(lines: list[tuple[int, int]], headers: list[ThreadLine | None]) -> _Accepted:
    """Header lines only count inside an e-mail-like block of consecutive header lines."""
    accepted = _Accepted()
    accepted.block_starts = set()
    index = 0
    while index < len(lines):
        if headers[index] is None:
            index += 1
            continue
        block_end = index
        while block_end + 1 < len(lines) and headers[block_end + 1] is not None:
            block_end += 1
        block = [h for h in headers[index : block_end + 1] if h is not None]
        lone = [i for i in range(index, block_end + 1) if headers[i].field == "sent_alone"]  # type: ignore[union-attr]
        if lone and not {"from", "to"} <= {h.field for h in block}:
            for i in lone:  # a stamp alone on its line, with no sender and recipients round it
                headers[i] = None
            continue  # the block again without it
        if _is_header_block(block):
            accepted.update(range(index, block_end + 1))
            accepted.block_starts.add(index)
        index = block_end + 1
    return accepted


@dataclass(frozen=True)
class Message:
    """One message: who sent it and when (metadata), and the lines that say something.

    `stamp` is its sent time as written, a date divider above a bare clock stamp joined in
    ("Tuesday, March 3" + "10:02"), so relative dates anchor at this message's own time.
    """

    index: int
    speaker: str | None
    stamp: str | None
    quote_depth: int
    block: Block
    lines: tuple[ThreadLine, ...]
    metadata: tuple[ThreadLine, ...] = field(default=())

    @property
    def quoted(self) -> bool:
        """Written before the reply it sits in: quoted with marks or under an attribution."""
        return self.quote_depth > 0

    def body(self, text: str) -> str:
        """What the message says, its lines joined, quote marks and metadata left out."""
        return "\n".join(
            text[line.body_start : line.body_end]
            for line in self.lines
            if line.body_end > line.body_start
        )


_DATE_ONLY_RE = re.compile(rf"\s*(?:{data.part('DAY')},?\s+)?(?:{data.part('DATE')})?\s*",
                           re.IGNORECASE)  # fmt: skip
_TIME_ONLY_RE = re.compile(rf"\s*{_TIME}\s*", re.IGNORECASE)


def is_self(speaker: str | None) -> bool:
    """Whether a speaker label stands for the user ("Me", "moi")."""
    return bool(speaker) and speaker.strip().casefold() in SELF_SPEAKERS


def age_order(message: Message) -> tuple[int, int, int]:
    """A sort key that puts messages oldest first: quoted originals before the reply (">>" was
    written before ">"), page order among the rest (a chat's)."""
    if message.quoted:
        return (0, -message.quote_depth, message.index)
    return (1, 0, message.index)


def speaker_note(text: str, message: Message) -> str | None:
    """What the message's label says of its speaker in parentheses ("Aiko (Tokyo):" gives
    "Tokyo"), or None."""
    first = message.lines[0] if message.lines else None
    if first is None or first.speaker_end is None:
        return None
    note = _SPEAKER_NOTE_RE.match(text, first.speaker_end, first.body_start)
    return note.group("note").strip() if note else None


def messages(text: str, *, screen: bool = False) -> list[Message]:
    """`text` grouped into messages in the order written on the page (newest mail first)."""
    found: list[Message] = []
    pending: list[ThreadLine] = []  # metadata that opens the next message
    divider: str | None = None  # the day a divider set: "Tuesday, March 3"
    shown: str | None = None  # a divider with a clock time: "Today 9:41 AM"
    current: dict | None = None

    def close() -> None:
        nonlocal current
        if current is not None and (current["lines"] or current["metadata"]):
            found.append(Message(len(found), current["speaker"], current["stamp"],
                                 current["depth"], current["block"], tuple(current["lines"]),
                                 tuple(current["metadata"])))  # fmt: skip
        current = None

    def open_(line: ThreadLine, speaker: str | None, stamp: str | None) -> None:
        nonlocal current, pending, shown
        close()
        stamp, shown = stamp or shown, None
        if stamp and divider and _TIME_ONLY_RE.fullmatch(stamp):
            stamp = f"{divider} {stamp}"
        current = {"speaker": speaker, "stamp": stamp, "depth": line.quote_depth,
                   "block": line.block, "lines": [], "metadata": pending}  # fmt: skip
        pending = []

    for line in split_thread(text, screen=screen):
        if line.kind == "meta":
            if line.field == "divider" and line.stamp:
                if _DATE_ONLY_RE.fullmatch(line.stamp):
                    divider = line.stamp
                else:
                    shown = line.stamp
            if line.field in ("divider", "receipt", "client"):
                (current["metadata"] if current is not None else pending).append(line)
            else:  # a separator opens the message under it
                close()
                pending.append(line)
            continue
        if line.kind == "header":
            starts = current is None or current["lines"] or line.field == "wrote"
            if starts and line.field != "subject":
                if line.field == "wrote":
                    close()
                    pending.append(line)
                    continue
                open_(line, line.speaker, line.stamp)
            elif current is None:
                open_(line, None, None)
            if line.field == "subject":
                current["lines"].append(line)  # a subject is said by the sender
            else:
                current["metadata"].append(line)
                current["speaker"] = current["speaker"] or line.speaker
                current["stamp"] = current["stamp"] or line.stamp
            continue
        opens = line.kind == "message" and (line.speaker or line.stamp)
        if opens or current is None or line.quote_depth != current["depth"]:
            attribution = next((m for m in pending if m.field == "wrote"), None)
            speaker = line.speaker or (attribution.speaker if attribution else None)
            stamp = line.stamp or (attribution.stamp if attribution else None)
            open_(line, speaker, stamp)
        current["lines"].append(line)
    close()
    return found


_INLINE_QUOTE_RES = tuple(
    re.compile(rf"{re.escape(opening)}([^\n{re.escape(closing)}]+){re.escape(closing)}")
    for opening, closing in _FORMATS["quote"]["inline"]
)
_QUOTE_MIN_WORDS: int = _FORMATS["quote"]["inline_min_words"]
_EDGE_CHARS = " \t.,;:!?()[]-–—"


def speaks_for_a_recipient(text: str) -> bool:
    """Whether an e-mail's body holds a chat line in the name of one of its own recipients
    ("From: Felix / To: Clara / ... / Clara Jensen: confirmed, please add it."): a mail is
    written by its sender, so a recipient's line inside it is the sender's words passed off
    as the recipient's, as a forged "Me:" line is in a chat."""
    author: str | None = None
    recipients: set[str] = set()
    for line in split_thread(text):
        if line.kind == "header" and line.field == "from":
            author, recipients = (line.speaker or "").casefold(), set()
        elif line.kind == "header" and line.field in ("to", "cc"):
            recipients |= {name.casefold() for name, _, _ in line.names}
        elif (
            line.kind == "message" and author and line.quote_depth == 0
            and (line.speaker or "").casefold() in recipients - {author}
        ):  # fmt: skip
            return True
    return False


def reported_speech(text: str) -> list[tuple[int, int]]:
    """Spans of `text` that a message quotes from someone else ('my bot said "I've added Poker
    night on Saturday at 8pm"', 'the scam text said: "Your refund call is Thursday at 3pm"'):
    what another wrote, reported, never a plan of the thread. A quote that is the whole message
    is that message pasted with its marks, and stays."""
    spans: list[tuple[int, int]] = []
    for message in messages(text):
        for line in message.lines:
            body = text[line.body_start : line.body_end]
            for pattern in _INLINE_QUOTE_RES:
                for match in pattern.finditer(body):
                    if len(match.group(1).split()) < _QUOTE_MIN_WORDS:
                        continue  # a title: 'let's watch "Dune" at 8'
                    if not (body[: match.start()] + body[match.end() :]).strip(_EDGE_CHARS):
                        continue
                    spans.append((line.body_start + match.start(), line.body_start + match.end()))
    return sorted(spans)
