"""Generated lines where one slot holds a person in some and a firm or place in others.

The evidence fit (training/evidence_weights.py) learns how much each reader and check is worth
from the spans the redactor weighs. The third-party corpora it reads have few lines where a
firm, a group or a place sits where people usually go ("a meeting with X", "I work for X", "an
e-mail from X"), so on them the checks that tell the two apart (an employer, a venue word, a
place name, a word of another language) look worth little, and the fit traded chat's firms and
venues away. These lines put both in the same slots, so the weights have to come from what tells
them apart, not from the slot.

People come from the detector's name renderer (training/person_detector.py: given names of many
countries, surnames, particles, nicknames, every case). Firms, groups and places are the entity
strings of the training corpora's own labels (WNUT-17 train's corporation, group and location
spans, the Broad Twitter Corpus's group and location spans), so no list here names one. The
templates are chat and e-mail lines in five languages written for this set; none is taken from
an evaluation set or a test.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass

from training.person_detector import BENCHMARKS, DAYS, name_pools, render_person

SEED = 3907
PERSON_SHARE = 0.75
# {X} takes a person or a firm/group, {Y} a person or a place, {P} a person, {O} a firm or a
# group, {L} a place, {D} a day or a time.
TEMPLATES = (
    "meeting with {X} {D}",
    "lunch with {X} {D}?",
    "I work for {O}",
    "I used to work for {O} before",
    "{X} sent over the contract {D}",
    "got an email from {X} about the invoice",
    "can you forward this to {X}?",
    "ask {X} about the budget",
    "{X} is hosting the party {D}",
    "{X} moved the launch to {D}",
    "we're meeting {X} at {L} {D}",
    "call {P} about {O} {D}",
    "{P} from {O} will join the call",
    "{P} at {O} said yes",
    "interview with {X} {D}",
    "drinks at {Y} {D}",
    "see you at {Y} {D}",
    "staying with {Y} for the week",
    "flying to {L} {D}, back on sunday",
    "the offsite is in {L} this year",
    "anyone near {L} {D}?",
    "thanks {P}, see you in {L}",
    "{X} confirmed the booking for {D}",
    "quick sync with {X} {D} re the proposal",
    "Regards,\n{P}\n{O}",
    "From: {P}\nSubject: {O} review {D}",
    "Hi {P},\nthe team at {O} can do {D}.\nBest,\n{P}",
    "Termin mit {X} am {D}",
    "wir fliegen {D} nach {L}",
    "réunion avec {X} {D}",
    "on part à {L} {D}",
    "reunión con {X} el {D}",
    "nos vemos en {L} {D}",
    "reunião com {X} {D}",
    "vamos para {L} {D}",
)
SLOTS = {"X": ("person", "firm"), "Y": ("person", "place"), "P": ("person",),
         "O": ("firm",), "L": ("place",)}  # fmt: skip
# the training corpora's entity types, as the slots' kinds
KINDS = {"corporation": "firm", "group": "firm", "location": "place"}
WNUT_TRAIN = BENCHMARKS / "wnut17_train.jsonl"
BTC = BENCHMARKS / "ner" / "btc.jsonl"  # converted by training/ner_sources.py
_USABLE = re.compile(r"^[^\W\d_][\w'&.\- ]{1,40}$")


@dataclass(frozen=True)
class Entities:
    firm: list[str]
    place: list[str]


def corpus_entities(*, corpora: bool = True) -> Entities:
    """Firm, group and place strings the training corpora label, written as they were typed
    (`corpora=False`: WNUT-17 train's alone, as the smoke run of the fit has)."""
    found: dict[str, set[str]] = {"firm": set(), "place": set()}
    for path in (WNUT_TRAIN, BTC) if corpora else (WNUT_TRAIN,):
        if not path.exists():
            raise SystemExit(f"{path} is missing: the contrast lines take their firms from it")
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            for entity in record["entities"]:
                kind = KINDS.get(entity["type"])
                text = record["text"][entity["start"] : entity["end"]]
                if kind and _USABLE.match(text) and len(text.split()) <= 4:
                    found[kind].add(text)
    return Entities(sorted(found["firm"]), sorted(found["place"]))


def contrast_lines(count: int, seed: int = SEED, *, corpora: bool = True) -> list[dict]:
    """Records as WNUT-17 writes them: `text` and `entities` (person, firm or place spans)."""
    rng = random.Random(seed)
    pools, entities = name_pools(), corpus_entities(corpora=corpora)
    records = []
    for number in range(count):
        template = rng.choice(TEMPLATES)
        text, spans = "", []
        for piece in re.split(r"(\{[A-Z]\})", template):
            slot = piece[1:-1] if re.fullmatch(r"\{[A-Z]\}", piece) else ""
            if slot == "D":
                text += rng.choice(DAYS)
                continue
            if slot not in SLOTS:
                text += piece
                continue
            kinds = SLOTS[slot]
            # a slot that takes both holds a person three times in four, as chat's mostly do:
            # half and half would teach that a reader's cue ("meeting with X") says nothing
            kind = kinds[0] if len(kinds) == 1 or rng.random() < PERSON_SHARE else kinds[1]
            if kind == "person":
                value = " ".join(render_person(rng, pools))
            else:
                value = rng.choice(getattr(entities, kind))
            spans.append({"type": kind, "start": len(text), "end": len(text) + len(value)})
            text += value
        records.append({"id": f"contrast-{number:05d}", "text": text, "entities": spans})
    return records
