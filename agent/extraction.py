"""Events from a redacted thread: code finds the times and their evidence, a linker joins them.

The time parser finds every candidate mention; this module reads the thread message by message,
oldest first (quoted "> ..." lines are older than the reply around them, the typed request is
newest), and decides which time belongs to which activity:

* a clock time that names its day starts an event ("lunch fri at 1");
* a clock time alone takes the day of the event it updates or of the last date said
  ("lunch on friday?" ... "1pm works") — the gate accepts that pair only because both parts
  were stated;
* "actually make it 4", "can we push to 3:30?" move the event they follow; "can't make it,
  skip it" cancels it; times offered as "1 or 2?" stay undecided until one is picked;
* times inside availability talk ("I'm free from 2 to 5") are not events;
* a date with no clock time is an all-day event only with an all-day word ("offsite",
  "holiday"); otherwise, like "dinner friday", it stays vague and becomes a question.

The rule linker is the whole decision with --no-llm. With a model, `link_with_model` lets it
pick the title and the time among each event's own candidates, under a grammar whose enums are
the candidate IDs; code resolves the datetimes either way.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from agent.errors import ModelError, ModelOutputError
from agent.gateway import ModelGateway
from agent.model import Message
from agent.prompts import load_prompt
from privacy import PrivacyGuard
from privacy.entity_map import PLACEHOLDER_RE
from privacy.thread import split_thread
from tools.calendar import lang
from tools.calendar.slots import MEAL_DURATIONS
from tools.calendar.times import TimeMention

logger = logging.getLogger(__name__)

DEFAULT_DURATION = timedelta(hours=1)
MAX_EVENTS = 10

_ACTIVITY_WORDS = (
    r"lunch|dinner|breakfast|brunch|supper|coffee|drinks?|beers?|meeting|meetup|meet-up|call"
    r"|sync|catch-?up|stand-?up|1:1|one-on-one|interview|appointment|appt|dentist|doctor"
    r"|check-?up|haircut|concert|game|match|show|movie|film|party|birthday|wedding|class"
    r"|lesson|practice|rehearsal|review|demo|workshop|webinar|presentation|offsite|off-site"
    r"|conference|flight|trip|visit|viewing|pickup|pick-up|session|training|yoga|gym|hike"
    r"|walk|run|playdate|recital|ceremony|dinner party|reservation|talk|lecture|seminar"
    r"|exam|deadline|retro|planning|kickoff|kick-off|onboarding|tour|tasting|massage"
    r"|therapy|vet|checkup|physio|barbecue|bbq|picnic|brunch|date|event|pick(?:\s|-)?up"
    r"|drop(?:\s|-)?off|summit|all-hands|town\s?hall|standup|screening|debrief|crit"
    r"|\w*termin|\w*treffen|\w*ausflug|\w*besprechung|\w*feier|\w*essen"
    r"|mittagessen|abendessen|frühstück|treffen|termin|besprechung|anruf|kaffee|feier"
    r"|déjeuner|dîner|diner|réunion|rendez-vous|rdv|appel|café|fête|soirée"
    r"|almuerzo|comida|cena|reunión|reunion|cita|llamada|fiesta|desayuno"
    r"|almoço|almoco|jantar|reunião|reuniao|consulta|ligação|festa|encontro"
)
# "call me back", "call it Gym", "call the event Gym": no call
_ACTIVITY_RE = re.compile(
    rf"\b(?:{_ACTIVITY_WORDS})\b(?!\s+(?:me|you|us|back)\b)"
    r"(?!(?<=call)\s+(?:it|this|that|the\s+event)\b)",
    re.IGNORECASE,
)
# "label it Leave for airport", "the event is Dentist appointment", "called Team retro".
_LABEL_RE = re.compile(
    r"\b(?:(?:label(?:led|ed)?(?:\s+it)?|call(?:ed)?\s+(?:it|the\s+event)|title[sd]?(?:\s+it)?"
    r"|name[sd]?(?:\s+(?:it|the\s+event))?|(?:the\s+)?(?:event\s+)?name\s+(?:of\s+the\s+event\s+)?is"
    r"|(?:put|use)\s+the\s+(?:name|title)|in\s+the\s+name(?:\s+of)?|event,?\s+(?:called|named))"
    r"\s+(?:as\s+|the\s+label\s+|to\s+)?|event\s+is\s+(?=[A-Z<\"'“]))[\"'“]?"
    r"(?P<title>[^\"'”.,!?\n;:]{3,60}?)[\"'”]?"
    r"(?=\s+(?:to|on|at|for|in|with|that|which|and|located|scheduled|planned|booked|starting"
    r"|as\s+the)\b|[.,!?;:\n]|$)",
    re.IGNORECASE,
)
_ADD_RE = re.compile(
    r"\b(?:add|schedule|book|put|create|set\s+up|plan)\s+(?:in\s+)?(?:the|a|an|my|our)\s+"
    r"(?P<title>[^.,!?\n;:]{3,50}?)(?=\s+(?:to|on|at|for|in|into|with|next|this|tomorrow|today)\b|[.,!?;:\n]|$)",
    re.IGNORECASE,
)
_STOP = frozenset(
    """a an the my our your their his her its this that these those to for of and or but with
    at on in by from let's lets let us we i you have grab do get go some quick any another
    about maybe how what can could shall should would will is are be it re fwd also just
    still then so ok okay sure yes no hey hi hello please thanks thank up out was were has had
    event events
    don't dont can't cant we're i'm i'll you're it's that's there here when where who
    der die das den dem des ein eine einen dein deine mein meine ist sind am um im zum zur und
    oder mit für auf bei wir ich du sie es le la les un une des du au aux et ou avec pour à ce
    ma mon mes ton ta on nous je tu est el los las unos unas del al y o con para en mi tu es
    nos o os as um uma do da dos das no na em com e ou meu minha é""".split()
)
_RESCHEDULE_RE = re.compile(
    r"\b(?:actually|instead|make\s+it\s+(?:at\s+)?\d|move|moved|push(?:ed)?|change|changed|rather|how\s+about"
    r"|what\s+about|can\s+we\s+do|let'?s\s+do|better|switch|shift|reschedul\w*|postpone\w*"
    r"|bring\s+(?:it\s+)?forward|earlier|later|update[ds]?|verschieb\w*|lieber|stattdessen"
    r"|plutôt|finalement|décal\w*|repouss\w*|avanc\w*|mejor|mueve|mover|cambiar|cambia|pasar\w*"
    r"|adelant\w*|atras\w*|melhor|mudar|muda|passar|remarc\w*|adiar)\b",
    re.IGNORECASE,
)
_CANCEL_RE = re.compile(
    r"\b(?:can'?t|cannot|can\s+not|won'?t|not\s+going\s+to)\s+make\s+it|\bcancel\w*"
    r"|\bcall\s+(?:it|the\s+\w+)\s+off|\bskip\s+(?:it|this|that)|\bnever\s?mind"
    r"|\bscratch\s+that|\bforget\s+(?:it|about\s+it)|\bno\s+longer\s+(?:happening|on)"
    r"|\b(?:is|are|'s)\s+(?:off|cancell?ed)\b|\bcalled\s+off|\bnot\s+happening"
    r"|\babsag\w*|\babgesagt|\bfällt\s+aus|\bannul\w*|\bcancelar|\bcancela|\bdesmarc\w*",
    re.IGNORECASE,
)
# A sentence that reports free time ("you have an empty slot from 8 am to 11 am", "I'm free
# between 2 and 5") names no event: its times are only options.
_AVAILABILITY_RE = re.compile(
    r"\b(?:free|available|availability|open(?:ing)?|empty|nothing\s+(?:scheduled|planned|penciled)"
    r"|slots?|space|frei|libre|disponible|livre|disponível)\b",
    re.IGNORECASE,
)
_SCHEDULE_QUESTION_RE = re.compile(
    r"\b(?:my\s+(?:schedule|calendar|diary|day)|check\w*|look\s+at)\b",
    re.IGNORECASE,
)
_RANGE_RE = re.compile(
    r"\b(?:from|between|starting|beginning|until|till|through|to|ending|ends|und|bis|entre|jusqu|hasta|até)\b",
    re.IGNORECASE,
)
_ALL_DAY_RE = re.compile(
    r"\b(?:all[- ]day|whole\s+day|day\s+off|holiday|vacation|off-?site|conference|trip"
    r"|birthday|anniversary|festival|retreat|deadline|ganztägig|urlaub|feiertag|toute\s+la"
    r"\s+journée|congé|todo\s+el\s+día|vacaciones|feriado|dia\s+inteiro|o\s+dia\s+todo|férias)\b",
    re.IGNORECASE,
)
_POSSESSIVE_RE = re.compile(r"\b(?:my|our|his|her|their|mein\w*|mon|ma|mi|meu|minha)\s*$", re.I)
_FROM_TO_RE = re.compile(r"\bfrom\b.+\bto\b|\bvon\b.+\bauf\b|\bde\b.+\bà\b", re.IGNORECASE)
_OR_RE = re.compile(r"^\s*(?:or|oder|ou|o)\s*$", re.IGNORECASE)
_LOCATION_RE = re.compile(
    r"\b(?:at|@|held\s+at|location(?:\s+is)?|venue(?:\s+is)?|in)\s+(?:the\s+)?"
    r"(?P<place>(?:<(?:LOCATION|STREET_ADDRESS|ADDRESS)_\d+>|[A-Z0-9][\w'’&.-]*)"
    r"(?:\s+(?:<[A-Z_]+_\d+>|[A-Z0-9][\w'’&.-]*|de|la|of|on|the|&)){0,4})"
)
_NOT_PLACE_RE = re.compile(
    r"^(?:\d{1,2}(?::\d{2})?\s*(?:am|pm|h)?|noon|midnight|[A-Z][a-z]+day|January|February|March"
    r"|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul"
    r"|Aug|Sep|Sept|Oct|Nov|Dec|ET|PT|CT|MT|CET|GMT|UTC|The|This|Next|It|I|We)\b",
)
_SELF_SPEAKERS = frozenset({"me", "you", "i", "ich", "moi", "yo", "eu"})


@dataclass(frozen=True)
class Candidate:
    """A time mention with the ID a model may cite, and where in the input it sits."""

    id: str
    mention: TimeMention
    segment: int


@dataclass
class ProposedEvent:
    """An event the input implies, redacted; `grounds` are the candidate IDs its start rests on."""

    title: str
    start: datetime | None
    end: datetime | None
    all_day: bool
    location: str = ""
    attendees: list[str] = field(default_factory=list)
    grounds: list[str] = field(default_factory=list)
    vague: str | None = None  # "dinner friday": what was said instead of a clock time
    day: date | None = None  # the day a vague event is on, when one was said
    meal: str | None = None
    kind: Literal["event", "reminder"] = "event"
    undecided: list[str] = field(default_factory=list)  # "1 or 2?": the options, unpicked
    cancelled: bool = False
    activity: str = ""
    named: bool = False  # the title is the user's own name for it ("call it Out of office")
    said: int = -1  # the last message that created or changed it
    dated: bool = True  # False: a clock time said with no day yet ("book it for 12:30")

    @property
    def schedulable(self) -> bool:
        return self.start is not None and not self.cancelled and not self.undecided

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "start": self.start.isoformat() if self.start else None,
            "end": self.end.isoformat() if self.end else None,
            "all_day": self.all_day,
            "location": self.location,
            "attendees": list(self.attendees),
            "kind": self.kind,
            "vague": self.vague,
            "day": self.day.isoformat() if self.day else None,
            "meal": self.meal,
            "undecided": list(self.undecided),
            "grounds": list(self.grounds),
        }


@dataclass(frozen=True)
class _Segment:
    """One message (or the request) in the order it was written."""

    text: str
    source: str
    start: int  # offset of `text` in its source text
    speaker: str | None
    quoted: bool
    sentence: str = ""  # the whole sentence the clause belongs to
    context: str = ""  # its message and the message before: what the sentence answers


_SENTENCE_RE = re.compile(r"(?<=[.!?;])(?<!\d\.)\s+")  # not after "3." in "am 3. Juli"
# "lunch friday 12:30 and drinks at 6", "market sat 9am, then brunch sunday 11:30": a joiner
# between two parts that each hold a number starts a new clause (a new event may start there).
_JOINER_RE = re.compile(
    r",?\s+(?:and|then|also|plus|und|dann|et|puis|y|luego|e|depois)\s+|,\s+(?:then|dann|puis)\s+",
    re.IGNORECASE,
)


def _clauses(text: str) -> list[tuple[int, int, int, int]]:
    """(start, end, sentence start, sentence end) of each clause: sentences, split again
    between timed parts."""
    spans: list[tuple[int, int, int, int]] = []
    position = 0
    for piece in [*_SENTENCE_RE.finditer(text), None]:
        end = piece.start() if piece else len(text)
        cut = position
        for joiner in _JOINER_RE.finditer(text, position, end):
            left, right = text[cut : joiner.start()], text[joiner.end() : end]
            if re.search(r"\d", left) and re.search(r"\d", right):
                spans.append((cut, joiner.start(), position, end))
                cut = joiner.end()
        spans.append((cut, end, position, end))
        position = piece.end() if piece else len(text)
    return [span for span in spans if text[span[0] : span[1]].strip()]


def _segments(request: str, thread: str) -> list[_Segment]:
    """Thread clauses oldest first (quoted lines before the reply), then the typed request's."""
    quoted: list[_Segment] = []
    fresh: list[_Segment] = []
    previous = ""
    for line in split_thread(thread) if thread.strip() else []:
        if line.kind == "header":
            continue  # a subject names the thread, not an event: see _subject
        body = thread[line.body_start : line.body_end]
        is_quoted = body.lstrip().startswith(">")
        for a, b, c, d in _clauses(body):
            segment = _Segment(
                body[a:b], "thread", line.body_start + a, line.speaker, is_quoted, body[c:d],
                f"{previous}\n{body}",
            )  # fmt: skip
            (quoted if is_quoted else fresh).append(segment)
        previous = body
    tail = (
        [
            _Segment(request[a:b], "request", a, None, False, request[c:d])
            for a, b, c, d in _clauses(request)
        ]
        if request.strip()
        else []
    )
    return quoted + fresh + tail


_REPLY_PREFIX_RE = re.compile(r"^(?:\s*(?:re|fwd?|aw|wg|tr|rv|res|enc)\s*:\s*)+", re.IGNORECASE)


def _subject(thread: str) -> str:
    """The thread's subject without "Re:"/"Fwd:" prefixes: a title for an unnamed event."""
    for line in split_thread(thread) if thread.strip() else []:
        if line.kind == "header" and line.field == "subject":
            subject = _REPLY_PREFIX_RE.sub("", thread[line.body_start : line.body_end]).strip()
            return subject[:1].upper() + subject[1:]
    return ""


def candidates(request: str, thread: str, mentions: list[TimeMention]) -> list[Candidate]:
    """Every mention, numbered T1..Tn in reading order, tied to its segment."""
    segments = _segments(request, thread)
    found: list[Candidate] = []
    for index, segment in enumerate(segments):
        lo, hi = segment.start, segment.start + len(segment.text)
        inside = [
            m for m in mentions if m.source == segment.source and lo <= m.start < max(hi, lo + 1)
        ]
        for mention in sorted(inside, key=lambda m: m.start):
            found.append(Candidate(f"T{len(found) + 1}", mention, index))
    return found


def _title_words(text: str, at: int) -> str:
    """The activity noun at `at` with up to two modifiers before it ("Dentist appointment")."""
    match = _ACTIVITY_RE.match(text, at)
    assert match is not None
    words = re.findall(r"<[A-Z_]+_\d+>|[\w'’-]+", text[max(0, at - 40) : at])
    modifiers: list[str] = []
    for word in reversed(words[-2:]):
        if word.lower() in _STOP or lang.states_date(word) or word[:1].isdigit():
            break
        modifiers.insert(0, word)
    phrase = " ".join([*modifiers, match.group(0)])
    return phrase[:1].upper() + phrase[1:]


def _activity(text: str) -> str:
    """The title the segment gives its activity, or "" when it names none."""
    for pattern in (_LABEL_RE, _ADD_RE):
        match = pattern.search(text)
        if match and text.rstrip().endswith("?"):
            continue  # "what is the name of the event?" asks for a title, it gives none
        if match:
            title = match.group("title").strip()
            if lang.states_date(title):
                continue  # "the date for the event is Tuesday": a day, not a name
            if (_ACTIVITY_RE.search(title) and not re.match(r"events?\b", title, re.I)) or (
                pattern is _LABEL_RE
            ):
                return title[:1].upper() + title[1:]
    match = _ACTIVITY_RE.search(text)
    if match is None or match.group(0).lower() in {"event", "date"}:
        return ""
    return _title_words(text, match.start())


_GENERIC = frozenset(
    "it this that these those all both everything event events thing things what whatever one "
    "calendar agenda kalender calendrier calendario".split()
)

# The user's own name for an event: "call it X", "give it the title X", "log it under X",
# "the event title should be X", "put X as the title", "add X to my calendar".
_IT = r"(?:(?:the|this|that)\s+(?:event|even|appointment|meeting)|it|this|that|them)"
_CAL = r"(?:calendar|calender|schedule|agenda|diary|planner)"
_NAME_WORD = r"(?:name|title|label|heading)"
_NAME_BEFORE_RE = re.compile(
    r"(?:"
    # "call it X", "title it as X", "label this event X", "name the event X"
    rf"\b(?:call|name|title|label|rename|retitle)\s+{_IT}\s*,?\s+(?:as\s+)?(?:the\s+name\s+)?"
    # "under the name X", "give it the title X", "add the label X", "with the title as X"
    rf"|\b(?:under|with|by|in|give\s+{_IT}|add|use|using|put|make|set|change)\s+(?:the|a|an)\s+"
    rf"(?:event(?:'s)?\s+)?{_NAME_WORD}(?:\s+(?:of|for)\s+(?:the|this|that)\s+event)?\s+"
    r"(?:to\s+|as\s+|of\s+)?(?:be\s+)?"
    # "the event title should be X", "title is X", "the event's name is X"
    rf"|\b{_NAME_WORD}(?:\s+(?:of|for)\s+(?:the|this|that)\s+event)?\s+(?:is|should\s+be|will\s+be"
    r"|would\s+be|can\s+be(?:\s+called)?|must\s+be|as)\s+(?:called\s+)?"
    rf"|\b(?:event|{_NAME_WORD})\s*:\s*"
    # "titled X", "the event is called X" (not "I called the dentist")
    r"|(?<!\bI\s)(?<!\bwe\s)(?<!\byou\s)(?<!\bhe\s)(?<!\bshe\s)(?<!\bthey\s)"
    r"\b(?:titled|entitled|named|called|labell?ed)\s+(?:as\s+)?"
    # "log it under X", "add this to my calendar as X", "mark as X"
    rf"|\b(?:put|save|log|file|add|mark|note|enter|list|schedule|book|keep|set|pencil)"
    rf"(?:\s+(?:down|in))?(?:\s+{_IT})?(?:\s+(?:down|in|on|to|into)(?:\s+(?:my|the|your|our))?"
    rf"\s+{_CAL})?\s+(?:as|under)\s+(?:(?:the|a)\s+{_NAME_WORD}\s+(?:of\s+)?)?"
    r")",
    re.IGNORECASE,
)
# "put X as the event title", "use X as the title", "Put X for the title", "add X to title"
_NAME_AFTER_RE = re.compile(
    r"\b(?:put|use|add|make|set|have|give|keep|save|mark|schedule\s+(?:it|this)\s+as)\s+(?:down\s+)?"
    rf"(?P<title>[^.!?;\n]{{2,60}}?)\s+(?:as|for|to)\s+(?:the\s+|a\s+|an\s+)?(?:event\s+)?"
    rf"{_NAME_WORD}\b",
    re.IGNORECASE,
)
# "add Apartment viewing to my calendar": what is between the verb and the calendar
_NAME_ADD_RE = re.compile(
    r"\b(?:add|put|pencil\s+in|enter|ajoute|mets|añade|agrega|apunta|pon|adiciona|coloca|põe)"
    r"\s+(?:just\s+)?(?P<title>[^.!?;\n]{2,60}?)\s+(?:to|on|in|into|onto|à|a|al|en|na|no|ao|dans)"
    rf"\s+(?:my|the|your|our|mon|ma|mi|minha|la|el|o|a)?\s*(?:{_CAL}|calendrier|calendario"
    r"|calendário)\b|\b(?:could|can|would|will)\s+you\s+(?:just\s+|please\s+)?add\s+"
    r"(?P<title2>[^.!?;\n]{2,60}?)\s*(?=[.!?;\n]|$)",
    re.IGNORECASE,
)
# Where a name ends: a time, a place, a calendar phrase, a new clause.
_NAME_END_RE = re.compile(
    r"\s*[.!?;\n]|,\s|\s*:\s+(?=(?-i:[a-z]))|\s*\(|\s+-\s"
    r"|\s+for\s+(?:the|this|that)\s+event\b"
    rf"|\s+(?:to|on|in|into|onto)\s+(?:my|the|your|our)\s+{_CAL}"
    rf"|\s+(?:as|for|to)\s+(?:the\s+|a\s+|an\s+)?(?:event\s+)?{_NAME_WORD}\b"
    r"|\s+and\s+(?:the|it|its|put|set|make|schedule|start|add|then|is|at|for|on|i|please|that"
    r"|location|time)\b"
    r"|\s+(?:which|that|located|starting|starts|scheduled|will|is|it|please|thanks|thank"
    r"|located|where|when|so|because|if|but|instead)\b"
    r"|\s+(?:to|for|on|in|into|onto)\s+(?:it|this|that|them)(?!\s+\w)"
    r"|\s+(?:at|in|on)\s+<(?:ADDRESS|STREET_ADDRESS|LOCATION)_\d+>"
    r"|\s+(?:with|at|and)\s+(?:the\s+)?(?:location|address|venue|time)\b"
    r"|\s+(?:at|for|on|in|to|into)\s+(?:the\s+|a\s+)?(?:\w+\s+){0,2}(?:slot|time|spot)\b"
    r"|\s+(?:at|for|on|from|by|starting|beginning)\s*$",
    re.IGNORECASE,
)
_NAME_ASK_RE = re.compile(
    r"\b(?:what|which|how|wie|welche\w*|quel\w*|qu[ée]|cómo|como|qual)\b", re.IGNORECASE
)
_NOT_A_NAME = frozenset(
    "it this that these those them something anything everything all both one ça ca lo esto eso"
    " isso das es event".split()
)


_NAME_TRIM_RE = re.compile(r"(?:\s+(?:at|for|on|from|by|in|and|with|to|the|a|an))+$", re.I)
# "make a Reservation at ..." -> "Reservation at ..."; capitalised "The Hives" stays a name.
_NAME_LEAD_RE = re.compile(
    r"^(?:as\s+)?(?:(?:a|an|the|that|this|le|la|les|un|une|el|los|las|un|una|o|os|um|uma|der|die"
    r"|das|den|ein|eine)\s+(?=\S))?"
)


def _named(text: str, times: list[tuple[int, int]]) -> tuple[str, bool]:
    """The user's own name for the event in `text`, and whether it names an event already
    spoken of ("call it X") rather than a new one; ("", False) when the text gives none.

    `times` are the spans of the time mentions in `text`: a name ends before them.
    """
    found: list[tuple[int, int, int, bool]] = []  # (rank, start, end, anaphoric)
    for match in _NAME_BEFORE_RE.finditer(text):
        said = text[max(0, match.start() - 30) : match.end()]
        anaphoric = not re.search(r"\b(?:a|an|new)\s+event\b", said, re.IGNORECASE)
        found.append((0, match.end(), len(text), anaphoric))
    for match in _NAME_AFTER_RE.finditer(text):
        found.append((0, match.start("title"), match.end("title"), True))
    for match in _NAME_ADD_RE.finditer(text):  # "add X to my calendar": the weakest sign
        group = "title" if match.group("title") else "title2"
        found.append((1, match.start(group), match.end(group), False))
    for _rank, begin, end, anaphoric in sorted(found):
        stop = _NAME_END_RE.search(text, begin, end)
        end = min([stop.start() if stop else end, *(lo for lo, _ in times if begin <= lo < end)])
        if _NAME_ASK_RE.search(text[max(0, begin - 60) : begin].split(".")[-1]):
            continue  # "what should I call it?" asks for a name
        title = text[begin:end].strip(" \"'“”‘’,:")
        title = _NAME_TRIM_RE.sub("", title)
        title = _NAME_LEAD_RE.sub("", title)
        words = title.lower().split()
        if not words or words[0] in _NOT_A_NAME:
            continue
        if all(w in _STOP or w in _GENERIC for w in words):
            continue
        if not re.search(r"[^\W\d_]", title) or len(title) > 60:
            continue
        return title[:1].upper() + title[1:], anaphoric
    return "", False


_REQUEST_TITLE_RE = re.compile(
    r"\b(?:add|put|schedule|book|save|calendar|enter)\s+(?:the|my|our|a|an|in\s+the)\s+"
    r"(?P<title>[\w'’ -]{2,40}?)(?=\s+(?:to|on|in|into|for|at)\b|[.!?,]|$)",
    re.IGNORECASE,
)


def _request_title(request: str) -> str:
    """ "add the crit" -> "Crit": what the user calls the event, unless it is a generic word."""
    match = _REQUEST_TITLE_RE.search(request)
    if not match or match.group("title").split()[0].lower() in _GENERIC:
        return ""
    title = match.group("title").strip()
    return title[:1].upper() + title[1:]


_AFTER_TITLE_RE = re.compile(
    r"\s*(?:\S+\s+){0,4}?(?:for|to|para|pra|pour|für|zum|zur)\s+(?:go\s+over\s+|discuss\s+)?"
    r"(?P<title>(?:(?:the|a|an|our|o|a|le|la|el|der|die|das)\s+)?[^\W\d][\w'’ -]{2,40}?)"
    r"(?=[.,!?;:()]|$)",
    re.IGNORECASE,
)


def _words_around(text: str, start: int, end: int) -> str:
    """A title for a time with no activity word: "for the tax prep" after it, else the words
    before it ("farmers market sat 9am" -> "Farmers market")."""
    after = _AFTER_TITLE_RE.match(text, end)
    if after:
        words = [w for w in after.group("title").split() if w.lower() not in _STOP]
        if words:
            phrase = " ".join(words[:4])
            return phrase[:1].upper() + phrase[1:]
    return _words_before(text, start)


def _words_before(text: str, at: int) -> str:
    """Up to three content words before a time ("farmers market sat 9am" -> "Farmers market")."""
    words = [
        w
        for w in re.findall(r"<[A-Z_]+_\d+>|[^\W\d_][\w'’-]*", text[:at])
        if w.lower() not in _STOP
        and not lang.states_date(w)
        and len(w) > 2
        and not w.startswith("<")
    ][-3:]
    phrase = " ".join(words)
    return phrase[:1].upper() + phrase[1:]


def _location(text: str, mentions: list[TimeMention], offset: int) -> str:
    for match in _LOCATION_RE.finditer(text):
        place = match.group("place").strip(" .")
        begin = match.start("place") + offset
        if any(m.start <= begin < m.end for m in mentions) or _NOT_PLACE_RE.match(place):
            continue
        return place
    return ""


def _people(text: str) -> list[str]:
    return list(
        dict.fromkeys(m.group(0) for m in PLACEHOLDER_RE.finditer(text) if "PERSON" in m.group(1))
    )


def _meal(text: str) -> str | None:
    for word, meal in (("breakfast", "breakfast"), ("brunch", "brunch"), ("lunch", "lunch"),
                       ("dinner", "dinner"), ("supper", "dinner")):  # fmt: skip
        if re.search(rf"\b{word}\b", text, re.IGNORECASE):
            return meal
    return None


# Words that name no kind of event, only that there is one: "the appointment" after "a dentist
# at 4" is that dentist visit.
_GENERIC_EVENT_RE = re.compile(
    r"(?:the\s+|an?\s+|my\s+|this\s+|that\s+)?(?:appointment|appt|reservation|booking|event"
    r"|termin|rendez-vous|rdv|cita|consulta|reserva|réservation|reservierung)",
    re.IGNORECASE,
)
_DEFINITE_RE = re.compile(
    r"\b(?:the|this|that|your|my|our|his|her|their|der|die|das|den|dein\w*|mein\w*|le|la|l'|ce"
    r"|cette|ton|ta|mon|ma|votre|el|esta|este|tu|mi|su|o|a|esse|essa|seu|sua|meu|minha)\s+$",
    re.IGNORECASE,
)
# A restatement to be confirmed: "To confirm: ...", "You want March 14th at 3:15 pm, correct?"
_CONFIRM_RE = re.compile(
    r"\b(?:please\s+confirm|to\s+confirm|confirm(?:ing)?\s+(?:that|the|your|you)|just\s+to\s+be"
    r"\s+(?:sure|clear)|do\s+I\s+have\s+(?:this|that|it)\s+right|let\s+me\s+(?:review|confirm|recap)"
    r"|to\s+recap|you(?:'d|\s+would)\s+like(?:\s+me)?\s+to|you\s+want(?:\s+me)?\s+to"
    r"|(?:is\s+(?:that|this)\s+)?(?:correct|right)\s*\?|bestätig\w*|confirm[eao]\w*"
    r"|c'est\s+bien\s+ça|¿?\s*correcto\s*\?|certo\s*\?)",
    re.IGNORECASE,
)


# A day said of the event being set up: "the date for the event is March 12th", "I want it to
# be on the 8th", "please confirm: ... on March 8th".
_RESTATED_DAY_RE = re.compile(
    r"\b(?:date|day)\s+(?:for|of)\s+(?:the|this|that|your)\s+(?:event|appointment|booking"
    r"|reservation)\b|\b(?:want|need|like|have|make|move|put|set|book)\s+(?:it|that|this)\s+"
    r"(?:to\s+be\s+)?(?:on|for)\b|\bplease\s+confirm|\bto\s+confirm",
    re.IGNORECASE,
)
# Words that settle a time rather than report one.
_DECIDE_RE = re.compile(
    r"\b(?:let'?s|works?|book|schedule|set|make\s+it|see\s+you|add|put|go\s+with|take|confirm"
    r"|passt|geht|on\s+y\s+va|ça\s+marche|vale|dale|fechado|combinado)\b",
    re.IGNORECASE,
)
# "by 5:30 pm" is read as "from now until 5:30"; for an event it is the time itself.
_BY_RE = re.compile(r"by\s+\d", re.IGNORECASE)
# A clock time that says it is one: "9 pm", "14:00", "in the evening"; "at 1" may be a house
# number ("at 1 Embarcadero Center").
_CLOCK_SAID_RE = re.compile(
    r"\d[:.h]\d\d|\d\s*(?:am|pm|a\.m|p\.m|h\b|uhr)|noon|midday|midnight|o'?clock|morning"
    r"|afternoon|evening|night|tonight|abends|morgens|uhr|soir|matin|tarde|noche|mañana|manhã|noite",
    re.IGNORECASE,
)


_MOVED_FROM_RE = re.compile(
    r"\b(?:mov|push|chang|shift|reschedul|postpon|verschob|verschieb|décal|repouss|cambi|pas|mud)"
    r"\w*\s+(?:\w+\s+){0,2}(?:from|von|de|del|da|do)\b",
    re.IGNORECASE,
)


def _starts_at(event: ProposedEvent | None, mention: TimeMention, zone: ZoneInfo) -> bool:
    """Whether the event starts at the mention's (first) clock time."""
    if event is None or event.start is None or mention.value is None:
        return False
    return event.start.astimezone(zone).time() == mention.value.astimezone(zone).time()


def _plainest(clocks: list[Candidate]) -> Candidate:
    """The clock time a message sets: the last one that plainly is a time of day."""
    said = [c for c in clocks if _CLOCK_SAID_RE.search(c.mention.text)]
    return (said or clocks)[-1]


def _state(event: ProposedEvent) -> tuple[object, ...]:
    return (event.start, event.day, event.title, event.cancelled, event.undecided, event.vague)


def _current(events: list[ProposedEvent], *, timed: bool = False) -> ProposedEvent | None:
    """The live event the thread spoke of last: the one "call it X" or "make it 4" means."""
    live = [e for e in events if not e.cancelled and (e.schedulable or not timed)]
    return max(live, key=lambda e: e.said, default=None)


def _at(day: date, clock: time, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, clock).replace(tzinfo=zone)


class RuleLinker:
    """The deterministic linker: message by message, the latest word on each event wins."""

    def __init__(self, tz: str, now: datetime) -> None:
        self.zone = ZoneInfo(tz)
        self.now = now

    def link(
        self, request: str, thread: str, found: list[Candidate], *, intent: str = "schedule"
    ) -> list[ProposedEvent]:
        segments = _segments(request, thread)
        speakers = [
            s.speaker
            for s in segments
            if s.speaker and s.speaker.strip().lower() not in _SELF_SPEAKERS
        ]
        events: list[ProposedEvent] = []
        last_day: tuple[date, str] | None = None
        for index, segment in enumerate(segments):
            before = {id(e): _state(e) for e in events}
            try:
                last_day = self._read(segment, index, found, events, last_day, intent)
            finally:  # the event a message touched is the one the next "call it X" names
                for event in events:
                    if before.get(id(event)) != _state(event):
                        event.said = index
        return self._finish(events, request, thread, speakers, intent)

    def _read(
        self,
        segment: _Segment,
        index: int,
        found: list[Candidate],
        events: list[ProposedEvent],
        last_day: tuple[date, str] | None,
        intent: str,
    ) -> tuple[date, str] | None:
        """Read one message: create, move, name or cancel events; returns the last day said."""
        # A street number read as a year ("on March 7th in 620") is no date.
        own = [
            c
            for c in found
            if c.segment == index
            and (c.mention.value is None or abs(c.mention.value.year - self.now.year) <= 5)
        ]
        text = segment.text
        spans = [(c.mention.start - segment.start, c.mention.end - segment.start) for c in own]
        name, anaphoric = _named(text, spans)
        activity = name or _activity(text)
        if intent == "remind" and segment.source == "request":
            activity = _reminder_title(text) or activity
        current = _current(events)
        if name and anaphoric and current is not None:  # "call it X": the event spoken of
            current.title = current.activity = name
            current.named = True
        clocks = [c for c in own if self._is_event_time(c, segment)]
        dates = [c for c in own if c.mention.all_day and c.mention.value is not None]
        vague = [c for c in own if c.mention.kind == "vague"]
        moving = bool(_RESCHEDULE_RE.search(text))
        target = self._target(events, activity, text)
        current = _current(events)
        confirming = bool(clocks) and bool(_CONFIRM_RE.search(segment.sentence or text))
        if (
            current is not None
            and current.start is not None
            and target in (None, current)
            and (confirming or (activity and target is current))
        ):  # "Please confirm: the dentist at 3 pm on March 14th", "the appointment is at 4"
            target, moving = current, moving or confirming
            if (
                activity
                and not name
                and (current.activity or not _GENERIC_EVENT_RE.fullmatch(activity))
            ):
                activity = current.activity  # its own name stays; "appointment" adds nothing
        if moving and not activity:
            target = _current(events, timed=True) or target
        elif moving and target is None and any(e.schedulable for e in events):
            target = _current(events, timed=True)
            activity = ""  # "actually make it 1:30, call me": a change, not a new event
        if _CANCEL_RE.search(text) and not (moving and clocks):
            if target is not None:  # "drinks are off", "can't make it, skip it"
                target.cancelled = True
            return last_day  # a plan called off in the same breath is no event either
        for candidate in own:  # the last day anyone named: "1pm works" means that day
            said = candidate.mention
            if said.value is not None and (
                said.all_day or (said.has_clock_time and lang.states_date(said.text))
            ):
                last_day = (said.value.astimezone(self.zone).date(), candidate.id)
        if not clocks:
            self._dates_and_vague(events, segment, activity, dates, vague, target, intent)
            return last_day
        options = self._options(text, clocks, segment.start)
        chosen = _plainest(clocks) if not options else clocks[0]
        mention = chosen.mention
        own_day = lang.states_date(mention.text)
        echo = self._echo(events, mention) if not own_day and not moving else None
        if echo is not None:  # "9:30 is tight but fine": the agreed time, said again
            return last_day
        if target is not None and not activity and not moving and target.start is not None:
            if own_day and target.start.date() != mention.value.astimezone(self.zone).date():
                target = None  # "the plumber comes monday at 8": its own day, its own event
        start, grounds, dated = self._resolve(chosen, target, last_day, dates)
        if (
            moving
            and mention.kind == "interval"
            and _FROM_TO_RE.search(mention.text)
            and mention.end_value is not None
            and (_MOVED_FROM_RE.search(text) or _starts_at(target, mention, self.zone))
        ):  # "moved from 4pm to 11am": the new time is the end; "let's do 2 to 3" is a range
            end_at = mention.end_value.astimezone(self.zone).time()
            start = _at(start.astimezone(self.zone).date(), end_at, self.zone)
        end = self._end(chosen.mention, start, activity or (target.activity if target else ""))
        fresh = activity and (target is None or (target.start is not None and not moving))
        if target is not None and not (fresh and target.activity != activity):
            target.start, target.end, target.grounds = start, end, grounds
            target.all_day, target.vague, target.cancelled = False, None, False
            target.dated = dated
            target.undecided = [c.id for c in options]
            if activity and (not target.activity or (name and not target.named)):
                target.title, target.activity, target.named = activity, activity, bool(name)
            if not target.location:
                target.location = _location(text, [c.mention for c in own], segment.start)
            return last_day
        same = next((e for e in events if e.start == start and not e.cancelled), None)
        if same is not None:  # the same time restated with a name: one event, best title
            if activity and (not same.activity or same.start is None or name) and not same.named:
                same.title, same.activity, same.named = activity, activity, bool(name)
            return last_day
        events.append(
            ProposedEvent(
                title=activity
                or _words_around(text, mention.start - segment.start, mention.end - segment.start),
                start=start,
                end=end,
                all_day=False,
                location=_location(text, [c.mention for c in own], segment.start),
                attendees=_people(text),
                grounds=grounds,
                meal=_meal(activity or text),
                kind="reminder" if intent == "remind" else "event",
                undecided=[c.id for c in options],
                activity=activity,
                named=bool(name),
                dated=dated,
            )
        )
        return last_day

    # ------------------------------------------------------------------ pieces
    def _is_event_time(self, candidate: Candidate, segment: _Segment) -> bool:
        """A stated clock time that could start an event: not "I'm free from 2 to 5", not
        "my 2pm is running long" (someone's other commitment)."""
        mention = candidate.mention
        if not mention.has_clock_time or mention.value is None:
            return False
        before = segment.text[: mention.start - segment.start]
        sentence = segment.sentence or segment.text
        if _AVAILABILITY_RE.search(sentence) and (
            _RANGE_RE.search(sentence) or mention.kind == "interval"
        ):
            return False
        if (
            mention.kind == "interval"
            and not _BY_RE.match(mention.text)
            and _AVAILABILITY_RE.search(segment.context)
            and not _ACTIVITY_RE.search(sentence)
            and not _DECIDE_RE.search(sentence)
        ):  # "Any other time available?" - "There is another between 8:30 pm and 10 pm."
            return False
        return not _POSSESSIVE_RE.search(before)

    def _echo(self, events: list[ProposedEvent], mention: TimeMention) -> ProposedEvent | None:
        """A live event already at this clock time, which a bare time just repeats."""
        wall = mention.value.astimezone(self.zone)
        for event in events:
            if event.schedulable and not event.all_day:
                start = event.start.astimezone(self.zone)
                if (start.hour, start.minute) == (wall.hour, wall.minute):
                    return event
        return None

    def _target(
        self, events: list[ProposedEvent], activity: str, text: str
    ) -> ProposedEvent | None:
        """The event this message talks about: same activity, else the one spoken of last."""
        live = [e for e in events if not e.cancelled]
        if activity:
            key = activity.split()[-1].lower()
            for event in reversed(live):
                if event.activity and event.activity.split()[-1].lower() == key:
                    return event
            if _GENERIC_EVENT_RE.fullmatch(activity) and _DEFINITE_RE.search(
                text[: text.lower().find(activity.split()[0].lower())]
            ):  # "the appointment", "your booking": the one spoken of
                return _current(events)
            untimed = [e for e in live if e.start is None and not e.all_day]
            return untimed[-1] if untimed else None
        return _current(events)

    def _options(self, text: str, clocks: list[Candidate], offset: int) -> list[Candidate]:
        """Times offered as alternatives ("1 or 2?"): none of them is decided yet."""
        for first, second in zip(clocks, clocks[1:], strict=False):
            gap = text[first.mention.end - offset : second.mention.start - offset]
            if _OR_RE.match(gap):
                return clocks
        return []

    def _resolve(
        self,
        chosen: Candidate,
        target: ProposedEvent | None,
        last_day: tuple[date, str] | None,
        dates: list[Candidate],
    ) -> tuple[datetime, list[str], bool]:
        """A clock time's datetime: its own day if it names one, else the day it belongs to;
        and whether that day was said at all (False: the parser's next such hour)."""
        mention = chosen.mention
        value = mention.value.astimezone(self.zone)
        if mention.kind == "interval" and mention.end_value and _BY_RE.match(mention.text):
            value = (mention.end_value + timedelta(seconds=1)).astimezone(self.zone)
        if lang.states_date(mention.text):
            return value, [chosen.id], True
        if dates:
            day = dates[-1].mention.value.astimezone(self.zone).date()
            clock = value.timetz().replace(tzinfo=None)
            return _at(day, clock, self.zone), [dates[-1].id, chosen.id], True
        if target is not None and target.start is not None and not target.all_day:
            day = target.start.astimezone(self.zone).date()
            grounds = [g for g in target.grounds if g != target.grounds[-1]] or target.grounds[:1]
            return _at(day, value.time(), self.zone), [*grounds[:1], chosen.id], target.dated
        if target is not None and target.day is not None:
            said = int(target.grounds[0][1:]) if target.grounds else 0
            if last_day is None or int(last_day[1][1:]) <= said:  # unless a later day was named
                grounds = [*target.grounds[:1], chosen.id]
                return _at(target.day, value.time(), self.zone), grounds, True
        if last_day is not None:
            return _at(last_day[0], value.time(), self.zone), [last_day[1], chosen.id], True
        return value, [chosen.id], False

    def _end(self, mention: TimeMention, start: datetime, activity: str) -> datetime:
        if mention.kind == "interval" and mention.end_value and not _BY_RE.match(mention.text):
            length = mention.end_value - mention.value
            if timedelta(0) < length <= timedelta(hours=16):
                return start + length
        meal = _meal(activity)
        return start + (MEAL_DURATIONS[meal] if meal else DEFAULT_DURATION)

    def _dates_and_vague(
        self,
        events: list[ProposedEvent],
        segment: _Segment,
        activity: str,
        dates: list[Candidate],
        vague: list[Candidate],
        target: ProposedEvent | None,
        intent: str,
    ) -> None:
        """A message with a day but no clock time: an all-day event, or a vague one to ask about."""
        text = segment.text
        if not dates and not vague:
            unnamed = [e for e in events if not e.cancelled and not e.activity]
            if activity and unnamed and _LABEL_RE.search(text):
                unnamed[-1].title = unnamed[-1].activity = activity  # "title it The Hives Concert"
                return
            if activity and target is None:
                events.append(
                    ProposedEvent(activity, None, None, False, attendees=_people(text),
                                  location=_location(text, [], segment.start), activity=activity,
                                  meal=_meal(activity), vague=activity.lower())
                )  # fmt: skip
            return
        if _AVAILABILITY_RE.search(segment.sentence or text) or _SCHEDULE_QUESTION_RE.search(text):
            return  # "am I free on the 13th?": a day asked about, not an event
        day_candidate = dates[-1] if dates else None
        day = day_candidate.mention.value.astimezone(self.zone).date() if day_candidate else None
        if day is None and vague and vague[-1].mention.value is not None:
            day = vague[-1].mention.value.astimezone(self.zone).date()
        said = (vague[-1].mention.text if vague else day_candidate.mention.text).strip()
        if target is not None and (not activity or target.activity == activity):
            if target.start is None:
                target.day = day or target.day
                target.vague = said
                if day_candidate:
                    target.grounds = [day_candidate.id]
                return
            # "book it for 12:30" ... "for next Friday": the day completes the time
            moves = (
                _RESCHEDULE_RE.search(text) or not target.dated
                or _RESTATED_DAY_RE.search(segment.sentence or text)
            )  # fmt: skip
            if moves and day is not None and not target.all_day:
                moved = _at(day, target.start.astimezone(self.zone).time(), self.zone)
                length = target.end - target.start if target.end else DEFAULT_DURATION
                grounds = [day_candidate.id] if day_candidate else []
                target.start, target.end = moved, moved + length
                target.grounds = grounds + target.grounds[-1:]
                target.dated = bool(grounds) or target.dated
                return
            if target.start is not None:
                return
        all_day = bool(day_candidate) and not vague and bool(_ALL_DAY_RE.search(text))
        said_at = (dates or vague)[-1].mention
        event = ProposedEvent(
            title=activity
            or _words_around(text, said_at.start - segment.start, said_at.end - segment.start),
            start=None,
            end=None,
            all_day=all_day,
            location=_location(text, [], segment.start),
            attendees=_people(text),
            grounds=[day_candidate.id] if day_candidate else [],
            vague=None if all_day else said,
            day=day,
            meal=_meal(activity or text),
            kind="reminder" if intent == "remind" else "event",
            activity=activity,
        )
        if all_day and day_candidate is not None:
            mention = day_candidate.mention
            first = mention.value.astimezone(self.zone)
            last = mention.end_value.astimezone(self.zone) if mention.end_value else None
            event.start = first.replace(hour=0, minute=0, second=0, microsecond=0)
            event.end = last if last and last > first else event.start + timedelta(days=1)
            event.vague = None
        events.append(event)

    def _finish(
        self,
        events: list[ProposedEvent],
        request: str,
        thread: str,
        speakers: list[str],
        intent: str,
    ) -> list[ProposedEvent]:
        """Titles and attendees for the events that stand; cancelled ones are dropped."""
        people = list(
            dict.fromkeys([*_people(" ".join(speakers)), *_people(request), *_people(thread)])
        )
        fallback = (
            (
                _reminder_title(request) or _activity(request)
                if intent == "remind"
                else _activity(request)
            )
            or _request_title(request)
            or _subject(thread)
        )
        events = _merged(events)
        unnamed = [e for e in events if not e.activity and not e.cancelled]
        events = _selected(events, _request_title(request))
        if _ONE_RE.search(request) and not _MANY_RE.search(request):
            events = _the_one(events)
        kept: list[ProposedEvent] = []
        timed = any(e.schedulable for e in events)
        for event in events:
            if event.cancelled or (timed and event.start is None and event.day is None):
                continue
            if not event.activity and fallback and len(unnamed) == 1:
                event.title = fallback  # "add the crit": the user's own name for it
            if not event.title:
                event.title = fallback or ("Reminder" if event.kind == "reminder" else "Meeting")
            event.attendees = list(dict.fromkeys([*event.attendees, *people]))[:8]
            if event.kind == "event" and event.attendees and not PLACEHOLDER_RE.search(event.title):
                event.title = f"{event.title} with {' and '.join(event.attendees[:2])}"
            kept.append(event)
        return kept[:MAX_EVENTS]


_REMIND_RE = re.compile(
    r"\bremind\s+me\s+(?:to\s+|about\s+|that\s+)?(?P<what>[^.!?\n]{2,80})", re.I
)


def _merged(events: list[ProposedEvent]) -> list[ProposedEvent]:
    """Two live timed events at the same minute are one event said twice ("Booking the
    dentist at 11:30" ... "call it Appointment, at 11:30"): keep the best title."""
    kept: list[ProposedEvent] = []
    for event in events:
        twin = next(
            (
                k
                for k in kept
                if event.schedulable and k.schedulable and k.start == event.start
                and k.all_day == event.all_day
            ),
            None,
        )  # fmt: skip
        if twin is None:
            kept.append(event)
            continue
        if (event.named, bool(event.activity), event.said) > (
            twin.named, bool(twin.activity), twin.said
        ):  # fmt: skip
            kept[kept.index(twin)] = event
    return kept


# "add it", "add the event we agreed on": the request wants one event; "add all of this",
# "add both" want every one ("add this" says nothing about how many).
_ONE_RE = re.compile(
    r"\b(?:add|put|save|enter|schedule|book|calendar|mark|block)\s+(?:it|the\s+(?:event|appointment"
    r"|meeting|booking|reservation|one))\b|\b(?:ajoute|mets|trag|eintragen)\s*-?\s*(?:le|la|ihn|es)\b"
    r"|\b(?:añáde|agréga|apúnta|ponlo|adiciona|põe)(?:lo|la)\b",
    re.IGNORECASE,
)
_MANY_RE = re.compile(
    r"\b(?:all|both|these|those|them|everything|events|alles|beide|tous|toutes|todos|todas|ambos"
    r"|tout)\b",
    re.IGNORECASE,
)


def _the_one(events: list[ProposedEvent]) -> list[ProposedEvent]:
    """The one event a singular request means: among several timed ones, the one the user
    named for the calendar, else the one the thread settled last."""
    timed = [e for e in events if e.schedulable]
    if len(timed) < 2:
        return events
    best = max(timed, key=lambda e: (e.named, e.said))
    return [e for e in events if e is best or not e.schedulable]


def _selected(events: list[ProposedEvent], wanted: str) -> list[ProposedEvent]:
    """ "add the pickup": only the events the request names, when any does."""
    key = re.sub(r"[\s-]+", "", wanted.split(" with ")[0]).lower()
    if not key:
        return events
    named = [e for e in events if key in re.sub(r"[\s-]+", "", e.title).lower()]
    return named or events


def _reminder_title(request: str) -> str:
    match = _REMIND_RE.search(request)
    if not match:
        return ""
    what = re.split(r"\s+(?:at|on|tomorrow|tonight|today|next|this|in)\b", match.group("what"))[0]
    return what[:1].upper() + what[1:]


# ---------------------------------------------------------------------- the model linker
LINK_SCHEMA_MAX_TITLE = 60


def _link_schema(events: list[ProposedEvent], ids: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "events": {
                "type": "array",
                "minItems": len(events),
                "maxItems": len(events),
                "items": {
                    "type": "object",
                    "properties": {
                        "time": {"type": "string", "enum": ids},
                        "title": {"type": "string", "maxLength": LINK_SCHEMA_MAX_TITLE},
                    },
                    "required": ["time", "title"],
                },
            }
        },
        "required": ["events"],
    }


def link_with_model(
    events: list[ProposedEvent],
    found: list[Candidate],
    *,
    request: str,
    thread: str,
    gateway: ModelGateway,
    guard: PrivacyGuard,
    session: str | None = None,
) -> tuple[list[ProposedEvent], bool]:
    """Let the model pick the time of each unnamed event among its candidates and title it.

    Returns the events and whether the model's answer was used. An answer that does not
    parse or names a candidate outside the event's own messages is not used: the rule
    linker's events stand; a title of placeholders or IDs keeps the code's title.
    """
    # Only events code could not name go to the model: a title with the activity word and a
    # time from its own messages are already what the model would be asked for.
    timed = [e for e in events if e.schedulable and not e.all_day and not e.activity]
    if not gateway.is_available or not timed:
        return events, False
    by_id = {c.id: c for c in found}
    ids = sorted({c.id for c in found if c.mention.has_clock_time}, key=lambda i: int(i[1:]))
    if not ids:
        return events, False
    prompt = load_prompt("link")
    listing = "\n".join(
        f"{c.id}: {c.mention.text!r} in: {_context(request, thread, c)}"
        for c in found
        if c.id in ids
    )
    proposals = "\n".join(
        f"{i + 1}. {e.title} (suggested time {e.grounds[-1]})" for i, e in enumerate(timed)
    )
    messages = [
        Message("system", prompt["system"]),
        Message("user", prompt["user"].format(times=listing, events=proposals)),
    ]
    try:
        answer = gateway.complete_json(
            messages,
            guard=guard,
            purpose="link",
            schema=_link_schema(timed, ids),
            schema_name=prompt["schema_name"],
            max_tokens=40 + 30 * len(timed),
            session=session,
        )
    except (ModelError, ModelOutputError) as error:
        logger.warning("event linker model failed, rules stand: %s", error)
        return events, False
    picked = answer.get("events")
    if not isinstance(picked, list) or len(picked) != len(timed):
        return events, False
    updated: dict[int, ProposedEvent] = {}
    for event, choice in zip(timed, picked, strict=True):
        chosen = by_id.get(str(choice.get("time")))
        title = " ".join(str(choice.get("title", "")).split())
        if chosen is None or chosen.id not in event.grounds:
            return events, False  # a time from another message is not this event's
        if PLACEHOLDER_RE.sub("", title).strip(" -:") == "" or re.search(r"\bT\d+\b", title):
            title = event.title  # a title of placeholders or candidate IDs names nothing
        updated[id(event)] = replace(event, title=title or event.title)
    return [updated.get(id(e), e) for e in events], True


def _context(request: str, thread: str, candidate: Candidate) -> str:
    text = request if candidate.mention.source == "request" else thread
    lo = max(0, candidate.mention.start - 60)
    snippet = text[lo : candidate.mention.end + 40].replace("\n", " ")
    return repr(snippet)
