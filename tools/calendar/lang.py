"""Language-dependent pieces of time understanding: detection, locales, and Veil's word lists.

Duckling knows the grammar of dates; these lists carry what it does not: which words make a
time vague ("dinner", "soon"), which context moves a bare hour to the evening, which zone a
"PT" means, and OCR slips in digits. They are patterns, not a list of test phrases.
"""

from __future__ import annotations

import functools
import re
from datetime import date, timedelta

from lang import data, zones
from lang.frequency import LANGUAGES, zipf
from lang.once import once
from lang.spelling import misspelt_weekday
from lang.text import fold_accents

DEFAULT_LANGUAGE = "en"  # parsed alongside any detected language, and preferred on a tie
# The grammars times are read in: the word-frequency languages and Italian, whose frequencies
# stay out of privacy's "common word" test (Italian lists hold "Mauro" and "Giulia").
TIME_LANGUAGES = (*LANGUAGES, "it")

# Duckling's English locales; other countries get the US or the day-first British reading.
_DUCKLING_EN_COUNTRIES = frozenset("AU BZ CA GB IE IN JM NZ PH TT US ZA".split())
# Countries that write month first (4/6 = April 6); everywhere else writes the day first.
_MONTH_FIRST_COUNTRIES = frozenset("US PR GU VI AS MP UM FM MH PW".split())


def writes_day_first(tz: str, zoneinfo_dir: str) -> bool:
    """Whether people in the zone's country write the day first (3/12 = 3 December)."""
    return zones.zone_countries(zoneinfo_dir).get(tz, "US") not in _MONTH_FIRST_COUNTRIES


def locale_for_zone(tz: str, zoneinfo_dir: str) -> str:
    """The English locale for a zone: the zone's country decides 4/6 (month or day first)."""
    country = zones.zone_countries(zoneinfo_dir).get(tz, "US")
    if country in _DUCKLING_EN_COUNTRIES:
        return f"en_{country}"
    return "en_US" if country in _MONTH_FIRST_COUNTRIES else "en_GB"


@functools.lru_cache(maxsize=64)
def language_of_zone(tz: str, zoneinfo_dir: str) -> str | None:
    """The first official language of the zone's country that Veil reads times in (Spanish for
    America/Santiago, German for Europe/Zurich, French for America/Toronto), or None (none but
    English): a short line ("a las 6 de la tarde") is too short for its own language to be
    detected, and a user there likely writes it."""
    from babel.languages import get_official_languages

    country = zones.zone_countries(zoneinfo_dir).get(tz)
    official = get_official_languages(country) if country else ()
    return next((code for code in official if code in TIME_LANGUAGES and code != "en"), None)


@once
def _detector():  # -> lingua.LanguageDetector
    # Low-accuracy mode reads trigrams only: 19 MB and 0.04 s to load instead of 160 MB and
    # 0.8 s, for 2 fewer exact readings in 1,012 Duckling phrases (bench/times.py).
    from lingua import Language, LanguageDetectorBuilder

    return (
        LanguageDetectorBuilder.from_languages(
            Language.ENGLISH,
            Language.GERMAN,
            Language.FRENCH,
            Language.SPANISH,
            Language.PORTUGUESE,
            Language.ITALIAN,
        )
        .with_low_accuracy_mode()
        .build()
    )


@functools.cache
def _day_names() -> dict[str, frozenset[str]]:
    """Each language's day and month names that are no everyday English word ("lundi",
    "domingo", "Montag"; not "mars", "april" or the abbreviations "mon", "sam", "set")."""
    return {
        code: frozenset(
            w for w in data.words("labels", "calendar_words", code) if len(w) >= 4 and zipf(w) < 3.5
        )
        for code in data.table("labels")["calendar_words"]
        if code != DEFAULT_LANGUAGE
    }


def named_languages(text: str) -> list[str]:
    """The languages whose day or month names `text` uses."""
    words = set(re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", text.casefold()))
    return [code for code, names in _day_names().items() if words & names]


def detect_languages(text: str, default: str = DEFAULT_LANGUAGE) -> list[str]:
    """Languages to parse `text` with, the likelier first; `default` is always among them.

    Short chat lines ("à 14h", "tmrw at 3") are often too short for lingua to be sure;
    parsing with two grammars and keeping the better-covered result beats a wrong guess. A day
    or month name says its language whatever lingua guessed ("réunion lundi à 10h pour le
    budget" reads as English to its trigrams): that grammar is tried too.
    """
    if not re.search(r"[^\W\d_]", text):
        return [default]
    values = _detector().compute_language_confidence_values(text)
    best = values[0].language.iso_code_639_1.name.lower()
    order = [best, default] if values[0].value >= 0.6 else [default, best]
    return list(dict.fromkeys([*order, *named_languages(text)]))


# --- OCR slips: "Ipm", "l0am", "1O:30" -> digits, keeping every offset unchanged -------------
_OCR_TIME_RE = re.compile(
    r"(?<![\w:.])(?:"
    r"(?P<hm>[0-9IlO|]{1,2}[:.][0-9O]{2})(?=\s?(?:[ap]\.?m\b|\b|$))"
    r"|(?P<h>[0-9IlO|]{1,2})(?=\s?[ap]\.?m\b)"
    r")",
    re.IGNORECASE,
)
_OCR_DIGITS = str.maketrans({"I": "1", "l": "1", "|": "1", "O": "0", "o": "0"})


def fix_ocr_digits(text: str) -> str:
    """Replace letters misread for digits inside time-shaped tokens; same length, same offsets."""

    def repair(match: re.Match[str]) -> str:
        token = match.group(0)
        if match.group("h") is not None and not any(c.isdigit() for c in token):
            # "Ipm"/"lpm" only: "Iam" is far more often "I am" than "1am".
            following = text[match.end() : match.end() + 3].lstrip().lower()
            return token.translate(_OCR_DIGITS) if following.startswith("p") else token
        if not any(c.isdigit() for c in token):
            return token
        return token.translate(_OCR_DIGITS)

    return _OCR_TIME_RE.sub(repair, text)


# --- Typing slips in dates and times, repaired in place (same length, same offsets) ---------
# "7;15 pm", "7|30 pm": a hand that missed the colon, read as "7:15 pm".
_CLOCK_SLIP_RE = re.compile(r"(?<![\w:;|])(\d{1,2})[;|](\d{2})(?=\s?[ap]\.?m\b)", re.IGNORECASE)
# "2–4pm", "10—11:30am": a bare hour, a typographic dash and a time with am/pm. Duckling reads
# the range only with "-" and otherwise drops the start; 24-hour pairs ("13:30–14:15") are
# joined by ranges.py, which also knows "moved from".
_NUMBER_DASH_RE = re.compile(
    r"(?<![\d#№.:])(\d{1,2}(?::\d{2})?[ \t]?)[–—‒―−](?=[ \t]?\d{1,2}(?::\d{2})?[ \t]?[ap]\.?m\b)",
    re.IGNORECASE,
)
# "12 noon", "12 midnight": the number makes Duckling read "at 12" and "noon" apart, the day
# said before them left with the first; the word alone is the same time.
_TWELVE_RE = re.compile(r"(?<![\w:])12\s+(?=(?:noon|midday|midnight)\b)", re.IGNORECASE)
# "Tuesday 1 Dec 2026 - 15:30 - 16:30": a dash between a date and its clock separates them;
# Duckling read a range from the day's midnight to 15:30. It becomes a comma, in place.
_DASH_CLOCK_RE = re.compile(r"([ \t]+)[-–—]([ \t]+)(?=\d{1,2}[:.h]\d{2}\b)")


def _date_before(text: str, at: int) -> bool:
    """Whether `text` before `at` ends with a date: a year, "1 Dec", "Dec 1" or "Friday"."""
    return bool(_DATE_END_RE.search(text[max(0, at - 20) : at]))


def _date_dash_clock(text: str) -> str:
    return _DASH_CLOCK_RE.sub(
        lambda m: f"{m.group(1)},{m.group(2)}" if _date_before(text, m.start()) else m.group(0),
        text,
    )


_WORD_RE = re.compile(r"[^\W\d_]{5,10}")


def _spellings(section: str) -> tuple[dict[str, str], re.Pattern[str]]:
    """A table of times.toml that maps a form Duckling reads to the spellings it replaces
    (whitespace-separated, or a list of phrases), as spelling -> form and one pattern."""
    forms = {
        spelling.casefold(): form
        for form, spellings in data.table("times")[section].items()
        for spelling in (spellings.split() if isinstance(spellings, str) else spellings)
    }
    alternation = "|".join(sorted(map(re.escape, forms), key=len, reverse=True))
    return forms, re.compile(rf"(?<![\w'’])(?:{alternation})(?![\w'’])", re.IGNORECASE)


_CHAT_SPELLINGS = _spellings("chat_spellings")  # "2moro" -> "tmr"
_PHRASE_SPELLINGS = _spellings("phrase_spellings")  # "a mediodía" -> "a las 12"


def _respelled(text: str, spellings: tuple[dict[str, str], re.Pattern[str]]) -> str:
    """Each spelling replaced by its form, padded to the same length."""
    forms, pattern = spellings
    return pattern.sub(lambda m: forms[m.group(0).casefold()].ljust(len(m.group(0))), text)


# A length written as an adjective ("a 45-minute interview", "2-hour workshop"): Duckling reads
# "45 minute" only.
_HYPHENED_LENGTH_RE = re.compile(r"(?<=\d)-(?=(?:minutes?|mins?|hours?|hrs?|h)\b)", re.IGNORECASE)


_RANGE_SHORTHAND_RE = re.compile(r"(?<=\d)[ap](?=[ \t]*-[ \t]*\d)", re.IGNORECASE)


def fix_typing_slips(text: str) -> str:
    """Misspelt weekdays ("modnay", "Thurday"), chat and phrase spellings ("2moro", "a
    mediodía"), missed colons ("7;15 pm"), typographic dashes between numbers ("2–4pm"),
    hyphened lengths ("45-minute") and "12 noon", in place.

    A weekday one edit away, that is no word of its own (a "sundae" stays), becomes the day's
    three-letter form padded with spaces, so every offset into `text` still holds; a chat
    spelling becomes the form Duckling reads (times.toml [chat_spellings]), padded the same way.
    """
    text = _respelled(_respelled(text, _CHAT_SPELLINGS), _PHRASE_SPELLINGS)
    text = _NUMBER_DASH_RE.sub(lambda m: m.group(1) + "-", text)
    # "8a-9:15a": the first end's shorthand hides the range from Duckling ("8 -9:15a" reads;
    # the parser gives the morning back from the words as written)
    text = _RANGE_SHORTHAND_RE.sub(" ", text)
    text = _HYPHENED_LENGTH_RE.sub(" ", text)
    text = _TWELVE_RE.sub(lambda m: " " * len(m.group(0)), text)
    text = _date_dash_clock(text)

    def weekday(match: re.Match[str]) -> str:
        word = match.group(0)
        day = misspelt_weekday(word)
        return (word[0] + day[1:3]).ljust(len(word)) if day else word

    fixed = _CLOCK_SLIP_RE.sub(lambda m: f"{m.group(1)}:{m.group(2)}", text)
    return _WORD_RE.sub(weekday, fixed)


# --- Clock-time evidence in a span ----------------------------------------------------------
_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    "|eins|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|elf|zwölf"
    "|une|deux|trois|quatre|cinq|sept|huit|neuf|dix|onze|douze"
    "|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|doce"
    "|uma|duas|três|quatro|sete|oito|nove|dez|doze"
)
# Evidence that a sub-day reading was stated as a clock time: an hour-sized number, a number
# word, noon. Counts of units ("for 3 hours", "in 3 days"), ordinals ("the 17th") and room
# numbers ("404") are removed first: Duckling's hour-grain readings of those are no clock time.
_UNIT_COUNT_RE = re.compile(
    rf"(?:\d+|{_NUMBER_WORDS}|an?|half\s+an?)\s*-?\s*(?:sec(?:ond)?s?|min(?:ute)?s?|h(?:ou)?rs?"
    r"|hours?|days?|weeks?|months?|years?|wednesdays?|[a-z]+days|stunden?|minuten?|tagen?"
    r"|heures?|jours?|horas?|minutos?|d[ií]as?)\b|\d+(?:st|nd|rd|th|er|e|º|ª)\b",
    re.IGNORECASE,
)
_CLOCK_EVIDENCE_RE = re.compile(
    rf"(?<![\d.,])(?:[01]?\d|2[0-4])(?!\d)"
    rf"|\b(?:{_NUMBER_WORDS}|noon|midnight|midday|mittags?"
    r"|mitternacht|midi|minuit|mediod[ií]a|medianoche|meio[- ]dia|meia[- ]noite)\b",
    re.IGNORECASE,
)


# A clock written the 24-hour way, which leaves no am/pm open: "06:45", "0907", "at 1600".
FOUR_DIGIT_CLOCK_RE = re.compile(
    r"(?:(?<!\w)(?:at|@)\s*(?:[01]\d|2[0-3])|(?<![\d.,])0\d)[0-5]\d(?![\d.,:])", re.IGNORECASE
)


def states_clock_time(span: str) -> bool:
    """Whether a span Duckling read at hour or minute grain states a clock time."""
    return bool(
        _CLOCK_EVIDENCE_RE.search(_UNIT_COUNT_RE.sub(" ", span))
        or FOUR_DIGIT_CLOCK_RE.search(span)
        # "@ 315 thu", "945 tmrw" ("at 350 Sharon Park Drive" is a house number)
        or any(_beside_a_day(span, *m.span()) for m in _TIGHT_NUMBER_RE.finditer(span))
    )


# "evening 5", "morning 9": chat shorthand Duckling reads only as a latent parse.
PART_NUMBER_RE = re.compile(
    rf"\b(?:morning|afternoon|evening|night|tonight)\s+(?:\d{{1,2}}(?::\d{{2}})?|{_NUMBER_WORDS})\b",
    re.IGNORECASE,
)
# A bare hour that changes, offers or accepts a time: "actually make it 4", "I'd prefer 10",
# "6 works", "ok 11" (times.toml [bare_hour_before] [bare_hour_after], acts.toml [accept]).
# Duckling reads such a number only latently; these phrasings make it a clock time.
_BARE_HOUR = r"\d{1,2}(?::\d{2})?"
CHANGED_HOUR_RE = re.compile(
    data.phrase_pattern("times", "bare_hour_before").pattern
    + rf"\s+(?:at\s+)?(?P<hour>{_BARE_HOUR})(?![\d:%])"
    + rf"|(?:^|[\s,.!])(?P<first>{_BARE_HOUR})\s+"
    + data.phrase_pattern("times", "bare_hour_after").pattern
    # a message that is only a yes and the hour: "ok 11", "np 6"
    + rf"|^\s*(?:{data.phrase_pattern('acts', 'accept').pattern})[\s,!.]*"
    + rf"(?P<alone>{_BARE_HOUR})[\s.!]*$"
    # a message that is only the hour and a judgement: "9 better?", "9 ok"
    + rf"|^\s*(?P<judged>{_BARE_HOUR})\s+"
    + rf"(?:{data.phrase_pattern('times', 'bare_hour_last').pattern})[\s?!.]*$",
    re.IGNORECASE,
)

# A bare hour a change names as its new time: after a clock or move preposition (times.toml
# [clock_prepositions] [move_prepositions]) and before nothing but filler ("shift that to 8
# please", "rück das auf 3 bitte", "can we shift lunch to 2?"); never a noun's number ("table
# 5", "2 slots later").
NEW_HOUR_RE = re.compile(
    r"(?<!\w)(?:"
    + data.phrases_alternation(
        data.phrases("times", "clock_prepositions") + data.phrases("times", "move_prepositions")
    )
    + rf")\s+(?P<hour>{_BARE_HOUR})(?![\d:%])"
    + rf"(?=\s*(?:[.!?,;)]|$|(?:{data.alternation('acts', 'filler')})(?!\w)))",
    re.IGNORECASE,
)

# The words between a day or a count and its clock ("at", "@", "um", "a las"), as regex source.
CLOCK_PREPOSITIONS = data.phrases_alternation(data.phrases("times", "clock_prepositions"))
# Words after which a number counts (times.toml [count_before]), as regex source.
COUNT_WORDS = data.alternation("times", "count_before")
# A party's size before its time: "booked for 4 at 7:15", "table for 2 @ 8pm". Duckling reads
# "4 at 7:15" as four o'clock.
COUNT_BEFORE_TIME_RE = re.compile(
    rf"(?<![\w])(?:{COUNT_WORDS})\s+(?P<count>\d{{1,2}})(?=\s+(?:{CLOCK_PREPOSITIONS})\s*\d)",
    re.IGNORECASE,
)


# A code glued of letters and digits ("room 30C1", "flight BA0117", "gate B12"): no time, no
# year. A clock written with "h" ("9h30") and an ordinal ("2nd") are no codes.
_CODE_RE = re.compile(
    r"(?<![\w.:])(?:\d+(?![hq]\d|q\b)[^\W\d_]+\d+\w*|[^\W\d_]+\d+(?:[^\W\d_]+\d*)*)(?![\w:])",
    re.IGNORECASE,
)


# Letters that make a glued token a time written tight, not a code (times.toml).
_TIME_LETTERS = data.words("times", "tight_time_letters")
_LETTERS_RE = re.compile(r"[^\W\d_]+")


def _is_code(token: str) -> bool:
    """Whether a glued token is a code ("30C1", "BA0117"), not a time or a date written tight
    ("6to8", "today6PM", "Feb13", "2018Q4")."""
    return not all(
        g.casefold() in _TIME_LETTERS or _MONTH_ONLY_RE.fullmatch(g) or WEEKDAY_RE.fullmatch(g)
        for g in _LETTERS_RE.findall(token)
    )


# A number of three or four digits with no colon ("flight UA 123", "room 1204"): Duckling reads
# it as a clock ("123 on Mon" was 13:23). It is one only with a clock preposition before it
# ("at 930", "um 1430") or a clock word after it ("930am", "1430h", "0900 hrs"), or when it
# is four digits led by a zero ("a meeting 0907 tomorrow") or one end of a range ("1400-1500");
# a year-shaped number (19xx, 20xx) is left to Duckling's date reading.
_TIGHT_NUMBER_RE = re.compile(
    r"(?<![\w:.,/$€£#-])(?!19\d\d|20\d\d|0\d{3})\d{3,4}"
    r"(?![\w:.,/]|-\d|\s*(?:[ap]\.?m\b|h\b|hrs?\b|hours\b|uhr\b|o'?clock\b))",
    re.IGNORECASE,
)
# A clock preposition ending a text, as a word: "at " before "930", not "th" + "at" of "that".
CLOCK_PREPOSITION_BEFORE_RE = re.compile(rf"(?:^|\W)(?:{CLOCK_PREPOSITIONS})\s*$", re.IGNORECASE)


# ... or, shaped like a clock of the day's twelve hours ("730", "945", "1230"), right beside a
# day's word: "dinner thurs 730", "standup moved to 945 tmrw" (chat writing drops the colon).
_TIGHT_CLOCK_RE = re.compile(r"(?:[1-9]|1[0-2])[0-5]\d")
_WORD_BEFORE_RE = re.compile(r"([^\W\d_][\w'’]*)\W{0,2}\s+$")
_WORD_AFTER_RE = re.compile(r"\s+([^\W\d_][\w'’]*)")


def _beside_a_day(text: str, start: int, end: int) -> bool:
    """Whether the tight number at text[start:end] is shaped like a clock and a day's word
    stands right before or after it."""
    if not _TIGHT_CLOCK_RE.fullmatch(text[start:end]):
        return False
    before = _WORD_BEFORE_RE.search(text[max(0, start - 16) : start])
    after = _WORD_AFTER_RE.match(text, end)
    return any(w is not None and states_date(w.group(1)) for w in (before, after))


def _blank_tight_number(match: re.Match[str]) -> str:
    before = match.string[max(0, match.start() - 12) : match.start()]
    if CLOCK_PREPOSITION_BEFORE_RE.search(before) or _beside_a_day(
        match.string, match.start(), match.end()
    ):
        return match.group(0)
    return " " * len(match.group(0))


# A place's or a thing's number after its label (times.toml [number_labels]): "Room 2.01" was
# read as 14:01 beside "at 14:00", "Room 3.15" as 15:15.
_LABELLED_NUMBER_RE = re.compile(
    rf"\b(?:{data.alternation('times', 'number_labels')})\.?[ \t]*(?:#|no\.?|nr\.?|n[º°]\.?)?"
    r"[ \t]*(?P<number>[A-Z]?\d+(?:[./]\d+)*[A-Z]?)(?![\w:]|\s*(?:[-–—]\s*\d|[ap]\.?m\b))",
    re.IGNORECASE,
)


# Two bare hours (1 to 12, no minutes) joined by a dash after a stated day: "team offsite dec
# 10 9-5", "open house sat 10-2", "Dec 12, 8-1pm", "12/12 from 9-12". Duckling reads "10 9-5"
# as 5 September, so the pair is blanked for it and read as a range on that day (ranges.py).
_DAY_HOUR_PAIR_RE = re.compile(
    rf"(?:[ \t]*,)?[ \t]*(?:(?:{data.alternation('times', 'move_from')})[ \t]+)?"
    r"(?P<pair>(?P<a>1[0-2]|0?[1-9])[ \t]*[-–—][ \t]*(?P<b>1[0-2]|0?[1-9])"
    r"(?:[ \t]*(?P<mer>[ap])\.?m\.?)?)(?![\w:/\-]|[.,]\d|\s*(?:years?|yrs?|y/?o)\b)",
    re.IGNORECASE,
)
_NUMERIC_DATE_END_RE = re.compile(r"\b\d{1,2}/\d{1,2}(?:/\d{2,4})?$")
WINDOW_WORD_RE = data.word_pattern("times", "window_words")
_WINDOW_EVENT_RE = data.phrase_pattern("times", "window_events")


def window_before(text: str, at: int) -> bool:
    """Whether the clause before `at` says hours to pick in or a place's opening ("the shop is
    open tmrw 10-6", "I'm free sat 9-5"), times.toml [window_words]; an event named with such
    a word ("open house sat 10-2", [window_events]) is none."""
    clause = SHIFT_CLAUSE_END_RE.split(text[max(0, at - 60) : at])[-1]
    return bool(WINDOW_WORD_RE.search(_WINDOW_EVENT_RE.sub(" ", clause)))


def hour_pair(text: str, at: int) -> re.Match[str] | None:
    """Two bare hours of a day at `at` (_DAY_HOUR_PAIR_RE), or None: not "3-3", not a place's
    hours ("open tmrw 10-6", [window_words]) and not ages or a count ("5-8 year olds", "2-3
    people")."""
    pair = _DAY_HOUR_PAIR_RE.match(text, at)
    if (
        pair is None
        or pair.group("a") == pair.group("b")
        or window_before(text, pair.start("pair"))
        or COUNT_AFTER_RE.match(text, pair.end())
        or zone_after(text, pair.end())  # "friday 2-3pm PT": Duckling's, with its zone
    ):
        return None
    return pair


def zone_after(text: str, at: int) -> bool:
    """Whether a zone is written right after `at` ("2-3pm PT", "9-11 UTC", "9-10am Tokyo
    time", "my time")."""
    return ZONE_AFTER_RE.match(text, at) is not None


def clock_after(text: str, at: int) -> bool:
    """Whether the clause going on at `at` states a clock time after it."""
    end = SHIFT_CLAUSE_END_RE.search(text, at)
    return states_clock_time(
        _ONE_ON_ONE_RE.sub("   ", text[at : end.start() if end else len(text)])
    )


def _date_of_its_weekday(text: str, pair: re.Match[str], today: date | None) -> bool:
    """Whether `pair`, read as a month and day within two months of `today`, falls on the
    weekday said right after it."""
    named = WEEKDAY_NEXT_RE.match(text, pair.end())
    if named is None or today is None:
        return False
    weekday = weekday_of(named.group("day"))
    month, day = int(pair.group("a")), int(pair.group("b"))
    for year in (today.year - 1, today.year, today.year + 1):
        try:
            said = date(year, month, day)
        except ValueError:
            continue
        if abs(said - today) <= _NEAR and said.weekday() == weekday:
            return True
    return False


_NEAR = timedelta(days=62)


def _blank_day_hours(text: str, today: date | None = None) -> str:
    def one(match: re.Match[str]) -> str:
        before = text[max(0, match.start() - 20) : match.start()]
        if not (
            (
                _date_before(text, match.start())
                or _NUMERIC_DATE_END_RE.search(before)
                # "lunch 12-1 tomorrow", "lunch 12-2 friday": a meal's hours; "lunch 12-8 at
                # noon" a date and its clock, and so is "brunch 11-1 sunday" said in November:
                # 1 November, near, was a Sunday
                or (
                    _MEAL_END_RE.search(before)
                    and not clock_after(text, match.end())
                    and not _date_of_its_weekday(text, match, today)
                )
            )
            and hour_pair(text, match.start())
        ):
            return match.group(0)
        pair = match.start("pair") - match.start()
        return match.group(0)[:pair] + " " * len(match.group("pair"))

    return _DAY_HOUR_PAIR_RE.sub(one, text)


# "the morning one", "that one": a pronoun, never one o'clock (Duckling read "the morning one"
# as 01:00); "the one o'clock" and "one pm" stay clocks.
_PRONOUN_ONE_RE = re.compile(
    r"\b(?:the|that|this|which|either|each|every|another|other)\s+(?:[^\W\d_]+\s+)?"
    r"(?P<one>one)\b(?!\s*(?:o'?clock|[ap]\.?m\b|thirty|fifteen|forty|twenty|ten|five|:\d))",
    re.IGNORECASE,
)
# "our 1:1": a one-on-one meeting, never the clock 1:01 ("1 from thursday" was read as 1am).
_ONE_ON_ONE_RE = re.compile(r"(?<![\w:.])1:1(?![\w:.])")


# A thanks or a look back right before the plan it names, and its article ("thanks for the
# dinner", "loved brunch"; acts.toml [recap_before]): that plan is told of as past.
THANKED_FOR = (
    rf"(?<![^\W\d_])(?:{data.phrases_alternation(data.phrases('acts', 'recap_before'))})"
    r"[ \t]+(?:(?:the|our|your|that|a|an)[ \t]+)?"
)
_GREETING_RE = data.phrase_pattern("times", "greetings")


def blank_greetings(text: str) -> str:
    """`text` with its greetings (times.toml [greetings]) blanked, offsets kept."""
    return _GREETING_RE.sub(lambda m: " " * len(m.group()), text)


def blank_counts(text: str, today: date | None = None) -> str:
    """`text` with the party sizes before a time, codes like "30C1", "1:1" meetings, the numbers
    of rooms and seats ("Room 2.01"), hours after a day ("dec 10 9-5") and numbers with no
    clock sign ("flight UA 123") blanked, offsets kept (Duckling read "at 10:00 am in 30C1" as
    a time in 2030)."""
    text = _CODE_RE.sub(
        lambda m: " " * len(m.group(0)) if _is_code(m.group(0)) else m.group(0), text
    )
    text = _ONE_ON_ONE_RE.sub("   ", text)
    text = _PRONOUN_ONE_RE.sub(lambda m: m.group(0)[: -len(m.group("one"))] + "   ", text)
    text = _blank_day_hours(text, today)
    # the label goes too: "Platform" left before "10:15" reads as a citation ("John 3:16")
    text = _LABELLED_NUMBER_RE.sub(lambda m: " " * len(m.group(0)), text)
    text = _TIGHT_NUMBER_RE.sub(_blank_tight_number, text)
    return COUNT_BEFORE_TIME_RE.sub(
        lambda m: m.group(0)[: m.start("count") - m.start()] + " " * len(m.group("count")), text
    )


# A zone's offset written after a time: "2:00 PM (UTC+01:00)", "3pm GMT-5". Its digits are no time.
OFFSET_BEFORE_RE = re.compile(r"(?:utc|gmt)\s*[+\-−]\s*$", re.IGNORECASE)
# A day and month with a dash and no year ("11-12") is an hour range in a chat ("free 11-12"),
# unless a date word comes before it ("on 11-12").
DASHED_PAIR_RE = re.compile(r"\d{1,2}\s*-\s*\d{1,2}")
DATE_BEFORE_RE = re.compile(r"\b(?:on|the|am|le|el|em|o|dia|día|du|vom|from)\s*$", re.IGNORECASE)

# A bare hour followed by a counted noun is a count: "at 5 people", "table for 4 guests".
COUNT_AFTER_RE = re.compile(
    r"\s*(?:people|persons?|ppl|guests?|pax|adults?|kids|children|of\s+us|of\s+them|seats?"
    r"|tickets?|covers|players?|attendees|participants|members|personen|leute|gäste"
    r"|personnes|invités|personas|invitados|pessoas|convidados)\b",
    re.IGNORECASE,
)
# The street after a house number Duckling read as a time: "at 1 East 161 Street", "at 8 Main
# St". The name's words are capitalised as written ("at 3:30 with Dr Smith" is a time), and
# "via" is left out ("at 5 via zoom").
STREET_AFTER_RE = re.compile(
    r"(?:\s+(?-i:[A-Z])[\w.'’-]*){0,3}\s+(?:st|street|ave|avenue|rd|road|blvd|boulevard|way"
    r"|drive|dr|lane|ln|place|pl|court|ct|square|sq|highway|hwy|straße|strasse|str|rue|calle"
    r"|avenida|rua)\b\.?|\s+(?:east|west|north|south|rue|calle|rua)\s+(?-i:[A-Z0-9])",
    re.IGNORECASE,
)
# "John 3:16", "Psalm 23:4": a bare h:mm (12-hour shaped) right after a capitalised word
# that is not a time or scheduling word is a citation; "Lunch 12:30", "Put 16:15" are times.
CITATION_BEFORE_RE = re.compile(r"\b[A-Z][a-z]{2,}\.?\s+$")
CITED_HM_RE = re.compile(r"(?:[1-9]|1[0-2]):\d{2}")
# ... but a place's time on a journey is no citation: "Dover 10:35 → Calais 13:05",
# "New York 7:00 – Philadelphia 9:05" (an arrow, or a spaced dash before a word).
JOURNEY_AFTER_RE = re.compile(
    rf"[ \t]*(?:(?:{data.alternation('times', 'journey_connectors')})|[-–—][ \t]+[^\W\d_])"
)
BARE_HOUR_RE = re.compile(r"(?:at|@|um|à|a\s+las?|às)?\s*\d{1,2}", re.IGNORECASE)
TIME_WORD_RE = re.compile(
    r"\b(?:breakfast|brunch|lunch|dinner|supper|morning|afternoon|evening|night|tonight|today"
    r"|tomorrow|tmrw|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
    r"|meet|meeting|call|put|insert|make|set|add|book|schedule|move|change|say|try|maybe|from"
    r"|until|till|time|start|starts|begin|begins|around|about|before|after|by|ok|okay|sure)"
    r"[a-z]*\.?\s+$",
    re.IGNORECASE,
)

# --- Bare-hour context: evening words move 5..11 to pm, morning words keep them am ----------
# Evening words that hold even for 10 and 11 ("dinner at 10"); "party" and "drinks" hold only
# up to 9 ("Christmas party: Friday 18 December, 10:00–11:30" is a morning at school), so there
# a 10 or 11 is left open and the gate asks.
LATE_EVENING_RE = data.phrase_pattern("times", "evening_late")
EVENING_RE = re.compile(
    rf"{LATE_EVENING_RE.pattern}|{data.phrase_pattern('times', 'evening_early').pattern}",
    re.IGNORECASE,
)
LATE_MORNING_HOURS = frozenset({10, 11})


AFTERNOON_RE = data.phrase_pattern("times", "afternoon")
SMALL_HOURS_RE = data.phrase_pattern("times", "small_hours")
SMALL_HOURS = range(1, 5)


def small_hours_said(hour: int, context: str) -> bool:
    """Whether a bare `hour` (1..12) is said with night words that put it after midnight
    ("at 3 at night", "alle 3:15 di notte"); "at 8 at night" is the evening's."""
    return hour in SMALL_HOURS and SMALL_HOURS_RE.search(context) is not None


def afternoon_said(hour: int, span: str) -> bool:
    """Whether a time's own words put a bare `hour` from 1 to 7 in the afternoon ("a las 6 de
    la tarde", "at 6 in the afternoon"); an afternoon said elsewhere in the line ("at 7
    tomorrow morning, then afternoon golf") is another plan's."""
    return 1 <= hour <= 7 and AFTERNOON_RE.search(span) is not None


def evening_holds(hour: int, context: str) -> bool:
    """Whether the words around a bare `hour` (1..12) put it in the evening."""
    if not 5 <= hour <= 11 or not EVENING_RE.search(context):
        return False
    return hour not in LATE_MORNING_HOURS or bool(LATE_EVENING_RE.search(context))


# A message's own stamp written inline ("Sent 25/11 at 19:00", "last updated: Mon 9:14"): the
# label right before a time, with nothing but a colon or "on"/"at" between (times.toml).
STAMP_BEFORE_RE = re.compile(
    rf"(?<![^\W\d_])(?:last\s+)?(?:{data.alternation('times', 'stamp_labels')})[ \t]*:?[ \t]*"
    r"(?:(?:on|at|le|am|el|em|um|à|a\s+las)[ \t]+)?$",
    re.IGNORECASE,
)
MORNING_RE = data.phrase_pattern("times", "morning")
DAYTIME_RE = data.phrase_pattern("times", "daytime", nouns=True)

# --- Readings the words leave open: the gate asks instead of creating -----------------------
# A bare hour in this band names a waking morning and a waking evening start alike ("at 8",
# "tomorrow at 6": the gym or the flight at 6 am, drinks at 6 pm); below it only the afternoon
# reading is awake (1..5 -> pm), above it the morning one is usual.
OPEN_MERIDIEM_HOURS = frozenset({6, 7, 8, 9})
# "by 5pm", "until Friday": a bound's word, before the time it bounds.
DEADLINE_RE = re.compile(
    r"\s*(?:by|until|till|til|before|bis|jusqu'(?:à|au)|avant|hasta|antes\s+de|até)\b",
    re.IGNORECASE,
)
# --- Vague expressions: (pattern, label, kind). Kind "meal"/"part" keeps the canonical label;
# "hedge" ("sometime", "soon") labels the whole merged phrase ("sometime next week").
VAGUE_WORDS: tuple[tuple[str, str, str], ...] = (
    (r"after\s+lunch|nach\s+dem\s+mittagessen|après\s+(?:le\s+)?déjeuner"
     r"|después\s+de(?:l)?\s+(?:la\s+)?(?:comida|almuerzo)|depois\s+do\s+almoço", "after lunch",
     "part"),
    (r"after\s+work|nach\s+der\s+arbeit|après\s+le\s+travail|después\s+del\s+trabajo"
     r"|depois\s+do\s+trabalho", "after work", "part"),
    (r"end\s+of\s+(?:the\s+)?day|eod|cob", "end of day", "part"),
    (r"breakfast|frühstück|petit[- ]déjeuner|desayuno|café\s+da\s+manhã", "breakfast", "meal"),
    (r"brunch", "brunch", "meal"),
    (r"lunch|mittagessen|déjeuner|almuerzo|almoço|comida", "lunch", "meal"),
    (r"dinner|supper|abendessen|dîner|cena|jantar", "dinner", "meal"),
    (r"morning|morgens|vormittags?|matin(?:ée)?|por\s+la\s+mañana|de\s+manhã|pela\s+manhã",
     "morning", "part"),
    (r"afternoon|nachmittags?|après-midi|por\s+la\s+tarde|à\s+tarde|de\s+tarde", "afternoon",
     "part"),
    (r"evening|tonight|abends?|heute\s+abend|soir(?:ée)?|por\s+la\s+noche|esta\s+noche"
     r"|à\s+noite|de\s+noite|hoje\s+à\s+noite", "evening", "part"),
    (r"weekend|wochenende|week-end|fin\s+de\s+semana|fim\s+de\s+semana", "weekend", "part"),
    (r"some\s*time|at\s+some\s+point|irgendwann|un\s+de\s+ces\s+jours|algún\s+día"
     r"|qualquer\s+dia|whenever", "sometime", "hedge"),
    (r"soon|asap|later|shortly|bald|demnächst|später|bientôt|plus\s+tard|pronto"
     r"|más\s+tarde|em\s+breve|mais\s+tarde", "soon", "hedge"),
)  # fmt: skip
_MEALS = "|".join(pattern for pattern, _, kind in VAGUE_WORDS if kind == "meal")
_MEAL_END_RE = re.compile(rf"\b(?:{_MEALS})\W{{0,2}}$", re.IGNORECASE)
MEAL_FIRST_RE = re.compile(rf"(?:{_MEALS})\b\W{{0,2}}", re.IGNORECASE)
_MEAL_NAMES = tuple(
    (re.compile(pattern, re.IGNORECASE), name) for pattern, name, kind in VAGUE_WORDS
    if kind == "meal"
)  # fmt: skip


def meal_of(word: str) -> str | None:
    """The meal a word names in any language ("Mittagessen", "déjeuner" -> "lunch"), or None."""
    return next((name for pattern, name in _MEAL_NAMES if pattern.fullmatch(word)), None)


VAGUE_RE = re.compile(
    "|".join(rf"(?P<v{i}>\b(?:{pattern})\b)" for i, (pattern, _, _) in enumerate(VAGUE_WORDS)),
    re.IGNORECASE,
)
# What may sit between a vague word and the date it qualifies: "dinner on friday".
JOINER_RE = re.compile(
    r"[\s,]*(?:(?:on|this|next|the|am|le|el|o|na|no|para|for|sometime)[\s,]+)*", re.IGNORECASE
)

# "moved from 2pm to 4pm", "push it from Thursday 3pm": the time after "from" is the old one,
# so the pair is a move, not a start and its end (verbs per language in lang/data/times.toml).
_MOVE_STEMS = "|".join(sorted(data.words("times", "move_stems")))
MOVE_VERB_RE = re.compile(rf"\b(?:{_MOVE_STEMS})\w*", re.IGNORECASE)
_MOVE_FROM = data.alternation("times", "move_from")
_MOVE_TO = data.alternation("times", "move_to")
MOVED_FROM_RE = re.compile(
    rf"\b(?:{_MOVE_STEMS})\w*\s+(?:\S+\s+){{0,3}}?(?:{_MOVE_FROM})\b"
    # ... or the verb last, as German puts it: "von 10 auf 11 verschieben"
    rf"|\b(?:{_MOVE_FROM})\s+\S+\s+(?:{_MOVE_TO})\s+\S+(?:\s+\S+){{0,2}}?\s+(?:{_MOVE_STEMS})\w*",
    re.IGNORECASE,
)
# An old time and a new one: "from 4pm to 11am", "von 10 auf 11", "das 10 para as 11".
FROM_TO_RE = re.compile(rf"\b(?:{_MOVE_FROM})\b.+\s(?:{_MOVE_TO})\s", re.IGNORECASE)
# "same time but Monday" keeps the clock (acts.toml); with "thursday instead?", "actually
# Sat", or a day said as a correction that opens its message ("oops I meant Friday", "typo -
# Sat", acts.toml [correction_opens]), a day may carry the clock said before it (the gate
# reads TimeMention.keeps_clock).
SAME_TIME_RE = data.phrase_pattern("acts", "same_time")
# ... said as a move, not as "at the same time" (simultaneously: "Sam has swim at the same time
# next week")
SAME_TIME_MOVE_RE = re.compile(rf"(?<!\bat the )(?:{SAME_TIME_RE.pattern})", re.IGNORECASE)
_OPENS = data.phrase_pattern("acts", "correction_opens").pattern
CORRECTION_OPENS_RE = re.compile(
    rf"^\W*(?:(?:{_OPENS})\W*)?(?:{data.phrase_pattern('acts', 'correction_says').pattern})"
    rf"(?!\s+to\b)"
    rf"|^\W*(?:{_OPENS})\W*(?:{data.phrase_pattern('acts', 'correction_says_opened').pattern})"
    rf"|^\W*(?:{_OPENS})[ \t]*[:,\-–—!.]",
    re.IGNORECASE,
)
KEEPS_CLOCK_RE = re.compile(
    rf"{SAME_TIME_RE.pattern}|{data.word_pattern('acts', 'instead').pattern}"
    rf"|{CORRECTION_OPENS_RE.pattern}",
    re.IGNORECASE,
)
# A word that makes a time repeat ("every day at 9"): the time names no one day.
RECURRENCE_RE = data.word_pattern("times", "recurrence")
# The same word opening a start with no end: "lunch from 12 tomorrow"; unless a window's word
# or a move's verb before it in the sentence makes it hours or an old time ("I'm working from
# 9am", "moved from 3pm").
FROM_WORD_RE = data.word_pattern("times", "move_from")
NOT_A_START_RE = re.compile(
    rf"\b(?:{data.alternation('times', 'window_words')})\b|n't\b"
    rf"|\b(?:{_MOVE_STEMS})\w*",
    re.IGNORECASE,
)
# The words before an old time a new one replaces, ending the text: "Thursday instead of".
REPLACED_BEFORE_RE = re.compile(
    rf"{data.phrase_pattern('times', 'replaced_openers').pattern}\s*$", re.IGNORECASE
)
# ... and the word before the move's new time: "... from Friday 4 December to Friday 11".
MOVE_TO_RE = re.compile(rf"\s(?:{data.alternation('times', 'move_to')})\s", re.IGNORECASE)

# A move by an amount: "30 min later" (words after it, ending the clause), "push it back an
# hour", "bring it forward by 30 minutes" (words right before it). Phrases in times.toml.
SHIFT_LATER_AFTER_RE = data.phrase_pattern("times", "shift_later_after")
SHIFT_EARLIER_AFTER_RE = data.phrase_pattern("times", "shift_earlier_after")
_SHIFT_BY = rf"(?:\s+(?:{data.alternation('times', 'shift_by')}))?\s*$"


# A "*" of a shift phrase before its particle: what is moved, one to three words ("push the
# board meeting back"); a "*" that ends one is one word ("push it", not "push through the").
_GAP = r"[^\s.,;!?]+(?:\s+[^\s.,;!?]+){0,2}?"


def _shift_verbs(section: str) -> re.Pattern[str]:
    """The phrases of a [shift_*_before] section, matched on accent-folded text: a one-word
    verb with the pronoun a Romance verb takes on ("repousse-la", "retrásala", "anticipalo"),
    then what is moved, an article and its noun ("retrasa el médico una hora", not "push
    through the 30 min workout"), then [shift_by]."""
    alternatives = []
    for phrase in sorted(data.phrases("times", section), key=len, reverse=True):
        words = fold_accents(phrase).split()
        body = r"\s+".join(
            re.escape(w) if w != "*" else _GAP if at < len(words) - 1 else r"[^\s.,;!?]+"
            for at, w in enumerate(words)
        )
        alternatives.append(body + (r"(?:-?[^\W\d_]{1,4})?" if len(words) == 1 else ""))
    return re.compile(
        rf"(?<!\w)(?:{'|'.join(alternatives)})"
        rf"(?:\s+(?:{data.alternation('labels', 'definite_articles')})\s+[^\s.,;!?]+)?{_SHIFT_BY}",
        re.IGNORECASE,
    )


SHIFT_LATER_BEFORE_RE = _shift_verbs("shift_later_before")
SHIFT_EARLIER_BEFORE_RE = _shift_verbs("shift_earlier_before")
# The rest of a clause after "30 min later" may hold a word or two ("30 min later then?"); more
# is another clause ("it takes 30 min, later I have gym" ends the clause first anyway).
SHIFT_CLAUSE_END_RE = re.compile(r"[.!?,;\n]")
# Where a clause ends: a sentence's end, a semicolon, a line, a table's cell.
CLAUSE_END_RE = re.compile(r"[.!?;\n|]")
# A clause's end inside a message, punctuation with a space after it ("lands 10:45, dinner
# 8-10 tonight?"; not the "." of "10.30").
CLAUSE_BREAK_RE = re.compile(r"[.!?,;]\s")


# --- Zones Duckling does not read ("3pm PT", "9am Tokyo time", "9am my time"); the ones it does
# ("CET", "PST") it converts itself. Words in lang/data/times.toml; places from the zone database.
_ZONES: dict[str, str] = data.table("times")["zones"]
# A UTC offset as written: "UTC+01:00", "GMT-5", "utc+5:30".
_OFFSET = r"(?:utc|gmt)[ \t]*(?P<sign>[+\-−])[ \t]*(?P<hours>\d{1,2})(?::?(?P<minutes>\d{2}))?"


def offset_of(match: re.Match[str]) -> timedelta:
    """The UTC offset a match of a pattern holding _OFFSET's groups writes."""
    sign = -1 if match.group("sign") in "-−" else 1
    return sign * timedelta(
        hours=int(match.group("hours")), minutes=int(match.group("minutes") or 0)
    )


_PLACE_WORD = r"(?:<[A-Z]+_\d+>|[^\W\d_][\w.'’\-]*)"  # a placeholder too: "(<PERSON_1> local time)"
_ZONE_WORDS = "|".join(  # longest first: "central european" before "central"
    r"\s+".join(map(re.escape, w.split())) for w in sorted(_ZONES, key=len, reverse=True)
)
ZONE_AFTER_RE = re.compile(
    r"\s*[(\[]?\s*(?:in\s+)?(?:"
    rf"(?P<offset>{_OFFSET})"
    r"(?!\d)[^)\]\n]{0,60}"  # "(UTC+00:00) Dublin, Edinburgh, Lisbon, London"
    rf"|(?P<speaker>{data.phrase_pattern('times', 'zone_of_speaker').pattern})"
    rf"|(?P<listener>{data.phrase_pattern('times', 'zone_of_listener').pattern})"
    rf"|(?P<zone>{_ZONE_WORDS})"
    r"(?:\s+time)?\b"
    rf"|(?P<place>{_PLACE_WORD}(?:\s+{_PLACE_WORD}){{0,2}}?)(?P<local>\s+local)?\s+time\b"
    # "(hora de Ciudad de México)": the place after the word for its time, to the bracket
    rf"|(?:{data.phrase_pattern('times', 'zone_time_before').pattern})\s*"
    rf"(?P<place_after>{_PLACE_WORD}(?:\s+{_PLACE_WORD}){{0,3}}?)(?=\s*[)\],.;]|\s*$)"
    r")[)\]]?",
    re.IGNORECASE,
)


# UTC offsets of the zone abbreviations Duckling converts itself: the written hour ("8:00 GMT")
# decides am/pm, not the hour it becomes in the user's zone.
ZONE_OFFSETS = {
    "UTC": 0, "GMT": 0, "WET": 0, "BST": 1, "CET": 1, "WEST": 1, "CEST": 2, "EET": 2, "EEST": 3,
    "MSK": 3, "WAT": 1, "SAST": 2, "EAT": 3, "PKT": 5, "IST": 5.5, "ICT": 7, "WIB": 7, "PHT": 8,
    "SGT": 8, "HKT": 8, "JST": 9, "KST": 9, "AEST": 10, "AEDT": 11,
    "NZST": 12, "NZDT": 13, "HST": -10, "AKST": -9, "AKDT": -8, "PST": -8, "PDT": -7,
    "MST": -7, "MDT": -6, "CST": -6, "CDT": -5, "EST": -5, "EDT": -4, "AST": -4, "ADT": -3,
}  # fmt: skip
# "3pm GMT-5", "10:00 UTC+1": an offset Duckling reads as a range ("3pm GMT" to 5), written
# as the abbreviation of that offset it converts itself, padded to the same length.
_OFFSET_ZONE_RE = re.compile(rf"(?<![(\[\w]){_OFFSET}(?![\d:])", re.IGNORECASE)


def respell_offsets(text: str) -> str:
    """`text` with each written UTC offset as its zone abbreviation, offsets into it kept."""

    def one(match: re.Match[str]) -> str:
        hours = offset_of(match) / timedelta(hours=1)
        name = next((n for n, h in ZONE_OFFSETS.items() if h == hours), None)
        return name.ljust(len(match.group(0))) if name else match.group(0)

    return _OFFSET_ZONE_RE.sub(one, text)


# "8pm", "8 a.m.", "am": a clock that says its half of the day.
AM_PM_RE = re.compile(r"\d\s*[ap]\.?\s?m\b|\b[ap]\.?m\b", re.IGNORECASE)
# A zone written with the clocks ("02:00-04:00 UTC", "9-11am PT"): Duckling's values are
# already in the user's zone, so their hours are not the ones written.
ZONE_WRITTEN_RE = re.compile(r"\b(?:UTC|GMT|[A-Z]{1,3}[SD]?T)\b|[+\-−]\d{2}:?\d{2}\b")
KNOWN_ZONE_RE = re.compile(rf"\b(?:{'|'.join(ZONE_OFFSETS)})\b", re.IGNORECASE)
# "1pm - 2pm (PST)": Duckling applies a zone in parentheses to a range's end only.
_PAREN_ZONE_RE = re.compile(rf"\((?=(?:{'|'.join(ZONE_OFFSETS)})\))(\w+)\)")


def unwrap_zones(text: str) -> str:
    """`text` with "(PST)" written " PST ", so a range's start takes the zone too; offsets
    hold."""
    return _PAREN_ZONE_RE.sub(lambda m: f" {m.group(1)} ", text)


# Stamp words that say which way to look for the stamp's date (always the past).
STAMP_WEEKDAY_RE = re.compile(
    r"\b(?:"
    + "|".join(
        sorted(
            {
                *(w for days in data.table("times")["weekdays"].values() for d in days
                  for w in d.split()),
                *data.words("times", "weekday_abbreviations"),
            },
            key=len,
            reverse=True,
        )
    )
    + r")\.?(?![\w])",
    re.IGNORECASE,
)  # fmt: skip
# Month names and abbreviations of the five languages, as regex source.
MONTHS = (
    r"(?:jan|feb|m[aä]r|apr|ma[iy]|jun|jul|aug|sep|o[ck]t|nov|de[cz]|janv|févr|fev|avr|mai|juin"
    r"|juil|août|ene|abr|ago|dic|set|out|gen|mag|giu|lug|ott)[a-zéû]*\.?"
)
_DATE_END_RE = re.compile(
    rf"(?:\b\d{{4}}|\b{MONTHS}\s*\d{{1,2}}(?:st|nd|rd|th)?|\b\d{{1,2}}\.?\s*{MONTHS}"
    rf"|{STAMP_WEEKDAY_RE.pattern})$",
    re.IGNORECASE,
)
# A month's name alone ("Feb" of "Feb13"): a date written tight, not a code.
_MONTH_ONLY_RE = re.compile(MONTHS, re.IGNORECASE)
# The hour a clock's words write: "9:30", "4 PM", "15h30", "3 Uhr" (not a bare "at 3").
HOUR_RE = re.compile(r"(?<![\d:])(\d{1,2})(?=\s*(?:[:.h]\d\d|[ap]\.?m\b|uhr\b|h\b))", re.I)
STAMP_DATE_RE = re.compile(
    rf"\d{{1,4}}[./-]\d{{1,2}}[./-]\d{{2,4}}|\d{{1,2}}/\d{{1,2}}(?!\d)"
    rf"|\b(?:today|yesterday|heute|gestern|hier|ayer|hoje|ontem)\b"
    rf"|\b{MONTHS}\s+\d{{1,2}}\b|\b\d{{1,2}}\.?\s+{MONTHS}",
    re.IGNORECASE,
)
# A stamp with its year is taken as written, even when it lies in the future.
STAMP_YEAR_RE = re.compile(r"\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\b\d{4}\b")

# --- Whether a clock-time mention also names its day ("fri at 3" does, "make it 4" does not) --
_DAY_WORDS = sorted(
    {
        *data.words("times", "day_words"),
        *(name for days in data.table("times")["weekdays"].values() for n in days
          for name in n.split()),
    },
    key=len,
    reverse=True,
)  # fmt: skip
_DATE_WORD_RE = re.compile(
    rf"(?<![\w-])(?:{'|'.join(map(re.escape, _DAY_WORDS))}|day\s+after|ce\s+soir"
    rf"|pasado\s+mañana|depois\s+de\s+amanhã)(?![\w-])"
    rf"|\b(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?"
    rf"|lun|mer|jeu|ven|sam|dim|mié|jue|vie|seg|ter|qua|qui|sex"
    rf")\.?(?![\w])|\b{MONTHS}\s*\d|\d{{1,2}}(?:st|nd|rd|th|er|e|º|ª)?\.?\s+{MONTHS}"
    rf"|(?<![\w-])(?:{data.alternation('times', 'date_articles')})\s+\d{{1,2}}(?:º|er)?\.?"
    rf"(?!\s*(?:[:.h]\s*\d|uhr\b|h\b|[ap]\.?m\b)|\d)"
    rf"|\b\d{{1,2}}{MONTHS}(?![a-z])"  # a ticket's "15DEC"
    # numeric dates; with dots only day.month ("4.12.", "04.12.2026"): "7.30" is a clock;
    # "10-11:30am", "9-11am" are hours
    rf"|\b\d{{1,4}}[/-]\d{{1,2}}(?:[./-]\d{{2,4}})?\b(?![:.]\d|\s?[ap]\.?m\b)|\b\d{{4}}\.\d{{1,2}}\.\d{{1,2}}\b"
    rf"|\b\d{{1,2}}\.(?:0?[1-9]|1[0-2])\b(?:\.\d{{2,4}}\b)?|\bthe\s+\d{{1,2}}(?:st|nd|rd|th)\b"
    rf"|\bin\s+\d+\s+days?\b"
    rf"|{data.phrase_pattern('times', 'holidays').pattern}",  # "the 10pm Christmas Eve mass"
    re.IGNORECASE,
)


# A month's name ending the text before a number: "Dec 8 - 10am" is a day, then its clock.
MONTH_BEFORE_RE = re.compile(rf"\b(?:{MONTHS})\.?[ \t]*$", re.IGNORECASE)


def states_date(span: str) -> bool:
    """Whether a time expression names its day; a clock time alone ("at 4") does not."""
    return bool(_DATE_WORD_RE.search(span))


# "next Friday", "el martes que viene" (times.toml [next_weekday] [weekdays]): the coming
# weekday or the one after it.
WEEKDAY_INDEX = {
    name: index
    for days in data.table("times")["weekdays"].values()
    for index, names in enumerate(days)
    for name in names.split()
}
DAY_NAMES = "|".join(sorted(map(re.escape, WEEKDAY_INDEX), key=len, reverse=True))
_NEXT = data.phrase_pattern("times", "next_weekday").pattern
NEXT_WEEKDAY_RE = re.compile(
    rf"{_NEXT}\s+(?:[^\W\d]+\s+)?(?P<day>{DAY_NAMES})(?![\w-])"
    rf"|(?<![\w-])(?P<before>{DAY_NAMES})\s+{_NEXT}",
    re.IGNORECASE,
)
WEEKDAY_RE = re.compile(rf"(?<![\w-])(?:{DAY_NAMES})(?![\w-])", re.IGNORECASE)


# A weekday's whole name in the plural, which repeats it: "Saturdays 7 AM", "samstags um 9",
# "los sábados a las 10", "les samedis".
PLURAL_WEEKDAY_RE = re.compile(
    r"(?<![\w-])(?:"
    + "|".join(
        re.escape(names.split()[0])
        for days in data.table("times")["weekdays"].values()
        for names in days
    )
    + r")s(?![\w'’-])",
    re.IGNORECASE,
)


def weekday_of(name: str) -> int | None:
    """0 for Monday to 6 for Sunday, for a weekday's name as written ("Fri.", "Sonnabend")."""
    return WEEKDAY_INDEX.get(name.casefold().rstrip("."))


# A weekday right after something, maybe after "on": "11-1 sunday", "12-2 on friday".
WEEKDAY_NEXT_RE = re.compile(rf"[ \t]*(?:on[ \t]+)?(?P<day>{DAY_NAMES})(?![\w-])", re.IGNORECASE)


# "this Wednesday", "diese Woche Mittwoch": the coming one, said (times.toml [this_words]).
THIS_RE = re.compile(rf"(?<!\w)(?:{data.alternation('times', 'this_words')})(?!\w)", re.IGNORECASE)


def weekday_only(span: str) -> bool:
    """Whether a mention names its day by a weekday alone ("Wednesday at 11"), with no date,
    "next" or week word that would fix which one."""
    return bool(
        WEEKDAY_RE.search(span)
        and not DAY_OF_MONTH_RE.search(span)
        and not NEXT_WEEKDAY_RE.search(span)
        and not WEEK_WORD_RE.search(span)
        and not re.search(r"\d{1,4}[./-]\d{1,2}", span)
    )


# Words that make a time a whole week ("some evening next week", "next week at 1pm"), and the
# named days and months that make it one day again ("wednesday next week").
WEEK_SPAN_RE = data.phrase_pattern("times", "week_span")
CALENDAR_WORDS = data.words("labels", "calendar_words")


def week_only(span: str) -> bool:
    """Whether `span` names a week and no day of it: "next week at 1pm" leaves the day open."""
    named_day = any(w in CALENDAR_WORDS for w in re.findall(r"\w+", span.casefold()))
    return bool(WEEK_SPAN_RE.search(span)) and not named_day and not DAY_OF_MONTH_RE.search(span)


WEEK_WORD_RE = re.compile(rf"\b(?:{data.alternation('times', 'week_words')})\b", re.IGNORECASE)
# A day of the month said too ("next Friday the 4th", "next Tuesday, Dec 1"): no doubt left.
DAY_OF_MONTH_RE = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th|\.)(?!\d)|\b{MONTHS}\s*\d{{1,2}}(?!\d)|\b{MONTHS}\s*\d"
    rf"|\d\s*(?:de\s+)?{MONTHS}",
    re.IGNORECASE,
)
