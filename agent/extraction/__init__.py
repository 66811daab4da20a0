"""Events from a redacted thread: code finds the times and their evidence, a linker joins them.

The time parser finds every candidate mention; this package reads the thread message by message,
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

Modules: `candidate` (the mentions, the messages and clauses they sit in, the proposed event),
`title` (titles, places and people from the thread's words), `cue` (the words that say what a
message does to an event), `rule_linker` and `model_linker`.
"""

from agent.extraction.candidate import Candidate, ProposedEvent, candidates
from agent.extraction.model_linker import link_with_model
from agent.extraction.rule_linker import RuleLinker

__all__ = ["Candidate", "ProposedEvent", "RuleLinker", "candidates", "link_with_model"]
