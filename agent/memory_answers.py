"""Remember, recall and forget, asked in words: "remember that karthik is my cfo", "who is
karthik?", "who is my cfo?", "forget karthik".

Code does these, not the model: what to keep is the user's own sentence (in real values: memory
holds the user's data, the redactor then knows the names), and an answer quotes what was kept.
Contacts a sentence teaches (agent.contacts) are saved before this runs; a question is answered
from contacts (by name, alias or role) and from remembered sentences that name what was asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from agent.asked import asked
from agent.bundle import PlanItem, StepOutcome, TurnBundle
from agent.extraction.cue import calls_off
from memory.store import Contact, Fact, MemoryStore
from privacy.entity_map import normalize_value
from tools.calendar.times import TimeMention
from tools.memory import MAX_FACT_CHARS

Act = Literal["remember", "recall", "forget"]
MAX_QUOTED = 3
# "forget it" is a cancel of the plan (lang/data/acts.toml), not of a memory.
_NOT_AN_OBJECT = frozenset({"it", "that", "this", "them", "everything"})


@dataclass(frozen=True)
class MemoryAct:
    act: Act
    text: str  # remember: the sentence to keep; recall and forget: what it is about
    words: tuple[str, ...] = ()  # the words naming it ("cfo" for "my cfo")


def find_memory_act(request: str, *, thread: str, mentions: list[TimeMention]) -> MemoryAct | None:
    """The memory act `request` asks for, or None."""
    if thread.strip():
        return None
    hit = asked(request, "remember")
    if hit is not None:
        # "remember that I have the dentist tomorrow at 3" is an event to create, not a note.
        if hit.rest and not any(m.source == "request" and m.has_clock_time for m in mentions):
            return MemoryAct("remember", hit.rest.rstrip(" .!"))
        return None
    for act in ("forget", "recall"):
        hit = asked(request, act)
        if hit is None:
            continue
        words = tuple(hit.object_words)
        if act == "forget" and calls_off(request):
            return None  # "oh forget about it": the plan is off (acts.toml [cancel])
        if not words or {w.casefold() for w in words} <= _NOT_AN_OBJECT:
            return None
        if act == "recall" and any(m.source == "request" for m in mentions):
            return None  # "who is free on friday?" asks about time, not a person
        return MemoryAct(act, hit.object, words)  # type: ignore[arg-type]
    return None


def _contacts_about(memory: MemoryStore, words: tuple[str, ...]) -> list[Contact]:
    """Contacts whose name, an alias, or role is what was asked ("karthik", "my cfo")."""
    asked_for = normalize_value(" ".join(words))
    found = []
    for contact in memory.contacts():
        names = {normalize_value(n) for n in (contact.name, *contact.aliases)}
        first_names = {n.split()[0] for n in names if n}
        if (
            asked_for in names
            or asked_for in first_names
            or (contact.role and normalize_value(contact.role) == asked_for)
        ):
            found.append(contact)
    return found


def _facts_about(memory: MemoryStore, words: tuple[str, ...]) -> list[Fact]:
    """Remembered sentences that hold every word asked about, as whole words."""
    patterns = [re.compile(rf"(?<!\w){re.escape(w)}(?!\w)", re.I) for w in words]
    return [f for f in memory.facts() if all(p.search(f.text) for p in patterns)]


def describe_contact(contact: Contact) -> str:
    """'karthik: your cfo, karthik@acme.com'."""
    parts = [f"your {contact.role}" if contact.role else "", contact.email, contact.phone]
    known = ", ".join(p for p in parts if p)
    return f"{contact.name}: {known}" if known else f"{contact.name} is in your contacts"


def carry_out_memory(
    act: MemoryAct,
    *,
    memory: MemoryStore,
    session: str | None,
    learned: list[str],
) -> TurnBundle:
    """Do the act; the bundle's reply says what is kept, known or gone. `learned`: contacts
    this request already saved, described."""
    if act.act == "remember":
        if len(act.text) > MAX_FACT_CHARS:
            return _bundle(
                f"That is too long to remember ({len(act.text):,} characters; the limit is "
                f"{MAX_FACT_CHARS}): say it in a sentence or two.",
                "memory_store", "failed", "fact too long",
            )  # fmt: skip
        try:
            fact = memory.add_fact(act.text, session)
        except ValueError as error:
            return _bundle(f"I could not remember that: {error}.", "memory_store", "failed",
                           str(error))  # fmt: skip
        reply = f"I'll remember that: “{fact.text}”."
        if learned:
            reply += " Saved to your contacts: " + "; ".join(learned) + "."
        return _bundle(reply, "memory_store", "ok", f"fact {fact.id} stored")
    contacts = _contacts_about(memory, act.words)
    facts = _facts_about(memory, act.words)
    if act.act == "recall":
        if not contacts and not facts:
            return _bundle(
                f"I have nothing remembered about {act.text}. Tell me, for example: "
                f"“remember that {act.text} is my accountant”.",
                "memory_recall", "ok", "nothing found",
            )  # fmt: skip
        lines = [describe_contact(c) + "." for c in contacts]
        lines += [f"You told me: “{f.text}”." for f in facts[:MAX_QUOTED]]
        return _bundle(" ".join(lines), "memory_recall", "ok",
                       f"{len(contacts)} contact(s), {len(facts)} fact(s)")  # fmt: skip
    for contact in contacts:
        memory.delete_contact(contact.id)
    for fact in facts:
        memory.delete_fact(fact.id)
    if not contacts and not facts:
        return _bundle(f"I had nothing remembered about {act.text}; nothing was changed.",
                       "memory_forget", "ok", "nothing found")  # fmt: skip
    gone = [f"the contact {c.name}" for c in contacts]
    gone += [f"“{f.text}”" for f in facts[:MAX_QUOTED]]
    more = len(facts) - MAX_QUOTED
    tail = f" and {more} more note(s)" if more > 0 else ""
    reply = "Forgotten: " + "; ".join(gone) + tail + "."
    return _bundle(reply, "memory_forget", "ok",
                   f"{len(contacts)} contact(s), {len(facts)} fact(s) deleted")  # fmt: skip


def answer_from_recall(facts: list[str]) -> TurnBundle:
    """A question about something remembered, asked in words no phrase of requests.toml holds
    ("what's Sam allergic to again?"): the act model read it as a recall, and the nearest
    remembered sentences in meaning answer it, quoted as the user said them."""
    if not facts:
        return _bundle("I have nothing remembered that answers that.", "memory_recall", "ok",
                       "nothing found")  # fmt: skip
    quoted = " ".join(f"“{fact}”" for fact in facts[:MAX_QUOTED])
    return _bundle(f"Closest to that, you told me: {quoted}", "memory_recall", "ok",
                   f"{len(facts[:MAX_QUOTED])} fact(s) nearest in meaning")  # fmt: skip


def _bundle(reply: str, tool: str, status: str, detail: str) -> TurnBundle:
    return TurnBundle(
        reply=reply,
        plan=[PlanItem(tool, {}, "the user asked Veil's memory directly")],
        steps=[StepOutcome(tool, status, 1, detail)],  # type: ignore[arg-type]
    )
