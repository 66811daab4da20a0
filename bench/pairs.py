"""Training pairs rendered by the real agent: every prompt is the one Veil would send.

A `TeacherModel` stands where the embedded model would: each case runs one real
`Assistant.ask` turn (redaction, time parsing, rule linker, planner, executor, synthesis), and
whatever the agent asks a model — through the real gateway, so the prompt is redacted and
screened — the teacher answers from the case's gold. Each (screened messages, gold answer) is
one training pair. No prompt text is copied out of `agent/`: a prompt file or code change
shows up in the next `make train`'s data by itself.

This lives in bench/ rather than training/ because it drives the agent, and training/ imports
only memory and privacy (STYLE.md).
"""

from __future__ import annotations

import ast
import json
import logging
import re
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.assistant import Assistant, Turn
from agent.gateway import ModelGateway
from agent.model import GenerationOptions, Message, Usage
from agent.planner import PlanInput, rule_plan
from bench.agent import calendar_ics
from privacy import EntityMap, PrivacyGuard
from privacy.entity_map import PLACEHOLDER_RE
from tools.registry import builtin_registry

logger = logging.getLogger(__name__)

_EVENT_LINE_RE = re.compile(r"^\d+\. (?P<title>.*) \(suggested time (?P<id>T\d+)\)$")
_WITH_RE = re.compile(r" with (?:<PERSON_\d+>(?:,? and |, )?)+$")
_TIME_LINE_RE = re.compile(r"^(?P<id>T\d+): (?P<text>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\") in: ")
REPLY_CHARS = 220  # about 50 tokens: the agent stops a reply at 60
_FACTS_RE = re.compile(r"Facts:\n(?P<facts>.*)\Z", re.S)


def _core(time_text: str) -> str:
    return re.sub(r"^at\s+", "", time_text.strip().lower())


class TeacherModel:
    """A ChatModel that answers from the current case's gold and records each exchange."""

    backend = "teacher"
    model_id = "teacher"
    supports_schema = True

    def __init__(self) -> None:
        self.case: dict[str, Any] | None = None
        self.entity_map = EntityMap()
        self.pairs: list[dict[str, Any]] = []

    def check(self) -> None:
        """Nothing to load."""

    def begin(self, case: dict[str, Any], entity_map: EntityMap) -> None:
        """Answer for `case`, whose turn redacts into `entity_map`, from now on."""
        self.case = case
        self.entity_map = entity_map

    def generate(
        self, messages: Sequence[Message], *, options: GenerationOptions
    ) -> Iterator[str | Usage]:
        """The gold answer for this call, as one piece."""
        if self.case is None:
            raise ValueError("TeacherModel.begin(case) first")
        purpose = options.schema_name or "reply"
        user = messages[-1].content
        if purpose == "link":
            answer, certain = self._link(user)
        elif purpose == "plan":
            answer, certain = self._plan(), True
        elif purpose == "reply":
            answer, certain = self._reply(user), True
        else:
            raise ValueError(f"the teacher has no answer for a {purpose!r} call")
        self.pairs.append(
            {
                "purpose": purpose,
                "messages": [m.to_dict() for m in messages],
                "response": answer,
                "certain": certain,
                "case": self.case["id"],
                "template": self.case.get("template", ""),
                "source": self.case.get("source", ""),
                "split": self.case.get("split", ""),
            }
        )
        yield answer
        yield Usage(0, 0)

    def _link(self, user: str) -> tuple[str, bool]:
        """Each event keeps its suggested time and gets the gold title of the time agreed."""
        assert self.case is not None
        texts: dict[str, str] = {}
        picks: list[tuple[str, str]] = []
        for line in user.splitlines():
            if match := _TIME_LINE_RE.match(line):
                texts[match.group("id")] = str(ast.literal_eval(match.group("text"))).lower()
            elif match := _EVENT_LINE_RE.match(line.strip()):
                picks.append((match.group("id"), match.group("title")))
        gold = self.case["answer"]["events"]
        events = []
        certain = bool(picks)
        for pick, code_title in picks:
            mention = texts.get(pick, "")
            titles = {
                g["title"] for g in gold if g["time_text"] and _core(g["time_text"]) in mention
            }
            if len(gold) == 1 and len(picks) == 1:
                titles = {gold[0]["title"]}  # one event asked, one agreed: no matching needed
            if len(titles) == 1:
                title = titles.pop()
            else:
                certain = False
                title = gold[0]["title"] if gold else "Event"
            # A gold title can hold a name ("Erica Fernandez concert"): it gets the turn's own
            # placeholder, as the prompt did; the model must never learn a real name.
            title = PrivacyGuard(self.entity_map).screen(title).text
            people = _WITH_RE.search(code_title)  # code's "with <PERSON_1>" stays in the title
            if people and not PLACEHOLDER_RE.search(title):
                title += people.group(0)
            events.append({"time": pick, "title": title})
        return dump({"events": events}), certain

    def _plan(self) -> str:
        """The rule plan for the case's gold intent and times: every hard rule holds."""
        assert self.case is not None
        gold = self.case["gold"]
        steps = rule_plan(
            PlanInput(
                request="",
                thread="",
                intent=self.case["answer"]["intent"],
                stated_time=bool(gold["events"]),
                vague_time=bool(gold["question"]),
            )
        )
        return dump({"steps": [{"tool": s.tool, "args": {}} for s in steps]})

    def _reply(self, user: str) -> str:
        """The facts in whole sentences, short enough for the reply's 60-token budget:
        nothing added, nothing claimed."""
        match = _FACTS_RE.search(user)
        lines = [ln.strip() for ln in (match.group("facts") if match else "").splitlines()]
        kept: list[str] = []
        for line in (ln for ln in lines if ln):
            if kept and len(" ".join([*kept, line])) > REPLY_CHARS:
                break
            kept.append(line)
        return " ".join(kept) or "Nothing to do in this."


def dump(value: Any) -> str:
    """JSON as the grammar lets the model write it: one line, ", " and ": " separators."""
    return json.dumps(value, ensure_ascii=False)


def render_pairs(cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run each case through the real assistant with the teacher; returns the recorded pairs."""
    teacher = TeacherModel()
    registry = builtin_registry()
    for index, case in enumerate(cases, 1):
        folder = Path(tempfile.mkdtemp(prefix="veil-pairs-"))
        try:
            assistant = Assistant(ModelGateway(teacher), data_dir=folder)
            assistant.registry = registry
            entity_map = EntityMap()
            teacher.begin(case, entity_map)
            turn = Turn(
                request=case["request"],
                now=datetime.fromisoformat(case["now"]),
                tz=case["tz"],
                thread=case["thread"],
            )
            assistant.ask(
                turn, entity_map, calendar=calendar_ics(case), calendar_name="calendar.ics"
            )
        except Exception as failure:  # a case the agent refuses still gave its earlier pairs
            logger.warning("%s: %s: %s", case["id"], type(failure).__name__, failure)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        if index % 100 == 0:
            logger.info("rendered %d/%d cases", index, len(cases))
    return teacher.pairs
