"""A turn inside a chat: the chat's name map and history in, its messages and map out.

The page and `run.py ask --session` run turns the same way, on the same store, so a chat
started in one continues in the other: <PERSON_1> stays the same person, and the planner sees
the chat's earlier messages (redacted like everything else).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent.assistant import Assistant, Turn
from agent.bundle import TurnBundle
from memory.errors import NotFoundError
from memory.store import MemoryStore
from privacy import EntityMap

Progress = Callable[[dict[str, Any]], None]


def find_or_create_session(store: MemoryStore, name: str) -> str:
    """The chat called `name`: a session id, else the newest chat with that title, else a
    new chat with that title."""
    try:
        return store.get_session(name).id
    except NotFoundError:
        pass
    for session in store.list_sessions():  # most recently active first
        if session.title == name:
            return session.id
    return store.create_session(name).id


def open_turn(store: MemoryStore, turn: Turn) -> int:
    """Record the user's message and a running turn; sets and returns `turn.id`."""
    if turn.session is None:
        raise ValueError("a chat turn needs a session")
    shown = "\n\n".join(part for part in (turn.request, turn.thread) if part.strip())
    turn.id = store.start_turn(turn.session, turn.request)
    store.append_message(turn.session, "user", shown, turn.id)
    return turn.id


def answer_in_session(
    assistant: Assistant,
    store: MemoryStore,
    turn: Turn,
    *,
    progress: Progress | None = None,
    calendar: bytes | None = None,
    calendar_name: str = "calendar.ics",
    entity_map: EntityMap | None = None,
) -> TurnBundle:
    """Run the turn with the chat's name map, then keep the map it grew.

    `entity_map` is that map when the caller loaded it already (the page's live trace restores
    names with the very map the turn grows).
    """
    if turn.session is None:
        raise ValueError("a chat turn needs a session")
    if entity_map is None:
        entity_map = store.load_map(turn.session)
    bundle = assistant.ask(
        turn, entity_map, progress=progress, calendar=calendar, calendar_name=calendar_name
    )
    store.save_map(turn.session, entity_map)
    return bundle


def close_turn(store: MemoryStore, turn: Turn, bundle: TurnBundle) -> None:
    """Record the assistant's answer as the chat's next message."""
    if turn.session is None or turn.id is None:
        raise ValueError("close_turn needs an opened chat turn")
    said = "\n\n".join(x for x in (bundle.reply, bundle.question or "") if x)
    store.append_message(turn.session, "assistant", said, turn.id)
