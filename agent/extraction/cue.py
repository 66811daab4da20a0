"""The words that say what a message does to an event: move it, cancel it, confirm it, offer
options, report free time rather than set a time. Patterns only; the rule linker reads them."""

from __future__ import annotations

import re

from lang import data
from lang.thread import BUTTONS_RE
from tools.calendar.lang import THANKED_FOR

RESCHEDULE_RE = re.compile(
    r"\b(?:actually|instead|make\s+it\s+(?:at\s+)?\d|move|moved|push(?:ed)?|change|changed|rather|how\s+about"
    r"|what\s+about|can\s+we\s+do|let'?s\s+do|better|prefer\w*|switch|shift|slide|reschedul\w*|postpone\w*"
    r"|bring\s+(?:it\s+)?forward|earlier|later|update[ds]?|delay(?:ed)?|verschieb\w*|lieber|stattdessen"
    r"|plutôt|finalement|décal\w*|repouss\w*|avanc\w*|mejor|mueve|mover|cambiar|cambia|pasar\w*"
    r"|adelant\w*|atras\w*|melhor|mudar|muda|passar|remarc\w*|adiar)\b",
    re.IGNORECASE,
)
# The plan is off; a reply that turns it down with no time of its own (lang/data/acts.toml).
_DECLINE_SELF_RE = data.phrase_pattern("acts", "decline_self")
_CANCEL_ONLY_RE = data.phrase_pattern("acts", "cancel")
_FILLER = data.phrases_alternation(data.phrases("acts", "decline_alone_fillers"))
_NO_ALONE = data.phrases_alternation(data.phrases("acts", "decline_alone"))
# A reply that is nothing but a "can't", fillers aside (acts.toml [decline_alone]).
_DECLINE_ALONE_RE = re.compile(
    rf"\A\W*(?:(?:{_FILLER})(?!\w)\W*)*(?:{_NO_ALONE})(?!\w)(?:\W*(?<!\w)(?:{_FILLER})(?!\w))*\W*\Z",
    re.IGNORECASE,
)


def declines_alone(text: str) -> bool:
    """Whether `text` is nothing but a "can't" ("no puedo, lo siento"): a no, not a notice."""
    return _DECLINE_ALONE_RE.search(text) is not None


_CANCEL_WORDS_RE = re.compile(
    rf"{_CANCEL_ONLY_RE.pattern}|{_DECLINE_SELF_RE.pattern}", re.IGNORECASE
)
# ... said at a sentence's start: "To cancel call ..." instructs; "I need to cancel" calls off.
_INSTRUCTION = data.phrase_pattern("acts", "cancel_instructions").pattern
_CANCEL_INSTRUCTION_RE = re.compile(
    rf"(?:(?:^|(?<=[.!?:;\n]))[ \t]*(?:please[ \t]+)?(?:{_INSTRUCTION})"
    # ... or a how-to verb before it in the sentence: "Reply C to cancel" (acts.toml)
    rf"|(?:^|(?<=[.!?:;,\n]))[ \t]*(?:please[ \t]+|simply[ \t]+|just[ \t]+)?"
    rf"(?:{data.alternation('acts', 'instruction_verbs')})\b[^.!?,;\n]{{0,40}}?(?:{_INSTRUCTION}))"
    r"[^.!?\n]*",  # to the sentence's end: "To cancel reply CANCEL."
    re.IGNORECASE,
)


_POSTPONE_WORDS_RE = data.phrase_pattern("acts", "postpone")
# A notice's question to its reader, with no subject, decides nothing: "Need to reschedule?",
# "Can't make it live?", "Unable to attend?" (a chat's "rain check?" proposes calling off).
_ASKED_OFF_RE = re.compile(
    r"(?:^|(?<=[.!?;\n]))[ \t]*(?:(?:need|want|wish)[ \t]+to[ \t]+(?:cancel|reschedule|postpone"
    r"|change|move|modify|make[ \t]+(?:a[ \t]+)?changes?)"
    r"|(?:can't|cannot|can not|unable to)[ \t]+(?:make[ \t]+it|attend|come|join))\b"
    r"[^.!?,;:\n–—-]{0,30}\?",  # one short question: "Can't make it, can we do Monday?" is no
    re.IGNORECASE,
)


def _instructions_blanked(text: str) -> str:
    """`text` with its instructions on how to cancel or move ("To cancel call ...", "If you
    need to reschedule, ...": acts.toml [cancel_instructions]) blanked out; offsets hold."""

    def blank(match: re.Match[str]) -> str:
        return " " * len(match.group(0))

    text = BUTTONS_RE.sub(blank, text)  # "Modify · Cancel": links
    return _ASKED_OFF_RE.sub(blank, _CANCEL_INSTRUCTION_RE.sub(blank, text))


def calls_off(text: str) -> re.Match[str] | None:
    """Where `text` calls a plan off (acts.toml [cancel]), instructions aside."""
    return _CANCEL_WORDS_RE.search(_instructions_blanked(text))


_NOTICE_CANCEL_RE = re.compile(
    rf"^\W*(?:{data.phrase_pattern('acts', 'cancel_notice').pattern})", re.IGNORECASE
)


def declines_only_self(text: str) -> bool:
    """Whether `text` turns a plan down for its speaker alone ("can't make it this time"),
    calling nothing else off (acts.toml [decline_self] and no [cancel] word)."""
    blanked = _instructions_blanked(text)
    return bool(_DECLINE_SELF_RE.search(blanked)) and not _CANCEL_ONLY_RE.search(
        _DECLINE_SELF_RE.sub(" ", blanked)
    )


REBOOKED_RE = data.phrase_pattern("acts", "rebooked")


# A notice's clause that says a plan will not be ("No 5:30 PM Saturday vigil on Dec. 26", "No
# school Monday"): "no" opening it, then neither a comma nor acts.toml [no_but] ("No problem").
NONE_NOTICE_RE = re.compile(
    rf"^\W*no[ \t]+(?!(?:{data.alternation('acts', 'no_but')})\b)(?=[\w<])", re.IGNORECASE
)


# A request for a journey's way back ("add the return trip", "the flight home") (times.toml).
RETURN_LEG_RE = data.word_pattern("times", "return_legs")


def cancel_notice(text: str) -> bool:
    """Whether `text` (a line, a subject) opens with a notice that what follows is called off
    ("Canceled: Sprint review", "Canceled a meeting")."""
    return bool(_NOTICE_CANCEL_RE.match(text))


def puts_off(text: str) -> re.Match[str] | None:
    """Where `text` puts a plan off (acts.toml [postpone]), instructions aside; only a message
    with no time of its own leaves the plan with no time."""
    return _POSTPONE_WORDS_RE.search(_instructions_blanked(text))


# "The second one please": a pick by place among offered times (acts.toml [ordinal_picks]).
_PICKS = [
    (int(place), data.phrases_regex(phrases))
    for table in data.table("acts")["ordinal_picks"].values()
    for place, phrases in table.items()
]


def picked_place(text: str) -> tuple[int, re.Match[str]] | None:
    """The place in a list of offered times a message picks (1 first, -1 last), and where."""
    for place, pattern in _PICKS:
        for found in pattern.finditer(text):
            if not text.startswith("-", found.end()):  # "my first one-on-one" picks nothing
                return place, found
    return None


DECLINE_RE = data.phrase_pattern("acts", "decline")
# "You're on the waitlist", "reply YES to claim it": times that wait for the user (acts.toml).
NOT_BOOKED_RE = data.phrase_pattern("acts", "not_booked")
DEFER_RE = data.phrase_pattern("acts", "defer")
DISMISS_RE = data.phrase_pattern("acts", "dismiss")
# "I have a 5pm that always runs over": a clock said as a booking the speaker has (acts.toml
# [have_a_clock]), a clause going on after it ("I have a 5pm start" is no booking).
HAVE_A_CLOCK_RE = re.compile(
    rf"{data.phrase_pattern('acts', 'have_a_clock').pattern}\s+$", re.IGNORECASE
)
BOOKING_ENDS_RE = re.compile(
    rf"\s*(?:[,;]|{data.word_pattern('acts', 'booking_goes_on').pattern})", re.IGNORECASE
)
# "same time tomorrow too?": a plan added, not the one said moved (acts.toml [also]).
ALSO_RE = data.phrase_pattern("acts", "also")
# "so I'm out all weekend": the speaker's times in that sentence are another plan (acts.toml).
AWAY_RE = data.phrase_pattern("acts", "away")
# A plan told of as past: "lunch 12-1 tuesday was fun", "thanks for lunch 11-6 friday"
# (acts.toml [recap_after], [recap_before]; the latter with one activity word before the time).
_RECAP_AFTER_RE = re.compile(
    rf"[ \t]*(?:{data.phrases_alternation(data.phrases('acts', 'recap_after'))})\b",
    re.IGNORECASE,
)
_RECAP_BEFORE_RE = re.compile(rf"{THANKED_FOR}(?:[^\W\d_]+[ \t]+)?$", re.IGNORECASE)


def told_as_past(text: str, start: int, end: int) -> bool:
    """Whether the time at text[start:end] is told of as past: a recap right after it, or a
    thanks or a "loved" right before the plan it times."""
    return bool(_RECAP_AFTER_RE.match(text, end) or _RECAP_BEFORE_RE.search(text, 0, start))


# "yes!", "sure, see you then": a reply that takes up the plan, said at its start (acts.toml).
ACCEPT_RE = data.phrase_pattern("acts", "accept")
# "can't thursday", "can't do 10": the day or time said right after is turned down.
DECLINE_BEFORE_RE = re.compile(
    data.phrase_pattern("acts", "decline_before").pattern
    + r"\s*(?:(?:do|make|on|at|am|le|el|na)\s+)?$",
    re.IGNORECASE,
)
# The user changes the plan the chat made: "actually make it 8:30" (acts.toml).
MOVE_RE = data.phrase_pattern("acts", "move")
# "Sunday at 7 then": right after a time, a time offered in place of the one on the table
# ("see you then" is a goodbye) (acts.toml).
COUNTER_END_RE = re.compile(
    rf"[ \t]*,?[ \t]*(?:{data.alternation('acts', 'counter_end')})\s*[?!.]*\s*$", re.IGNORECASE
)
# A sentence that reports free time ("you have an empty slot from 8 am to 11 am", "I'm free
# between 2 and 5") names no event: its times are only options.
# ("I'm open Thursday", "my calendar is pretty open" offer days; "open enrollment" and "Open
# house" name things)
AVAILABILITY_RE = re.compile(
    r"\b(?:free|available|availability|openings?|empty|nothing\s+(?:scheduled|planned|penciled)"
    r"|slots?|space|frei|libre|disponible|livre|disponível)\b"
    r"|(?:['’](?:m|re|s)|\b(?:am|are|is|be|been|was|were))[ \t]+(?:[^\W\d_]+[ \t]+)?open\b"
    r"|\b(?:pretty|fairly|wide|totally|completely|mostly|quite|very|all)[ \t]+open\b",
    re.IGNORECASE,
)
SCHEDULE_QUESTION_RE = re.compile(
    r"\b(?:my\s+(?:schedule|calendar|diary|day)|check\w*|look\s+at)\b",
    re.IGNORECASE,
)
# A look at one's own calendar, in a thread as in a request ("Do I have something scheduled for
# March 12th?", "am I free thursday?"): a day asked about names no event (requests.toml).
CALENDAR_QUESTION_RE = re.compile(
    "|".join(
        data.phrase_pattern("requests", section).pattern
        for section in ("calendar_list", "calendar_free")
    ),
    re.IGNORECASE,
)
# "free from 2 to 5" is a range; "free Tuesday at 11 to go over the lease" is a purpose.
RANGE_RE = re.compile(
    r"\b(?:from|between|starting|beginning|until|till|through|ending|ends|und|bis|entre|jusqu"
    r"|hasta|até)\b|\bto\s+(?=\d|noon|midnight)",
    re.IGNORECASE,
)
# A day or time answered with no, said right after it: "lundi oui, mardi non", "Tuesday no,
# sorry", "4 is bad" (acts.toml [decline_after]); or "Saturday I'm away" ([away]).
DECLINE_AFTER_RE = re.compile(
    rf"\s*[,:–-]?\s*(?!no\s+(?:{data.alternation('acts', 'no_but')})\b)"
    rf"(?:{data.phrase_pattern('acts', 'decline_after').pattern}"
    rf"|{AWAY_RE.pattern})",
    re.IGNORECASE,
)
# A range of days hedged into a window ("Estimated delivery: 2-4 December"): acts.toml [estimate].
ESTIMATE_RE = data.phrase_pattern("acts", "estimate")
# The user steps out of a plan between others (acts.toml [others_plan]).
OTHERS_PLAN_RE = data.phrase_pattern("acts", "others_plan")
# A whole day's plan: a word of times.toml [all_day] outside the phrases of [all_day_not].
_NOT_ALL_DAY = data.phrase_pattern("times", "all_day_not").pattern
ALL_DAY_RE = re.compile(
    rf"(?!{_NOT_ALL_DAY}){data.phrase_pattern('times', 'all_day', nouns=True).pattern}",
    re.IGNORECASE,
)
# Something due (times.toml [due]); the linker counts it when no other activity is the plan.
_DUE_RE = data.phrase_pattern("times", "due")
_NOT_ALL_DAY_RE = re.compile(_NOT_ALL_DAY, re.IGNORECASE)


def due_said(text: str) -> re.Match[str] | None:
    """Where `text` says something is due, outside the phrases of [all_day_not] ("past due",
    "due to the rain")."""
    spans = [(m.start(), m.end()) for m in _NOT_ALL_DAY_RE.finditer(text)]
    return next(
        (m for m in _DUE_RE.finditer(text) if not any(s <= m.start() < e for s, e in spans)),
        None,
    )


# A possessive ending a text ("my", "il mio": labels.toml [possessives]), and one right after a
# verb that asks for the event (labels.toml [request_verbs]): "put my 2:00 pm meeting on tuesday"
# is the one to add ("after my 2pm meeting", "for my 10am call" name another plan).
_ARTICLE = rf"(?:(?:{data.alternation('labels', 'possessive_articles')})\s+)?"
_OWN = data.alternation("labels", "possessives")
_POSSESSIVE = rf"{_ARTICLE}(?:{_OWN}|{data.alternation('labels', 'possessives_others')})\s*$"
POSSESSIVE_RE = re.compile(rf"\b{_POSSESSIVE}", re.IGNORECASE)
ADD_MINE_RE = re.compile(
    rf"\b(?:{data.alternation('labels', 'request_verbs')})\s+{_POSSESSIVE}", re.IGNORECASE
)
# ... or one a request opens with, alone or after a wish with no verb (labels.toml
# [possessive_wants]) and at most a few words of its subject: "my 2pm meeting on tuesday",
# "I need my 2pm meeting on tuesday in the calendar".
_WANTS = data.phrases_alternation(data.phrases("labels", "possessive_wants"))
WANT_MINE_RE = re.compile(
    rf"\W*(?:(?:\w+\W+){{0,3}}?(?:{_WANTS})\W+)?{_ARTICLE}(?:{_OWN})\s*", re.IGNORECASE
)
# What a request may say after such a plan and still ask for nothing else: a wish for the
# entry (requests.toml [schedule_ask]) and words that carry no content of their own
# ([object_filler], labels.toml [function_words]); "what room", "was great", "to be shorter"
# ask something else.
_ENTRY_ASK_RE = data.phrase_pattern("requests", "schedule_ask")
_EMPTY_WORDS = data.words("requests", "object_filler") | data.words("labels", "function_words")


def asks_nothing_more(tail: str) -> bool:
    """Whether `tail`, the rest of a request with its times blanked, holds only such words."""
    words = re.findall(r"[^\W\d_]+(?:'\w+)?", _ENTRY_ASK_RE.sub(" ", tail))
    return all(word.casefold() in _EMPTY_WORDS for word in words)


# A line that corrects the one above it ("correction – Thu 2:30pm"), acts.toml [correct].
CORRECT_RE = data.phrase_pattern("acts", "correct")
# A clause that asks for a plan another way, and a day's yes beside it (acts.toml).
WISH_RE = data.phrase_pattern("acts", "wish")
PREFER_RE = data.word_pattern("acts", "prefer")
HEDGE_RE = data.word_pattern("acts", "hedge")
# A word of the table, or "n't" ending one ("can't").
NEGATION_RE = re.compile(
    rf"(?:\b|(?=n't))(?:{data.alternation('acts', 'negation')})\b", re.IGNORECASE
)
_OR = data.alternation("acts", "alternative")
OR_RE = re.compile(rf"^\s*(?:{_OR})\s*$", re.IGNORECASE)
# ... or "and", with an article or a clock's preposition after either: "a 7pm or a 9:30",
# "a 7pm and a 9:30", "at 2 and at 4".
OPTIONS_GAP_RE = re.compile(
    rf"\s*(?:{_OR}|{data.alternation('acts', 'alternative_and')})"
    r"(?:\s+(?:a|an|the|at|@))?\s*",
    re.IGNORECASE,
)
# A clause that opens with "or" ("or 9pm?", "Or Dec 20, if you're away"): another option.
OR_OPENS_RE = re.compile(
    rf"\s*(?:{_OR})\b(?!\s+(?:{data.alternation('acts', 'alternative_not')})\b)", re.IGNORECASE
)


# Words that name no kind of event, only that there is one: "the appointment" after "a dentist
# at 4" is that dentist visit.
GENERIC_EVENT_RE = re.compile(
    r"(?:the\s+|an?\s+|my\s+|this\s+|that\s+)?(?:appointment|appt|reservation|booking|event"
    r"|termin|rendez-vous|rdv|cita|consulta|reserva|réservation|reservierung)",
    re.IGNORECASE,
)
DEFINITE_RE = re.compile(
    r"\b(?:the|this|that|your|my|our|his|her|their|der|die|das|den|dein\w*|mein\w*|le|la|l'|ce"
    r"|cette|ton|ta|mon|ma|votre|el|esta|este|tu|mi|su|o|a|esse|essa|seu|sua|meu|minha)\s+$",
    re.IGNORECASE,
)
# A restatement to be confirmed: "To confirm: ...", "You want March 14th at 3:15 pm, correct?"
CONFIRM_RE = re.compile(
    r"\b(?:please\s+confirm|to\s+confirm|confirm(?:ing)?\s+(?:that|the|your|you)|just\s+to\s+be"
    r"\s+(?:sure|clear)|do\s+I\s+have\s+(?:this|that|it)\s+right|let\s+me\s+(?:review|confirm|recap)"
    r"|to\s+recap|you(?:'d|\s+would)\s+like(?:\s+me)?\s+to|you\s+want(?:\s+me)?\s+to"
    r"|(?:is\s+(?:that|this)\s+)?(?:correct|right)\s*\?|bestätig\w*|confirm[eao]\w*"
    r"|c'est\s+bien\s+ça|¿?\s*correcto\s*\?|certo\s*\?)",
    re.IGNORECASE,
)


# A day said of the event being set up: "the date for the event is March 12th", "I want it to
# be on the 8th", "please confirm: ... on March 8th".
RESTATED_DAY_RE = re.compile(
    r"\b(?:date|day)\s+(?:for|of)\s+(?:the|this|that|your)\s+(?:event|appointment|booking"
    r"|reservation)\b|\b(?:want|need|like|have|make|move|put|set|book)\s+(?:it|that|this)\s+"
    r"(?:to\s+be\s+)?(?:on|for)\b|\bplease\s+confirm|\bto\s+confirm",
    re.IGNORECASE,
)
# Words that settle a time rather than report one.
DECIDE_RE = re.compile(
    r"\b(?:let'?s|works?|book|schedule|set|make\s+it|see\s+you|add|put|go\s+with|take|confirm"
    r"|passt|geht|on\s+y\s+va|ça\s+marche|vale|dale|fechado|combinado)\b",
    re.IGNORECASE,
)
# "by 5:30 pm" is read as "from now until 5:30"; for an event it is the time itself.
BY_RE = re.compile(r"by\s+\d", re.IGNORECASE)
# A clock time that says it is one: "9 pm", "14:00", "in the evening"; "at 1" may be a house
# number ("at 1 Embarcadero Center").
CLOCK_SAID_RE = re.compile(
    r"\d[:.h]\d\d|\d\s*(?:am|pm|a\.m|p\.m|h\b|uhr)|noon|midday|midnight|o'?clock|morning"
    r"|afternoon|evening|night|tonight|abends|morgens|uhr|soir|matin|tarde|noche|mañana|manhã|noite",
    re.IGNORECASE,
)


# "add it", "add the event we agreed on": the request wants one event; "add all of this",
# "add both" want every one ("add this" says nothing about how many).
ONE_RE = re.compile(
    r"\b(?:add|put|save|enter|schedule|book|calendar|mark|block)\s+(?:it|the\s+(?:event|appointment"
    r"|meeting|booking|reservation|one))\b|\b(?:ajoute|mets|trag|eintragen)\s*-?\s*(?:le|la|ihn|es)\b"
    r"|\b(?:añáde|agréga|apúnta|ponlo|adiciona|põe)(?:lo|la)\b",
    re.IGNORECASE,
)
MANY_RE = re.compile(
    r"\b(?:all|both|these|those|them|everything|events|alles|beide|tous|toutes|todos|todas|ambos"
    r"|tout)\b",
    re.IGNORECASE,
)
