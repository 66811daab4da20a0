"""Veil's long-term memory in SQLite: sessions, messages, turn checkpoints, contacts, facts, files.

Every write commits before the call returns, so a process killed mid-turn loses only the step
it was running; writes go through memory.writer, one at a time per database file. Memory is
the user's own disk and keeps real values: text still holding `<PERSON_1>`-style placeholders
is refused, because a placeholder stored today points at nobody in the next session (restore
it with the session's map first).
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlite_utils import Database

from memory.errors import NotFoundError, PlaceholderError
from memory.migrations import migrate
from memory.writer import write
from privacy.entity_map import PLACEHOLDER_RE, EntityMap, normalize_value

log = logging.getLogger(__name__)

SHORT_TERM = 20  # messages of a session that go back into a prompt
TURN_STATUSES = ("running", "done", "failed", "interrupted")
MAX_ROW_ID = 2**63 - 1  # SQLite's largest rowid: a bigger id in a URL names nothing


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _is_alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def check_real(text: str, what: str) -> str:
    """Return `text`, or raise PlaceholderError if it still holds placeholders."""
    match = PLACEHOLDER_RE.search(text)
    if match:
        raise PlaceholderError(
            f"{what} holds the placeholder {match.group(0)}; restore real values with the "
            "session's entity map before storing it"
        )
    return text


class FactSink(Protocol):
    """What keeps derived data (the FAISS index) in step with the facts table."""

    def add(self, fact_id: int, text: str) -> None:
        """Index one new fact."""

    def remove(self, fact_ids: Sequence[int]) -> None:
        """Drop the vectors of deleted facts."""


@dataclass(frozen=True, slots=True)
class Session:
    """One chat."""

    id: str
    title: str
    created_at: str
    updated_at: str


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a session, in real values."""

    id: int
    session_id: str
    role: str
    content: str
    turn_id: int | None
    created_at: str


@dataclass(frozen=True, slots=True)
class Turn:
    """One request and its checkpointed steps; `interrupted` means the process died mid-turn."""

    id: int
    session_id: str
    request: str
    status: str
    outcome: Any
    started_at: str
    ended_at: str | None
    steps: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Contact:
    """A person the user knows: the privacy layer always redacts these names."""

    id: int
    name: str
    aliases: list[str]
    role: str
    email: str
    phone: str


@dataclass(frozen=True, slots=True)
class Fact:
    """One remembered sentence; `session_id` is where it was learned (None: global)."""

    id: int
    text: str
    session_id: str | None
    created_at: str


@dataclass(frozen=True, slots=True)
class FileRecord:
    """A generated file (.ics, .eml) and the session that made it."""

    id: str
    session_id: str
    path: str
    type: str
    label: str
    created_at: str


class MemoryStore:
    """The SQLite store; opening it marks turns left `running` by a dead process `interrupted`."""

    def __init__(self, db: Database, index: FactSink | None = None) -> None:
        self.db = db
        self.index = index
        migrate(db)
        self.mark_interrupted()

    def mark_interrupted(self) -> int:
        """Mark `interrupted` every running turn whose process is gone; return how many.

        A live owner (a web request in another thread, a CLI turn next to the server) keeps
        its turn: opening a store must not cut short work that is still going on.
        """
        rows = self.db.execute("SELECT id, pid FROM turns WHERE status = 'running'").fetchall()
        dead = [turn_id for turn_id, pid in rows if not _is_alive(pid)]
        if dead:
            with write(self.db):
                for turn_id in dead:
                    self.db.execute(
                        "UPDATE turns SET status = 'interrupted', ended_at = ? "
                        "WHERE id = ? AND status = 'running'",
                        [_now(), turn_id],
                    )
        if dead:
            log.warning("marked %d unfinished turn(s) as interrupted", len(dead))
        return len(dead)

    # sessions

    def create_session(self, title: str = "") -> Session:
        """Start a new chat with an empty entity map."""
        check_real(title, "session title")
        now = _now()
        session = Session(uuid.uuid4().hex, title, now, now)
        with write(self.db):
            self.db.execute(
                "INSERT INTO sessions (id, title, entity_map, created_at, updated_at) "
                "VALUES (?, ?, '{}', ?, ?)",
                [session.id, title, now, now],
            )
        return session

    def get_session(self, session_id: str) -> Session:
        """The session, or NotFoundError."""
        row = self.db.execute(
            "SELECT id, title, created_at, updated_at FROM sessions WHERE id = ?", [session_id]
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no session {session_id!r}; list sessions to find its id")
        return Session(*row)

    def list_sessions(self) -> list[Session]:
        """Every session, most recently active first."""
        rows = self.db.execute(
            "SELECT id, title, created_at, updated_at FROM sessions "
            "ORDER BY updated_at DESC, rowid DESC"
        ).fetchall()
        return [Session(*row) for row in rows]

    def rename_session(self, session_id: str, title: str) -> None:
        """Give a session a new title."""
        check_real(title, "session title")
        self._update_session(session_id, "title = ?", [title])

    def forget_session(self, session_id: str) -> None:
        """Remove a session's messages, turns, files rows, facts (and vectors) and map."""
        self._remove(session_id, keep_session=True)

    def delete_session(self, session_id: str) -> None:
        """Forget a session and remove it from the list."""
        self._remove(session_id, keep_session=False)

    def _remove(self, session_id: str, *, keep_session: bool) -> None:
        self.get_session(session_id)
        with write(self.db):
            fact_ids = self._clear(session_id)
            if keep_session:
                self._update_session(session_id, "entity_map = '{}'", [])
            else:
                self.db.execute("DELETE FROM sessions WHERE id = ?", [session_id])
        self._drop_vectors(fact_ids)

    def _clear(self, session_id: str) -> list[int]:
        fact_ids = [
            row[0]
            for row in self.db.execute("SELECT id FROM facts WHERE session_id = ?", [session_id])
        ]
        self.db.execute("DELETE FROM facts WHERE session_id = ?", [session_id])
        self.db.execute("DELETE FROM messages WHERE session_id = ?", [session_id])
        self.db.execute("DELETE FROM files WHERE session_id = ?", [session_id])
        self.db.execute(
            "DELETE FROM turn_steps WHERE turn_id IN (SELECT id FROM turns WHERE session_id = ?)",
            [session_id],
        )
        self.db.execute("DELETE FROM turns WHERE session_id = ?", [session_id])
        return fact_ids

    def _update_session(self, session_id: str, assignment: str, params: list[Any]) -> None:
        with write(self.db):
            cursor = self.db.execute(
                f"UPDATE sessions SET {assignment}, updated_at = ? WHERE id = ?",
                [*params, _now(), session_id],
            )
        if cursor.rowcount == 0:
            raise NotFoundError(f"no session {session_id!r}; list sessions to find its id")

    # the session's entity map

    def save_map(self, session_id: str, entity_map: EntityMap) -> None:
        """Persist the session's placeholder map so numbering survives a restart."""
        self._update_session(session_id, "entity_map = ?", [json.dumps(entity_map.to_dict())])

    def load_map(self, session_id: str) -> EntityMap:
        """The session's map as last saved (empty for a new or forgotten session)."""
        row = self.db.execute(
            "SELECT entity_map FROM sessions WHERE id = ?", [session_id]
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no session {session_id!r}; list sessions to find its id")
        return EntityMap.from_dict(json.loads(row[0]))

    # messages

    def append_message(
        self, session_id: str, role: str, content: str, turn_id: int | None = None
    ) -> Message:
        """Store one message (real values only) and commit it at once."""
        check_real(content, "message")
        if role not in ("user", "assistant", "system", "tool"):
            raise ValueError(f"unknown message role {role!r}")
        now = _now()
        with write(self.db):
            cursor = self.db.execute(
                "INSERT INTO messages (session_id, turn_id, role, content, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                [session_id, turn_id, role, content, now],
            )
            self._update_session(session_id, "title = title", [])
        return Message(cursor.lastrowid or 0, session_id, role, content, turn_id, now)

    def messages(self, session_id: str, last: int | None = None) -> list[Message]:
        """A session's messages in order; `last` keeps only the newest ones."""
        sql = (
            "SELECT id, session_id, role, content, turn_id, created_at FROM messages "
            "WHERE session_id = ? ORDER BY id DESC"
        )
        params: list[Any] = [session_id]
        if last is not None:
            if last < 0:
                raise ValueError("last must be >= 0")
            sql += " LIMIT ?"
            params.append(last)
        rows = self.db.execute(sql, params).fetchall()
        return [Message(*row) for row in reversed(rows)]

    def short_term(self, session_id: str) -> list[Message]:
        """The last SHORT_TERM messages: what goes (redacted) into the next prompt."""
        return self.messages(session_id, last=SHORT_TERM)

    def prompt_history(
        self, session_id: str, redact: Callable[[str], str], *, before_turn: int | None = None
    ) -> list[tuple[str, str]]:
        """(role, text) of the short-term messages, each through `redact` on its way out.

        Memory holds real values, so nothing from it may reach a prompt unredacted: the
        caller passes the privacy layer's redact with this session's map. `before_turn`
        leaves out the running turn's own messages (the prompt has them already).
        """
        return [
            (m.role, redact(m.content))
            for m in self.short_term(session_id)
            if before_turn is None or m.turn_id is None or m.turn_id < before_turn
        ]

    # turn checkpoints

    def start_turn(self, session_id: str, request: str) -> int:
        """Open a turn in status `running`; return its id."""
        check_real(request, "turn request")
        with write(self.db):
            self.get_session(session_id)
            cursor = self.db.execute(
                "INSERT INTO turns (session_id, request, status, started_at, pid) "
                "VALUES (?, ?, 'running', ?, ?)",
                [session_id, request, _now(), os.getpid()],
            )
        return cursor.lastrowid or 0

    def checkpoint(self, turn_id: int, kind: str, detail: Any) -> None:
        """Append one completed step of a running turn, committed before returning."""
        text = json.dumps(detail, ensure_ascii=False)
        check_real(text, "turn step")
        with write(self.db):
            status = self._turn_status(turn_id)
            if status != "running":
                raise ValueError(f"turn {turn_id} is {status}, not running")
            position = self.db.execute(
                "SELECT COUNT(*) FROM turn_steps WHERE turn_id = ?", [turn_id]
            ).fetchone()[0]
            self.db.execute(
                "INSERT INTO turn_steps (turn_id, position, kind, detail, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                [turn_id, position, kind, text, _now()],
            )

    def finish_turn(self, turn_id: int, outcome: Any = None, *, status: str = "done") -> None:
        """End a running turn: `done` with its outcome (the bundle, in real values), `failed`
        with its error, or `interrupted` when the process is going down."""
        if status not in TURN_STATUSES or status == "running":
            raise ValueError(f"a turn ends done, failed or interrupted, not {status!r}")
        text = json.dumps(outcome, ensure_ascii=False)
        check_real(text, "turn outcome")
        with write(self.db):
            current = self._turn_status(turn_id)
            if current != "running":
                raise ValueError(f"turn {turn_id} is {current}, not running")
            self.db.execute(
                "UPDATE turns SET status = ?, outcome = ?, ended_at = ? WHERE id = ?",
                [status, text, _now(), turn_id],
            )

    def _turn_status(self, turn_id: int) -> str:
        if not 0 < turn_id <= MAX_ROW_ID:
            raise NotFoundError(f"no turn {turn_id}")
        row = self.db.execute("SELECT status FROM turns WHERE id = ?", [turn_id]).fetchone()
        if row is None:
            raise NotFoundError(f"no turn {turn_id}")
        return str(row[0])

    def interrupted_turns(self, session_id: str) -> list[Turn]:
        """Turns a dead process left unfinished, oldest first: shown so they can be re-run."""
        return [t for t in self.turns(session_id) if t.status == "interrupted"]

    def get_turn(self, turn_id: int) -> Turn:
        """The turn with its steps in order."""
        if not 0 < turn_id <= MAX_ROW_ID:
            raise NotFoundError(f"no turn {turn_id}")
        row = self.db.execute(
            "SELECT id, session_id, request, status, outcome, started_at, ended_at "
            "FROM turns WHERE id = ?",
            [turn_id],
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no turn {turn_id}")
        steps = [
            {"kind": kind, "detail": json.loads(detail)}
            for kind, detail in self.db.execute(
                "SELECT kind, detail FROM turn_steps WHERE turn_id = ? ORDER BY position",
                [turn_id],
            )
        ]
        outcome = json.loads(row[4]) if row[4] is not None else None
        return Turn(row[0], row[1], row[2], row[3], outcome, row[5], row[6], steps)

    def previous_outcome(self, session_id: str, before_turn: int | None) -> Any:
        """The stored outcome of the session's turn before `before_turn` (before none: its
        last), or None when there is none or it stored nothing."""
        row = self.db.execute(
            "SELECT outcome FROM turns WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT 1",
            [session_id, before_turn if before_turn is not None else 2**62],
        ).fetchone()
        return json.loads(row[0]) if row and row[0] else None

    def turns(self, session_id: str) -> list[Turn]:
        """A session's turns, oldest first."""
        ids = self.db.execute(
            "SELECT id FROM turns WHERE session_id = ? ORDER BY id", [session_id]
        ).fetchall()
        return [self.get_turn(row[0]) for row in ids]

    # contacts

    def save_contact(
        self,
        name: str,
        *,
        aliases: Iterable[str] = (),
        role: str = "",
        email: str = "",
        phone: str = "",
    ) -> Contact:
        """Add a contact or update the one with the same name; given aliases are merged in."""
        for value in (name, role, email, phone, *aliases):
            check_real(value, "contact")
        if not name.strip():
            raise ValueError("a contact needs a name")
        key = normalize_value(name)
        with write(self.db):
            old = self._contact_where("name_key = ?", [key])
            merged = list(old[0].aliases) if old else []
            merged += [a for a in aliases if a not in merged]
            self.db.execute(
                "INSERT INTO contacts (name, name_key, aliases, role, email, phone, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name_key) DO UPDATE SET "
                "name = excluded.name, aliases = excluded.aliases, "
                "role = CASE WHEN excluded.role = '' THEN role ELSE excluded.role END, "
                "email = CASE WHEN excluded.email = '' THEN email ELSE excluded.email END, "
                "phone = CASE WHEN excluded.phone = '' THEN phone ELSE excluded.phone END, "
                "updated_at = excluded.updated_at",
                [name, key, json.dumps(merged), role, email, phone, _now()],
            )
            return self._contact_where("name_key = ?", [key])[0]

    def contacts(self) -> list[Contact]:
        """Every contact, by name."""
        return self._contact_where("1", [])

    def find_contact(self, name: str) -> Contact | None:
        """The contact whose name or one alias is `name` (case and spacing ignored)."""
        key = normalize_value(name)
        for contact in self.contacts():
            if key in {normalize_value(n) for n in (contact.name, *contact.aliases)}:
                return contact
        return None

    def contact_names(self) -> list[str]:
        """Every contact name and alias: the privacy layer always redacts these."""
        return [name for c in self.contacts() for name in (c.name, *c.aliases)]

    def delete_contact(self, contact_id: int) -> None:
        """Remove a contact."""
        with write(self.db):
            deleted = self.db.execute("DELETE FROM contacts WHERE id = ?", [contact_id]).rowcount
        if deleted == 0:
            raise NotFoundError(f"no contact {contact_id}")

    def _contact_where(self, where: str, params: list[Any]) -> list[Contact]:
        rows = self.db.execute(
            "SELECT id, name, aliases, role, email, phone FROM contacts "
            f"WHERE {where} ORDER BY name_key",
            params,
        ).fetchall()
        return [Contact(r[0], r[1], json.loads(r[2]), r[3], r[4], r[5]) for r in rows]

    # facts

    def add_fact(self, text: str, session_id: str | None = None) -> Fact:
        """Remember one sentence in real values; the index (if any) gets its vector."""
        check_real(text, "fact")
        if not text.strip():
            raise ValueError("a fact needs text")
        now = _now()
        with write(self.db):
            cursor = self.db.execute(
                "INSERT INTO facts (text, session_id, created_at) VALUES (?, ?, ?)",
                [text, session_id, now],
            )
        fact = Fact(cursor.lastrowid or 0, text, session_id, now)
        if self.index is not None:
            self.index.add(fact.id, fact.text)
        return fact

    def get_facts(self, fact_ids: Sequence[int]) -> list[Fact]:
        """The facts with these ids that still exist, in the order asked."""
        if not fact_ids:
            return []
        marks = ", ".join("?" * len(fact_ids))
        rows = self.db.execute(
            f"SELECT id, text, session_id, created_at FROM facts WHERE id IN ({marks})",
            list(fact_ids),
        ).fetchall()
        found = {row[0]: Fact(*row) for row in rows}
        return [found[i] for i in fact_ids if i in found]

    def fact_count(self) -> int:
        """How many facts are stored (cheap: callers skip loading the encoder when none)."""
        return int(self.db.execute("SELECT count(*) FROM facts").fetchone()[0])

    def facts(self) -> list[Fact]:
        """Every fact, oldest first."""
        rows = self.db.execute(
            "SELECT id, text, session_id, created_at FROM facts ORDER BY id"
        ).fetchall()
        return [Fact(*row) for row in rows]

    def delete_fact(self, fact_id: int) -> None:
        """Forget one fact and its vector."""
        with write(self.db):
            deleted = self.db.execute("DELETE FROM facts WHERE id = ?", [fact_id]).rowcount
        if deleted == 0:
            raise NotFoundError(f"no fact {fact_id}")
        self._drop_vectors([fact_id])

    def _drop_vectors(self, fact_ids: list[int]) -> None:
        if self.index is not None and fact_ids:
            self.index.remove(fact_ids)

    # generated files

    def register_file(
        self, session_id: str, path: str, file_type: str, label: str = ""
    ) -> FileRecord:
        """Record a generated file under a new id."""
        check_real(label, "file label")
        record = FileRecord(uuid.uuid4().hex, session_id, path, file_type, label, _now())
        with write(self.db):
            self.get_session(session_id)
            self.db.execute(
                "INSERT INTO files (id, session_id, path, type, label, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [record.id, session_id, path, file_type, label, record.created_at],
            )
        return record

    def get_file(self, file_id: str) -> FileRecord:
        """The file row, or NotFoundError."""
        row = self.db.execute(
            "SELECT id, session_id, path, type, label, created_at FROM files WHERE id = ?",
            [file_id],
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no file {file_id!r}")
        return FileRecord(*row)

    def files(self, session_id: str) -> list[FileRecord]:
        """A session's generated files, oldest first."""
        rows = self.db.execute(
            "SELECT id, session_id, path, type, label, created_at FROM files "
            "WHERE session_id = ? ORDER BY created_at, rowid",
            [session_id],
        ).fetchall()
        return [FileRecord(*row) for row in rows]

    # preferences

    def set_preference(self, key: str, value: Any) -> None:
        """Store one preference (working hours, default duration, zone) as JSON."""
        with write(self.db):
            self.db.execute(
                "INSERT INTO preferences (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, json.dumps(value)],
            )

    def preference(self, key: str, default: Any = None) -> Any:
        """A stored preference, or `default`."""
        row = self.db.execute("SELECT value FROM preferences WHERE key = ?", [key]).fetchone()
        return json.loads(row[0]) if row else default
