"""Generated act examples in six languages, from `training/data/act_scenarios*.toml`.

The third-party corpora the act model learns from are English assistant dialogues; people who
write to each other in threads, and in German, French, Spanish, Portuguese and Italian, come from
these scenarios: templates per (context, language, act) filled with slot values and roughened the
way people type (lower case, no final stop, a swapped letter, an emoji). Generated data helps the
model learn; it never tests alone: the sealed splits are third-party and human-written.

Every example carries its template's id as its group, so cross-validation holds whole templates
out and measures wordings the fit never saw.
"""

from __future__ import annotations

import random
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

DATA = Path(__file__).with_name("data")
SOURCE = "veil-generated:training/data/act_scenarios*.toml"
_SLOT_RE = re.compile(r"\{(\w+)\}")
_EMOJI = ("🙂", "👍", "😅", "🙏", "!!", "...", " :)", " xx")


def _fill(template: str, slots: dict[str, list[str]], rng: random.Random) -> str | None:
    missing = [s for s in _SLOT_RE.findall(template) if not slots.get(s)]
    if missing:
        return None
    return _SLOT_RE.sub(lambda m: rng.choice(slots[m.group(1)]), template)


def roughen(text: str, rng: random.Random) -> str:
    """The text as people type it: sometimes lower case, no final stop, a typo, an emoji."""
    if rng.random() < 0.3:
        text = text.lower()
    if rng.random() < 0.3:
        text = text.rstrip(".!")
    if rng.random() < 0.15:
        words = text.split()
        long = [i for i, w in enumerate(words) if len(w) > 4 and w.isalpha()]
        if long:
            i = rng.choice(long)
            j = rng.randrange(1, len(words[i]) - 2)
            w = words[i]
            words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
            text = " ".join(words)
    if rng.random() < 0.1:
        text += rng.choice(_EMOJI)
    return text


def scenario_files(folder: Path = DATA) -> list[Path]:
    """The scenario files: one per language or group of languages."""
    return sorted(folder.glob("act_scenarios*.toml"))


def scenarios(folder: Path = DATA) -> dict:
    """All scenario files as one table {slots|thread|request: {lang: {name: [...]}}}."""
    merged: dict = {}
    for path in scenario_files(folder):
        with path.open("rb") as handle:
            table = tomllib.load(handle)
        for part, languages in table.items():
            for lang, entries in languages.items():
                into = merged.setdefault(part, {}).setdefault(lang, {})
                for name, values in entries.items():
                    into.setdefault(name, []).extend(values)
    return merged


def generate(
    per_template: int = 4, seed: int = 17, folder: Path = DATA, slots_from: Path | None = None
) -> Iterator[dict]:
    """Examples `{text, act, context, lang, dialogue, source, split}`; `dialogue` is the
    template's id (the cross-validation group). Slot values come from `slots_from` when it is
    given, else from the templates' own folder (the reply stances, which have none, fill from
    the act scenarios' slots)."""
    table = scenarios(folder)
    filler = scenarios(slots_from) if slots_from is not None else table
    rng = random.Random(seed)
    for context in ("thread", "request"):
        for lang, acts in table.get(context, {}).items():
            slots = filler.get("slots", {}).get(lang, {})
            for act, templates in acts.items():
                for number, template in enumerate(templates):
                    seen: set[str] = set()
                    for _ in range(per_template):
                        text = _fill(template, slots, rng)
                        if text is None:
                            break
                        text = roughen(text, rng)
                        if text in seen:
                            continue
                        seen.add(text)
                        yield {
                            "text": text,
                            "act": act,
                            "context": context,
                            "lang": lang,
                            "dialogue": f"gen:{context}.{lang}.{act}.{number}",
                            "source": SOURCE,
                            "split": "train",
                        }
