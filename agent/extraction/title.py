"""What an event is called, where and with whom, from the words of a redacted message: the
activity word ("Dentist appointment"), the user's own name for it ("call it X"), the place
after "at", the people's placeholders, the meal it is."""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.extraction.cue import ACCEPT_RE as _ACCEPT_RE
from lang import data
from lang.activities import ACTIVITY_RE
from lang.text import ABBREVIATIONS
from privacy.entity_map import PLACEHOLDER_RE
from tools.calendar import lang
from tools.calendar.times import TimeMention

# "label it Leave for airport", "the event is Dentist appointment", "called Team retro".
LABEL_RE = re.compile(
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
    at on in by from let's lets let us we i you have grab do did does say said get go some
    quick any another if unless because whether than as
    about maybe how what can could shall should would will is are be it re fwd also just
    still then so ok okay sure yes no hey hi hello please thanks thank up out down was were has had
    event events
    don't dont can't cant we're i'm i'll you're it's that's there here when where who
    there's theres here's heres what's whats
    der die das den dem des ein eine einen dein deine deinen mein meine meinen ihr ihre ihren ihrem
    ist sind am um im zum zur vom beim unser unsere unseren und votre vos su sus seu sua
    oder mit für auf bei wir ich du sie es le la les un une des du au aux et ou avec pour à ce
    ma mon mes ton ta on nous je tu est el los las unos unas del al y o con para en mi tu es
    nos o os as um uma do da dos das no na em com e ou meu minha é""".split()
)


# "at Blue Bottle", and the same cue in de/fr/es/pt: "im Café Einstein", "chez Paul",
# "au Café de Flore", "en Casa Lucio", "no Tasca do Chico", "na Padaria" (a time such as
# "en enero" or "im Mai" is a time mention, which `location` skips).
_LOCATION_RE = re.compile(
    r"(?<![\w-])(?:at|@|held\s+at|location(?:\s+is)?|venue(?:\s+is)?|in|im|bei|chez|au|à"
    r"|en|no|na|em)\s+(?:(?:the|der|dem|la|le|l'|el|o|a)\s*)?"
    r"(?P<place>(?:<(?:LOCATION|STREET_ADDRESS|ADDRESS)_\d+>|[A-Z0-9][\w'’&.-]*)"
    r"(?:\s+(?:<[A-Z_]+_\d+>|[A-Z0-9][\w'’&.-]*|de|la|of|on|the|&|do|da|dos|das|del|di|du"
    r"|des|der|von|el|le)){0,4})"
)
_NOT_PLACE_RE = re.compile(
    r"^(?:\d{1,2}(?::\d{2})?\s*(?:am|pm|h)?|noon|midnight|[A-Z][a-z]+day|January|February|March"
    r"|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul"
    r"|Aug|Sep|Sept|Oct|Nov|Dec|ET|PT|CT|MT|CET|GMT|UTC|The|This|Next|It|I|We)\b",
)


_REQUEST_VERB = data.words("labels", "request_verbs")
_VENUE_NOUNS = data.words("places", "venue_nouns")
_AFTER_GENERIC = 30  # characters from "event" to the activity that names it
_SET_UP_RE = re.compile(r"\bset\s+up\b", re.IGNORECASE)


def _named_words(words: list[str]) -> list[str]:
    """`words` without the request or move verbs that lead them ("Add date night" -> "date
    night", "move standup" -> "standup")."""
    while words and (
        words[0].casefold() in _REQUEST_VERB
        # a move's verb, not its noun ("moving day")
        or (lang.MOVE_VERB_RE.fullmatch(words[0]) and not words[0].casefold().endswith("ing"))
    ):
        words = words[1:]
    return words


def _leads_in(between: str) -> bool:
    """Whether the words from "event" to an activity further on only lead to it: "an event in
    my calendar for my upcoming auto appointment" (a sentence break, or more than the two
    modifiers a title keeps, is another clause)."""
    if re.search(r"[.!?;\n]", between):
        return False
    words = re.findall(r"[\w'’-]+", between.casefold())
    return sum(w not in _STOP and w not in _GENERIC and w not in _DAY_LEADS for w in words) <= 2


# The letter after an activity that says which of a set it is ("Session B", "Plan B:"), ending
# its phrase ("dinner I think" is no label).
_ITEM_LABEL_RE = re.compile(r"[ \t]+([A-Z])(?=[ \t]*(?:[:,.;!?)\-–—\n]|$))")


_HOLIDAY_BEFORE_RE = re.compile(
    rf"(?<![^\W\d_])(?:{data.phrase_pattern('times', 'holidays').pattern})\s+$", re.IGNORECASE
)


def _title_words(text: str, at: int) -> str:
    """The activity noun at `at` with up to two modifiers before it ("Dentist appointment")."""
    match = ACTIVITY_RE.match(text, at)
    assert match is not None
    # a modifier is in the same phrase: "reminder: lunch" is a lunch
    before = re.split(r"[.:;!?,()\[\]—–\n]|\s-+\s", text[max(0, at - 40) : at])[-1]
    words = re.findall(r"<[A-Z_]+_\d+>(?:['’]s)?|[\w'’-]+", before)
    modifiers: list[str] = []
    holiday = _HOLIDAY_BEFORE_RE.search(before)
    for word in reversed(words[-2:] if holiday is None else []):
        if (
            _timeish(word)
            or word[:1].isdigit()
            or word.casefold() in _REQUEST_VERB
            or (word in _DAY_LEADS and word.islower())  # "Next Steps meeting" keeps its name
        ):
            break  # "my 2:00 pm meeting", "please confirm dinner", "my upcoming appointment"
        modifiers.insert(0, word)
    if holiday is not None:  # "Christmas Eve dinner": the occasion names it, a day too
        modifiers = holiday.group(0).split()
    phrase = " ".join([*_named_words(modifiers), match.group(0)])
    label = _ITEM_LABEL_RE.match(text, match.end())
    if label:
        phrase += f" {label.group(1)}"  # "Session B": which one of the set
    return phrase[:1].upper() + phrase[1:]


# A generic activity ("meeting", "call") is named by what it is for: "a meeting on Saturday at
# 9 am to discuss new phone contracts" is "Meeting to discuss new phone contracts". Between the
# activity and the opener only time words may stand; the purpose ends at a time or a clause.
_GENERIC_ACTIVITY = data.words("labels", "generic_activities")
_OPENER = data.words("labels", "purpose_openers")
_NOT_PURPOSE = data.words("labels", "not_a_purpose")
_FUNCTION_WORDS = data.words("names", "function_words")
_WORD_RE = re.compile(r"<[A-Z_]+_\d+>|[\w'’:.-]*\w")
_CLOCK_WORD_RE = re.compile(
    r"\d{1,2}(?:[:.h]\d{2})?(?:[ap]\.?m\.?|h)?|[ap]\.?m\.?|noon|midnight|o'clock", re.IGNORECASE
)
# A clock that opens a title ("10am review", "2:00 pm meeting", "9 am call"), not a count
# ("30 min call").
_LEADING_CLOCK_RE = re.compile(
    r"^\d{1,2}(?:(?:[:.h]\d{2})?\s*[ap]\.?m\.?|[:.h]\d{2})\s+(?=\S)", re.IGNORECASE
)
_PURPOSE_END_RE = re.compile(
    rf"[.,!?;:()\n]|\s(?:{data.alternation('labels', 'purpose_ends')})\s", re.IGNORECASE
)
_PURPOSE_WORDS = 6


_DAY_LEADS = data.words("times", "day_leads")


def _timeish(word: str) -> bool:
    return (
        word.casefold() in _STOP or lang.states_date(word) or bool(_CLOCK_WORD_RE.fullmatch(word))
    )


def purpose_of(text: str, end: int) -> str:
    """What a generic activity ending at `end` is for ("to discuss new phone contracts",
    "for nails"), or "" when the words after it say no purpose."""
    for word in list(_WORD_RE.finditer(text, end))[:10]:
        low = word.group().casefold()
        if low in _OPENER:
            break
        if not _timeish(word.group()):
            return ""
    else:
        return ""
    if re.search(r"[.!?;\n]", text[end : word.start()]):
        return ""  # the purpose is in the activity's own clause
    rest = text[word.end() :]
    stop = _PURPOSE_END_RE.search(rest)
    phrase = rest[: stop.start() if stop else len(rest)].split()[:_PURPOSE_WORDS]
    for cut, said in enumerate(phrase):  # "para revisar el presupuesto el lunes": to the day
        if cut and (lang.states_date(said) or _CLOCK_WORD_RE.fullmatch(said)):
            phrase = phrase[:cut]
            break
    content = [w for w in phrase if w.casefold() not in _FUNCTION_WORDS]
    if not content or content[0].startswith("<") or lang.states_date(content[0]):
        return ""  # "for <PERSON_1>", "to Friday": a person or a day, not a purpose
    if content[0].casefold() in _NOT_PURPOSE or content[0][0].isdigit():
        return ""  # "for an hour", "for two", "for 30 minutes"
    if low == "to" and phrase[0].casefold() in _FUNCTION_WORDS:
        return ""  # "to the office": a place; "to discuss" opens a purpose
    while phrase and (_timeish(phrase[-1]) or phrase[-1].casefold() in _DAY_LEADS):
        phrase.pop()  # "for the following Tuesday": a day's words
    return f"{word.group()} {' '.join(phrase)}" if phrase else ""


def activity_title(text: str) -> str:
    """The title the segment gives its activity, or "" when it names none; a generic activity
    carries its purpose ("Meeting to discuss new phone contracts")."""
    title = _activity_title(text)
    if title and title.split()[-1].casefold() in _GENERIC_ACTIVITY:
        for match in re.finditer(rf"\b{re.escape(title.split()[-1])}\b", text, re.IGNORECASE):
            purpose = purpose_of(text, match.end())
            if purpose:
                return f"{title} {purpose}"
    return title


def _activity_title(text: str) -> str:
    for pattern in (LABEL_RE, _ADD_RE):
        match = pattern.search(text)
        if match and text.rstrip().endswith("?"):
            continue  # "what is the name of the event?" asks for a title, it gives none
        if match:
            title = _NAME_LEAD_RE.sub("", match.group("title").strip())
            title = _LEADING_CLOCK_RE.sub("", title) or title  # "add my 10am review": when
            contact = _CONTACT_RE.search(title)  # "the event is <ADDRESS_1>": where, not what
            title = title[: contact.start()].strip() if contact else title
            if lang.states_date(title):
                continue  # "the date for the event is Tuesday": a day, not a name
            if not title or title.split()[0].casefold() in _STOP:
                continue  # "I need a name and time": a clause goes on, no name is given
            if _names_nothing(title):
                continue  # "add a new event to my calendar"
            if pattern is _ADD_RE and title.split()[-1].casefold() in _VENUE_NOUNS:
                continue  # "book a conference room ... for the staff meeting": where, not what
            if (ACTIVITY_RE.search(title) and not re.match(r"events?\b", title, re.I)) or (
                pattern is LABEL_RE
            ):
                return title[:1].upper() + title[1:]
    places = [m.span("place") for m in _LOCATION_RE.finditer(text)]
    generic_end: int | None = None
    for match in ACTIVITY_RE.finditer(text):
        if (
            generic_end is not None
            and match.start() - generic_end > _AFTER_GENERIC
            and not _leads_in(text[generic_end : match.start()])
        ):
            return ""  # a word further on is another clause's ("can you show me ...")
        if match.group(0).lower() in {"event", "date"}:
            generic_end = match.end()  # "an event for a hockey game": the game is what it is
            continue
        if any(lo <= match.start() < hi for lo, hi in places):
            continue  # "cardio at Planet Fitness": the fitness is a place's name
        after = re.match(r"\s+([^\W\d_]+)", text[match.end() :])
        if after and after.group(1).casefold() in _VENUE_NOUNS:
            continue  # "a conference room": a place, the meeting held there is the activity
        return _title_words(text, match.start())
    return ""


_ENTRY_ADJECTIVES = data.words("labels", "entry_adjectives")


def _names_nothing(title: str) -> bool:
    """Whether every word of `title` is a function, calendar or entry word ("a new event")."""
    return all(
        w in _STOP or w in _GENERIC or w in _ENTRY_ADJECTIVES for w in title.casefold().split()
    )


_GENERIC = frozenset(
    "it this that these those all both everything event events thing things what whatever one "
    "calendar agenda kalender calendrier calendario entry entries".split()
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
    rf"|\b(?:under|with|by|in|give\s+{_IT}|add|use|using|put|make|set|change|have|having)\s+"
    r"(?:the|a|an)\s+"
    rf"(?:event(?:'s)?\s+)?{_NAME_WORD}(?:\s+(?:of|for)\s+(?:the|this|that)\s+event)?\s+"
    r"(?:to\s+|as\s+|of\s+)?(?:be\s+)?"
    # "the event title should be X", "title is X", "the event's name is X"
    rf"|\b{_NAME_WORD}(?:\s+(?:of|for)\s+(?:the|this|that)\s+event)?\s+(?:is|should\s+be|will\s+be"
    r"|would\s+be|can\s+be(?:\s+called)?|must\s+be|as)\s+(?:called\s+)?"
    rf"|\b(?:event|{_NAME_WORD})\s*:\s*"
    # "add event "Go to grocery store"": a quoted name right after the event word
    r"|\b(?:event|appointment|reminder|entry)\s+(?=[\"“])"
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
_NAME_VERB = r"(?:put|use|add|make|set|have|give|keep|save|mark|schedule\s+(?:it|this)\s+as)"
_NAME_AFTER_RE = re.compile(
    rf"\b{_NAME_VERB}\s+(?:down\s+)?"
    # the name starts after the last such verb: "add that to my calendar and put X as the title"
    rf"(?P<title>(?:(?!\b{_NAME_VERB}\b)[^.!?;\n]){{2,60}}?)\s+(?:as|for|to)\s+"
    rf"(?:the\s+|a\s+|an\s+)?(?:event\s+)?{_NAME_WORD}\b",
    re.IGNORECASE,
)
# "add Apartment viewing to my calendar": what is between the verb and the calendar
_NAME_ADD_RE = re.compile(
    r"\b(?:add|put|pencil\s+in|enter|ajoute|mets|añade|agrega|apunta|pon|adiciona|coloca|põe)"
    r"\s+(?:just\s+)?(?P<title>[^.!?;\n]{2,60}?)\s+(?:to|on|in|into|onto|à|a|al|en|na|no|ao|dans)"
    rf"\s+(?:my|the|your|our|mon|ma|mi|minha|la|el|o|a)?\s*(?:{_CAL}|calendrier|calendario"
    r"|calendário)\b|\b(?:could|can|would|will)\s+you\s+(?:just\s+|please\s+)?add\s+"
    r"(?P<title2>[^.!?;\n]{2,60}?)\s*(?=[.!?;\n]|$)"
    # "Put in Movie show at the night 10 pm spot": a capitalised name put in for a time
    r"|\b(?:put|pencil|write)\s+in\s+(?P<title3>(?-i:[A-Z])[^.!?;\n]{1,60}?)\s+(?:at|on|for)\b",
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
# A name in quotes, up to its closing quote.
_QUOTED_RE = re.compile(r"\"[^\"\n]{2,60}\"|“[^”\n]{2,60}”")
_NAME_ASK_RE = re.compile(
    r"\b(?:what|which|how|wie|welche\w*|quel\w*|qu[ée]|cómo|como|qual)\b", re.IGNORECASE
)
_NOT_A_NAME = frozenset(
    "it this that these those them something anything everything all both one ça ca lo esto eso"
    " isso das es event"
    # a pronoun opens a clause, not a name ("call them you can at ..."); "the following:" points on
    " you i we he she they following below"
    # what follows "as" when it is no name: "add it to my calendar as well", "as usual"
    " well usual planned agreed discussed always before soon needed normal".split()
)


_NAME_TRIM_RE = re.compile(r"(?:\s+(?:at|for|on|from|by|in|and|with|to|the|a|an))+$", re.I)
# "make a Reservation at ..." -> "Reservation at ..."; capitalised "The Hives" stays a name.
_NAME_LEAD_RE = re.compile(
    r"^(?:as\s+)?(?:(?:a|an|the|that|this|le|la|les|un|une|el|los|las|un|una|o|os|um|uma|der|die"
    r"|das|den|ein|eine)\s+(?=\S))?"
)


_CONTACT_RE = re.compile(r"<(?!PERSON_)[A-Z][A-Z_]*_\d+>")


def _names_a_person(title: str) -> bool:
    """Nothing but placeholders, forms of address and numbers: "a doctor called Dr. <PERSON_1>"
    names a person, not the event."""
    rest = re.findall(r"[^\W\d_][\w.]*", PLACEHOLDER_RE.sub(" ", title))
    return all(w.rstrip(".").casefold() in ABBREVIATIONS for w in rest)


def named_title(text: str, times: list[tuple[int, int]]) -> tuple[str, bool]:
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
        group = next(g for g in ("title", "title2", "title3") if match.group(g))
        found.append((1, match.start(group), match.end(group), False))
    for _rank, begin, end, anaphoric in sorted(found):
        quoted = _QUOTED_RE.match(text, begin)
        if quoted:  # "add event "An evening with friends"": a quoted name is whole, time words too
            end = quoted.end()
        else:
            stop = _NAME_END_RE.search(text, begin, end)
            end = min(
                [stop.start() if stop else end, *(lo for lo, _ in times if begin <= lo < end)]
            )
        if _NAME_ASK_RE.search(text[max(0, begin - 60) : begin].split(".")[-1]):
            continue  # "what should I call it?" asks for a name
        title = text[begin:end].strip(" \"'“”‘’,:")
        contact = _CONTACT_RE.search(title)  # a phone number, an e-mail or a street: not what
        title = _NAME_TRIM_RE.sub("", title[: contact.start()].rstrip() if contact else title)
        title = _NAME_LEAD_RE.sub("", title)
        words = title.lower().split()
        if not words or words[0] in _NOT_A_NAME:
            continue
        if _names_nothing(title):
            continue  # "add a new event to my calendar"
        if _names_a_person(title) or len(title) > 60:
            continue
        return title[:1].upper() + title[1:], anaphoric
    return "", False


# A question asking what to call the event (lang/data/acts.toml), and the words around an answer
# that are not part of the name ("Sure. Doctor visit, please.", "Great. Stylist visit at 3 pm").
ASK_NAME_RE = data.phrase_pattern("acts", "ask_name")
_ACCEPT_FILLERS = data.words("acts", "accept_fillers") | {""}
_COURTESY = data.words("names", "salutations") | data.words("names", "lower_not_names")
_ANSWER_WORD_RE = re.compile(r"[\w'’<>.&-]+")
_SENTENCE_RE = re.compile(r"[^.!?\n]+[.!?]*")


def _asks_name(asked: str) -> bool:
    """Whether a question sentence of `asked` asks for a name: "Can you confirm these details?
    The name of the event is X." states a name, it asks for none; "What name should I put down
    for the event." asks without a question mark."""
    return any(
        ASK_NAME_RE.search(sentence)
        and (sentence.rstrip().endswith("?") or _NAME_ASK_RE.match(sentence.lstrip()))
        for sentence in _SENTENCE_RE.findall(asked)
    )


def _without_accept(words: list[str]) -> list[str]:
    """`words` without the acceptance that leads them ("Great. Stylist visit" -> "Stylist
    visit"); a reply that is nothing but an acceptance ("Yes, sounds perfect") is left empty."""
    rest = _ANSWER_WORD_RE.findall(_ACCEPT_RE.sub(" ", " ".join(words)))
    if all(w.casefold().strip(".") in _STOP | _ACCEPT_FILLERS for w in rest):
        return []  # "Yes, sounds perfect", "That is fine."
    while words:
        lead = _ACCEPT_RE.match(" ".join(words))
        if lead is None or not lead.group():
            break
        words = " ".join(words)[lead.end() :].split()
    return words


def answered_name(text: str, asked: str, times: Sequence[tuple[int, int]] = ()) -> str:
    """The name a reply gives when the message before it asked for one ("What name should I
    use for the event?" - "Doctor visit, please."); "" for any other reply.

    `times` are the spans of the reply's time mentions: they are no part of the name ("Stylist
    visit at three pm"). Only a short phrase counts: a sentence ("I don't know yet"), a question,
    an acceptance or a person is no name.
    """
    if not _asks_name(asked) or "?" in text:
        return ""
    if _NAME_BEFORE_RE.search(text) or _NAME_AFTER_RE.search(text):
        return ""  # "Name the event <PERSON_1>": named_title read it, and found no name
    lead = _ANSWER_LEAD_RE.match(text)  # "Make it a food event."
    if lead:
        times = [(b - lead.end(), e - lead.end()) for b, e in times if b >= lead.end()]
        text = text[lead.end() :]
    for begin, end in sorted(times, reverse=True):
        text = f"{text[:begin]} . {text[end:]}"
    words = _ANSWER_WORD_RE.findall(text)
    while words and words[0].casefold().strip(".") in _COURTESY | {""}:
        words.pop(0)
    words = _without_accept(words)
    while words and words[0].strip(".") == "":
        words.pop(0)
    words = _named_words(words)  # "Put errand at 09:45"
    while words and words[-1].casefold().strip(".") in _COURTESY | _STOP | {""}:
        words.pop()
    title = _NAME_LEAD_RE.sub("", " ".join(words).strip(" ."))
    lowered = title.casefold().split()
    if not lowered or len(lowered) > 6 or lowered[0] in _STOP or lowered[0] in _NOT_A_NAME:
        return ""
    if any(w.strip(".") == "" or "." in w[:-1] for w in lowered):
        return ""  # two sentences, or a time left between words: no one phrase
    if _names_nothing(title) or _names_a_person(title):
        return ""
    return title[:1].upper() + title[1:]


# Words an answer to "what name should I use?" may open with before the name: "Make it a
# food event", "let's call it Gym".
_ANSWER_LEAD_RE = re.compile(
    r"\s*(?:let'?s\s+)?(?:make|call|name)\s+it\s+(?:as\s+)?(?=[^\W\d_])", re.IGNORECASE
)


_REQUEST_TITLE_RE = re.compile(
    r"\b(?:add|put|schedule|book|save|calendar|enter)\s+(?:the|my|our|a|an|in\s+the)\s+"
    r"(?P<title>[\w'’ -]{2,40}?)(?=\s+(?:to|on|in|into|for|at)\b|[.!?,]|$)",
    re.IGNORECASE,
)


def request_title(request: str) -> str:
    """ "add the crit" -> "Crit": what the user calls the event, unless it is a generic word."""
    match = _REQUEST_TITLE_RE.search(request)
    if not match or match.group("title").split()[0].lower() in _GENERIC:
        return ""
    words = match.group("title").split()
    while words and lang.states_date(words[-1]):
        words.pop()  # "add the gala friday at 7pm": the gala
    title = " ".join(words)
    return title[:1].upper() + title[1:]


# "add the design crit, I'm going": what follows the verb, up to a preposition, a clause or a
# stop, names what to add (labels.toml [subject_verbs], [subject_ends]). Person placeholders,
# days, numbers and generic words name nothing.
_SUBJECT_VERB = data.words("labels", "request_verbs") | data.words("labels", "subject_verbs")
_SUBJECT_RE = re.compile(
    rf"\b(?:{'|'.join(sorted(map(re.escape, _SUBJECT_VERB), key=len, reverse=True))})\s+"
    r"(?P<what>[^.!?,;:()\n]{2,80})",
    re.IGNORECASE,
)
_SUBJECT_END_RE = re.compile(
    rf"\s(?:{'|'.join(map(re.escape, data.words('labels', 'subject_ends')))})\s", re.IGNORECASE
)
# acts.toml [filler] says nothing of which plan is meant: "eintragen bitte", "adiciona por
# favor" name no "bitte" or "favor" that a notice's "Bitte ... mitbringen" could pick.
_NOT_SUBJECT = (
    _STOP | _GENERIC | _FUNCTION_WORDS | data.words("acts", "filler")
    | data.words("labels", "generic_activities") | data.words("labels", "calendar_words")
)  # fmt: skip
_STEM_WORD_RE = re.compile(r"[^\W\d_][\w'’-]*")
# a placeholder names the thing ("add <PERSON_1>"), unless it owns it ("<PERSON_1>'s recital")
_SUBJECT_WORD_RE = re.compile(rf"{PLACEHOLDER_RE.pattern}|{_STEM_WORD_RE.pattern}")
_OWNER_RE = re.compile(rf"{PLACEHOLDER_RE.pattern}['’]s\b")
# "just the holiday party": a request with no verb, opened by a word that picks
_OPENED_RE = re.compile(
    rf"\s*(?:{data.alternation('labels', 'subject_openers')})\s+(?P<what>[^.!?,;:()\n]{{2,80}})",
    re.IGNORECASE,
)
_JOINER_RE = re.compile(rf"\s(?:{data.alternation('labels', 'subject_joiners')})\s", re.IGNORECASE)


def stem(word: str) -> str:
    """A word's first letters, so that "validation" meets "validate" and "parents'" meets
    "parent": enough to tell which message a request's words come from."""
    word = re.sub(r"['’]s?$", "", word.casefold())
    if "-" in word.strip("-"):  # "check-in" is not "check-out"
        return "-".join(stem(part) for part in word.split("-") if part)
    if len(word) > 3 and word.endswith("s"):
        word = word[:-1]
    return word[:5]


def stems(text: str) -> set[str]:
    """The stems of the words of `text`; a placeholder is its own word ("<PERSON_1>"), so a
    request that names a redacted thing ("add pydata") meets the line that says it."""
    words = {stem(w) for w in _STEM_WORD_RE.findall(PLACEHOLDER_RE.sub(" ", text))}
    return words | {p.group(0).casefold() for p in PLACEHOLDER_RE.finditer(text)}


def request_subject(request: str) -> list[list[str]]:
    """The stems of each thing a request names to add ("add the design crit, I'm going" ->
    [[design, crit]]; "just the book club and the gingerbread workshop" -> [[book, club],
    [ginge, works]]); [] when it names nothing ("add the event we agreed on")."""
    match = _SUBJECT_RE.search(f"{request} ") or _OPENED_RE.match(request)
    if match is None:
        return []
    what = f" {match.group('what')} "
    end = _SUBJECT_END_RE.search(what)
    items = []
    for part in _JOINER_RE.split(what[: end.start() if end else None]):
        found = [
            stem(w) if not PLACEHOLDER_RE.fullmatch(w) else w.casefold()
            for w in (m.group(0) for m in _SUBJECT_WORD_RE.finditer(_OWNER_RE.sub(" ", part)))
            if w.casefold() not in _NOT_SUBJECT
            and re.sub(r"['’]s?$", "", w.casefold()) not in _NOT_SUBJECT
            and (len(w) > 1 or w.isupper())  # "add session B", "the Q and A"
        ]
        if found:
            items.append(list(dict.fromkeys(found)))
    return items


_AFTER_TITLE_RE = re.compile(
    r"\s*(?:\S+\s+){0,4}?(?:for|to|para|pra|pour|für|zum|zur)\s+(?:go\s+over\s+|discuss\s+)?"
    r"(?P<title>(?:(?:the|a|an|our|o|a|le|la|el|der|die|das)\s+)?[^\W\d][\w'’ -]{2,40}?)"
    r"(?=[.,!?;:()]|$)",
    re.IGNORECASE,
)


# A place said right before a time, in lower case ("in the supply closet tomorrow"): where the
# event is, not what it is.
_PLACE_TAIL_RE = re.compile(
    r"\s(?:in|at|inside|outside|near)\s+(?:the|a|an|my|our|his|her|their|your)\s+"
    r"(?:[\w'’-]+\s+){0,2}[\w'’-]+[\s,]*$",
    re.IGNORECASE,
)


def words_around(text: str, start: int, end: int) -> str:
    """A title for a time with no activity word: "for the tax prep" after it, else the words
    before it ("farmers market sat 9am" -> "Farmers market"), else the words of its clause
    after it ("Tomorrow at 1 starts the big day")."""
    after = _AFTER_TITLE_RE.match(text, end)
    if after:
        words = [w for w in after.group("title").split() if w.lower() not in _STOP]
        if words:
            phrase = " ".join(words[:4])
            return phrase[:1].upper() + phrase[1:]
    said = text[:start]
    place = _PLACE_TAIL_RE.search(said)
    if place and _content_words(said[: place.start()]):
        said = said[: place.start()]  # "a secret project to work on in the supply closet": where
    before = _content_words(said)[-3:]
    if not before:  # the time opens its clause: the words after it say what it is
        clause = re.split(r"[.!?;\n]", text[end:])[0]
        before = _content_words(clause)[:4]
    phrase = " ".join(before)
    return phrase[:1].upper() + phrase[1:]


_FIELD_LABEL_RE = re.compile(
    rf"(?<![\w-])(?:{data.alternation('labels', 'field_labels')})\s*:(?!\d)", re.IGNORECASE
)


def _content_words(text: str) -> list[str]:
    """The words of `text` that can name an event, without the request verbs that lead them:
    no function word, day, generic word ("calendar entry") or place ("at Planet Fitness"; "in"
    opens a verb's particle too: "pencil in a Table for 2")."""
    text = _FIELD_LABEL_RE.sub(" , ", text)  # "Reminder: your cleaning is ...": a label
    for place in reversed(list(_LOCATION_RE.finditer(text))):
        cue = place.group(0).split()[0].casefold()
        if cue in ("at", "@") and not _NOT_PLACE_RE.match(place.group("place")):
            text = text[: place.start()] + " , " + text[place.end() :]
    words = [
        w
        # "5-a-side", "3-on-3": a number joined to words is one word
        for w in re.findall(
            r"<[A-Z_]+_\d+>|\d+(?:-\w+)*-[^\W\d_][\w'’-]*|[^\W\d_][\w'’-]*",
            _SET_UP_RE.sub("setup", text),
        )
        if w.lower() not in _STOP
        and w.lower() not in _GENERIC
        and not lang.states_date(w)
        and w.casefold() not in lang.CALENDAR_WORDS  # "Dec" of "Dec 19 – Caroling 6pm"
        and len(w) > 2
        and not w.startswith("<")
    ]
    return _named_words(words)


def place_in(text: str, mentions: list[TimeMention], offset: int) -> str:
    for match in _LOCATION_RE.finditer(text):
        place = match.group("place").strip(" .")
        begin = match.start("place") + offset
        if any(m.start <= begin < m.end for m in mentions) or _NOT_PLACE_RE.match(place):
            continue
        return place
    return ""


_ROLE_WITH = data.alternation("names", "role_with")
_ROLE_DETERMINERS = data.alternation("names", "role_determiners")
# A role the plan is with: after "with" (a determiner and a word maybe between: "with the new
# intern"), or after an activity and a determiner ("meeting the accountant"); never one whose
# plan it is ("my sister's party").
_ROLES = data.alternation("names", "roles")
_ROLE = rf"(?P<word>{_ROLES})(?:\s+(?:{_ROLES}))?\b(?!['’])"  # "the team lead", "lead investor"
_ROLE_AFTER_WITH_RE = re.compile(
    rf"\b(?P<with>{_ROLE_WITH})\s+"
    rf"(?P<role>(?:(?:{_ROLE_DETERMINERS})\s+)?(?:[^\W\d_]+\s+)??{_ROLE})",
    re.IGNORECASE,
)
_ROLE_AFTER_ACTIVITY_RE = re.compile(
    rf"\b(?P<activity>[^\W\d_]+)\s+(?P<role>(?:{_ROLE_DETERMINERS})\s+{_ROLE})", re.IGNORECASE
)
# Words of the roles table that say no one in particular ("lunch with all of them").
_NOBODY_IN_PARTICULAR = data.words("names", "roles_of_nobody")


def role_in(text: str) -> str | None:
    """Who the plan is with when the text names them by role alone, in its own words with its
    preposition ("with my boss", "con mi jefe"; "with the accountant" for "meeting the
    accountant"); None when it names no role. A role that is itself the plan ("the dentist")
    is its activity, not its company, and one after any other word ("pick up my sister") is
    none."""
    found = [
        *_ROLE_AFTER_WITH_RE.finditer(text),
        *(m for m in _ROLE_AFTER_ACTIVITY_RE.finditer(text) if ACTIVITY_RE.fullmatch(m[1])),
    ]
    for match in sorted(found, key=lambda m: m.start("role")):
        word = match.group("word").casefold()
        if word not in _NOBODY_IN_PARTICULAR and not ACTIVITY_RE.fullmatch(word):
            said = match.groupdict().get("with") or "with"
            return f"{said} {match.group('role')}"
    return None


def people_in(text: str) -> list[str]:
    return list(
        dict.fromkeys(m.group(0) for m in PLACEHOLDER_RE.finditer(text) if "PERSON" in m.group(1))
    )


def meal_in(text: str) -> str | None:
    """The first meal the text names, in any of Veil's languages ("Mittagessen" is a lunch):
    its length and the hours its free times are offered at."""
    return next((m for w in re.findall(r"[^\W\d_]+", text) if (m := lang.meal_of(w))), None)


_REMIND_RE = re.compile(
    r"\bremind\s+me\s+(?:to\s+|about\s+|that\s+)?(?P<what>[^.!?\n]{2,80})", re.I
)


def reminder_title(request: str) -> str:
    match = _REMIND_RE.search(request)
    if not match:
        return ""
    what = re.split(r"\s+(?:at|on|tomorrow|tonight|today|next|this|in)\b", match.group("what"))[0]
    return what[:1].upper() + what[1:]
