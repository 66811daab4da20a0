"""MemoryStore on a real SQLite database: sessions, map persistence, checkpoints, crash safety."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sqlite_utils import Database

from memory.errors import NotFoundError, PlaceholderError
from memory.store import SHORT_TERM, MemoryStore
from privacy.entity_map import EntityMap

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore(Database(memory=True))


def test_sessions_create_list_rename_delete(store: MemoryStore) -> None:
    first = store.create_session("Lunch")
    second = store.create_session("Dinner")
    store.append_message(first.id, "user", "hello")  # activity moves a session to the top
    assert [s.id for s in store.list_sessions()] == [first.id, second.id]
    store.rename_session(second.id, "Dinner with Priya")
    assert store.get_session(second.id).title == "Dinner with Priya"
    store.delete_session(first.id)
    assert [s.id for s in store.list_sessions()] == [second.id]
    assert store.messages(first.id) == []
    with pytest.raises(NotFoundError):
        store.rename_session(first.id, "gone")


def test_short_term_is_the_last_twenty_in_order(store: MemoryStore) -> None:
    session = store.create_session()
    for number in range(25):
        store.append_message(session.id, "user" if number % 2 else "assistant", f"m{number}")
    recent = store.short_term(session.id)
    assert len(recent) == SHORT_TERM
    assert [m.content for m in recent] == [f"m{n}" for n in range(5, 25)]
    assert len(store.messages(session.id)) == 25


def test_message_to_unknown_session_is_refused(store: MemoryStore) -> None:
    with pytest.raises(NotFoundError):
        store.append_message("nope", "user", "hi")
    assert store.db.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 0


@pytest.mark.parametrize(
    "text",
    ["Call <PERSON_1> tomorrow", "mail <EMAIL_ADDRESS_2>", "x<PHONE_NUMBER_12>y"],
)
def test_placeholders_are_refused(store: MemoryStore, text: str) -> None:
    session = store.create_session()
    with pytest.raises(PlaceholderError):
        store.append_message(session.id, "assistant", text)
    with pytest.raises(PlaceholderError):
        store.add_fact(text)
    turn = store.start_turn(session.id, "plan lunch")
    with pytest.raises(PlaceholderError):
        store.checkpoint(turn, "step", {"args": {"to": text}})
    with pytest.raises(PlaceholderError):
        store.save_contact(text)
    assert store.messages(session.id) == [] and store.facts() == []
    assert store.get_turn(turn).steps == []


def test_real_values_and_angle_text_are_kept(store: MemoryStore) -> None:
    session = store.create_session()
    store.append_message(session.id, "user", "Lunch with Karthik <karthik@example.com>, a<b")
    assert store.add_fact("Karthik is my CFO").text == "Karthik is my CFO"


def test_restart_keeps_map_numbering(tmp_path: Path) -> None:
    path = tmp_path / "veil.db"
    store = MemoryStore(Database(path))
    session = store.create_session()
    entity_map = EntityMap()
    assert entity_map.placeholder_for("PERSON", "Karthik Rao") == "<PERSON_1>"
    assert entity_map.placeholder_for("PERSON", "Priya") == "<PERSON_2>"
    entity_map.link("<PERSON_1>", "Karthik")
    store.save_map(session.id, entity_map)
    store.db.close()

    reopened = MemoryStore(Database(path)).load_map(session.id)
    assert reopened.placeholder_for("PERSON", "karthik rao") == "<PERSON_1>"
    assert reopened.placeholder_for("PERSON", "KARTHIK") == "<PERSON_1>"
    assert reopened.placeholder_for("PERSON", "Meera") == "<PERSON_3>"
    assert reopened.restore("<PERSON_2> and <PERSON_1>") == "Priya and Karthik Rao"


def test_forget_removes_messages_files_facts_and_map(store: MemoryStore) -> None:
    kept, forgotten = store.create_session("keep"), store.create_session("forget")
    entity_map = EntityMap()
    entity_map.placeholder_for("PERSON", "Priya")
    for session in (kept, forgotten):
        store.append_message(session.id, "user", "lunch with Priya")
        store.register_file(session.id, f"/tmp/{session.id}.ics", "ics", "Lunch")
        store.add_fact("Priya likes sushi", session_id=session.id)
        store.save_map(session.id, entity_map)
        turn = store.start_turn(session.id, "lunch with Priya")
        store.checkpoint(turn, "plan", [{"tool": "create_event"}])
    store.forget_session(forgotten.id)
    assert store.get_session(forgotten.id).title == "forget"
    assert store.messages(forgotten.id) == []
    assert store.files(forgotten.id) == []
    assert store.turns(forgotten.id) == []
    assert len(store.load_map(forgotten.id)) == 0
    assert [f.session_id for f in store.facts()] == [kept.id]
    assert len(store.messages(kept.id)) == 1 and len(store.files(kept.id)) == 1
    assert len(store.load_map(kept.id)) == 1


def test_turn_checkpoints_and_finish(store: MemoryStore) -> None:
    session = store.create_session()
    turn = store.start_turn(session.id, "lunch Thu 1pm")
    store.checkpoint(turn, "plan", [{"tool": "check_calendar"}])
    store.checkpoint(turn, "step", {"tool": "check_calendar", "status": "ok"})
    assert store.get_turn(turn).status == "running"
    store.finish_turn(turn, {"reply": "Booked"})
    done = store.get_turn(turn)
    assert done.status == "done" and done.outcome == {"reply": "Booked"}
    assert [s["kind"] for s in done.steps] == ["plan", "step"]
    with pytest.raises(ValueError):
        store.checkpoint(turn, "step", {})


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_reopening_marks_dead_owners_turns_interrupted(tmp_path: Path) -> None:
    path = tmp_path / "veil.db"
    store = MemoryStore(Database(path))
    session = store.create_session()
    orphan = store.start_turn(session.id, "first")
    store.db.execute("UPDATE turns SET pid = ? WHERE id = ?", [_dead_pid(), orphan])
    live = store.start_turn(session.id, "second")  # this process: still running
    done = store.start_turn(session.id, "third")
    store.finish_turn(done)
    reopened = MemoryStore(Database(path))
    assert reopened.get_turn(orphan).status == "interrupted"
    assert reopened.get_turn(live).status == "running"
    assert reopened.get_turn(done).status == "done"
    store.finish_turn(live)  # the first connection finishes its turn as usual
    assert reopened.get_turn(live).status == "done"


def test_contacts_merge_and_find(store: MemoryStore) -> None:
    store.save_contact("Karthik Rao", aliases=["Karthik"], role="CFO")
    store.save_contact("karthik rao", aliases=["KR"], email="karthik@example.com")
    (contact,) = store.contacts()
    assert contact.aliases == ["Karthik", "KR"]
    assert (contact.role, contact.email) == ("CFO", "karthik@example.com")
    assert store.find_contact("kr") == contact
    assert store.find_contact("Priya") is None
    store.delete_contact(contact.id)
    assert store.contacts() == []


def test_files_registry_and_preferences(store: MemoryStore) -> None:
    session = store.create_session()
    record = store.register_file(session.id, "/data/lunch.ics", "ics", "Lunch with Priya")
    assert store.get_file(record.id) == record
    with pytest.raises(NotFoundError):
        store.get_file("missing")
    store.set_preference("working_hours", ["09:00", "17:00"])
    assert store.preference("working_hours") == ["09:00", "17:00"]
    assert store.preference("zone", "Europe/Berlin") == "Europe/Berlin"


_CHILD = textwrap.dedent(
    """
    import sys
    from sqlite_utils import Database
    from memory.store import MemoryStore
    from privacy.entity_map import EntityMap

    store = MemoryStore(Database(sys.argv[1]))
    session = store.create_session("crash")
    entity_map = EntityMap()
    for number in range(30):
        store.append_message(session.id, "user", f"message {number} for Priya {number}")
        entity_map.placeholder_for("PERSON", f"Priya {number}")
        store.save_map(session.id, entity_map)
    store.register_file(session.id, "/tmp/lunch.ics", "ics", "Lunch")
    turn = store.start_turn(session.id, "lunch with Priya 1")
    store.checkpoint(turn, "plan", [{"tool": "create_event"}])
    store.checkpoint(turn, "step", {"tool": "create_event", "status": "ok"})
    print(session.id, turn, flush=True)
    while True:
        store.append_message(session.id, "assistant", "still working")
    """
)


def test_sigkill_mid_turn_loses_nothing_written(tmp_path: Path) -> None:
    path = tmp_path / "veil.db"
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = child.stdout.readline() if child.stdout else ""
        session_id, turn_text = line.split()
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=10)
        if child.stdout:
            child.stdout.close()
    assert child.returncode == -signal.SIGKILL

    store = MemoryStore(Database(path))
    contents = [m.content for m in store.messages(session_id)]
    assert contents[:30] == [f"message {n} for Priya {n}" for n in range(30)]
    assert set(contents[30:]) <= {"still working"}
    assert [f.path for f in store.files(session_id)] == ["/tmp/lunch.ics"]
    entity_map = store.load_map(session_id)
    assert len(entity_map) == 30
    assert entity_map.value_of("<PERSON_30>") == "Priya 29"
    turn = store.get_turn(int(turn_text))
    assert turn.status == "interrupted"
    assert [s["kind"] for s in turn.steps] == ["plan", "step"]


def test_recalled_history_is_redacted_with_the_same_placeholders(tmp_path: Path) -> None:
    """Memory keeps real values; what it feeds a prompt goes through the session's map."""
    from privacy.redactor import Redactor

    path = tmp_path / "veil.db"
    store = MemoryStore(Database(path))
    store.save_contact("Karthik Rao", aliases=["Karthik"], role="CFO")
    session = store.create_session()
    redactor = Redactor(store.load_map(session.id), contacts=store.contact_names())
    request = "Lunch with Karthik Rao tomorrow at 1"
    assert "<PERSON_1>" in redactor.redact(request).text
    store.append_message(session.id, "user", request)
    model_reply = "I drafted an invite for <PERSON_1>."
    with pytest.raises(PlaceholderError):  # model text is restored before it is stored
        store.append_message(session.id, "assistant", model_reply)
    store.append_message(session.id, "assistant", redactor.entity_map.restore(model_reply))
    store.save_map(session.id, redactor.entity_map)
    store.db.close()

    store = MemoryStore(Database(path))
    assert [m.content for m in store.messages(session.id)][
        1
    ] == "I drafted an invite for Karthik Rao."
    redactor = Redactor(store.load_map(session.id), contacts=store.contact_names())
    history = store.prompt_history(session.id, lambda text: redactor.redact(text).text)
    assert all("Karthik" not in text for _, text in history)
    assert history[1] == ("assistant", "I drafted an invite for <PERSON_1>.")
    # a learned contact is known in a new session too
    other = store.create_session()
    fresh = Redactor(store.load_map(other.id), contacts=store.contact_names())
    assert "Karthik" not in fresh.redact("ask karthik about the budget").text


def test_interrupted_turns_are_listed_for_rerun(tmp_path: Path) -> None:
    path = tmp_path / "veil.db"
    store = MemoryStore(Database(path))
    session = store.create_session()
    turn = store.start_turn(session.id, "dinner friday")
    store.db.execute("UPDATE turns SET pid = ? WHERE id = ?", [_dead_pid(), turn])
    store.db.close()
    store = MemoryStore(Database(path))
    (interrupted,) = store.interrupted_turns(session.id)
    assert (interrupted.id, interrupted.request) == (turn, "dinner friday")


# --- issue 17: one writer, turns that always end ---------------------------------------------


def test_many_threads_write_one_file_without_database_is_locked(tmp_path: Path) -> None:
    """Each thread has its own connection, as each web request and turn does."""
    import threading

    path = tmp_path / "veil.db"
    session = MemoryStore(Database(path)).create_session("load").id
    errors: list[BaseException] = []

    def turn(number: int) -> None:
        store = MemoryStore(Database(path))
        try:
            turn_id = store.start_turn(session, f"request {number}")
            for step in range(10):  # read-then-write transactions: the old failure mode
                store.checkpoint(turn_id, "step", {"n": step})
            store.append_message(session, "user", f"message {number}", turn_id)
            store.finish_turn(turn_id, {"n": number})
        except BaseException as error:  # collected and asserted below
            errors.append(error)
        finally:
            store.db.close()

    threads = [threading.Thread(target=turn, args=(n,), daemon=True) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    check = Database(path)
    assert check.journal_mode == "wal"
    assert check.execute("SELECT status, count(*) FROM turns GROUP BY status").fetchall() == [
        ("done", 20)
    ]
    assert check.execute("SELECT count(*) FROM turn_steps").fetchone()[0] == 200
    assert check.execute("PRAGMA busy_timeout").fetchone()[0] == 5000  # Python's default
    assert MemoryStore(check).db.execute("PRAGMA busy_timeout").fetchone()[0] == 10_000


def test_a_turn_ends_failed_or_interrupted_never_running_again(store: MemoryStore) -> None:
    session = store.create_session("x")
    failed, stopped = store.start_turn(session.id, "a"), store.start_turn(session.id, "b")
    store.finish_turn(failed, {"error": "crashed", "status": 500}, status="failed")
    store.finish_turn(stopped, None, status="interrupted")
    assert [store.get_turn(t).status for t in (failed, stopped)] == ["failed", "interrupted"]
    with pytest.raises(ValueError, match="not 'running'"):
        store.finish_turn(store.start_turn(session.id, "c"), status="running")
    with pytest.raises(ValueError, match="is failed, not running"):
        store.finish_turn(failed, {})


def test_a_write_that_fails_rolls_back_and_frees_the_writer(tmp_path: Path) -> None:
    store = MemoryStore(Database(tmp_path / "veil.db"))
    session = store.create_session("x")
    with pytest.raises(NotFoundError):
        store.start_turn("no-such-session", "a")
    assert store.start_turn(session.id, "b") == 1  # nothing half-written, the lock was let go
    assert not store.db.conn.in_transaction


@pytest.mark.parametrize("turn_id", [0, -1, 2**63, 2**70])
def test_a_turn_id_outside_sqlite_rowids_is_not_found(store: MemoryStore, turn_id: int) -> None:
    with pytest.raises(NotFoundError, match=f"no turn {turn_id}"):
        store.get_turn(turn_id)
    with pytest.raises(NotFoundError):
        store.finish_turn(turn_id, {})
