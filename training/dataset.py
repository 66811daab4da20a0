"""Synthetic chat threads with gold events, made from templates without any model.

A case is a template filled with a name, an activity, a day, a time and a place, then roughened
(lower case, typos, emoji, speaker-label styles). Each case carries its gold in the shape of
`bench/data/agent_dev.jsonl` (start, all-day, title keywords, whether a question is due, whether
a draft is), plus what a perfect model would answer: the title of each event and the time phrase
that was finally agreed. The text stays raw here: the real pipeline redacts it with
`privacy.redactor.Redactor` when the prompts are rendered, exactly as at run time.

Splits go by template and by activity and name pools, so the test split holds phrasings,
activities and people that training never saw.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

SPLITS = ("train", "dev", "test")
SOURCE = "veil-synthetic"

ZONES = (
    "Europe/Berlin",
    "Europe/London",
    "America/New_York",
    "America/Los_Angeles",
    "America/Chicago",
    "Europe/Paris",
    "Asia/Singapore",
    "Australia/Sydney",
)
# Split pools: (train, dev, test). Names are common enough for the privacy layer to know them.
FIRST_NAMES = (
    "Priya Tom Sarah Omar Lena Marco Aisha Ben Chloe Daniel Emma Felix Grace Hannah Ivan "
    "Julia Kevin Laura Mateo Nadia Oscar Paula Rahul Sofia Theo Uma Victor Wendy Yusuf Zoe",
    "Anna James Maria David Elena",
    "Lucas Mia Noah Olivia Samuel Clara",
)
LAST_NAMES = (
    "Raman Whitaker Lindqvist Siddiqui Novak Rossi Khan Carter Dubois Meyer Brennan Tanaka "
    "Kowalski Haddad Fischer Moreno Okafor Larsen",
    "Schneider Walsh Romero",
    "Nguyen Petrov Jensen Alvarez",
)
# Activities: many have no word Veil's code knows as an activity, so the model has to title them.
ACTIVITIES = (
    "lunch|coffee|dinner|drinks|dentist appointment|haircut|team sync|budget review|yoga class|"
    "piano lesson|book club|pottery class|tax prep|oil change|quiz night|board games|climbing|"
    "tutoring|choir rehearsal|volunteer shift|farmers market|open house|karaoke|bowling|"
    "soccer practice|chess club|knitting circle|car inspection|pilates|swim lesson|"
    "wine tasting|sprint planning|code review|design crit|vet appointment|physio",
    "brunch|team standup|piano recital|trivia night|bike repair|salsa class|escape room",
    "breakfast|project kickoff|passport renewal|guitar lesson|cooking class|museum tour|"
    "hackathon|dog grooming|paint night|mini golf",
)
PLACES = (
    "Blue Bottle|the library|Room 4B|Cafe Luna|the community center|Union Square|the studio|"
    "Pier 39|the garage|Green Park",
    "the office|Central Station",
    "the gallery|Harbor Hall",
)
ME_LABELS = ("Me", "me", "Me")
REQUESTS = (
    "add this to my calendar",
    "put this on my calendar please",
    "add to calendar",
    "add it",
    "save this to my calendar",
    "schedule this",
)
EMOJI = ("👍", "🙂", "🎉", "😊", "🙌", "")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = (
    "January February March April May June July August September October November December"
).split()
_TYPO_WORDS = {
    "perfect": "perfcet",
    "great": "graet",
    "sounds": "sonds",
    "works": "wroks",
    "thanks": "thx",
    "see you": "see ya",
    "tomorrow": "tomorrow",
    "definitely": "definately",
}


@dataclass(frozen=True)
class GoldEvent:
    """An event a perfect turn creates, and the answer a perfect model gives for it."""

    start: datetime
    title: str
    time_text: str  # the phrase of the agreed time, as it appears in the thread
    all_day: bool = False

    def keywords(self) -> list[str]:
        """Title keywords a created event's title must hold one of (bench.agent's rule)."""
        words = [w for w in self.title.lower().split() if len(w) > 2]
        return list(dict.fromkeys(words or [self.title.lower()]))


@dataclass
class Slots:
    """One draw of every slot a template may use."""

    rng: random.Random
    now: datetime
    pool: int  # 0 train, 1 dev, 2 test
    names: list[str] = field(default_factory=list)

    def name(self) -> str:
        first = self.rng.choice(FIRST_NAMES[self.pool].split())
        last = self.rng.choice(LAST_NAMES[self.pool].split())
        full = f"{first} {last}" if self.rng.random() < 0.6 else first
        self.names.append(full)
        return full

    def activity(self) -> str:
        return self.rng.choice(ACTIVITIES[self.pool].split("|"))

    def place(self) -> str:
        return self.rng.choice(PLACES[self.pool].split("|"))

    def day(self, *, near: bool = False) -> tuple[date, str]:
        """A future day and a phrase that names it unambiguously."""
        today = self.now.date()
        roll = self.rng.random()
        if roll < 0.15:
            return today + timedelta(days=1), "tomorrow"
        if roll < 0.65 or near:
            ahead = self.rng.randint(2, 6)
            target = today + timedelta(days=ahead)
            word = WEEKDAYS[target.weekday()]
            form = self.rng.choice(("{w}", "on {w}", "{w}"))
            return target, form.format(w=word)
        target = today + timedelta(days=self.rng.randint(8, 40))
        month = MONTHS[target.month - 1]
        form = self.rng.choice(("on {m} {d}", "{m} {d}", "on the {d}{th} of {m}", "{d} {m}"))
        suffix = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}
        return target, form.format(m=month, d=target.day, th=suffix.get(target.day, "th"))

    def time(self, *, avoid: int | None = None) -> tuple[int, int, str]:
        """(hour, minute, phrase with "at"), in forms Veil's time parser reads one way."""
        while True:
            hour = self.rng.choice((8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20))
            minute = self.rng.choice((0, 0, 0, 30, 30, 15, 45))
            if hour != avoid:
                break
        h12 = hour % 12 or 12
        ampm = "am" if hour < 12 else "pm"
        forms = [f"at {h12}{ampm}", f"at {h12} {ampm}", f"at {hour:02d}:{minute:02d}"]
        if minute:
            forms = [f"at {h12}:{minute:02d}{ampm}", f"at {h12}:{minute:02d} {ampm}", forms[2]]
        elif hour == 12:
            forms.append("at noon")
        elif 13 <= hour <= 17:
            forms.append(f"at {h12}")  # a bare 1-5 is afternoon; a bare 8 may be "night" too
        return hour, minute, self.rng.choice(forms)


@dataclass(frozen=True)
class Rendered:
    """What a template produced before noise: the turn and its gold."""

    request: str
    thread: list[tuple[str, str]]  # (speaker, text)
    events: list[GoldEvent]
    question: bool = False
    draft: bool = False
    intent: str = "schedule"


Template = Callable[[Slots], Rendered]


def _at(slots: Slots, day: date, hour: int, minute: int) -> datetime:
    naive = datetime.combine(day, datetime.min.time()).replace(hour=hour, minute=minute)
    zone = slots.now.tzinfo
    return naive.replace(tzinfo=zone)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _request(slots: Slots, act: str) -> str:
    if slots.rng.random() < 0.2:
        return f"can you add the {act}?"
    return slots.rng.choice(REQUESTS)


# ------------------------------------------------------------------------------ templates
def timed_still_on(s: Slots) -> Rendered:
    a, act, place = s.name(), s.activity(), s.place()
    day, day_text = s.day()
    h, m, t = s.time()
    return Rendered(
        _request(s, act),
        [
            (a, f"hey are we still on for {act} {day_text}?"),
            ("Me", f"yes! {t} at {place}?"),
            (a, "perfect, see you then"),
        ],  # fmt: skip
        [GoldEvent(_at(s, day, h, m), _cap(act), t)],
    )


def timed_question(s: Slots) -> Rendered:
    a, act = s.name(), s.activity()
    day, day_text = s.day()
    h, m, t = s.time()
    return Rendered(
        _request(s, act),
        [(a, f"{act} {day_text} {t}?"), ("Me", "works for me")],
        [GoldEvent(_at(s, day, h, m), _cap(act), t)],
    )


def timed_what_time(s: Slots) -> Rendered:
    a, act = s.name(), s.activity()
    day, day_text = s.day(near=True)
    h, m, t = s.time()
    return Rendered(
        _request(s, act),
        [
            (a, f"want to do {act} {day_text}?"),
            ("Me", "sure, what time?"),
            (a, f"how about {t}"),
            ("Me", "great"),
        ],  # fmt: skip
        [GoldEvent(_at(s, day, h, m), _cap(act), t)],
    )


def timed_reminder_note(s: Slots) -> Rendered:
    a, act, place = s.name(), s.activity(), s.place()
    day, day_text = s.day()
    h, m, t = s.time()
    return Rendered(
        _request(s, act),
        [(a, f"quick note: {act} is {day_text} {t} at {place}"), ("Me", "thanks!")],
        [GoldEvent(_at(s, day, h, m), _cap(act), t)],
    )


def timed_me_asks(s: Slots) -> Rendered:
    a, act, place = s.name(), s.activity(), s.place()
    day, day_text = s.day()
    h, m, t = s.time()
    return Rendered(
        _request(s, act),
        [("Me", f"can we do {act} {day_text} {t}?"), (a, f"yes that works, see you at {place}")],
        [GoldEvent(_at(s, day, h, m), _cap(act), t)],
    )


def timed_typed_with(s: Slots) -> Rendered:
    b, act = s.name(), s.activity()
    day, day_text = s.day()
    h, m, t = s.time()
    verb = s.rng.choice(("add", "schedule", "put in"))
    return Rendered(
        f"{verb} {act} with {b} {day_text} {t}",
        [],
        [GoldEvent(_at(s, day, h, m), _cap(act), t)],
    )


def timed_typed_for(s: Slots) -> Rendered:
    act = s.activity()
    day, day_text = s.day()
    h, m, t = s.time()
    return Rendered(
        f"put {act} on my calendar {day_text} {t}",
        [],
        [GoldEvent(_at(s, day, h, m), _cap(act), t)],
    )


def timed_invite(s: Slots) -> Rendered:
    a, act, place = s.name(), s.activity(), s.place()
    day, day_text = s.day()
    h, m, t = s.time()
    return Rendered(
        _request(s, act),
        [
            (a, f"{act} at {place} {day_text}, starting {t}. can you make it?"),
            ("Me", "I'll be there"),
        ],  # fmt: skip
        [GoldEvent(_at(s, day, h, m), _cap(act), t)],
    )


def timed_confirm(s: Slots) -> Rendered:
    a, act = s.name(), s.activity()
    day, day_text = s.day()
    h, m, t = s.time()
    return Rendered(
        _request(s, act),
        [("Me", f"did we say {act} {day_text}?"), (a, f"yep, {t}"), ("Me", "cool")],
        [GoldEvent(_at(s, day, h, m), _cap(act), t)],
    )


def timed_booked(s: Slots) -> Rendered:
    a, act, place = s.name(), s.activity(), s.place()
    day, day_text = s.day()
    h, m, t = s.time()
    return Rendered(
        _request(s, act),
        [(a, f"I booked the {act} for {day_text} {t}, {place}"), ("Me", "amazing, thank you")],
        [GoldEvent(_at(s, day, h, m), _cap(act), t)],
    )


def moved_actually(s: Slots) -> Rendered:
    a, act = s.name(), s.activity()
    day, day_text = s.day()
    h1, m1, t1 = s.time()
    h2, m2, t2 = s.time(avoid=h1)
    return Rendered(
        _request(s, act),
        [
            (a, f"{act} {day_text} {t1}?"),
            ("Me", "ok"),
            (a, f"actually can we make it {t2}?"),
            ("Me", "sure"),
        ],  # fmt: skip
        [GoldEvent(_at(s, day, h2, m2), _cap(act), t2)],
    )


def moved_push(s: Slots) -> Rendered:
    a, act = s.name(), s.activity()
    day, day_text = s.day()
    h1, m1, t1 = s.time()
    h2, m2, t2 = s.time(avoid=h1)
    return Rendered(
        _request(s, act),
        [
            (a, f"let's do {act} {day_text} {t1}"),
            ("Me", f"something came up, can we push to {t2}?"),
            (a, "no problem"),
        ],  # fmt: skip
        [GoldEvent(_at(s, day, h2, m2), _cap(act), t2)],
    )


def moved_instead(s: Slots) -> Rendered:
    a, act = s.name(), s.activity()
    day, day_text = s.day()
    h1, m1, t1 = s.time()
    h2, m2, t2 = s.time(avoid=h1)
    return Rendered(
        _request(s, act),
        [
            ("Me", f"{act} {day_text} {t1}?"),
            (a, f"can't do {t1[3:]}, how about {t2} instead?"),
            ("Me", "deal"),
        ],  # fmt: skip
        [GoldEvent(_at(s, day, h2, m2), _cap(act), t2)],
    )


def cancelled_sorry(s: Slots) -> Rendered:
    a, act = s.name(), s.activity()
    _, day_text = s.day()
    _, _, t = s.time()
    return Rendered(
        "add this to my calendar",
        [
            (a, f"so sorry, can't make it {day_text} {t} for {act}"),
            ("Me", "no worries, skip it, we'll find another week"),
        ],  # fmt: skip
        [],
        intent="other",
    )


def cancelled_off(s: Slots) -> Rendered:
    a, act = s.name(), s.activity()
    _, day_text = s.day()
    _, _, t = s.time()
    return Rendered(
        "add this",
        [(a, f"the {act} {day_text} {t} is cancelled"), ("Me", "ok, thanks for letting me know")],
        [],
        intent="other",
    )


def vague_day(s: Slots) -> Rendered:
    a, act = s.name(), s.activity()
    _, day_text = s.day(near=True)
    return Rendered(
        _request(s, act),
        [(a, f"{act} {day_text}? been ages"), ("Me", "yes!! where?")],
        [],
        question=True,
    )


def vague_next_week(s: Slots) -> Rendered:
    a, act = s.name(), s.activity()
    return Rendered(
        "add this to my calendar",
        [(a, f"let's grab {act} sometime next week"), ("Me", "sounds good")],
        [],
        question=True,
    )


def vague_afternoon(s: Slots) -> Rendered:
    a, act = s.name(), s.activity()
    _, day_text = s.day(near=True)
    part = s.rng.choice(("afternoon", "morning", "evening"))
    return Rendered(
        _request(s, act),
        [(a, f"can we do {act} {day_text} {part}?"), ("Me", "sure")],
        [],
        question=True,
    )


def vague_typed(s: Slots) -> Rendered:
    b, act = s.name(), s.activity()
    return Rendered(f"find time for {act} with {b} next week", [], [], question=True)


def two_events(s: Slots) -> Rendered:
    a, act1 = s.name(), s.activity()
    act2 = s.activity()
    while act2 == act1:
        act2 = s.activity()
    day1, d1 = s.day()
    day2, d2 = s.day()
    h1, m1, t1 = s.time()
    h2, m2, t2 = s.time(avoid=h1)
    return Rendered(
        "add these to my calendar",
        [(a, f"{act1} {d1} {t1}?"), ("Me", f"yes. also {act2} {d2} {t2}?"), (a, "perfect")],
        [
            GoldEvent(_at(s, day1, h1, m1), _cap(act1), t1),
            GoldEvent(_at(s, day2, h2, m2), _cap(act2), t2),
        ],  # fmt: skip
    )


def reply_and_add(s: Slots) -> Rendered:
    a, act, place = s.name(), s.activity(), s.place()
    day, day_text = s.day()
    h, m, t = s.time()
    first = a.split()[0]
    return Rendered(
        f"reply to {first} that I'm in and add it to my calendar",
        [(a, f"{act} {day_text} {t} at {place}?")],
        [GoldEvent(_at(s, day, h, m), _cap(act), t)],
        draft=True,
        intent="email",
    )


def email_about(s: Slots) -> Rendered:
    a, act = s.name(), s.activity()
    day, day_text = s.day()
    h, m, t = s.time()
    first = a.split()[0]
    return Rendered(
        f"email {first} to confirm",
        [(a, f"are you free for {act} {day_text} {t}?"), ("Me", "I think so")],
        [GoldEvent(_at(s, day, h, m), _cap(act), t)],
        draft=True,
        intent="email",
    )


# The split of each template: a category always has a template in train and one held out.
TEMPLATES: dict[str, tuple[Template, str]] = {
    "timed-still-on": (timed_still_on, "train"),
    "timed-question": (timed_question, "train"),
    "timed-what-time": (timed_what_time, "train"),
    "timed-typed-with": (timed_typed_with, "train"),
    "timed-booked": (timed_booked, "train"),
    "timed-me-asks": (timed_me_asks, "train"),
    "timed-reminder-note": (timed_reminder_note, "dev"),
    "timed-typed-for": (timed_typed_for, "test"),
    "timed-invite": (timed_invite, "test"),
    "timed-confirm": (timed_confirm, "test"),
    "moved-actually": (moved_actually, "train"),
    "moved-push": (moved_push, "dev"),
    "moved-instead": (moved_instead, "test"),
    "cancelled-sorry": (cancelled_sorry, "train"),
    "cancelled-off": (cancelled_off, "test"),
    "vague-day": (vague_day, "train"),
    "vague-typed": (vague_typed, "train"),
    "vague-next-week": (vague_next_week, "dev"),
    "vague-afternoon": (vague_afternoon, "test"),
    "two-events": (two_events, "train"),
    "reply-and-add": (reply_and_add, "train"),
    "email-about": (email_about, "test"),
}


# ------------------------------------------------------------------------------ noise
def _label_style(rng: random.Random, now: datetime) -> Callable[[str, int], str]:
    style = rng.randrange(4)

    def label(speaker: str, index: int) -> str:
        at = now - timedelta(minutes=40 - 3 * index)
        if style == 1:
            return f"[{at:%H:%M}] {speaker}: "
        if style == 2:
            return f"{at:%d/%m/%y, %H:%M} - {speaker}: "
        return f"{speaker}: "

    return label


def _roughen(text: str, rng: random.Random) -> str:
    for word, typo in _TYPO_WORDS.items():
        if word in text and rng.random() < 0.3:
            text = text.replace(word, typo, 1)
    if rng.random() < 0.25:
        text = text.rstrip("?!.") + ("!!" if not text.endswith("?") else "??")
    return text


def render_case(name: str, index: int, *, seed: int, split: str | None = None) -> dict[str, Any]:
    """Case `index` of template `name`: the same arguments always give the same case."""
    template, template_split = TEMPLATES[name]
    split = split or template_split
    digest = hashlib.sha256(f"{seed}:{name}:{index}".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    zone = ZoneInfo(rng.choice(ZONES))
    start = datetime(2026, 1, 5, tzinfo=zone) + timedelta(days=rng.randint(0, 540))
    now = start.replace(hour=rng.randint(8, 17), minute=rng.choice((0, 5, 20, 35, 50)))
    slots = Slots(rng, now, SPLITS.index(split))
    rendered = template(slots)
    me = rng.choice(ME_LABELS)
    label = _label_style(rng, now)
    lower = rng.random() < 0.3
    lines = []
    for i, (speaker, text) in enumerate(rendered.thread):
        text = _roughen(text, rng)
        if lower:
            text = text.lower()
        if rng.random() < 0.2:
            text = f"{text} {rng.choice(EMOJI)}".rstrip()
        lines.append(label(me if speaker == "Me" else speaker, i) + text)
    return {
        "id": f"syn-{name}-{index:04d}",
        "now": now.isoformat(),
        "tz": str(zone),
        "request": rendered.request,
        "thread": "\n".join(lines),
        "calendar": [],
        "gold": {
            "events": [
                {"start": e.start.isoformat(), "all_day": e.all_day, "title_keywords": e.keywords()}
                for e in rendered.events
            ],
            "question": rendered.question,
            "draft": rendered.draft,
        },
        "answer": {
            "intent": rendered.intent,
            "events": [{"title": e.title, "time_text": e.time_text} for e in rendered.events],
        },
        "tags": [name.split("-")[0], f"template:{name}"],
        "pii": sorted(set(slots.names)),
        "template": name,
        "source": SOURCE,
        "split": split,
    }


def generate(counts: dict[str, int], *, seed: int) -> dict[str, list[dict[str, Any]]]:
    """`counts[split]` cases per template of each split, spread evenly over its templates."""
    out: dict[str, list[dict[str, Any]]] = {s: [] for s in SPLITS}
    for split in SPLITS:
        names = [n for n, (_, s) in TEMPLATES.items() if s == split]
        if not names or not counts.get(split):
            continue
        for i in range(counts[split]):
            name = names[i % len(names)]
            out[split].append(render_case(name, i // len(names), seed=seed))
    return out


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> int:
    """Write records one JSON object a line; returns how many."""
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
            n += 1
    return n


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The records of a JSONL file."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def data_hash(paths: Sequence[Path]) -> str:
    """sha256 over the files' bytes, in the order given: the manifest's data hash."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def split_of(key: str, *, dev: float = 0.2, test: float = 0.4) -> str:
    """A stable split for a record from another source (SGD: by dialogue id)."""
    share = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    if share < test:
        return "test"
    if share < test + dev:
        return "dev"
    return "train"
