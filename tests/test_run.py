"""The command line: honest bundles, and one clear line (never a traceback) for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sqlite_utils import Database

ROOT = Path(__file__).resolve().parent.parent
BUNDLE_KEYS = ["reply", "question", "events", "files", "plan", "steps", "planner"]


def run_cli(*args: str, data_dir: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "run.py"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "VEIL_DATA_DIR": str(data_dir), "HOME": str(data_dir)},
    )


def test_ask_no_llm_prints_a_contract_bundle(data_dir: Path) -> None:
    result = run_cli(
        "ask",
        "--no-llm",
        "--json",
        "--now",
        "2026-11-21T09:00",
        "--tz",
        "Europe/Berlin",
        "email karthik my cfo about lunch thursday next week at 1",
        data_dir=data_dir,
    )
    assert result.returncode == 0, result.stderr
    bundle = json.loads(result.stdout)
    assert list(bundle) == BUNDLE_KEYS
    assert bundle["planner"] == "rules"
    [event] = bundle["events"]
    assert event["status"] == "created" and event["start"] == "2026-11-26T13:00:00+01:00"
    assert "Lunch" in event["title"] and "karthik" in event["title"].lower()
    assert sorted(f["type"] for f in bundle["files"]) == ["eml", "ics", "mailto"]
    ics = Path(next(f["path"] for f in bundle["files"] if f["type"] == "ics")).read_text()
    assert "DTSTART;TZID=Europe/Berlin:20261126T130000" in ics and "karthik" in ics.lower()
    assert "<PERSON" not in result.stdout


def test_ask_with_the_embedded_model_audits_a_redacted_prompt(
    data_dir: Path, tmp_path: Path
) -> None:
    audit = tmp_path / "audit.jsonl"
    result = run_cli(
        "ask",
        "--json",
        "--now",
        "2026-11-21T09:00",
        "--tz",
        "America/Chicago",
        "--audit",
        str(audit),
        "email karthik@acme.example about lunch with Priya Patel thursday next week at 1",
        data_dir=data_dir,
    )
    assert result.returncode == 0, result.stderr
    assert list(json.loads(result.stdout)) == BUNDLE_KEYS
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    assert records and all(r["prompt"] for r in records)
    for raw in ("karthik@acme.example", "Priya", "Patel"):
        assert raw not in audit.read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "/nonexistent/model.gguf"], "not found"),
        (["--tz", "Mars/Olympus"], "unknown time zone"),
        (["--now", "tuesday next week-ish"], "ISO 8601"),
        (["--llm-url", "http://127.0.0.1:9"], "cannot reach"),
        (["--thread", "/nonexistent/thread.txt", "--no-llm"], "thread.txt"),
    ],
)
def test_bad_flags_give_one_clear_line(data_dir: Path, args: list[str], message: str) -> None:
    result = run_cli("ask", *args, "lunch tomorrow at 1", data_dir=data_dir, timeout=60)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_flags_without_a_subcommand_mean_serve() -> None:
    from run import build_parser, main

    with pytest.raises(SystemExit) as stopped:
        main(["--no-llm", "--help"])
    assert stopped.value.code == 0
    assert build_parser().parse_args(["serve", "--no-llm"]).no_llm


def test_corrupt_model_file_gives_one_clear_line(data_dir: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\0" * 4096)
    result = run_cli("ask", "--model", str(broken), "hi", data_dir=data_dir, timeout=60)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "could not load" in result.stderr


def test_redact_json_prints_the_design_format(data_dir: Path, tmp_path: Path) -> None:
    source = tmp_path / "thread.txt"
    source.write_text("[10:02] Priya Patel: call me on +44 20 7946 0958 tomorrow at 3\n")
    result = run_cli("redact", "--json", str(source), data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert list(data) == ["redacted", "entities", "kept"]
    assert "Priya" not in data["redacted"] and "7946" not in data["redacted"]
    assert "tomorrow at 3" in data["redacted"]
    for entity in data["entities"]:
        assert set(entity) == {"placeholder", "type", "text", "start", "end"}
        assert source.read_text()[entity["start"] : entity["end"]] == entity["text"]


def test_ask_imports_the_calendar_before_the_turn(data_dir: Path) -> None:
    result = run_cli(
        "ask",
        "--no-llm",
        "--json",
        "--now",
        "2026-03-01T09:00",
        "--tz",
        "America/New_York",
        "--calendar",
        str(ROOT / "tests" / "data" / "recurring_new_york.ics"),
        "what is on my calendar?",
        data_dir=data_dir,
    )
    assert result.returncode == 0, result.stderr
    reply = json.loads(result.stdout)["reply"]
    count = int(reply.split("Imported ", 1)[1].split(" ", 1)[0])
    assert count > 0 and "recurring_new_york.ics" in reply
    assert (data_dir / "veil.db").exists()


def test_broken_calendar_is_one_clear_line(data_dir: Path, tmp_path: Path) -> None:
    fake = tmp_path / "calendar.ics"
    fake.write_bytes(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3 not a calendar")
    result = run_cli("ask", "--no-llm", "--calendar", str(fake), "hi", data_dir=data_dir)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


# --- issue 17: hostile input on the command line ---------------------------------------------


class FakePanic(BaseException):
    """Like pyo3's PanicException (Duckling's Rust code): a BaseException, not an Exception."""


def test_a_native_panic_is_one_clear_line_and_exit_2(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from run import main

    def panic(*_args: object, **_kwargs: object) -> None:
        raise FakePanic("thread '<unnamed>' panicked at src/lib.rs:497:37")

    monkeypatch.setattr("agent.assistant.Assistant.ask", panic)
    assert main(["ask", "--no-llm", "--data-dir", str(data_dir), "lunch at 1"]) == 2
    stderr = capsys.readouterr().err
    assert stderr.startswith("veil: a native library crashed on this input (FakePanic)")
    assert "Traceback" not in stderr and "src/lib.rs" not in stderr
    assert len(stderr.strip().splitlines()) == 1


def test_a_nul_in_the_thread_is_dropped_before_duckling_sees_it(
    data_dir: Path, tmp_path: Path
) -> None:
    thread = tmp_path / "thread.txt"
    thread.write_bytes(b"Anna: lunch\x00 tomorrow at 1pm?\x07\n")
    result = run_cli(
        "ask", "--no-llm", "--json", "--thread", str(thread), "add this", data_dir=data_dir
    )
    assert result.returncode == 0, result.stderr
    assert "panicked" not in result.stderr and "Traceback" not in result.stderr
    [event] = json.loads(result.stdout)["events"]
    assert event["status"] == "created" and "Anna" in event["title"]


def test_ask_keeps_the_data_folder_private(data_dir: Path) -> None:
    import stat

    data_dir.mkdir(mode=0o755)
    result = run_cli(
        "ask", "--no-llm", "lunch with Anna tomorrow at 1pm", data_dir=data_dir, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    written = [p for p in data_dir.rglob("*")]
    assert any(p.suffix == ".ics" for p in written)
    assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in written} == {
        p.name: 0o700 if p.is_dir() else 0o600 for p in written
    }


@pytest.mark.parametrize(
    ("flags", "env", "allowed"),
    [
        ([], {}, ""),
        (["--allowed-hosts", "veil.home.arpa,box.lan"], {}, "veil.home.arpa,box.lan"),
        ([], {"VEIL_ALLOWED_HOSTS": "box.lan"}, "box.lan"),
        (["--host", "192.168.1.5"], {}, "192.168.1.5"),
        (["--host", "fd00::5", "--allowed-hosts", "box.lan"], {}, "box.lan,[fd00::5]"),
        (["--host", "0.0.0.0"], {}, ""),
    ],
)
def test_serve_passes_the_allowed_hosts(
    monkeypatch: pytest.MonkeyPatch, flags: list[str], env: dict[str, str], allowed: str
) -> None:
    import web
    from run import main

    seen: dict[str, object] = {}

    class Stopped(Exception):
        pass

    def fake_app(config: dict[str, object]) -> None:
        seen.update(config)
        raise Stopped

    monkeypatch.delenv("VEIL_ALLOWED_HOSTS", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(web, "create_app", fake_app)
    with pytest.raises(Stopped):
        main(["serve", "--no-llm", *flags])
    assert seen["ALLOWED_HOSTS"] == allowed


def test_redact_jsonl_redacts_a_whole_export_in_one_process(data_dir: Path, tmp_path: Path) -> None:
    source = tmp_path / "export.jsonl"
    lines = [
        {"text": "ravi: lunch thu? call me on +44 20 7946 0958"},
        "this line is not JSON",
        {"text": "Meet Ana Silva at Blue Bottle tomorrow at 3"},
        {"note": "no text field"},
        {"text": ""},
    ]
    source.write_text(
        "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n\n",
        encoding="utf-8",
    )
    result = run_cli("redact", "--jsonl", str(source), data_dir=data_dir)
    assert result.returncode == 2  # two lines failed, and it says so
    assert "2 line(s)" in result.stderr and "Traceback" not in result.stderr
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(out) == 5  # one output per input line, the blank line skipped
    assert "7946" not in out[0]["redacted"] and "<PHONE_1>" in out[0]["redacted"]
    assert out[1] == {"line": 2, "error": out[1]["error"]} and "JSON" in out[1]["error"]
    assert "Ana Silva" not in out[2]["redacted"] and "<PERSON_1>" in out[2]["redacted"]
    assert "tomorrow at 3" in out[2]["redacted"]  # must stay: times are not PII
    assert out[3]["line"] == 4 and '"text"' in out[3]["error"]
    assert out[4]["redacted"] == "" and out[4]["entities"] == []


def test_redact_jsonl_reads_standard_input(data_dir: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "run.py"), "redact", "--jsonl", "-"],
        input='{"text": "text Priya Nair at 4"}\n',
        capture_output=True, text=True, timeout=180, cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "VEIL_DATA_DIR": str(data_dir), "HOME": str(data_dir)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [record] = [json.loads(line) for line in done.stdout.splitlines()]
    assert "Priya" not in record["redacted"] and record["entities"][0]["text"] == "Priya Nair"


def test_ask_session_a_yes_adds_what_the_chat_held(data_dir: Path, tmp_path: Path) -> None:
    """From the command line as on the page: a start held for a yes is asked about, and the
    chat's next "yes" creates it at that start."""
    thread = tmp_path / "thread.txt"
    thread.write_text("Alex: can you do the transfer monday at 3am?\n", encoding="utf-8")
    common = ("--no-llm", "--now", "2026-11-24T10:00", "--tz", "Europe/Berlin", "--json")
    first = run_cli("ask", *common, "--session", "bank", "--thread", str(thread), "add this",
                    data_dir=data_dir)  # fmt: skip
    assert first.returncode == 0, first.stderr
    [held] = json.loads(first.stdout)["events"]
    assert held["status"] == "proposed" and held["held"] == "rare_hour"
    second = run_cli("ask", *common, "--session", "bank", "yes", data_dir=data_dir)
    assert second.returncode == 0, second.stderr
    [made] = json.loads(second.stdout)["events"]
    assert made["status"] == "created" and made["start"] == "2026-11-30T03:00:00+01:00"


def test_ask_session_continues_a_chat_the_page_shows(data_dir: Path) -> None:
    from memory.store import MemoryStore
    from web import create_app

    common = ("--no-llm", "--now", "2026-11-24T10:00", "--tz", "Europe/Berlin", "--json")
    first = run_cli(
        "ask", *common, "--session", "planning", "lunch with Karthik Rao thursday next week at 1",
        data_dir=data_dir,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    second = run_cli(
        "ask", *common, "--session", "planning", "dinner with Karthik Rao on friday at 7pm",
        data_dir=data_dir,
    )  # fmt: skip
    assert second.returncode == 0, second.stderr
    other = run_cli("ask", *common, "--session", "other", "coffee with Ana at 9 tomorrow",
                    data_dir=data_dir)  # fmt: skip
    assert other.returncode == 0, other.stderr

    store = MemoryStore(Database(data_dir / "veil.db"))
    chats = {s.title: s.id for s in store.list_sessions()}
    assert set(chats) == {"planning", "other"}  # the same name is the same chat
    planning = chats["planning"]
    said = [m.role for m in store.messages(planning)]
    assert said == ["user", "assistant", "user", "assistant"]
    # One name map for the chat: Karthik Rao is the same placeholder in both turns.
    assert store.load_map(planning).to_dict() and "Karthik Rao" in json.dumps(
        store.load_map(planning).to_dict()
    )
    assert [t.status for t in store.turns(planning)] == ["done", "done"]
    store.db.close()

    # By id, too; and the page renders the CLI's turns like its own.
    by_id = run_cli("ask", *common, "--session", planning, "what's on friday?", data_dir=data_dir)
    assert by_id.returncode == 0, by_id.stderr
    client = create_app({"TESTING": True, "DATA_DIR": str(data_dir), "NO_LLM": True}).test_client()
    turns = client.get(f"/api/sessions/{planning}").get_json()["turns"]
    assert len(turns) == 3
    first_answer = turns[0]["answer"]
    assert [e["status"] for e in first_answer["events"]] == ["created"]
    ics = [f for f in first_answer["files"] if f["type"] == "ics"]
    assert ics and client.get(ics[0]["url"]).status_code == 200
